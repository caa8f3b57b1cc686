package testenv

import (
	"encoding/json"
	"net/http"
	"os"
	"strconv"
	"sync"
	"testing"
)

// EIAAPI is a loopback EIA API v2 route electricity/facility-fuel serving the rows of an API
// response (the generation fixture, in the agency's layout) page by page, as the API does:
// offset and length (at most Max rows a page), response.total as a string, the request's
// parameters echoed (the key among them, which a fetch must not store), and 403 without Key.
type EIAAPI struct {
	Key string
	Max int

	mu    sync.Mutex
	asked []string
	doc   struct {
		Response struct {
			Data        []json.RawMessage `json:"data"`
			DateFormat  string            `json:"dateFormat"`
			Frequency   string            `json:"frequency"`
			Description string            `json:"description"`
		} `json:"response"`
		Request struct {
			Command string         `json:"command"`
			Params  map[string]any `json:"params"`
		} `json:"request"`
	}
}

// NewEIAAPI serves the rows of the API response at path (relative to the repository root)
// to requests carrying key, at most max rows a page.
func NewEIAAPI(t testing.TB, path, key string, max int) *EIAAPI {
	t.Helper()
	b, err := os.ReadFile(RepoRoot(t) + "/" + path)
	if err != nil {
		t.Fatal(err)
	}
	a := &EIAAPI{Key: key, Max: max}
	if err := json.Unmarshal(b, &a.doc); err != nil {
		t.Fatal(err)
	}
	return a
}

// Asked lists the pages asked, as offset+length.
func (a *EIAAPI) Asked() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.asked...)
}

// EIAFacilityFuelRoute is the path the API answers.
const EIAFacilityFuelRoute = "/v2/electricity/facility-fuel/data/"

// ServeHTTP implements http.Handler.
func (a *EIAAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if r.URL.Path != EIAFacilityFuelRoute || q.Get("api_key") != a.Key {
		http.Error(w, `{"error":"API_KEY_INVALID"}`, http.StatusForbidden)
		return
	}
	if q.Get("facets[state][]") != "CO" || q.Get("sort[0][direction]") != "desc" || len(q["data[]"]) != 2 {
		http.Error(w, "not the request of the Colorado 2022 response", http.StatusBadRequest)
		return
	}
	offset, _ := strconv.Atoi(q.Get("offset"))
	length, _ := strconv.Atoi(q.Get("length"))
	a.mu.Lock()
	a.asked = append(a.asked, q.Get("offset")+"+"+q.Get("length"))
	a.mu.Unlock()
	data := a.doc.Response.Data
	end := min(offset+min(length, a.Max), len(data))
	params := map[string]any{}
	for k, v := range a.doc.Request.Params {
		params[k] = v
	}
	params["offset"], params["length"], params["api_key"] = q.Get("offset"), q.Get("length"), q.Get("api_key")
	body, _ := json.Marshal(map[string]any{
		"response": map[string]any{"total": strconv.Itoa(len(data)), "dateFormat": a.doc.Response.DateFormat, "frequency": a.doc.Response.Frequency,
			"data": data[min(offset, end):end], "description": a.doc.Response.Description},
		"request":    map[string]any{"command": a.doc.Request.Command, "params": params},
		"apiVersion": "2.1.8",
	})
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}
