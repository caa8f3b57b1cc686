package census_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/census"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/snapshots"
)

// buildOne writes body as name into folder of a new raw directory, plans it with a and builds
// the one plan; it returns the build and its gates by name (passed or not).
func buildOne(t *testing.T, a census.Trade, folder, name, body string) (*ingest.Build, map[string]bool) {
	t.Helper()
	raw := t.TempDir()
	dir := filepath.Join(raw, filepath.FromSlash(folder))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	plans, err := a.Plan(ingest.NewFinder(raw, a.Folders()))
	if err != nil || len(plans) != 1 {
		t.Fatalf("plans %+v, err %v", plans, err)
	}
	testenv.HashPlan(t, &plans[0])
	b, err := a.Build(plans[0])
	if err != nil {
		t.Fatal(err)
	}
	gates := map[string]bool{}
	for _, g := range b.Checks {
		gates[g.Name] = g.Passed
	}
	for _, g := range snapshots.RunGates(snapshots.GateInput{Cap: a.Capability(), Rows: b.Rows, Sources: b.Sources, Ranges: b.Ranges, Required: b.Required}) {
		gates[g.Name] = g.Passed
	}
	return b, gates
}

// field is the value of field on row i of b.
func field(b *ingest.Build, c *capability.Capability, i int, name string) any {
	for j, f := range snapshots.Columns(c) {
		if f.Name == name {
			return b.Rows[i][j]
		}
	}
	return nil
}

const exportFile = "usatradeonline_imports_hs4_china_2024-01_2026-03.csv"

// export is a USA Trade Online export as the report page writes it (CRLF, every field
// quoted, the header's trailing comma), with the given lines after the header.
func export(title, date string, lines ...string) string {
	var b strings.Builder
	for _, l := range []string{title, date} {
		if l != "" {
			b.WriteString(`"` + l + "\"\r\n")
		}
	}
	b.WriteString(`"Commodity","Country","Time","Customs Value (Gen) ($US)",` + "\r\n")
	for _, l := range lines {
		b.WriteString(l + "\r\n")
	}
	return b.String()
}

const (
	exportTitle = "Standard Report - Imports"
	exportDate  = "Current date: 05/31/2026 5:56 AM (Eastern Daylight Time)"
	line8486    = `"8486 Mach,app Manuf Semicon Boules Etc;c84 Nt 11(c);pt","China","January 2024","60,970,729"`
	line8486b   = `"8486 Mach,app Manuf Semicon Boules Etc;c84 Nt 11(c);pt","China","March 2026","42,538,705"`
	line0101    = `"0101 Horses, Asses, Mules And Hinnies, Live","China","February 2024","11,812"`
)

// TestTradeExport reads USA Trade Online exports written in the report's layout: the lines of
// the capability's headings become rows (values without their thousands separators, the
// export's date as as_of), other headings are counted, and each fault fails its own gate.
func TestTradeExport(t *testing.T) {
	cases := []struct {
		name string
		body string
		rows int
		asOf string
		fail string // the one gate that fails ("" none)
	}{
		{"as published", export(exportTitle, exportDate, line0101, line8486, line8486b), 2, "2026-05-31", ""},
		{"a World Total line", export(exportTitle, exportDate, line8486, strings.Replace(line8486b, `"China"`, `"World Total"`, 1)), 1, "2026-05-31", "cells_parse"},
		{"separators misplaced", export(exportTitle, exportDate, line8486, strings.Replace(line8486b, "42,538,705", "4,2538,705", 1)), 2, "2026-05-31", "cells_parse"},
		{"a month not spelled out", export(exportTitle, exportDate, line8486, strings.Replace(line8486b, "March 2026", "2026-03", 1)), 1, "2026-05-31", "cells_parse"},
		{"no line of the heading", export(exportTitle, exportDate, line0101), 0, "2026-05-31", "sheets_complete"},
		{"date line missing", export(exportTitle, "", line8486, line8486b), 2, "1900-01-01", "headers_present"},
		{"another report's title", export("Standard Report - Exports", exportDate, line8486), 1, "2026-05-31", "headers_present"},
	}
	c := capability.AIInfrastructureEquipmentTrade
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, gates := buildOne(t, census.EquipmentTrade(), census.TradeFolder, exportFile, tc.body)
			if len(b.Rows) != tc.rows || b.AsOf != tc.asOf {
				t.Errorf("%d rows as of %s, want %d as of %s", len(b.Rows), b.AsOf, tc.rows, tc.asOf)
			}
			for _, g := range []string{"headers_present", "cells_parse", "sheets_complete"} {
				if want := g != tc.fail; gates[g] != want {
					t.Errorf("gate %s passed %v, want %v", g, gates[g], want)
				}
			}
			if tc.fail == "" {
				for i, want := range []any{60970729.0, 42538705.0} {
					if got := field(b, c, i, "general_imports_usd"); got != want {
						t.Errorf("row %d: %v, want %v", i, got, want)
					}
				}
				if field(b, c, 1, "period") != "2026-03" || field(b, c, 1, "commodity_level") != "HS4" || field(b, c, 1, "country_code") != nil ||
					field(b, c, 1, "value_unit") != capability.TradeUSDHS4 || field(b, c, 1, "source_row_number") != int64(6) {
					t.Errorf("row 1: %v", b.Rows[1])
				}
			}
		})
	}
}

