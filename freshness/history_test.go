package freshness

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/adapters"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/fetch/archive"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/snapshots"
)

// ercotMirror serves an ERCOT report listing in the layout of IceDocListJsonWS and each listed
// document from mirDownload, as a zip holding the workbook under ERCOT's member name.
type ercotMirror struct {
	mu       sync.Mutex
	listing  []byte
	docs     map[string][]byte
	requests map[string]int
}

func (m *ercotMirror) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests[r.URL.RequestURI()]++
	switch r.URL.Path {
	case "/misapp/servlets/IceDocListJsonWS":
		w.Header().Set("Content-Type", "application/json")
		w.Write(m.listing)
	case "/misdownload/servlets/mirDownload":
		b, ok := m.docs[r.URL.Query().Get("doclookupId")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/zip")
		w.Write(b)
	default:
		http.NotFound(w, r)
	}
}

// TestBackfillERCOTPrices: ingest --fetch --since's backfill reads ERCOT's listing of report
// NP4-180-ER, downloads the yearly price workbooks posted for the years from since on (the
// real 2024 workbook and the 2025 year-to-date one, under the names ingest reads), and ingest
// serves each year; a later backfill from 2025 asks for nothing it holds.
func TestBackfillERCOTPrices(t *testing.T) {
	raw := testenv.Raw(t)
	read := func(rel string) []byte {
		b, err := os.ReadFile(filepath.Join(raw, rel))
		if err != nil {
			testenv.SkipRaw(t, "raw file %s: %v", rel, err)
		}
		return b
	}
	m := &ercotMirror{docs: map[string][]byte{}, requests: map[string]int{}}
	var items []string
	for _, d := range []struct{ id, year, published, file string }{
		{"1212", "2023", "2024-01-04T05:12:00-06:00", ""},
		{"1313", "2024", "2025-01-03T05:12:00-06:00", "iso/ercot/DAMLZHBSPP_2024.xlsx"},
		{"1414", "2025", "2025-05-18T05:12:00-05:00", "iso/ercot/DAMLZHBSPP_2025_partial.xlsx"},
	} {
		name := "rpt.00013060.0000000000000000.DAMLZHBSPP_" + d.year
		items = append(items, fmt.Sprintf(`{"Document":{"ReportTypeID":13060,"DocID":%s,"FriendlyName":"DAMLZHBSPP_%s","ConstructedName":%q,"PublishDate":%q,"Extension":"zip"}}`,
			d.id, d.year, name+".zip", d.published))
		if d.file != "" {
			m.docs[d.id] = testenv.Zip(t, name+".xlsx", string(read(d.file)))
		}
	}
	m.listing = []byte(`{"ListDocsByRptTypeRes":{"DocumentList":[` + strings.Join(items, ",") + `]}}`)
	srv := httptest.NewServer(m)
	defer srv.Close()

	rawDir := t.TempDir()
	var out bytes.Buffer
	srcs := []Source{{ID: "ercot_dam_spp_lzhb", Listing: &archive.ERCOTPrices}}
	err := Backfill(context.Background(), rawDir, srcs, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Now(), fetch.Options{Mirror: srv.URL}, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"iso/ercot/DAMLZHBSPP_2024.xlsx", "iso/ercot/DAMLZHBSPP_2025_partial.xlsx"} {
		if !bytes.Equal(read(want), mustRead(t, filepath.Join(rawDir, want))) {
			t.Fatalf("%s is not the workbook posted:\n%s", want, out.String())
		}
	}
	if m.requests["/misdownload/servlets/mirDownload?doclookupId=1212"] != 0 {
		t.Fatal("the 2023 workbook, before since, was asked for")
	}

	var ercot []ingest.Adapter
	for _, a := range adapters.All() {
		if a.Capability().ID == "power.price_ercot" {
			ercot = append(ercot, a)
		}
	}
	store := &snapshots.Store{Dir: t.TempDir()}
	outcomes, err := ingest.Run(rawDir, store, ercot, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	promoted := map[string]bool{}
	for _, o := range outcomes {
		if o.Status == snapshots.Promoted {
			promoted[o.AsOf] = true
		}
	}
	if !promoted["2024-12-31"] || !promoted["2025-05-17"] {
		t.Fatalf("the years backfilled are not served: %+v", outcomes)
	}

	out.Reset()
	if err := Backfill(context.Background(), rawDir, srcs, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), time.Now(), fetch.Options{Mirror: srv.URL}, &out); err != nil {
		t.Fatal(err)
	}
	if m.requests["/misdownload/servlets/mirDownload?doclookupId=1414"] != 1 || m.requests["/misdownload/servlets/mirDownload?doclookupId=1313"] != 1 {
		t.Fatalf("a posting held was asked for again: %v\n%s", m.requests, out.String())
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBackfillEIA930Balance: ingest --fetch --since's backfill asks for each half-year's
// six-month BALANCE file from since on (the source as Sources declares it), downloads the
// one the mirror holds (the fixture written in EIA's layout), says and skips the half-year
// it answers with a 404, and ingest serves the half-year downloaded as power.demand.
func TestBackfillEIA930Balance(t *testing.T) {
	const dir = "/electricity/gridmonitor/sixMonthFiles/"
	fixture := mustRead(t, filepath.Join(testenv.RepoRoot(t), "testdata", "fixtures", "eia", "eia930_balance", "EIA930_BALANCE_2024_Jul_Dec.csv"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == dir+"EIA930_BALANCE_2024_Jul_Dec.csv" {
			w.Write(fixture)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	var srcs []Source
	for _, s := range Sources {
		if s.ID == "eia930_balance" {
			srcs = append(srcs, s)
		}
	}
	if len(srcs) != 1 {
		t.Fatal("no source eia930_balance among Sources")
	}
	rawDir := t.TempDir()
	var out bytes.Buffer
	now := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	if err := Backfill(context.Background(), rawDir, srcs, time.Date(2024, 8, 1, 0, 0, 0, 0, time.UTC), now, fetch.Options{Mirror: srv.URL}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{
		"history eia930_balance: 2 half-years of the EIA-930 six-month BALANCE file from 2024 Jul-Dec",
		"fetch eia/eia930_balance/EIA930_BALANCE_2024_Jul_Dec.csv downloaded",
		"fetch eia/eia930_balance/EIA930_BALANCE_2025_Jan_Jun.csv not published (https://www.eia.gov/electricity/gridmonitor/sixMonthFiles/EIA930_BALANCE_2025_Jan_Jun.csv)",
	} {
		if !strings.Contains(strings.Join(strings.Fields(out.String()), " "), want) {
			t.Fatalf("the backfill does not say %q:\n%s", want, out.String())
		}
	}
	if !bytes.Equal(fixture, mustRead(t, filepath.Join(rawDir, "eia", "eia930_balance", "EIA930_BALANCE_2024_Jul_Dec.csv"))) {
		t.Fatal("the file held is not the one the mirror served")
	}
	var demand []ingest.Adapter
	for _, a := range adapters.All() {
		if a.Capability().ID == "power.demand" {
			demand = append(demand, a)
		}
	}
	outcomes, err := ingest.Run(rawDir, &snapshots.Store{Dir: t.TempDir()}, demand, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(outcomes) != 1 || outcomes[0].Status != snapshots.Promoted || outcomes[0].AsOf != "2025-01-01" || outcomes[0].Rows != 12 {
		t.Fatalf("the half-year backfilled is not served: %+v", outcomes)
	}
}
