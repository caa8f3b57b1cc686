package market_test

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/iso/market"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/snapshots"
)

// ercotBuilds caches one build per real workbook: parsing them is the slow part.
var (
	ercotOnce   sync.Once
	ercotBuilds map[string]*ingest.Build
	ercotErr    error
)

func buildERCOT(t *testing.T) map[string]*ingest.Build {
	t.Helper()
	raw := testenv.Raw(t)
	ercotOnce.Do(func() {
		a := market.ERCOTPrices
		plans, err := a.Plan(ingest.NewFinder(raw, a.Folders()))
		if err != nil {
			ercotErr = err
			return
		}
		ercotBuilds = map[string]*ingest.Build{}
		for _, p := range plans {
			b, err := a.Build(p)
			if err != nil {
				ercotErr = err
				return
			}
			ercotBuilds[filepath.Base(p.Files[0].Path)] = b
		}
	})
	if ercotErr != nil {
		t.Fatal(ercotErr)
	}
	if len(ercotBuilds) != 2 {
		t.Fatalf("%d ERCOT workbooks built, want 2", len(ercotBuilds))
	}
	return ercotBuilds
}

// ercotRow is one built row, by field name.
type ercotRow map[string]any

func rowsOf(b *ingest.Build, keep func(ercotRow) bool) []ercotRow {
	cols := snapshots.Columns(capability.PowerPriceERCOT)
	var out []ercotRow
	for _, r := range b.Rows {
		m := ercotRow{}
		for i, f := range cols {
			m[f.Name] = r[i]
		}
		if keep(m) {
			out = append(out, m)
		}
	}
	return out
}

func TestERCOTWorkbooks(t *testing.T) {
	t.Parallel()
	builds := buildERCOT(t)
	tests := []struct {
		file      string
		asOf      string
		rows      int
		firstDate string
	}{
		{"DAMLZHBSPP_2024.xlsx", "2024-12-31", 131760, "2024-01-01"},
		{"DAMLZHBSPP_2025_partial.xlsx", "2025-05-17", 49305, "2025-01-01"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			b := builds[tc.file]
			if b.AsOf != tc.asOf || len(b.Rows) != tc.rows {
				t.Errorf("as_of %s with %d rows, want %s with %d", b.AsOf, len(b.Rows), tc.asOf, tc.rows)
			}
			for _, g := range b.Checks {
				if !g.Passed {
					t.Errorf("gate %s failed: %s", g.Name, g.Detail)
				}
			}
			if len(b.Sources) != 1 || b.Sources[0].File != tc.file || b.Sources[0].HeaderRows["Jan"] != 1 {
				t.Errorf("sources %+v", b.Sources)
			}
		})
	}
}

// TestERCOTDaylightSaving checks the real spring-forward and fall-back days of both workbooks
// (the 2025 workbook ends on 17 May, before the fall-back day): the hours each settlement
// point has, which hour is absent or repeated, and the UTC instants.
func TestERCOTDaylightSaving(t *testing.T) {
	t.Parallel()
	builds := buildERCOT(t)
	type hour struct {
		he, flag, start, end, offset string
	}
	tests := []struct {
		name, file, date string
		hours            int
		missing          string // hour ending absent that day
		check            []hour
	}{
		{"spring 2024", "DAMLZHBSPP_2024.xlsx", "2024-03-10", 23, "03:00", []hour{
			{"02:00", "N", "2024-03-10T07:00:00Z", "2024-03-10T08:00:00Z", "-06:00"},
			{"04:00", "N", "2024-03-10T08:00:00Z", "2024-03-10T09:00:00Z", "-05:00"},
			{"24:00", "N", "2024-03-11T04:00:00Z", "2024-03-11T05:00:00Z", "-05:00"},
		}},
		{"fall 2024", "DAMLZHBSPP_2024.xlsx", "2024-11-03", 25, "", []hour{
			{"01:00", "N", "2024-11-03T05:00:00Z", "2024-11-03T06:00:00Z", "-05:00"},
			{"02:00", "N", "2024-11-03T06:00:00Z", "2024-11-03T07:00:00Z", "-05:00"},
			{"02:00", "Y", "2024-11-03T07:00:00Z", "2024-11-03T08:00:00Z", "-06:00"},
			{"03:00", "N", "2024-11-03T08:00:00Z", "2024-11-03T09:00:00Z", "-06:00"},
		}},
		{"spring 2025", "DAMLZHBSPP_2025_partial.xlsx", "2025-03-09", 23, "03:00", []hour{
			{"02:00", "N", "2025-03-09T07:00:00Z", "2025-03-09T08:00:00Z", "-06:00"},
			{"04:00", "N", "2025-03-09T08:00:00Z", "2025-03-09T09:00:00Z", "-05:00"},
		}},
		{"ordinary day 2025", "DAMLZHBSPP_2025_partial.xlsx", "2025-05-17", 24, "", []hour{
			{"01:00", "N", "2025-05-17T05:00:00Z", "2025-05-17T06:00:00Z", "-05:00"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			day := rowsOf(builds[tc.file], func(r ercotRow) bool { return r["delivery_date"] == tc.date })
			perPoint := map[any]int{}
			for _, r := range day {
				perPoint[r["settlement_point"]]++
				if r["hour_ending"] == tc.missing {
					t.Errorf("hour ending %s is present on %s", tc.missing, tc.date)
				}
			}
			if len(perPoint) != 15 {
				t.Errorf("%d settlement points, want 15", len(perPoint))
			}
			for p, n := range perPoint {
				if n != tc.hours {
					t.Errorf("%s has %d hours, want %d", p, n, tc.hours)
				}
			}
			for _, h := range tc.check {
				found := 0
				for _, r := range day {
					if r["settlement_point"] != "HB_NORTH" || r["hour_ending"] != h.he || r["repeated_hour_flag"] != h.flag {
						continue
					}
					found++
					if r["interval_start_utc"] != h.start || r["interval_end_utc"] != h.end || r["utc_offset"] != h.offset {
						t.Errorf("%s %s: %v to %v (%v), want %s to %s (%s)", h.he, h.flag, r["interval_start_utc"], r["interval_end_utc"], r["utc_offset"], h.start, h.end, h.offset)
					}
				}
				if found != 1 {
					t.Errorf("HB_NORTH %s flag %s: %d rows, want 1", h.he, h.flag, found)
				}
			}
		})
	}
}
