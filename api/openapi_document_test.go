package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/internal/oacheck"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
)

func openAPIService(t *testing.T) *service.Service {
	t.Helper()
	s, err := service.New(testenv.Data(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Served()) == 0 {
		t.Fatal("no capability is served from the ingested data directory")
	}
	return s
}

func oaMember(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func TestOpenAPIDocument(t *testing.T) {
	s := openAPIService(t)
	b := OpenAPI(s)
	if again := OpenAPI(s); !bytes.Equal(b, again) {
		t.Fatal("two calls give different documents")
	}
	doc := oacheck.Decode(t, b)
	for _, c := range []struct {
		path []string
		want string
	}{
		{[]string{"openapi"}, "3.1.0"},
		{[]string{"info", "title"}, "citeq"},
		{[]string{"info", "version"}, "v1"},
		{[]string{"components", "securitySchemes", "bearerAuth", "type"}, "http"},
		{[]string{"components", "securitySchemes", "bearerAuth", "scheme"}, "bearer"},
	} {
		if got := oaMember(doc, c.path...); got != c.want {
			t.Errorf("%s = %v, want %q", strings.Join(c.path, "."), got, c.want)
		}
	}
	servers, _ := oaMember(doc, "servers").([]any)
	if len(servers) != 1 || oaMember(servers[0], "url") != "/" {
		t.Errorf("servers = %v, want [{url: /}]", servers)
	}

	paths, _ := oaMember(doc, "paths").(map[string]any)
	want := map[string][]string{
		"/v1/health":              {"get"},
		"/v1/capabilities":        {"get"},
		"/v1/openapi.json":        {"get"},
		"/metrics":                {"get"},
		"/v1/evidence/source-row": {"post"},
	}
	for _, c := range s.Served() {
		want["/v1/"+c.Path+"/schema"] = []string{"get"}
		want["/v1/"+c.Path+"/query"] = []string{"get", "post"}
	}
	for p, methods := range want {
		for _, m := range methods {
			if oaMember(paths, p, m) == nil {
				t.Errorf("%s %s is not described", strings.ToUpper(m), p)
			}
		}
	}
	if _, ok := paths["/v1/metrics"]; ok {
		t.Error("/v1/metrics is described; the metrics are served at /metrics")
	}
	if got := oaMember(paths, "/metrics", "get", "responses", "200", "content", "text/plain"); got == nil {
		t.Error("GET /metrics does not answer text/plain")
	}

	// Every operation has a unique operationId, tags, a summary and a description; its tags
	// are declared.
	declared := map[string]bool{}
	for _, tag := range oaMember(doc, "tags").([]any) {
		declared[oaMember(tag, "name").(string)] = true
	}
	ids := map[string]string{}
	for p, item := range paths {
		for m, op := range item.(map[string]any) {
			where := strings.ToUpper(m) + " " + p
			id, _ := oaMember(op, "operationId").(string)
			if id == "" {
				t.Errorf("%s has no operationId", where)
			} else if prev, dup := ids[id]; dup {
				t.Errorf("operationId %s is used by %s and %s", id, prev, where)
			}
			ids[id] = where
			for _, k := range []string{"summary", "description"} {
				if v, _ := oaMember(op, k).(string); v == "" {
					t.Errorf("%s has no %s", where, k)
				}
			}
			tags, _ := oaMember(op, "tags").([]any)
			if len(tags) == 0 {
				t.Errorf("%s has no tags", where)
			}
			for _, tag := range tags {
				if !declared[tag.(string)] {
					t.Errorf("%s uses undeclared tag %v", where, tag)
				}
			}
		}
	}

	// Every $ref resolves.
	var refs []string
	oaCollectRefs(doc, &refs)
	if len(refs) == 0 {
		t.Fatal("the document has no $ref")
	}
	for _, r := range refs {
		if _, err := oacheck.Resolve(doc, r); err != nil {
			t.Errorf("$ref %s: %v", r, err)
		}
	}

	for _, c := range s.Served() {
		pfx := oaSchemaPrefix(c)
		orderBy := oaMember(doc, "components", "schemas", pfx+"QueryParams", "properties", "order_by", "enum")
		if got := strings.Join(oacheck.Strings(orderBy), ","); got != strings.Join(c.MetricNames(), ",") {
			t.Errorf("%s: order_by enum of the params object = %s, want the metric names %v", c.ID, got, c.MetricNames())
		}
		groupBy := oaMember(doc, "components", "schemas", pfx+"QueryParams", "properties", "group_by", "items", "enum")
		if got := strings.Join(oacheck.Strings(groupBy), ","); got != strings.Join(c.GroupByNames(), ",") {
			t.Errorf("%s: group_by enum = %s, want %v", c.ID, got, c.GroupByNames())
		}
		totals := oaMember(doc, "components", "schemas", pfx+"Metrics", "properties").(map[string]any)
		if len(totals) != len(c.Metrics) {
			t.Errorf("%s: metrics schema has %d properties, want %d", c.ID, len(totals), len(c.Metrics))
		}

		// The GET form: q, every filter, date range and control is a query parameter.
		get := oaMember(paths, "/v1/"+c.Path+"/query", "get")
		params := map[string]any{}
		for _, p := range oaMember(get, "parameters").([]any) {
			if r, ok := oaMember(p, "$ref").(string); ok {
				p, _ = oacheck.Resolve(doc, r)
			}
			if oaMember(p, "in") == "query" {
				params[oaMember(p, "name").(string)] = p
			}
		}
		names := []string{"q", "group_by"}
		names = append(names, c.FilterNames()...)
		names = append(names, capability.ControlNames()...)
		names = append(names, capability.ParamCursor)
		for _, r := range c.DateRanges {
			names = append(names, r.From(), r.To())
		}
		if capability.Compares(c) {
			names = append(names, capability.ParamCompareAsOf)
		}
		for _, n := range names {
			if params[n] == nil {
				t.Errorf("%s: GET query has no parameter %s", c.ID, n)
			}
		}
		if len(params) != len(names) {
			t.Errorf("%s: GET query has %d parameters, want %d", c.ID, len(params), len(names))
		}
		for _, f := range c.Fields {
			if f.Filter && (oaMember(params[f.Name], "style") != "form" || oaMember(params[f.Name], "explode") != true) {
				t.Errorf("%s: filter parameter %s is not style form, explode true", c.ID, f.Name)
			}
		}
		if got := strings.Join(oacheck.Strings(oaMember(params["order_by"], "schema", "enum")), ","); got != strings.Join(c.MetricNames(), ",") {
			t.Errorf("%s: order_by parameter enum = %s, want %v", c.ID, got, c.MetricNames())
		}
		post := oaMember(paths, "/v1/"+c.Path+"/query", "post")
		for _, status := range []string{"200", "400", "404", "405", "413"} {
			if oaMember(post, "responses", status) == nil {
				t.Errorf("%s: POST query has no %s response", c.ID, status)
			}
		}
	}
}

func oaCollectRefs(v any, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		if r, ok := x["$ref"].(string); ok {
			*out = append(*out, r)
		}
		for _, m := range x {
			oaCollectRefs(m, out)
		}
	case []any:
		for _, m := range x {
			oaCollectRefs(m, out)
		}
	}
}

// TestOpenAPIDescribesPayloads checks the payloads the service renders against the schemas
// of the document, closed: a member the schema does not list is an error, so the document
// cannot fall behind the payloads.
func TestOpenAPIDescribesPayloads(t *testing.T) {
	s := openAPIService(t)
	doc := oacheck.Decode(t, OpenAPI(s))
	check := oacheck.Checker(t, doc)
	check("health", "Health", s.Health())
	check("capabilities", "Capabilities", s.Capabilities())

	// The describe payload of every defined capability, served or not.
	for _, c := range capability.All() {
		b, e := s.Schema(c.Path)
		if e != nil {
			t.Fatal(e)
		}
		check(c.ID+" schema", "CapabilitySchema", b)
	}

	for _, c := range s.Served() {
		if len(c.Inputs) > 0 {
			continue // derived: refused on the files here; TestCapacityFactorFixtures checks its answers
		}
		pfx := oaSchemaPrefix(c)

		var queries []string
		example, _ := json.Marshal(oaQueryExample(c))
		queries = append(queries, `{}`, string(example))
		for _, g := range c.GroupByNames() {
			queries = append(queries, fmt.Sprintf(`{"group_by":[%q],"order_by":%q,"top_n":2}`, g, c.Metrics[0].Name))
		}
		var intDim string
		for _, f := range c.Fields {
			if f.GroupBy && f.Type == capability.Integer {
				intDim = f.Name
				break
			}
		}
		rich := service.Obj{{"group_by", []string{c.GroupByNames()[0]}}, {"order_by", c.Metrics[len(c.Metrics)-1].Name}, {"order", "asc"}, {"top_n", 1},
			{"include_records", true}, {"limit", 3}, {"include_evidence", true}}
		if intDim != "" && intDim != c.GroupByNames()[0] {
			rich[0].V = []string{c.GroupByNames()[0], intDim}
		}
		if len(c.DateRanges) > 0 {
			rich = append(rich, service.KV{c.DateRanges[0].From(), "2000"})
		}
		richJSON, err := rich.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		queries = append(queries, string(richJSON))
		for _, q := range queries {
			check(c.ID+" params "+q, pfx+"QueryParams", []byte(q))
		}
		// The service also takes group_by as a comma-separated string; the schema states the list.
		queries = append(queries, `{"as_of":"latest","rollup_other":false,"group_by":"`+strings.Join(c.GroupByNames()[:min(2, len(c.GroupByNames()))], ",")+`","order_by":"`+c.Metrics[0].Name+`","top_n":1}`)
		for _, q := range queries {
			b, e := s.QueryJSON(context.Background(), c.Path, []byte(q))
			if e != nil {
				t.Fatalf("%s %s: %v", c.ID, q, e)
			}
			check(c.ID+" query "+q, pfx+"QueryResponse", b)
		}

		// The GET pairs form, and a record's citation through the evidence endpoint.
		vals := url.Values{"group_by": {c.GroupByNames()[0]}, "include_records": {"true"}, "limit": {"1"}}
		raw, e := service.ParseQuery(vals)
		if e != nil {
			t.Fatal(e)
		}
		b, e := s.QueryRequest(context.Background(), c.Path, raw)
		if e != nil {
			t.Fatal(e)
		}
		check(c.ID+" GET query", pfx+"QueryResponse", b)
		var resp struct {
			Records []struct {
				Citation json.RawMessage `json:"citation"`
			} `json:"records"`
		}
		if err := json.Unmarshal(b, &resp); err != nil || len(resp.Records) == 0 {
			t.Fatalf("%s: no record (%v)", c.ID, err)
		}
		check(c.ID+" evidence request", "EvidenceRequest", resp.Records[0].Citation)
		ev, e := s.Evidence(context.Background(), resp.Records[0].Citation)
		if e != nil {
			t.Fatal(e)
		}
		check(c.ID+" evidence", "EvidenceResponse", ev)

		// A params object the service refuses is refused by the schema too.
		v := &oacheck.Validator{Doc: doc}
		for _, bad := range []string{`{"no_such_member":1}`, `{"limit":0}`, `{"order":"up"}`, `{"group_by":["no_such_dimension"]}`, `{"group_by":["` + c.GroupByNames()[0] + `"],"order_by":"no_such_metric"}`, `{"order_by":"` + c.Metrics[0].Name + `"}`, `{"top_n":3}`} {
			if len(v.Validate(map[string]any{"$ref": "#/components/schemas/" + pfx + "QueryParams"}, oacheck.Decode(t, []byte(bad)), "$", 0)) == 0 {
				t.Errorf("%s: the params schema accepts %s", c.ID, bad)
			}
			if _, e := s.QueryJSON(context.Background(), c.Path, []byte(bad)); e == nil {
				t.Errorf("%s: the service accepts %s", c.ID, bad)
			}
		}
	}

	// Error bodies, and every code the service answers is in the Error schema's enum.
	codes := oacheck.Strings(oaMember(doc, "components", "schemas", "Error", "properties", "error", "properties", "code", "enum"))
	for _, code := range []string{apierror.CodeInvalidParameter, apierror.CodeInvalidFilter, apierror.CodeInvalidRequest, apierror.CodeNotFound, apierror.CodeNotServed, apierror.CodeInternal,
		apierror.CodeEvidenceInvalid, apierror.CodeEvidenceUnknownFile, apierror.CodeEvidenceFileName, apierror.CodeEvidenceHash, apierror.CodeEvidenceSheet, apierror.CodeEvidenceRow, apierror.CodeEvidenceUnreadable} {
		if !slices.Contains(codes, code) {
			t.Errorf("error code %s is not in the Error schema", code)
		}
	}
	_, e := s.QueryJSON(context.Background(), "no/such", []byte(`{}`))
	check("error", "Error", e.Body())
	_, e = s.Evidence(context.Background(), []byte(`{"source_file":"x.xlsx","sheet":"S","source_row":1,"raw_file_sha256":"`+strings.Repeat("0", 64)+`"}`))
	check("evidence error", "Error", e.Body())
	if e.Code != apierror.CodeEvidenceUnknownFile {
		t.Errorf("evidence of an unknown hash: %s", e.Code)
	}
}

func TestOpenAPIExtraPaths(t *testing.T) {
	s := openAPIService(t)
	saved := extraPaths
	t.Cleanup(func() { extraPaths = saved })
	extraPaths = append(append([]func(*service.Service) (string, service.Obj){}, saved...),
		func(*service.Service) (string, service.Obj) {
			return "/v1/webhooks/test", service.Obj{{"post", service.Obj{{"operationId", "webhooks_test_post"}, {"tags", []string{"webhooks"}},
				{"summary", "test"}, {"description", "test"}, {"responses", service.Obj{{"204", service.Obj{{"description", "done"}}}}}}}}
		},
		func(*service.Service) (string, service.Obj) { return "", nil },
		func(*service.Service) (string, service.Obj) {
			return "/v1/health", service.Obj{{"head", service.Obj{{"operationId", "health_head"}, {"tags", []string{"service"}},
				{"summary", "test"}, {"description", "test"}, {"responses", service.Obj{{"200", service.Obj{{"description", "up"}}}}}}}}
		})
	doc := oacheck.Decode(t, OpenAPI(s))
	if oaMember(doc, "paths", "/v1/webhooks/test", "post", "operationId") != "webhooks_test_post" {
		t.Error("the extra path is not in the document")
	}
	if oaMember(doc, "paths", "/v1/health", "head") == nil || oaMember(doc, "paths", "/v1/health", "get") == nil {
		t.Error("an extra method on a described path does not join its item")
	}
	var tags []string
	for _, tag := range oaMember(doc, "tags").([]any) {
		tags = append(tags, oaMember(tag, "name").(string))
	}
	sorted := append([]string{}, tags...)
	sort.Strings(sorted)
	if !slices.Contains(tags, "webhooks") || len(slices.Compact(sorted)) != len(tags) {
		t.Errorf("tags = %v: want webhooks declared once, every tag once", tags)
	}
}

// TestWriteOpenAPI writes the document to $CITEQ_OPENAPI_OUT, for the linter
// (scripts/openapi-lint.sh); it is skipped when the variable is unset.
func TestWriteOpenAPI(t *testing.T) {
	out := os.Getenv("CITEQ_OPENAPI_OUT")
	if out == "" {
		t.Skip("CITEQ_OPENAPI_OUT is not set")
	}
	s := openAPIService(t)
	var b bytes.Buffer
	if err := json.Indent(&b, OpenAPI(s), "", "  "); err != nil {
		t.Fatal(err)
	}
	b.WriteByte('\n')
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", out, b.Len())
}

func BenchmarkOpenAPI(b *testing.B) {
	s, err := service.New(testenv.Data(b))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		OpenAPI(s)
	}
}

