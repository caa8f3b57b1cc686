package service

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/internal/testenv"
)

// countHashes counts the raw files hashed while the test runs.
func countHashes(t *testing.T) *atomic.Int64 {
	t.Helper()
	var n atomic.Int64
	orig := hashFile
	hashFile = func(path string) (string, error) {
		n.Add(1)
		return orig(path)
	}
	t.Cleanup(func() { hashFile = orig })
	return &n
}

// TestEvidenceHashesEachFileOncePerRequest: a query with include_evidence re-hashes each raw
// file it cites once, however many citations quote the file; the evidence endpoint re-hashes
// on every request.
func TestEvidenceHashesEachFileOncePerRequest(t *testing.T) {
	svc, err := New(testenv.Data(t))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path, params string
		files              int64
	}{
		{"51 state citations of one workbook", "power/capacity", `{"group_by":["state"],"include_evidence":true}`, 1},
		{"three atoms of three workbooks", "natural-gas/prices", `{"group_by":["atom","year"],"include_evidence":true}`, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := countHashes(t)
			body, e := svc.QueryJSON(context.Background(), tc.path, []byte(tc.params))
			if e != nil {
				t.Fatal(e)
			}
			var r struct {
				Citations map[string]struct {
					Verify   json.RawMessage `json:"verify"`
					Evidence struct {
						Verified bool `json:"verified"`
					} `json:"evidence"`
				} `json:"citations"`
			}
			if err := json.Unmarshal(body, &r); err != nil {
				t.Fatal(err)
			}
			for ref, c := range r.Citations {
				if !c.Evidence.Verified {
					t.Fatalf("citation %s not verified", ref)
				}
			}
			if got := n.Load(); got != tc.files || len(r.Citations) <= int(tc.files) {
				t.Errorf("%d citations hashed %d files, want %d", len(r.Citations), got, tc.files)
			}
			// The evidence endpoint hashes again, every time.
			for ref, c := range r.Citations {
				before := n.Load()
				if _, e := svc.Evidence(context.Background(), c.Verify); e != nil {
					t.Fatalf("%s: %v", ref, e)
				}
				if n.Load() != before+1 {
					t.Fatalf("an evidence request hashed %d files", n.Load()-before)
				}
				break
			}
		})
	}
}

// TestCancelledRequestsDoNoWork: a request whose context has ended is neither computed nor
// verified.
func TestCancelledRequestsDoNoWork(t *testing.T) {
	svc, err := New(testenv.Data(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n := countHashes(t)
	q, e := svc.Prepare("power/capacity", mustRaw(t, `{"group_by":["state"],"include_evidence":true}`))
	if e != nil {
		t.Fatal(e)
	}
	if _, e := svc.Run(ctx, q); e == nil || e.Code != apierror.CodeCancelled || e.Status != 503 {
		t.Errorf("query on a cancelled context: %v", e)
	}
	if _, e := svc.Evidence(ctx, []byte(`{}`)); e == nil || e.Code != apierror.CodeCancelled {
		t.Errorf("evidence on a cancelled context: %v", e)
	}
	if n.Load() != 0 {
		t.Errorf("%d files hashed for cancelled requests", n.Load())
	}
}

// TestConcurrentEvidenceParsesOnce: many evidence requests for a file not yet parsed, at
// once, parse it once; the others wait for that parse instead of each holding their own.
func TestConcurrentEvidenceParsesOnce(t *testing.T) {
	svc, err := New(testenv.Data(t))
	if err != nil {
		t.Fatal(err)
	}
	body, e := svc.QueryJSON(context.Background(), "power/capacity", []byte(`{"filters":{"state":"RI"}}`))
	if e != nil {
		t.Fatal(e)
	}
	var r struct {
		Citations map[string]struct {
			Verify json.RawMessage `json:"verify"`
		} `json:"citations"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	var verify json.RawMessage
	for _, c := range r.Citations {
		verify = c.Verify
	}
	var parses atomic.Int64
	orig := parseWorkbook
	parseWorkbook = func(data []byte) (*grid.Workbook, error) {
		parses.Add(1)
		return orig(data)
	}
	t.Cleanup(func() { parseWorkbook = orig })
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, e := svc.Evidence(context.Background(), verify); e != nil {
				t.Error(e)
			}
		}()
	}
	wg.Wait()
	if n := parses.Load(); n != 1 {
		t.Errorf("16 concurrent evidence requests parsed the workbook %d times", n)
	}
}
