package archive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/internal/testenv"
)

// workbook is the smallest body fetch accepts as an xlsx workbook.
func workbook(t *testing.T, note string) []byte {
	return testenv.Zip(t, "[Content_Types].xml", "<x>"+note+"</x>", "xl/workbook.xml", "<x>"+note+"</x>")
}

// site serves fixed bodies by path (and query), HTML for anything else, and counts requests.
type site struct {
	mu       sync.Mutex
	bodies   map[string][]byte
	requests map[string]int
}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := r.URL.RequestURI()
	s.requests[key]++
	b, ok := s.bodies[key]
	if !ok {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<!DOCTYPE html><html><body>EIA landing page</body></html>"))
		return
	}
	w.Write(b)
}

func (s *site) count(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[key]
}

func month(y int, m time.Month) time.Time { return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC) }

// TestEIA860MArchive: the months of a range are asked where EIA keeps them (the latest under
// xls/, the earlier under archive/xls/), a month EIA answers with its landing page is not
// published, the months held are read from the file names, and a check looks for the months
// after the newest held.
func TestEIA860MArchive(t *testing.T) {
	if got := EIA860M.Periods(month(2015, 1), month(2015, 9)); len(got) != 3 || !got[0].Equal(month(2015, 7)) {
		t.Fatalf("periods before the archive's first month: %v", got)
	}
	st := &site{bodies: map[string][]byte{}, requests: map[string]int{}}
	st.bodies["/electricity/data/eia860m/archive/xls/may_generator2016.xlsx"] = workbook(t, "may")
	st.bodies["/electricity/data/eia860m/archive/xls/july_generator2016.xlsx"] = workbook(t, "july")
	srv := httptest.NewServer(st)
	defer srv.Close()
	raw := t.TempDir()
	opt := fetch.Options{Mirror: srv.URL}
	ctx := context.Background()
	var held []string
	for _, p := range EIA860M.Periods(month(2016, 5), month(2016, 7)) {
		res, err := EIA860M.Fetch(ctx, raw, p, opt)
		switch {
		case p.Month() == time.June:
			if !errors.Is(err, ErrNotPublished) {
				t.Fatalf("June 2016, answered with the landing page at both addresses: %v", err)
			}
		case err != nil:
			t.Fatalf("%s: %v", p, err)
		default:
			held = append(held, filepath.Base(res.Path))
		}
	}
	if strings.Join(held, " ") != "may_generator2016.xlsx july_generator2016.xlsx" {
		t.Fatalf("held %v", held)
	}
	periods, err := EIA860M.HeldPeriods(raw)
	if err != nil || len(periods) != 2 || !periods[1].Equal(month(2016, 7)) {
		t.Fatalf("held periods %v %v", periods, err)
	}
	due, err := EIA860M.Due(raw, time.Date(2016, 9, 20, 0, 0, 0, 0, time.UTC))
	if err != nil || len(due) != 2 || !due[0].Equal(month(2016, 8)) || !due[1].Equal(month(2016, 9)) {
		t.Fatalf("due after July 2016 on 2016-09-20: %v %v", due, err)
	}
	due, _ = EIA860M.Due(t.TempDir(), time.Date(2016, 9, 20, 0, 0, 0, 0, time.UTC))
	if len(due) != 2 || !due[0].Equal(month(2016, 8)) {
		t.Fatalf("due with nothing held: %v", due)
	}
	// A server error at one address is a failure, not "not published".
	st.mu.Lock()
	delete(st.bodies, "/electricity/data/eia860m/archive/xls/may_generator2016.xlsx")
	st.mu.Unlock()
	fail := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/archive/") {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		st.ServeHTTP(w, r)
	}))
	defer fail.Close()
	if _, err := EIA860M.Fetch(ctx, t.TempDir(), month(2016, 5), fetch.Options{Mirror: fail.URL}); err == nil || errors.Is(err, ErrNotPublished) {
		t.Fatalf("a 502 at the archive address: %v", err)
	}
}