// TestOpenAPICompareAsOf: compare_as_of is a params member and a GET pair of exactly the
// capabilities that answer it (the queues), and a comparison validates against the query's
// 200 answer schema, as a plain answer does; elsewhere the schema refuses it, as the service
// does.
func TestOpenAPICompareAsOf(t *testing.T) {
	s := openAPIService(t)
	doc := oacheck.Decode(t, OpenAPI(s))
	compared := 0
	for _, c := range s.Served() {
		pfx := oaSchemaPrefix(c)
		prop := oaMember(doc, "components", "schemas", pfx+"QueryParams", "properties", capability.ParamCompareAsOf)
		var pair any
		for _, p := range oaMember(doc, "paths", "/v1/"+c.Path+"/query", "get", "parameters").([]any) {
			if oaMember(p, "name") == capability.ParamCompareAsOf {
				pair = p
			}
		}
		if (prop != nil) != capability.Compares(c) || (pair != nil) != capability.Compares(c) {
			t.Errorf("%s: compare_as_of in params %v, as a GET pair %v; the capability compares: %v", c.ID, prop != nil, pair != nil, capability.Compares(c))
		}
		v := &oacheck.Validator{Doc: doc, Closed: true}
		okSchema := oaMember(doc, "paths", "/v1/"+c.Path+"/query", "post", "responses", "200", "content", "application/json", "schema")
		dates := s.ServedDates(c.ID)
		q := fmt.Sprintf(`{"group_by":["%s"],"compare_as_of":%q}`, c.GroupByNames()[0], dates[0])
		paramErrs := v.Validate(map[string]any{"$ref": "#/components/schemas/" + pfx + "QueryParams"}, oacheck.Decode(t, []byte(q)), "$", 0)
		b, e := s.QueryJSON(context.Background(), c.Path, []byte(q))
		if !capability.Compares(c) {
			if len(paramErrs) == 0 || e == nil {
				t.Errorf("%s: compare_as_of accepted by the schema (%v) or the service (%v)", c.ID, paramErrs, e)
			}
			continue
		}
		compared++
		if len(paramErrs) > 0 {
			t.Errorf("%s params %s: %v", c.ID, q, paramErrs)
		}
		if e != nil {
			t.Fatalf("%s %s: %s", c.ID, q, e.Body())
		}
		for _, err := range v.Validate(okSchema, oacheck.Decode(t, b), "$", 0) {
			t.Errorf("%s comparison: %s", c.ID, err)
		}
		plain, e := s.QueryJSON(context.Background(), c.Path, []byte(`{"group_by":["status"]}`))
		if e != nil {
			t.Fatal(e)
		}
		for _, err := range v.Validate(okSchema, oacheck.Decode(t, plain), "$", 0) {
			t.Errorf("%s answer: %s", c.ID, err)
		}
	}
	if compared < 8 {
		t.Errorf("%d served capabilities answer compare_as_of, want the 8 queues", compared)
	}
}
