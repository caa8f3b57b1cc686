package fetch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

const (
	testKey     = "k3y-Secret_0123456789abcdef"
	testRequest = "https://api.example.gov/v2/route/data/?frequency=monthly&data[]=value"
)

// pagedAPI is a loopback API in the shape of EIA API v2: rows served offset by offset,
// length at most max per page, response.total as a string, the request's parameters
// echoed (the key among them, as a careless API might), and a 403 without the right key.
type pagedAPI struct {
	rows      int
	max       int
	mu        sync.Mutex
	offsets   []int
	keysSeen  []string
	changeAt  int // from this offset on, report one row more in all (the data changed)
	emptyFrom int // from this offset on, answer no rows (0: never)
}

func (a *pagedAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.mu.Lock()
	a.keysSeen = append(a.keysSeen, q.Get("api_key"))
	a.mu.Unlock()
	if q.Get("api_key") != testKey {
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, `{"error":{"code":"API_KEY_INVALID","message":"api_key %s is not valid"}}`, q.Get("api_key"))
		return
	}
	if q.Get("frequency") != "monthly" || q.Get("data[]") != "value" {
		http.Error(w, "the request lost its parameters", http.StatusBadRequest)
		return
	}
	offset, err1 := strconv.Atoi(q.Get("offset"))
	length, err2 := strconv.Atoi(q.Get("length"))
	if err1 != nil || err2 != nil || length < 1 {
		http.Error(w, "offset and length are required", http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	a.offsets = append(a.offsets, offset)
	a.mu.Unlock()
	total := a.rows
	if a.changeAt > 0 && offset >= a.changeAt {
		total++
	}
	var data []map[string]string
	for i := offset; i < min(offset+min(length, a.max), a.rows); i++ {
		if a.emptyFrom > 0 && offset >= a.emptyFrom {
			break
		}
		data = append(data, map[string]string{"period": "2022-01", "row": strconv.Itoa(i)})
	}
	body := map[string]any{
		"response": map[string]any{"total": strconv.Itoa(total), "data": data},
		"request":  map[string]any{"command": "/v2/route/data/", "params": map[string]any{"offset": q.Get("offset"), "length": q.Get("length"), "api_key": q.Get("api_key")}},
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(body)
}

func countTestPage(body []byte) (int, int, error) {
	var doc struct {
		Response struct {
			Total string            `json:"total"`
			Data  []json.RawMessage `json:"data"`
		} `json:"response"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return 0, 0, err
	}
	n, err := strconv.Atoi(doc.Response.Total)
	return n, len(doc.Response.Data), err
}

func testPages() Pages {
	return Pages{URL: testRequest, Dest: "eia/api/route_2022.json", Length: 10, KeyParam: "api_key", KeyEnv: "CITEQ_TEST_KEY",
		KeyHelp: "a test key", Count: countTestPage}
}

// TestFetchPages walks a loopback API: every page is asked with its offset and length and the
// key, stored as its own file until response.total rows are read, the key in no stored file
// and no message; a second walk changes nothing; pages of an earlier, longer walk go.
func TestFetchPages(t *testing.T) {
	cases := []struct {
		name      string
		rows, max int
		offsets   []int
	}{
		{"three pages", 23, 10, []int{0, 10, 20}},
		{"a server giving fewer rows than asked", 23, 7, []int{0, 7, 14, 21}},
		{"one page", 4, 10, []int{0}},
		{"exactly two pages", 20, 10, []int{0, 10}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			api := &pagedAPI{rows: tc.rows, max: tc.max}
			srv := httptest.NewServer(api)
			defer srv.Close()
			raw := t.TempDir()
			p := testPages()
			stale := filepath.Join(raw, "eia", "api", "route_2022_90.json")
			os.MkdirAll(filepath.Dir(stale), 0o755)
			os.WriteFile(stale, []byte(`{}`), 0o644)
			res, err := FetchPages(context.Background(), raw, p, testKey, Options{Mirror: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(api.offsets) != fmt.Sprint(tc.offsets) || len(res) != len(tc.offsets) {
				t.Fatalf("offsets asked %v, pages %d; want %v", api.offsets, len(res), tc.offsets)
			}
			rows := 0
			for i, r := range res {
				if want := p.PageDest(tc.offsets[i]); r.Source.Dest != want || r.Status != StatusDownloaded {
					t.Errorf("page %d: %s %s, want %s downloaded", i, r.Source.Dest, r.Status, want)
				}
				if strings.Contains(r.Source.URL, testKey) || !strings.Contains(r.Source.URL, "offset="+strconv.Itoa(tc.offsets[i])) {
					t.Errorf("page %d URL %s", i, r.Source.URL)
				}
				b, err := os.ReadFile(r.Path)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(b), testKey) {
					t.Errorf("%s holds the key", r.Path)
				}
				_, n, err := countTestPage(b)
				if err != nil {
					t.Fatal(err)
				}
				rows += n
			}
			if rows != tc.rows {
				t.Errorf("%d rows stored, want %d", rows, tc.rows)
			}
			if _, err := os.Stat(stale); err == nil {
				t.Error("the page of an earlier walk is still there")
			}
			again, err := FetchPages(context.Background(), raw, p, testKey, Options{Mirror: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range again {
				if r.Status != StatusUnchanged {
					t.Errorf("second walk: %s %s", r.Source.Dest, r.Status)
				}
			}
		})
	}
}

// TestFetchPagesRefusals: no key, a wrong key, a total that changes during the walk and an
// empty page are errors that say so, never with the key in them; nothing is stored for a
// refused first page.
func TestFetchPagesRefusals(t *testing.T) {
	cases := []struct {
		name    string
		api     *pagedAPI
		key     string
		want    string
		noKey   bool
		refused bool
	}{
		{"no key", &pagedAPI{rows: 5, max: 10}, "", "set CITEQ_TEST_KEY", true, false},
		{"wrong key", &pagedAPI{rows: 5, max: 10}, testKey + "x", "403", false, true},
		{"the total changes", &pagedAPI{rows: 25, max: 10, changeAt: 10}, testKey, "the data changed during the walk", false, false},
		{"an empty page", &pagedAPI{rows: 25, max: 10, emptyFrom: 10}, testKey, "holds no row", false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.api)
			defer srv.Close()
			raw := t.TempDir()
			_, err := FetchPages(context.Background(), raw, testPages(), tc.key, Options{Mirror: srv.URL})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
			if tc.key != "" && strings.Contains(err.Error(), tc.key) {
				t.Errorf("the error shows the key: %v", err)
			}
			if errors.Is(err, ErrNoKey) != tc.noKey || errors.Is(err, ErrRefused) != tc.refused {
				t.Errorf("ErrNoKey %v, ErrRefused %v: %v", errors.Is(err, ErrNoKey), errors.Is(err, ErrRefused), err)
			}
			if tc.noKey && len(tc.api.keysSeen) > 0 {
				t.Error("the API was asked without a key")
			}
			if tc.refused {
				if _, err := os.Stat(filepath.Join(raw, "eia", "api", "route_2022.json")); err == nil {
					t.Error("a refused page was stored")
				}
			}
		})
	}
}
