package api_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// TestOpenAPIPathsAnswer: every operation the served OpenAPI document lists answers, with a
// status the document declares for it.
func TestOpenAPIPathsAnswer(t *testing.T) {
	srv, _ := gated(t, "", t.TempDir(), false) // as citeq serve runs: with accounts
	st, body := get(t, srv, "/v1/openapi.json")
	if st != 200 {
		t.Fatalf("%d %s", st, body)
	}
	var doc struct {
		OpenAPI string `json:"openapi"`
		Info    struct {
			Version string `json:"version"`
		} `json:"info"`
		Paths map[string]map[string]struct {
			Responses map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" || doc.Info.Version != "v1" {
		t.Fatalf("openapi %q version %q", doc.OpenAPI, doc.Info.Version)
	}
	calls := 0
	for path, ops := range doc.Paths {
		if strings.Contains(path, "{") {
			continue // parameterised paths are exercised by their own tests
		}
		for method, op := range ops {
			var st int
			switch strings.ToUpper(method) {
			case "GET":
				st, _ = get(t, srv, path)
			case "POST":
				st, _ = post(t, srv, path, `{}`)
			default:
				continue
			}
			calls++
			if _, ok := op.Responses[strconv.Itoa(st)]; !ok {
				t.Errorf("%s %s answered %d, which the document does not list", method, path, st)
			}
		}
	}
	if calls < 8 {
		t.Errorf("only %d operations exercised", calls)
	}
}
