package ncses_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/ncses"
	"github.com/citeq/citeq/internal/testenv"
)

func plan(t *testing.T, root string) ingest.Plan { return testenv.OnePlan(t, ncses.ABS, root) }

func letterCol(s string) int {
	n := 0
	for _, ch := range s {
		n = n*26 + int(ch-'A'+1)
	}
	return n
}

// TestValuesAndSuppressionAtoms re-reads every row's cell at the row and column it cites:
// a withheld cell (D) is a suppression atom with a null value, a published cell is its
// number, and every source is marked derived with the NCSES address.
func TestValuesAndSuppressionAtoms(t *testing.T) {
	raw := testenv.Raw(t)
	b, err := ncses.ABS.Build(plan(t, raw))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range b.Checks {
		if !g.Passed {
			t.Fatalf("gate %s failed: %s", g.Name, g.Detail)
		}
	}
	if b.AsOf != "2021-12-31" {
		t.Errorf("as_of %s", b.AsOf)
	}
	for _, s := range b.Sources {
		if !s.Derived || s.OriginalURL != "https://ncses.nsf.gov/surveys/annual-business-survey" {
			t.Errorf("source %s: derived %v, original %q", s.File, s.Derived, s.OriginalURL)
		}
	}
	sheets := map[string]*grid.Sheet{}
	suppressed := map[string]int{}
	for _, r := range b.Rows {
		file := r[testenv.Column(t, capability.RoboticsAdoption, capability.ColSourceFile)].(string)
		sh := sheets[file]
		if sh == nil {
			wb, err := grid.Open(filepath.Join(raw, filepath.FromSlash(ncses.ABSFolder), file))
			if err != nil {
				t.Fatal(err)
			}
			sh = wb.Sheets[0]
			sheets[file] = sh
		}
		line := int(r[testenv.Column(t, capability.RoboticsAdoption, capability.ColSourceRow)].(int64))
		lit := sh.Cell(line, letterCol(r[testenv.Column(t, capability.RoboticsAdoption, "source_column")].(string))).Value
		slot := lit
		if strings.HasPrefix(lit, "['") {
			slot = strings.TrimSpace(strings.SplitN(strings.TrimPrefix(lit, "['"), "'", 2)[0])
		}
		v, supp := r[testenv.Column(t, capability.RoboticsAdoption, "value")], r[testenv.Column(t, capability.RoboticsAdoption, "suppression")]
		switch {
		case slot == "D":
			if v != nil || supp != "D" {
				t.Fatalf("%s line %d: cell %q stored as value %v, suppression %v", file, line, lit, v, supp)
			}
			suppressed[file]++
		default:
			want, err := strconv.ParseFloat(strings.ReplaceAll(slot, ",", ""), 64)
			if err != nil || v != want || supp != nil {
				t.Fatalf("%s line %d: cell %q stored as value %v, suppression %v", file, line, lit, v, supp)
			}
		}
	}
	if n := suppressed["ncses_5704_robotics_production_use_by_industry_2016_18.csv"]; n != 23 || len(suppressed) != 1 {
		t.Errorf("suppression atoms %v, want the 23 D cells (on 19 lines) of table 5704", suppressed)
	}
}

// TestDamagedTables checks a text value cell fails cells_parse and a short table fails
// sheets_complete.
func TestDamagedTables(t *testing.T) {
	raw := testenv.Raw(t)
	const file = "ncses_11547_robotics_use_by_industry_2021.csv"
	for _, tc := range []struct {
		name, gate string
		edit       func(body string) string
	}{
		{"text in a value cell", "cells_parse", func(b string) string {
			return strings.Replace(b, `"['0.3', '&nbsp;']"`, `"['n/a', '&nbsp;']"`, 1)
		}},
		{"short table", "sheets_complete", func(b string) string {
			lines := strings.SplitAfter(b, "\n")
			return strings.Join(lines[:40], "")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), filepath.FromSlash(ncses.ABSFolder))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			body, err := os.ReadFile(filepath.Join(raw, filepath.FromSlash(ncses.ABSFolder), file))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, file), []byte(tc.edit(string(body))), 0o644); err != nil {
				t.Fatal(err)
			}
			b, err := ncses.ABS.Build(plan(t, filepath.Dir(filepath.Dir(dir))))
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
