package api_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/citeq/citeq/access"
	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/state"
	"github.com/citeq/citeq/webhooks"
)

// TestKeyReadBeforeParams checks that a query's key is judged before its params: a query
// with a key the server does not know is refused for the key, whatever its cursor or
// compare_as_of holds, in each form (the params are read in the handler, but what they say
// is told only after the caller is known).
func TestKeyReadBeforeParams(t *testing.T) {
	srv, _ := gatedBy(t, "", t.TempDir(), webhooks.Guard{}, func(store state.Store) *access.Gate {
		return &access.Gate{Store: store, FreeQueries: 1}
	})
	for _, tc := range []struct{ method, path, body string }{
		{"POST", "/v1/power/capacity/query", `{"cursor":5}`},
		{"POST", "/v1/power/capacity/query", `{"compare_as_of":false}`},
		{"GET", "/v1/power/capacity/query?cursor=", ""},
		{"GET", "/v1/power/capacity/query?q=%7B%22cursor%22%3A%5B%5D%7D", ""},
	} {
		req, err := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer citeq_not_a_key")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e struct {
			Error struct{ Code, Message string }
		}
		json.Unmarshal(b, &e)
		if resp.StatusCode != 401 || e.Error.Code != apierror.CodeInvalidKey {
			t.Errorf("%s %s %s: %d %s, want 401 %s", tc.method, tc.path, tc.body, resp.StatusCode, b, apierror.CodeInvalidKey)
		}
	}
}