const excerptFile = "census_api_imports_hs854232_gen_val_mo_by_country_2026-04_2026-06_EXCERPT.csv"

// excerpt is a transcription of API answers as the collector writes it.
func excerpt(lines ...string) string {
	return "period,source,metric,value,value_wda,meta\r\n" + strings.Join(lines, "\r\n") + "\r\n"
}

var excerptLines = []string{
	"2026-04,census,us_imports_memory_value:5830,177976852,,TAIWAN",
	`2026-04,census,us_imports_memory_value:5800,303912692,,"KOREA, SOUTH"`,
	"2026-04,census,us_imports_memory_value:-,481889544,,TOTAL FOR ALL COUNTRIES",
	"2026-04,census,us_imports_memory_value:5XXX,481889544,,ASIA",
	"2026-04,census,us_imports_memory_value:0026,481889544,,APEC",
}

func replaced(i int, old, new string) []string {
	out := append([]string(nil), excerptLines...)
	out[i] = strings.Replace(out[i], old, new, 1)
	return out
}

// TestTradeExcerpt reads transcriptions of API answers: every line a row, the commodity the
// file's name gives, countries told from aggregates by their code, as_of the first day of the
// latest month, and each fault failing its own gate.
func TestTradeExcerpt(t *testing.T) {
	cases := []struct {
		name  string
		lines []string
		rows  int
		fail  string
	}{
		{"as published", excerptLines, 5, ""},
		{"a country's value changed", replaced(0, "177976852", "177976853"), 5, "totals_reconcile"},
		{"not a Census line", replaced(4, ",census,", ",bls,"), 4, "cells_parse"},
		{"a code that is no CTY_CODE", replaced(4, ":0026,", ":AP,"), 4, "cells_parse"},
		{"a value that is not a number", replaced(3, "481889544", "n/a"), 5, "cells_parse"},
	}
	c := capability.AIInfrastructureTrade
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, gates := buildOne(t, census.ChipTrade(), census.TradeDerivedFolder, excerptFile, excerpt(tc.lines...))
			if len(b.Rows) != tc.rows || b.AsOf != "2026-04-01" {
				t.Errorf("%d rows as of %s, want %d as of 2026-04-01", len(b.Rows), b.AsOf, tc.rows)
			}
			for _, g := range []string{"headers_present", "cells_parse", "totals_reconcile"} {
				if want := g != tc.fail; gates[g] != want {
					t.Errorf("gate %s passed %v, want %v", g, gates[g], want)
				}
			}
			if tc.fail != "" {
				return
			}
			kinds := []string{"country", "country", "all_countries_total", "continent", "country_grouping"}
			for i, k := range kinds {
				if field(b, c, i, "country_kind") != k || field(b, c, i, "commodity") != "854232" || field(b, c, i, "commodity_level") != "HS6" {
					t.Errorf("row %d: %v", i, b.Rows[i])
				}
			}
			if field(b, c, 1, "country_name") != "KOREA, SOUTH" || field(b, c, 1, "country_code") != "5800" {
				t.Errorf("row 1: %v", b.Rows[1])
			}
			src := b.Sources[0]
			if !src.Derived || src.OriginalURL != "https://api.census.gov/data/timeseries/intltrade/imports/hs?get=CTY_CODE,CTY_NAME,GEN_VAL_MO&I_COMMODITY=854232&time=2026-04" {
				t.Errorf("source: derived %v, original %s", src.Derived, src.OriginalURL)
			}
		})
	}
}

// TestTradePlans plans the real files: each document its own snapshot, as of its own date;
// the chip adapter reads the export and the transcription of 854232, the equipment adapter
// the export only, and the robot adapter neither (the export's HS4 headings cannot hold the
// subheading 847950), so robotics.trade stays unserved.
func TestTradePlans(t *testing.T) {
	raw := testenv.Raw(t)
	for _, tc := range []struct {
		a     census.Trade
		files []string
		asOf  []string
	}{
		{census.ChipTrade(), []string{"usatradeonline_imports_hs4_china_2024-01_2026-03.csv", "census_api_imports_hs854232_gen_val_mo_by_country_2026-04_2026-06_EXCERPT.csv"}, []string{"2026-05-31", "2026-06-01"}},
		{census.EquipmentTrade(), []string{"usatradeonline_imports_hs4_china_2024-01_2026-03.csv"}, []string{"2026-05-31"}},
		{census.RobotTrade(), nil, nil},
	} {
		t.Run(tc.a.Capability().ID, func(t *testing.T) {
			plans, err := tc.a.Plan(ingest.NewFinder(raw, tc.a.Folders()))
			if err != nil || len(plans) != len(tc.files) {
				t.Fatalf("%d plans, want %d (%v)", len(plans), len(tc.files), err)
			}
			for i, p := range plans {
				testenv.HashPlan(t, &p)
				b, err := tc.a.Build(p)
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Files) != 1 || filepath.Base(p.Files[0].Path) != tc.files[i] || p.AsOfHint != tc.asOf[i] || b.AsOf != tc.asOf[i] {
					t.Errorf("plan %d: %s, hint %s, as_of %s; want %s as of %s", i, filepath.Base(p.Files[0].Path), p.AsOfHint, b.AsOf, tc.files[i], tc.asOf[i])
				}
				for _, g := range b.Checks {
					if !g.Passed {
						t.Errorf("%s: gate %s failed: %s", tc.files[i], g.Name, g.Detail)
					}
				}
			}
		})
	}
}
