package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citeq/citeq/access"
	"github.com/citeq/citeq/api"
	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/internal/notecheck"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/state"
	"github.com/citeq/citeq/webhooks"
)

// TestNotesOfMisleadingTotals asks each question of testdata/golden/notes/notes.json (figures from
// the raw files by compute_notes.py) over REST: a sum of seasonally adjusted annual rates over
// months is not given, shares are not averaged, groups of unequal coverage say their periods,
// blank values and null group keys are counted, and a partition note says what the totals did.
func TestNotesOfMisleadingTotals(t *testing.T) {
	srv := newServer(t, testenv.Data(t))
	cases := notecheck.Load(t, testenv.RepoRoot(t))
	if len(cases) < 10 {
		t.Fatalf("only %d cases in notes.json", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			status, body := post(t, srv, "/v1/"+capability.ByID(c.Capability).Path+"/query", c.Body())
			if status != 200 {
				t.Fatalf("status %d: %s", status, body)
			}
			notecheck.Check(t, c, body)
		})
	}
}

// TestFilterValuesTrimmed: a published value with surrounding white space (CAISO's sheet
// "Cluster 15 ") is matched by the value without it, giving the figures compute_queues.py
// reads from the sheet; a value that matches nothing is refused with every valid value quoted.
func TestFilterValuesTrimmed(t *testing.T) {
	srv := newServer(t, testenv.Data(t))
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "golden", "queues.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden []goldenCase
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	var want *goldenCase
	for i, gc := range golden {
		if f, _ := gc.Params["filters"].(map[string]any); f != nil && f["sheet"] == "Cluster 15 " {
			want = &golden[i]
		}
	}
	if want == nil {
		t.Fatal(`queues.json has no case of the sheet "Cluster 15 "`)
	}
	for _, sheet := range []string{"Cluster 15", " Cluster 15", "Cluster 15 "} {
		t.Run(sheet, func(t *testing.T) {
			body, _ := json.Marshal(map[string]any{"as_of": want.AsOf, "filters": map[string]any{"sheet": sheet}})
			status, resp := post(t, srv, "/v1/power/interconnection-queue-caiso/query", body)
			if status != 200 {
				t.Fatalf("status %d: %s", status, resp)
			}
			r := decode[response](t, resp)
			if got := r.Summary.Totals["project_count"]; got == nil || *got != want.Totals["project_count"] {
				t.Errorf("project_count %v, want %v", deref(got), want.Totals["project_count"])
			}
		})
	}
	status, resp := post(t, srv, "/v1/power/interconnection-queue-caiso/query", `{"filters":{"sheet":"Cluster 16"}}`)
	e := decode[errorBody](t, resp)
	if status != 400 || e.Error.Code != "invalid_filter" || !strings.Contains(e.Error.Message, `"Cluster 15 ", "Completed Generation Projects"`) {
		t.Errorf("status %d: %s", status, resp)
	}
}