// TestEIA930BalanceArchive: the half-years of a range are asked at EIA's six-month file
// address, none before the second half of 2015; a half-year the mirror answers with a 404 or
// with its landing page is not published; the half-years held are read from the file names,
// and a check looks for the half-years after the newest held.
func TestEIA930BalanceArchive(t *testing.T) {
	d := EIA930Balance
	if got := d.Periods(month(2014, 3), month(2016, 2)); len(got) != 2 || !got[0].Equal(month(2015, 7)) || !got[1].Equal(month(2016, 1)) {
		t.Fatalf("half-years from March 2014 to February 2016: %v", got)
	}
	if l := HalfYearly.Label(month(2024, 7)); l != "2024 Jul-Dec" {
		t.Fatalf("label %q", l)
	}
	const dir = "/electricity/gridmonitor/sixMonthFiles/"
	csv := []byte("Balancing Authority,Data Date,Hour Number,Local Time at End of Hour,UTC Time at End of Hour,Demand (MW)\nCISO,01/01/2024,1,01/01/2024 1:00:00 AM,01/01/2024 9:00:00 AM,\"21,000\"\n")
	st := &site{bodies: map[string][]byte{dir + "EIA930_BALANCE_2024_Jan_Jun.csv": csv}, requests: map[string]int{}}
	// The half-year after it: a 404 from the file's address (the one after that: the landing
	// page site serves for any other address).
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == dir+"EIA930_BALANCE_2024_Jul_Dec.csv" {
			http.NotFound(w, r)
			return
		}
		st.ServeHTTP(w, r)
	}))
	defer srv.Close()
	raw := t.TempDir()
	opt := fetch.Options{Mirror: srv.URL}
	ctx := context.Background()
	var held []string
	for _, p := range d.Periods(month(2024, 1), month(2025, 3)) {
		res, err := d.Fetch(ctx, raw, p, opt)
		switch {
		case !p.Equal(month(2024, 1)):
			if !errors.Is(err, ErrNotPublished) {
				t.Fatalf("%s, answered with a 404 or the landing page: %v", HalfYearly.Label(p), err)
			}
		case err != nil:
			t.Fatalf("%s: %v", HalfYearly.Label(p), err)
		default:
			held = append(held, filepath.ToSlash(strings.TrimPrefix(res.Path, raw+string(filepath.Separator))))
		}
	}
	if strings.Join(held, " ") != "eia/eia930_balance/EIA930_BALANCE_2024_Jan_Jun.csv" {
		t.Fatalf("held %v", held)
	}
	if st.count(dir+"EIA930_BALANCE_2025_Jan_Jun.csv") != 1 {
		t.Fatal("the first half of 2025 was not asked for")
	}
	periods, err := d.HeldPeriods(raw)
	if err != nil || len(periods) != 1 || !periods[0].Equal(month(2024, 1)) {
		t.Fatalf("held periods %v %v", periods, err)
	}
	due, err := d.Due(raw, time.Date(2025, 2, 10, 0, 0, 0, 0, time.UTC))
	if err != nil || len(due) != 2 || !due[0].Equal(month(2024, 7)) || !due[1].Equal(month(2025, 1)) {
		t.Fatalf("due after the first half of 2024 on 2025-02-10: %v %v", due, err)
	}
	due, _ = d.Due(t.TempDir(), time.Date(2025, 2, 10, 0, 0, 0, 0, time.UTC))
	if len(due) != 2 || !due[0].Equal(month(2024, 7)) {
		t.Fatalf("due with nothing held: %v", due)
	}
	if _, ok := d.Held("EIA930_INTERCHANGE_2024_Jan_Jun.csv"); ok {
		t.Fatal("an INTERCHANGE file read as a BALANCE file")
	}
}

// listingOf writes a listing in the layout of ERCOT's IceDocListJsonWS.
func listingOf(docs ...[4]string) []byte {
	var items []string
	for _, d := range docs {
		items = append(items, fmt.Sprintf(`{"Document":{"ReportTypeID":13060,"DocID":%s,"FriendlyName":%q,"ConstructedName":%q,"PublishDate":%q,"Extension":"zip"}}`, d[0], d[1], d[2], d[3]))
	}
	return []byte(`{"ListDocsByRptTypeRes":{"DocumentList":[` + strings.Join(items, ",") + `]}}`)
}

