package synth

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/snapshots"
)

// TestBuildHistory: a history of four snapshots of the largest queue promotes four
// consecutive dates ending at the source's; each snapshot holds the source's rows with
// every perturbed measure within the factor bounds and not equal to the other snapshots',
// and every other column verbatim; a service serves them all, answers each with the
// source's groups, and verifies a citation of the oldest against the real raw file; a
// second build finds the directory.
func TestBuildHistory(t *testing.T) {
	src := source(t, "power.interconnection_queue_pjm")
	root := t.TempDir()
	const n = 4
	info, dir, err := BuildHistory(root, src, n, 7)
	if err != nil {
		t.Fatal(err)
	}
	if info.Snapshots != n || info.LastAsOf != src.Manifest.AsOf || info.RowsPerSnapshot != len(src.Rows) || info.FactsBytes <= 0 {
		t.Fatalf("history info %+v", info)
	}
	if again, dir2, err := BuildHistory(root, src, n, 7); err != nil || dir2 != dir || again.GeneratedAt != info.GeneratedAt {
		t.Errorf("a second build did not find the first: %v, %s, %+v", err, dir2, again)
	}
	store := &snapshots.Store{Dir: dir}
	ms, err := store.PromotedManifests()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != n {
		t.Fatalf("%d snapshots promoted, want %d", len(ms), n)
	}
	spec, err := SpecFor(src.Cap)
	if err != nil {
		t.Fatal(err)
	}
	cols := snapshots.Columns(src.Cap)
	perturbed := map[int]bool{}
	for _, name := range spec.Perturb {
		perturbed[testenv.Column(t, src.Cap, name)] = true
	}
	var dates []string
	var prev []snapshots.Row
	for _, m := range ms {
		dates = append(dates, m.AsOf)
		rows, err := ReadRows(src.Cap, m.FactsPath())
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != len(src.Rows) || m.Rows != len(rows) {
			t.Fatalf("%s: %d rows (manifest %d), want %d", m.AsOf, len(rows), m.Rows, len(src.Rows))
		}
		changed := 0
		for r, row := range rows {
			for c := range cols {
				want := src.Rows[r][c]
				if !perturbed[c] {
					if fmt.Sprint(row[c]) != fmt.Sprint(want) {
						t.Fatalf("%s row %d column %s = %v, source %v", m.AsOf, r, cols[c].Name, row[c], want)
					}
					continue
				}
				got, ok1 := row[c].(float64)
				w, ok2 := want.(float64)
				if ok1 != ok2 {
					t.Fatalf("%s row %d column %s = %v, source %v", m.AsOf, r, cols[c].Name, row[c], want)
				}
				if !ok1 {
					continue
				}
				if f := got / w; w != 0 && (f < MinFactor-1e-12 || f > MaxFactor+1e-12) {
					t.Fatalf("%s row %d column %s: factor %v out of bounds", m.AsOf, r, cols[c].Name, f)
				}
				if prev != nil && w != 0 && prev[r][c] != got {
					changed++
				}
			}
		}
		if prev != nil && changed == 0 {
			t.Errorf("%s has the measures of the snapshot before it", m.AsOf)
		}
		prev = rows
	}
	if !slices.IsSorted(dates) || dates[n-1] != src.Manifest.AsOf || dates[0] != info.FirstAsOf {
		t.Errorf("as_of dates %v, first %s, source %s", dates, info.FirstAsOf, src.Manifest.AsOf)
	}
	if pending, _ := filepath.Glob(filepath.Join(dir, "pending-events", "*")); len(pending) > 0 {
		t.Errorf("promotion events recorded: %v", pending)
	}
	svc, err := service.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(svc.SnapshotsServed()); got != n {
		t.Fatalf("%d snapshots served, want %d", got, n)
	}
	srcSvc, err := service.New(src.Store.Dir)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(fmt.Sprintf(`{"as_of":%q,"group_by":["county"]}`, src.Manifest.AsOf))
	want, qe := srcSvc.QueryJSON(context.Background(), src.Cap.Path, body)
	if qe != nil {
		t.Fatal(qe)
	}
	for _, d := range dates {
		got, qe := svc.QueryJSON(context.Background(), src.Cap.Path, []byte(fmt.Sprintf(`{"as_of":%q,"group_by":["county"],"include_records":true,"limit":1}`, d)))
		if qe != nil {
			t.Fatal(qe)
		}
		if groupCount(t, got) != groupCount(t, want) {
			t.Errorf("%s answers %v groups, the source %v", d, groupCount(t, got), groupCount(t, want))
		}
		if d == dates[0] {
			cite := firstRecordCitation(t, got)
			ev, qe := svc.Evidence(context.Background(), cite)
			if qe != nil {
				t.Fatalf("the oldest snapshot's record citation does not verify: %v", qe)
			}
			if !verified(t, ev) {
				t.Errorf("evidence %s", ev)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, HistoryFile)); err != nil {
		t.Error(err)
	}
}

// groupCount is an answer's summary.group_count.
func groupCount(t *testing.T, out []byte) float64 {
	t.Helper()
	var doc struct {
		Summary struct {
			GroupCount float64 `json:"group_count"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Summary.GroupCount
}

// firstRecordCitation is the citation of an answer's first record.
func firstRecordCitation(t *testing.T, out []byte) []byte {
	t.Helper()
	var doc struct {
		Records []struct {
			Citation json.RawMessage `json:"citation"`
		} `json:"records"`
	}
	if err := json.Unmarshal(out, &doc); err != nil || len(doc.Records) == 0 || len(doc.Records[0].Citation) == 0 {
		t.Fatalf("no record citation in the answer (%v)", err)
	}
	return doc.Records[0].Citation
}

// verified reports whether an evidence document says verified.
func verified(t *testing.T, ev []byte) bool {
	t.Helper()
	var doc struct {
		Verified bool `json:"verified"`
	}
	if err := json.Unmarshal(ev, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Verified
}
