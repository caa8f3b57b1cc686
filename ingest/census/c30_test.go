package census_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/census"
	"github.com/citeq/citeq/internal/testenv"
)

func c30Plan(t *testing.T, root string) ingest.Plan { return testenv.OnePlan(t, census.C30, root) }

func buildC30(t *testing.T) *ingest.Build {
	t.Helper()
	b, err := census.C30.Build(c30Plan(t, testenv.Raw(t)))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range b.Checks {
		if !g.Passed {
			t.Fatalf("gate %s failed: %s", g.Name, g.Detail)
		}
	}
	return b
}

// TestC30ValuesAreTheirCells re-reads every value at the row and column it cites: the
// conformance suite cannot, since one sheet row holds the values of many lines.
func TestC30ValuesAreTheirCells(t *testing.T) {
	b := buildC30(t)
	c := capability.AIInfrastructureConstruction
	sheets := map[string]*grid.Sheet{}
	raw := filepath.Join(testenv.Raw(t), filepath.FromSlash(census.C30Folder))
	for _, r := range b.Rows {
		file := r[testenv.Column(t, c, capability.ColSourceFile)].(string)
		sh := sheets[file]
		if sh == nil {
			wb, err := grid.Open(filepath.Join(raw, file))
			if err != nil {
				t.Fatal(err)
			}
			sh = wb.Sheets[0]
			sheets[file] = sh
		}
		row := int(r[testenv.Column(t, c, capability.ColSourceRow)].(int64))
		letter := r[testenv.Column(t, c, "source_column")].(string)
		n := 0
		for _, ch := range letter {
			n = n*26 + int(ch-'A'+1)
		}
		lit := sh.Cell(row, n).Value
		want, err := strconv.ParseFloat(lit, 64)
		if got := r[testenv.Column(t, c, "value_musd")]; err != nil || got != want {
			t.Fatalf("%s row %d column %s: value %v, cell %q", file, row, letter, got, lit)
		}
	}
}

// TestC30Lines checks the lines this capability exists for and the hierarchy: a line's
// children never add up to more than the line (beyond rounding).
func TestC30Lines(t *testing.T) {
	b := buildC30(t)
	c := capability.AIInfrastructureConstruction
	type key struct{ sector, path, period string }
	val := map[key]float64{}
	children := map[key][]float64{}
	for _, r := range b.Rows {
		s, p, per := r[testenv.Column(t, c, "sector")].(string), r[testenv.Column(t, c, "line_path")].(string), r[testenv.Column(t, c, "period")].(string)
		v := r[testenv.Column(t, c, "value_musd")].(float64)
		val[key{s, p, per}] = v
		if i := strings.LastIndex(p, " > "); i > 0 {
			k := key{s, p[:i], per}
			children[k] = append(children[k], v)
		}
	}
	for _, tc := range []struct {
		sector, path, period string
		want                 float64
	}{
		{"private", "Total Private Construction > Nonresidential > Office > Data center", "2026-05", 59307},
		{"private", "Total Private Construction > Nonresidential > Office > Data center", "2026-04", 58977},
		{"private", "Total Private Construction > Nonresidential > Office > Data center", "2014-01", 1637},
		{"private", "Total Private Construction > Nonresidential > Manufacturing > Computer/ electronic/ electrical", "2026-05", -1},
		{"public", "Total Public Construction", "1993-01", 113906},
	} {
		got, ok := val[key{tc.sector, tc.path, tc.period}]
		if !ok || (tc.want >= 0 && got != tc.want) {
			t.Errorf("%s %s %s = %v (present %v), want %v", tc.sector, tc.path, tc.period, got, ok, tc.want)
		}
	}
	if _, ok := val[key{"private", "Total Private Construction > Nonresidential > Office > Data center", "2013-12"}]; ok {
		t.Error("Data center has a value for 2013-12, where the workbook's cell is blank")
	}
	for k, vs := range children {
		parent, ok := val[k]
		if !ok || k.path == "Total Private Construction" {
			continue // the private total's two parts add up within a few hundred (rounding of SAAR)
		}
		sum := 0.0
		for _, v := range vs {
			sum += v
		}
		if sum > parent+float64(len(vs)) {
			t.Errorf("%s %s %s: children sum to %v, more than the line's %v", k.sector, k.path, k.period, sum, parent)
		}
	}
}

// TestC30Damaged checks a text value cell fails cells_parse and a sheet without its source
// line fails sheets_complete.
func TestC30Damaged(t *testing.T) {
	raw := testenv.Raw(t)
	for _, tc := range []struct {
		name, gate string
		edit       func(x *testenv.Cells)
	}{
		{"text in a value cell", "cells_parse", func(x *testenv.Cells) { x.Set("Private SA", 10, 10, "n/a") }},
		{"no source line", "sheets_complete", func(x *testenv.Cells) { x.Truncate("Private SA", 407) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), filepath.FromSlash(census.C30Folder))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			x := testenv.ReadCells(t, filepath.Join(raw, filepath.FromSlash(census.C30Folder), "privsatime.xlsx"))
			tc.edit(x)
			x.Write(t, filepath.Join(dir, "privsatime.xlsx"))
			b, err := census.C30.Build(c30Plan(t, filepath.Dir(filepath.Dir(dir))))
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range b.Checks {
				if g.Name == tc.gate && g.Passed {
					t.Errorf("%s passed: %s", g.Name, g.Detail)
				}
			}
		})
	}
}

// TestC30IgnoresDerivedExtract checks the plan holds the agency's two workbooks and nothing
// of census_c30_derived, the third party's extract of a later release.
func TestC30IgnoresDerivedExtract(t *testing.T) {
	p := c30Plan(t, testenv.Raw(t))
	var names []string
	for _, f := range p.Files {
		names = append(names, filepath.Base(f.Path))
		if strings.Contains(filepath.ToSlash(f.Path), "census_c30_derived") || f.Derived {
			t.Errorf("planned %s", f.Path)
		}
	}
	if strings.Join(names, ",") != "privsatime.xlsx,pubsatime.xlsx" {
		t.Errorf("planned %v", names)
	}
}
