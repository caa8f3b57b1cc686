package fred_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fred"
	"github.com/citeq/citeq/internal/testenv"
)

func plan(t *testing.T, root string) ingest.Plan { return testenv.OnePlan(t, fred.G17, root) }

// TestVintagesPerFile checks each series' rows carry their own file's vintage and the
// snapshot is dated by the latest observation.
func TestVintagesPerFile(t *testing.T) {
	b, err := fred.G17.Build(plan(t, testenv.Raw(t)))
	if err != nil {
		t.Fatal(err)
	}
	if b.AsOf != "2026-07-01" {
		t.Errorf("as_of %s, want 2026-07-01", b.AsOf)
	}
	for _, g := range b.Checks {
		if !g.Passed {
			t.Errorf("gate %s failed: %s", g.Name, g.Detail)
		}
	}
	got := map[string]map[string]int{}
	for _, r := range b.Rows {
		s, v := r[testenv.Column(t, capability.AIInfrastructureProduction, "series_id")].(string), r[testenv.Column(t, capability.AIInfrastructureProduction, "vintage")].(string)
		if got[s] == nil {
			got[s] = map[string]int{}
		}
		got[s][v]++
	}
	for _, c := range []struct {
		series, vintage string
		rows            int
	}{
		{"IPG3344S", "observations through 2026-05", 653},
		{"CAPG3344S", "observations through 2026-05", 653},
		{"IPG3344SQ", "observations through 2026-Q1", 217},
		{"CAPUTLG3344S", "observations through 2026-07", 655},
	} {
		if len(got[c.series]) != 1 || got[c.series][c.vintage] != c.rows {
			t.Errorf("%s: vintages %v, want %d rows of %q", c.series, got[c.series], c.rows, c.vintage)
		}
	}
}

// TestStaleFileIsIncomplete checks a file cut short (its last period far behind the others)
// fails sheets_complete.
func TestStaleFileIsIncomplete(t *testing.T) {
	raw := testenv.Raw(t)
	dir := filepath.Join(t.TempDir(), filepath.FromSlash(fred.Folder))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file  string
		lines int // lines kept (0: all)
	}{
		{"IPG3344S.csv", 0},
		{"CAPG3344S.csv", 300},
	} {
		body, err := os.ReadFile(filepath.Join(raw, filepath.FromSlash(fred.Folder), c.file))
		if err != nil {
			t.Fatal(err)
		}
		if c.lines > 0 {
			n := 0
			for i, ch := range body {
				if ch == '\n' {
					if n++; n == c.lines {
						body = body[:i+1]
						break
					}
				}
			}
		}
		if err := os.WriteFile(filepath.Join(dir, c.file), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := fred.G17.Build(plan(t, filepath.Dir(filepath.Dir(dir))))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range b.Checks {
		if g.Name == "sheets_complete" && g.Passed {
			t.Errorf("sheets_complete passed: %s", g.Detail)
		}
	}
}

// TestUtilizationAgrees checks a capacity utilization value that no longer equals production
// over capacity, in a period no vintage revises, fails capacity_utilization_agrees.
func TestUtilizationAgrees(t *testing.T) {
	raw := testenv.Raw(t)
	dir := filepath.Join(t.TempDir(), filepath.FromSlash(fred.Folder))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"IPG3344S.csv", "CAPG3344S.csv", "CAPUTLG3344S.csv"} {
		body, err := os.ReadFile(filepath.Join(raw, filepath.FromSlash(fred.Folder), f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "CAPUTLG3344S.csv" {
			s := string(body)
			i := strings.Index(s, "2010-06-01,")
			j := i + strings.IndexByte(s[i:], '\n')
			body = []byte(s[:i] + "2010-06-01,50.0000" + s[j:])
		}
		if err := os.WriteFile(filepath.Join(dir, f), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := fred.G17.Build(plan(t, filepath.Dir(filepath.Dir(dir))))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range b.Checks {
		if g.Name == "capacity_utilization_agrees" && (g.Passed || !strings.Contains(g.Detail, "2010-06")) {
			t.Errorf("gate passed or misses 2010-06: %s", g.Detail)
		}
	}
}
