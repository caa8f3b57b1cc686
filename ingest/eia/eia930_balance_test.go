package eia_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/eia"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/snapshots"
)

// balanceFixture is testdata/fixtures/eia/eia930_balance/EIA930_BALANCE_2024_Jul_Dec.csv: a
// file written in the layout of EIA's six-month BALANCE files, 12 lines of two balancing
// authorities (CISO, ERCO), thousands grouped with commas, one blank demand (CISO, hour
// ending 2024-11-03T10:00Z), and the hour clocks fell back on 2024-11-03, whose local time
// "11/03/2024 1:00:00 AM" each of them writes twice.
const balanceFixture = "EIA930_BALANCE_2024_Jul_Dec.csv"

// writeRaw writes files (raw-directory path → content) into a new raw directory.
func writeRaw(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for rel, b := range files {
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// calRegionCSV is a region CSV of EIA-930 (calRegionPath) holding three hours of CAL's
// 2024-11-03, those ending 08:00Z to 10:00Z; balanceHeader is a six-month file's header line.
const (
	calRegionPath = "eia/eia930/Demand_for_California_(region)_hourly_-_UTC_time.csv"
	calRegionCSV  = "Demand for California (region) hourly - UTC time\r\nhttps://www.eia.gov/opendata/qb.php?category=3389936&sdid=EBA.CAL-ALL.D.H\r\n" +
		"15:04:43 GMT-0500 (EST)\r\nSource: U.S. Energy Information Administration\r\nCategory,Series ID: EBA.CAL-ALL.D.H megawatthours\r\n" +
		"11/03/2024 10H,22000\r\n11/03/2024 09H,21000\r\n11/03/2024 08H,20000\r\n"
	balanceHeader = "Balancing Authority,Data Date,Hour Number,Local Time at End of Hour,UTC Time at End of Hour,Demand Forecast (MW),Demand (MW),Net Generation (MW),Total Interchange (MW)\r\n"
)

// servePromoted ingests files (raw-directory path → content) with power.demand's adapter,
// fails unless every snapshot is promoted, and serves the data directory.
func servePromoted(t *testing.T, files map[string][]byte) (*service.Service, []ingest.Outcome) {
	t.Helper()
	data := t.TempDir()
	outcomes, err := ingest.Run(writeRaw(t, files), &snapshots.Store{Dir: data}, []ingest.Adapter{eia.Demand}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outcomes {
		if o.Status != snapshots.Promoted {
			t.Fatalf("%s: %s %v", o.AsOf, o.Status, o.Reasons)
		}
	}
	svc, err := service.New(data)
	if err != nil {
		t.Fatal(err)
	}
	return svc, outcomes
}

func readFixture(t *testing.T, parts ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{testenv.RepoRoot(t)}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func demandGroups(t *testing.T, svc *service.Service, body string) (map[string]map[string]any, []any) {
	t.Helper()
	out, e := svc.QueryJSON(context.Background(), "power/demand", []byte(body))
	if e != nil {
		t.Fatalf("%s: %s", body, e.Message)
	}
	var ans struct {
		Rows    []map[string]any `json:"rows"`
		Summary struct {
			Notes []any `json:"notes"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(out, &ans); err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]any{}
	for _, r := range ans.Rows {
		key := ""
		if g, ok := r["group"].(map[string]any); ok {
			key, _ = g["respondent"].(string)
		}
		got[key] = r
	}
	return got, ans.Summary.Notes
}

// metric reads metric m of an answer row, wherever the row keeps its metrics.
func metric(t *testing.T, row map[string]any, m string) float64 {
	t.Helper()
	if ms, ok := row["metrics"].(map[string]any); ok {
		if v, ok := ms[m].(float64); ok {
			return v
		}
	}
	if v, ok := row[m].(float64); ok {
		return v
	}
	t.Fatalf("no metric %s in %v", m, row)
	return 0
}

// TestBalanceFile ingests the six-month fixture into power.demand and checks the figures
// computed by hand from its lines: CISO 25,012 + 20,103 + 19,587 + 19,002 + 21,456 = 105,160
// MWh over 5 hours present of 6 lines; ERCO 52,340 + 38,120 + 37,004 + 36,512 + 36,311 +
// 41,227 = 241,514 MWh over 6; as_of 2025-01-01, the UTC date of the latest hour ending
// (01/01/2025 8:00:00 AM); the two hours whose local time reads 1:00:00 AM on 2024-11-03 are
// two rows, told apart by their UTC hour.
func TestBalanceFile(t *testing.T) {
	raw := writeRaw(t, map[string][]byte{
		eia.BalanceFolder + "/" + balanceFixture: readFixture(t, "testdata", "fixtures", "eia", "eia930_balance", balanceFixture),
	})
	data := t.TempDir()
	outcomes, err := ingest.Run(raw, &snapshots.Store{Dir: data}, []ingest.Adapter{eia.Demand}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(outcomes) != 1 || outcomes[0].Status != snapshots.Promoted {
		t.Fatalf("outcomes %+v", outcomes)
	}
	o := outcomes[0]
	if o.AsOf != "2025-01-01" || o.Rows != 12 {
		t.Fatalf("as_of %s with %d rows, want 2025-01-01 with 12", o.AsOf, o.Rows)
	}
	src := o.Manifest.Sources[0]
	if src.SourceID != "eia930_balance" || src.URL != "https://www.eia.gov/electricity/gridmonitor/sixMonthFiles/"+balanceFixture || src.HeaderRows["csv"] != 1 {
		t.Errorf("source %+v", src)
	}
	svc, err := service.New(data)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := demandGroups(t, svc, `{"group_by":["respondent"]}`)
	for _, tc := range []struct {
		ba             string
		sum            float64
		present, lines float64
	}{
		{"CISO", 105160, 5, 6},
		{"ERCO", 241514, 6, 6},
	} {
		r := got[tc.ba]
		if r == nil {
			t.Fatalf("no group %s in %v", tc.ba, got)
		}
		if s, p, n := metric(t, r, "demand_mwh"), metric(t, r, "hours_present"), metric(t, r, "source_record_count"); s != tc.sum || p != tc.present || n != tc.lines {
			t.Errorf("%s: demand %v over %v hours present of %v lines, want %v over %v of %v", tc.ba, s, p, n, tc.sum, tc.present, tc.lines)
		}
	}
	// The repeated local hour: two UTC hours, two rows.
	got, _ = demandGroups(t, svc, `{"filters":{"respondent":"CISO","hour_ending_utc":["2024-11-03T08:00:00Z","2024-11-03T09:00:00Z"]},"group_by":["respondent"]}`)
	if r := got["CISO"]; r == nil || metric(t, r, "source_record_count") != 2 || metric(t, r, "demand_mwh") != 20103+19587 {
		t.Errorf("the hours ending 08:00Z and 09:00Z of 2024-11-03 (both local 1:00:00 AM): %v", got)
	}
	// A UTC month the half-year covers in part is said so, with the file that completes it.
	_, notes := demandGroups(t, svc, `{"filters":{"respondent":"CISO","utc_month":"2024-07"},"group_by":["respondent"]}`)
	b, _ := json.Marshal(notes)
	if !strings.Contains(string(b), `"partial_period"`) || !strings.Contains(string(b), "EIA930_BALANCE_2024_Jan_Jun.csv") {
		t.Errorf("July 2024 of CISO, one hour of it in the file: notes %s", b)
	}
}

// TestBalanceFileRenamedHeader: a file whose demand column is labelled otherwise than EIA's
// ("Demand (MWh)") is not read by position: the headers gate rejects it.
func TestBalanceFileRenamedHeader(t *testing.T) {
	raw := writeRaw(t, map[string][]byte{
		eia.BalanceFolder + "/" + balanceFixture: readFixture(t, "ingest", "eia", "testdata", "eia930_balance_renamed", balanceFixture),
	})
	outcomes, err := ingest.Run(raw, &snapshots.Store{Dir: t.TempDir()}, []ingest.Adapter{eia.Demand}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(outcomes) != 1 || outcomes[0].Status != snapshots.Rejected {
		t.Fatalf("outcomes %+v", outcomes)
	}
	var failed []string
	for _, g := range outcomes[0].Manifest.Gates {
		if !g.Passed {
			failed = append(failed, g.Name+": "+g.Detail)
		}
	}
	if len(failed) == 0 || !strings.HasPrefix(failed[0], "headers_present") || !strings.Contains(failed[0], "Demand (MW)") {
		t.Fatalf("failed gates %v", failed)
	}
}

// TestBalanceRestatesRegionCSV: a region CSV downloaded on 2024-11-03 and a six-month file
// (as_of 2025-01-01) that publishes two of its hours again, one with another value, are two
// documents of power.demand: at 2024-11-03 the CSV alone (20,000 + 21,000 + 22,000 = 63,000
// MWh); at 2025-01-01 each hour both publish is served from the six-month file (20,500 +
// 21,000), the hour only the CSV has from it (22,000), and the file's own later hour (23,000):
// 86,500 MWh over 4 hours, the revised hour noted with the CSV's line cited beside it.
func TestBalanceRestatesRegionCSV(t *testing.T) {
	six := balanceHeader +
		"CAL,11/03/2024,1,11/03/2024 1:00:00 AM,11/03/2024 8:00:00 AM,\"20,000\",\"20,500\",\"19,000\",\"-1,500\"\r\n" +
		"CAL,11/03/2024,2,11/03/2024 1:00:00 AM,11/03/2024 9:00:00 AM,\"20,000\",\"21,000\",\"19,000\",\"-2,000\"\r\n" +
		"CAL,12/31/2024,24,01/01/2025 12:00:00 AM,01/01/2025 8:00:00 AM,\"20,000\",\"23,000\",\"21,000\",\"-2,000\"\r\n"
	svc, outcomes := servePromoted(t, map[string][]byte{calRegionPath: []byte(calRegionCSV), eia.BalanceFolder + "/" + balanceFixture: []byte(six)})
	if len(outcomes) != 2 || outcomes[0].AsOf != "2024-11-03" || outcomes[1].AsOf != "2025-01-01" {
		t.Fatalf("outcomes %+v", outcomes)
	}
	if len(outcomes[1].Manifest.Revisions) != 1 || outcomes[1].Rows != 4 {
		t.Fatalf("2025-01-01: %d rows, revisions %+v", outcomes[1].Rows, outcomes[1].Manifest.Revisions)
	}
	got, _ := demandGroups(t, svc, `{"as_of":"2024-11-03","group_by":["respondent"]}`)
	if r := got["CAL"]; r == nil || metric(t, r, "demand_mwh") != 63000 || metric(t, r, "source_record_count") != 3 {
		t.Errorf("as_of 2024-11-03: %v", got)
	}
	got, notes := demandGroups(t, svc, `{"as_of":"2025-01-01","group_by":["respondent"]}`)
	if r := got["CAL"]; r == nil || metric(t, r, "demand_mwh") != 86500 || metric(t, r, "source_record_count") != 4 {
		t.Errorf("as_of 2025-01-01: %v", got)
	}
	b, _ := json.Marshal(notes)
	if !strings.Contains(string(b), `"release_revised"`) || !strings.Contains(string(b), "Demand_for_California_(region)_hourly_-_UTC_time.csv") {
		t.Errorf("the revised hour is not noted with the CSV's line: %s", b)
	}
}

// TestBalanceHalfYearsComplement: the UTC day 2024-07-01 of ERCO (Central time, UTC-5 in
// July) is split between two files, its hours ending 01:00Z to 05:00Z in the first half-year's
// file (local June 30) and 06:00Z to 24:00Z in the second's. With the second alone the day is
// a partial period of ERCO (19 of its 24 hours); with both it is complete and not noted (the
// month and the year still are), and its 24 hours sum to 24 × 1,000 + (1 + ... + 24) =
// 24,300 MWh.
func TestBalanceHalfYearsComplement(t *testing.T) {
	header := "Balancing Authority,Data Date,Hour Number,Local Time at End of Hour,UTC Time at End of Hour,Demand (MW)\n"
	first, second := header, header
	for h := 1; h <= 24; h++ {
		end := time.Date(2024, 7, 1, h, 0, 0, 0, time.UTC)
		local := end.Add(-5 * time.Hour)
		line := fmt.Sprintf("ERCO,%s,%d,%s,%s,\"1,%03d\"\n", local.Add(-time.Hour).Format("01/02/2006"), (local.Hour()+23)%24+1,
			local.Format("01/02/2006 3:04:05 PM"), end.Format("01/02/2006 3:04:05 PM"), h)
		if h <= 5 {
			first += line
		} else {
			second += line
		}
	}
	day := `{"filters":{"respondent":"ERCO"},"utc_date_from":"2024-07-01","utc_date_to":"2024-07-01","group_by":["respondent"]}`
	for _, tc := range []struct {
		name    string
		files   map[string][]byte
		hours   float64
		partial bool
	}{
		{"the second half-year alone", map[string][]byte{eia.BalanceFolder + "/EIA930_BALANCE_2024_Jul_Dec.csv": []byte(second)}, 19, true},
		{"both half-years", map[string][]byte{eia.BalanceFolder + "/EIA930_BALANCE_2024_Jul_Dec.csv": []byte(second),
			eia.BalanceFolder + "/EIA930_BALANCE_2024_Jan_Jun.csv": []byte(first)}, 24, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, _ := servePromoted(t, tc.files)
			got, notes := demandGroups(t, svc, day)
			r := got["ERCO"]
			if r == nil || metric(t, r, "hours_present") != tc.hours {
				t.Fatalf("hours of the day: %v", got)
			}
			if tc.hours == 24 && metric(t, r, "demand_mwh") != 24300 {
				t.Errorf("the day's demand %v, want 24,300", metric(t, r, "demand_mwh"))
			}
			// The month and the year stay partial: the files hold one day of them.
			b, _ := json.Marshal(notes)
			if partial := strings.Contains(string(b), `"period":"the UTC day 2024-07-01 of ERCO"`); partial != tc.partial {
				t.Errorf("the day noted partial %v, want %v: %s", partial, tc.partial, b)
			}
			if !strings.Contains(string(b), `"period":"the UTC month 2024-07 of ERCO"`) {
				t.Errorf("the month, 24 of its 744 hours, is not noted partial: %s", b)
			}
		})
	}
}

// TestRegionPartialDayIsTheRegions: a region CSV that holds only part of a UTC day (CAL's
// 2024-11-03, three hours) makes that day partial for CAL alone: an answer over another
// respondent's complete day (CISO's 24 hours of 2024-11-03 from a six-month file) carries no
// partial_period note of the day (its month and year, which the fixture holds in part, are
// CISO's own), while CAL's answer does, naming CAL.
func TestRegionPartialDayIsTheRegions(t *testing.T) {
	six := balanceHeader
	for h := 1; h <= 24; h++ {
		// CISO's hours ending 01:00Z to 24:00Z of 2024-11-03 (the local times are not read).
		utc := fmt.Sprintf("11/03/2024 %d:00:00 %s", (h+11)%12+1, map[bool]string{true: "AM", false: "PM"}[h < 12 || h == 24])
		if h == 24 {
			utc = "11/04/2024 12:00:00 AM"
		}
		six += fmt.Sprintf("CISO,11/02/2024,%d,11/02/2024 6:00:00 PM,%s,\"20,000\",\"1,000\",\"19,000\",\"-1,500\"\r\n", h, utc)
	}
	svc, _ := servePromoted(t, map[string][]byte{calRegionPath: []byte(calRegionCSV), eia.BalanceFolder + "/" + balanceFixture: []byte(six)})
	got, notes := demandGroups(t, svc, `{"filters":{"respondent":"CISO"},"utc_date_from":"2024-11-03","utc_date_to":"2024-11-03","group_by":["respondent"]}`)
	if r := got["CISO"]; r == nil || metric(t, r, "demand_mwh") != 24000 {
		t.Fatalf("CISO's 2024-11-03: %v", got)
	}
	b, _ := json.Marshal(notes)
	if strings.Contains(string(b), "Demand_for_California") || strings.Contains(string(b), "of CAL") || strings.Contains(string(b), `"period":"the UTC day 2024-11-03`) {
		t.Errorf("CISO's complete day carries CAL's partial-day note: %s", b)
	}
	_, notes = demandGroups(t, svc, `{"filters":{"respondent":"CAL"},"utc_date_from":"2024-11-03","utc_date_to":"2024-11-03","group_by":["respondent"]}`)
	b, _ = json.Marshal(notes)
	if !strings.Contains(string(b), `"period":"the UTC day 2024-11-03 of CAL"`) {
		t.Errorf("CAL's partial day is not noted as CAL's: %s", b)
	}
}