// TestFirstHour: a misspelt capability path is answered with the path meant, a capability's
// path without its endpoint with its endpoints; a derived
// capability no query can be answered from is listed as not answerable, saying which files
// would make it answer.
func TestFirstHour(t *testing.T) {
	srv := newServer(t, testenv.Data(t))
	for _, tc := range []struct{ path, want string }{
		{"/v1/power/capacty/query", "did you mean power/capacity (/v1/power/capacity/query)?"},
		{"/v1/power.capacity/schema", "did you mean power/capacity (/v1/power/capacity/schema)?"},
		{"/v1/natural-gas/price/query", "did you mean natural-gas/prices (/v1/natural-gas/prices/query)?"},
		{"/v1/power/interconnection_queue_pjm/query", "did you mean power/interconnection-queue-pjm (/v1/power/interconnection-queue-pjm/query)?"},
		{"/v1/weather/rain/query", ""},
		// A capability's own path, its endpoint left out: named, never "did you mean" itself.
		{"/v1/natural-gas/prices", "/v1/natural-gas/prices is a capability, whose endpoints are GET /v1/natural-gas/prices/schema and POST or GET /v1/natural-gas/prices/query"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			status, body := get(t, srv, tc.path)
			e := decode[errorBody](t, body)
			if status != 404 || e.Error.Code != apierror.CodeNotFound {
				t.Fatalf("status %d: %s", status, body)
			}
			if tc.want == "" && strings.Contains(e.Error.Message, "did you mean") || !strings.Contains(e.Error.Message, tc.want) {
				t.Errorf("message %q, want %q", e.Error.Message, tc.want)
			}
		})
	}

	_, body := get(t, srv, "/v1/capabilities")
	var doc struct {
		Capabilities []struct {
			Capability string `json:"capability"`
			Answerable *bool  `json:"answerable"`
			Because    string `json:"not_answerable_because"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	files := []string{"august_generator2022.xlsx", "december_generator2022.xlsx", "eia/eia860m/", "eia923_2016.json"}
	for _, c := range doc.Capabilities {
		switch {
		case c.Answerable == nil:
			t.Errorf("%s: no answerable member", c.Capability)
		case c.Capability == capability.PowerCapacityFactor.ID:
			if *c.Answerable {
				t.Errorf("%s is listed as answerable, but its inputs share no month here", c.Capability)
			}
			for _, f := range files {
				if !strings.Contains(c.Because, f) {
					t.Errorf("%s: the reason does not name %s: %s", c.Capability, f, c.Because)
				}
			}
		case !*c.Answerable:
			t.Errorf("%s is listed as not answerable: %s", c.Capability, c.Because)
		}
	}
	status, body := get(t, srv, "/v1/power/capacity-factor/query")
	e := decode[errorBody](t, body)
	for _, f := range files {
		if status != 400 || !strings.Contains(e.Error.Message, f) {
			t.Errorf("the refusal does not name %s (status %d): %s", f, status, body)
		}
	}
}

// TestKeyHeaders: a key sent as X-Api-Key (and no Authorization) is refused where keys are read
// (queries, MCP, webhooks) with a message naming Authorization: Bearer, never answered as a
// caller without a key; a loopback caller who runs out of free queries is told about the
// server's operator key file.
func TestKeyHeaders(t *testing.T) {
	var op access.OperatorKey
	srv, _ := gatedBy(t, "", t.TempDir(), webhooks.Guard{}, func(store state.Store) *access.Gate {
		var err error
		if op, err = access.LoadOperatorKey(context.Background(), store, filepath.Join(t.TempDir(), "operator.key")); err != nil {
			t.Fatal(err)
		}
		return &access.Gate{Store: store, FreeQueries: 1, Operator: op.Key.ID, OperatorFile: "var/operator.key"}
	})
	send := func(method, path, body string, headers map[string]string) (int, errorBody) {
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var e errorBody
		json.Unmarshal(b, &e)
		return resp.StatusCode, e
	}
	xkey := map[string]string{api.KeyHeader: op.Secret}
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/v1/power/capacity/query?state=RI", ""},
		{"POST", "/v1/power/capacity/query", `{"filters":{"state":"RI"}}`},
		{"POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`},
		{"GET", "/v1/webhooks/subscriptions", ""},
	} {
		status, e := send(tc.method, tc.path, tc.body, xkey)
		if status != 401 || e.Error.Code != apierror.CodeInvalidKey || !strings.Contains(e.Error.Message, "Authorization: Bearer") {
			t.Errorf("%s %s with %s: status %d %+v", tc.method, tc.path, api.KeyHeader, status, e)
		}
	}
	// Free endpoints read no key; with Authorization the key is read from it.
	if status, e := send("GET", "/v1/capabilities", "", xkey); status != 200 {
		t.Errorf("capabilities with %s: status %d %+v", api.KeyHeader, status, e)
	}
	both := map[string]string{api.KeyHeader: "cq_wrong", "Authorization": "Bearer " + op.Secret}
	if status, e := send("GET", "/v1/power/capacity/query?state=RI", "", both); status != 200 {
		t.Errorf("query with Authorization and %s: status %d %+v", api.KeyHeader, status, e)
	}

	// The loopback caller without a key: one free query, then 402 naming the operator key.
	if status, e := send("GET", "/v1/power/capacity/query?state=RI", "", nil); status != 200 {
		t.Fatalf("first query: status %d %+v", status, e)
	}
	status, e := send("GET", "/v1/power/capacity/query?state=RI", "", nil)
	if status != 402 || !strings.Contains(e.Error.Message, "var/operator.key") || !strings.Contains(e.Error.Message, "Authorization: Bearer $(cat var/operator.key)") {
		t.Errorf("second query: status %d, message %q", status, e.Error.Message)
	}
}