// TestERCOTPricesListing: the listing's postings are downloaded (each workbook from its zip)
// under the names ingest reads, the year under way as _partial, only the newest posting of a
// name, none before since; a second walk asks for no posting already held, and a new posting
// of the year under way is downloaded.
func TestERCOTPricesListing(t *testing.T) {
	const list = "/misapp/servlets/IceDocListJsonWS?reportTypeId=13060"
	doc := func(id string) string { return "/misdownload/servlets/mirDownload?doclookupId=" + id }
	st := &site{bodies: map[string][]byte{}, requests: map[string]int{}}
	st.bodies[list] = listingOf(
		[4]string{"1001", "DAMLZHBSPP_2023", "rpt.00013060.0000000000000000.DAMLZHBSPP_2023.zip", "2024-01-04T05:10:00-06:00"},
		[4]string{"1002", "DAMLZHBSPP_2024", "rpt.00013060.0000000000000000.DAMLZHBSPP_2024.zip", "2025-01-03T05:10:00-06:00"},
		[4]string{"1003", "DAMLZHBSPP_2025", "rpt.00013060.0000000000000000.DAMLZHBSPP_2025.zip", "2025-04-02T05:10:00-05:00"},
		[4]string{"1004", "DAMLZHBSPP_2025", "rpt.00013060.0000000000000000.DAMLZHBSPP_2025.zip", "2025-05-18T05:10:00-05:00"},
		[4]string{"9", "Something_else", "rpt.00013060.0000000000000000.README.zip", "2025-05-18T05:10:00-05:00"},
	)
	for id, year := range map[string]string{"1001": "2023", "1002": "2024", "1003": "2025", "1004": "2025"} {
		name := "rpt.00013060.0000000000000000.DAMLZHBSPP_" + year + ".xlsx"
		st.bodies[doc(id)] = testenv.Zip(t, name, string(workbook(t, id)))
	}
	srv := httptest.NewServer(st)
	defer srv.Close()
	raw := t.TempDir()
	ctx := context.Background()
	opt := fetch.Options{Mirror: srv.URL}
	res, err := fetch.Fetch(ctx, raw, ERCOTPrices.Source(month(2024, 1)), opt)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Files {
		got = append(got, f.Source.Dest+" "+f.Status)
	}
	if strings.Join(got, "; ") != "iso/ercot/DAMLZHBSPP_2024.xlsx downloaded; iso/ercot/DAMLZHBSPP_2025_partial.xlsx downloaded" {
		t.Fatalf("downloaded: %v", got)
	}
	if st.count(doc("1001")) != 0 || st.count(doc("1003")) != 0 {
		t.Fatal("a posting before since, or an older posting of the same workbook, was downloaded")
	}
	b, _ := os.ReadFile(filepath.Join(raw, "iso/ercot/DAMLZHBSPP_2025_partial.xlsx"))
	if !bytes.Equal(b, workbook(t, "1004")) {
		t.Fatal("the partial workbook is not the newest posting's")
	}
	fi, _ := os.Stat(filepath.Join(raw, "iso/ercot/DAMLZHBSPP_2024.xlsx"))
	if want, _ := time.Parse(time.RFC3339, "2025-01-03T05:10:00-06:00"); !fi.ModTime().Equal(want) {
		t.Fatalf("the workbook's time %v is not its posting's", fi.ModTime())
	}

	// Walked again: the listing is read, no posting held is asked for.
	if _, err := fetch.Fetch(ctx, raw, ERCOTPrices.Source(month(2024, 1)), opt); err != nil {
		t.Fatal(err)
	}
	if st.count(doc("1002")) != 1 || st.count(doc("1004")) != 1 || st.count(list) != 2 {
		t.Fatalf("second walk asked again: 1002 %d, 1004 %d, listing %d", st.count(doc("1002")), st.count(doc("1004")), st.count(list))
	}
	// ERCOT posts the year under way again.
	st.mu.Lock()
	st.bodies[list] = listingOf([4]string{"1005", "DAMLZHBSPP_2025", "rpt.00013060.0000000000000000.DAMLZHBSPP_2025.zip", "2025-06-18T05:10:00-05:00"})
	st.bodies[doc("1005")] = testenv.Zip(t, "rpt.00013060.0000000000000000.DAMLZHBSPP_2025.xlsx", string(workbook(t, "1005")))
	st.mu.Unlock()
	res, err = fetch.Fetch(ctx, raw, ERCOTPrices.Source(month(2024, 1)), opt)
	if err != nil || len(res.Files) != 1 || res.Files[0].Status != fetch.StatusDownloaded {
		t.Fatalf("a new posting: %+v %v", res.Files, err)
	}
}

func TestReadERCOTListing(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		docs       int
		err        string
	}{
		{"one document as an object", `{"ListDocsByRptTypeRes":{"DocumentList":{"Document":{"DocID":"7","ConstructedName":"GIS_Report_May2026.xlsx","PublishDate":"2026-06-02T08:00:00-05:00"}}}}`, 1, ""},
		{"a Document as an array", `{"ListDocsByRptTypeRes":{"DocumentList":[{"Document":[{"DocID":1,"ConstructedName":"a","PublishDate":"2026-06-02T08:00:00-05:00"},{"DocID":2,"ConstructedName":"b","PublishDate":"2026-06-03T08:00:00-05:00"}]}]}}`, 2, ""},
		{"not a listing", `{"error":"maintenance"}`, 0, "no ListDocsByRptTypeRes.DocumentList"},
		{"a bad date", `{"ListDocsByRptTypeRes":{"DocumentList":[{"Document":{"DocID":1,"ConstructedName":"a","PublishDate":"06/02/2026"}}]}}`, 0, "not an RFC 3339 time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := ReadERCOTListing([]byte(tc.body))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || len(docs) != tc.docs {
				t.Fatalf("%d documents, %v", len(docs), err)
			}
		})
	}
	dest, kind, member, period, ok := ERCOTGIS.Pick(ERCOTDocument{ConstructedName: "rpt.00015933.0000000000000000.GIS_Report_December2024.zip"})
	if !ok || dest != "iso/ercot/GIS_Report_December2024.xlsx" || kind != fetch.XLSX || member != "rpt.00015933.0000000000000000.GIS_Report_December2024.xlsx" || !period.Equal(month(2024, 12)) {
		t.Fatalf("GIS pick: %s %s %s %v %v", dest, kind, member, period, ok)
	}
}
