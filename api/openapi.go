package api

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/citeq/citeq/access"
	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/state"
	"github.com/citeq/citeq/webhooks"
)

// extraPaths lets later endpoints describe themselves in the OpenAPI document without
// editing OpenAPI: each function returns a path ("" for none) and its path item (method →
// operation), built with Obj like the rest of the document. An item for a path that is
// already described adds its methods to it; a tag its operations use that the document does
// not declare is declared for them. Register from an init function of this package.
var extraPaths []func(s *service.Service) (path string, item service.Obj)

// OpenAPI is the OpenAPI 3.1 document of the API, generated from the capability definitions
// of every served capability: the same served set gives the same bytes.
func OpenAPI(s *service.Service) []byte {
	served := s.Served()
	// The flow names capability paths <path>, which Markdown would read as a tag.
	flow := oaPayloadString(s.Capabilities(), "flow")
	genericFlow := strings.ReplaceAll(flow, "<path>", "{path}")

	tags := []service.Obj{{{"name", "discover"}, {"description", "What is served, and this document."}}}
	paths := service.Obj{
		{"/v1/health", service.Obj{{"get", oaOp{
			id: "health_get", tags: []string{"service"}, summary: "Liveness and the snapshots being served",
			desc: "Answers while the service is up, with every snapshot it serves (capability, as_of, row count). Never cached.",
			ok:   oaJSONOK("The service is up.", oaSref("Health"), "Cache-Control"),
		}.build()}}},
		{"/v1/capabilities", service.Obj{{"get", oaOp{
			id: "capabilities_get", tags: []string{"discover"}, summary: "List the served capabilities",
			desc: "Discover: every capability with a promoted snapshot, its path, cadence, publisher and the as_of dates it serves.\n\nFlow: " + genericFlow + ".",
			ok:   oaJSONOK("The served capabilities.", oaSref("Capabilities"), "ETag", "Cache-Control"), cached: true,
		}.build()}}},
		{"/v1/openapi.json", service.Obj{{"get", oaOp{
			id: "openapi_get", tags: []string{"discover"}, summary: "This OpenAPI document",
			desc: "The OpenAPI 3.1 description of every endpoint, generated from the definitions of the served capabilities.",
			ok:   oaJSONOK("The OpenAPI document.", service.Obj{{"type", "object"}, {"description", "an OpenAPI 3.1.0 document"}}),
		}.build()}}},
		{"/metrics", service.Obj{{"get", oaOp{
			id: "metrics_get", tags: []string{"service"}, summary: "Prometheus metrics",
			desc: "Process, request and snapshot metrics in the Prometheus text exposition format. It is not versioned and lies outside /v1.",
			ok: service.Obj{{"description", "The metrics, as Prometheus text."}, {"headers", oaHeaders()},
				{"content", service.Obj{{"text/plain", service.Obj{{"schema", service.Obj{{"type", "string"}}}}}}}},
		}.build()}}},
	}
	schemas := oaSharedSchemas(served)
	for _, c := range served {
		tags = append(tags, service.Obj{{"name", c.ID}, {"description", c.Title + ". " + c.Description}})
		paths = append(paths, oaCapabilityPaths(s, c, flow)...)
		schemas = append(schemas, oaCapabilitySchemas(s, c)...)
	}
	tags = append(tags,
		service.Obj{{"name", "evidence"}, {"description", "Verify a citation against the raw file the agency published."}},
		service.Obj{{"name", "service"}, {"description", "Liveness and metrics."}})
	paths = append(paths, service.KV{"/v1/evidence/source-row", service.Obj{{"post", oaEvidenceOperation().build()}}})

	for _, extra := range extraPaths {
		p, item := extra(s)
		if p == "" {
			continue
		}
		paths = oaMergePath(paths, p, item)
		tags = oaDeclareTags(tags, item)
	}

	doc := service.Obj{
		{"openapi", "3.1.0"},
		{"info", service.Obj{
			{"title", "citeq"},
			{"version", "v1"},
			{"summary", "Aggregates of U.S. public data, every number cited to the exact row of the file the agency published."},
			{"description", oaInfoDescription(genericFlow)},
		}},
		{"servers", []service.Obj{{{"url", "/"}, {"description", "the host serving this document"}}}},
		// No endpoint described here needs credentials ({} allows an anonymous call); an
		// endpoint that does states its own security, e.g. [{"bearerAuth": []}].
		{"security", []service.Obj{{}, {{"bearerAuth", []string{}}}}},
		{"tags", tags},
		{"paths", paths},
		{"components", service.Obj{
			{"schemas", schemas},
			{"responses", oaErrorResponses()},
			{"parameters", oaSharedParameters()},
			{"headers", oaHeaderComponents()},
			{"securitySchemes", service.Obj{{"bearerAuth", service.Obj{
				{"type", "http"}, {"scheme", "bearer"},
				{"description", "A bearer token, for endpoints that need to know the caller; such an endpoint states `security: [{bearerAuth: []}]`. The others take anonymous calls and ignore a token."}}}}},
		}},
	}
	b, err := doc.MarshalJSON()
	if err != nil {
		panic(err) // the document holds strings, numbers, booleans and objects only
	}
	return b
}

func oaInfoDescription(flow string) string {
	return strings.Join([]string{
		"citeq answers questions about U.S. public data with aggregates in which every number is cited down to the exact row of the exact file the agency published; that row can be re-fetched and hash-verified.",
		"**Flow**: " + flow + ".",
		"**Reproducible**: every response pins an `as_of` snapshot (`latest` resolves to the exact date), and the same question gives the same bytes whether it is asked by POST, GET with `q=` or GET with plain pairs.",
		"**Citations**: each row carries `lineage.citation_ref`, a key of `citations`; an aggregate citation names the source file and its sha256, samples the cited rows and carries `verify`, a record-level citation that `POST /v1/evidence/source-row` takes as is.",
		"**Errors** are `{\"error\": {\"code\", \"message\"}}` with the HTTP status; the message says what to do next.",
	}, "\n\n")
}

// oaCapabilityPaths describes the schema and query endpoints of capability c.
func oaCapabilityPaths(s *service.Service, c *capability.Capability, flow string) service.Obj {
	tool := c.ToolName()
	base := "/v1/" + c.Path
	pfx := oaSchemaPrefix(c)
	tags := []string{c.ID}
	ranking := oaPayloadStrings(oaSchemaPayload(s, c), "ranking")

	schemaOp := oaOp{
		id: "schema_" + tool + "_get", tags: tags, summary: "Describe " + c.ID,
		desc: "Describe: the filters of " + c.ID + " with their types and values, group_by dimensions, metrics (unit, aggregation, additivity), date ranges, controls, ranking rules, detail fields, citation fields, codebooks, rules and sources of the latest snapshot.",
		ok:   oaJSONOK("The description of "+c.ID+".", oaSref("CapabilitySchema"), "ETag", "Cache-Control"), cached: true,
		errs: []string{"404"},
	}.build()

	desc := strings.Join([]string{
		c.Title + ". " + c.Description,
		"Flow: " + strings.ReplaceAll(flow, "<path>", c.Path) + ".",
		"The params object holds `filters` (each a value or a list of values; a filter may also be given at the top level), `group_by`, the date ranges, `as_of` and the controls. POST takes it as the body; GET takes it as `q=` (URL-encoded JSON, alone) or as plain pairs. All three forms give the same bytes.",
		"Ranking:\n\n- " + strings.Join(ranking, "\n- "),
		"Every group row carries `lineage.citation_ref`, a key of `citations`; post a citation's `verify` member to `/v1/evidence/source-row` to re-hash the file and read the row.",
	}, "\n\n")

	body := service.Obj{
		{"description", "The params object. An empty body is `{}`: one ungrouped row over the latest snapshot."},
		{"required", false},
		{"content", service.Obj{{"application/json", service.Obj{
			{"schema", oaSref(pfx + "QueryParams")},
			{"example", oaQueryExample(c)},
		}}}},
	}
	ok := oaJSONOK("The aggregate answer with its citations.", oaQueryOK(c), "ETag", "Cache-Control", "X-Free-Queries-Remaining")
	post := oaOp{id: "query_" + tool + "_post", tags: tags, summary: "Query " + c.ID + " (params object as the body)", desc: desc,
		body: body, ok: ok, cached: true, errs: []string{"400", "401", "402", "404", "413"}}.build()
	get := oaOp{id: "query_" + tool + "_get", tags: tags, summary: "Query " + c.ID + " (params as query pairs or q=)", desc: desc,
		params: oaQueryParameters(c), ok: ok, cached: true, errs: []string{"400", "401", "402", "404"}}.build()
	return service.Obj{
		{base + "/schema", service.Obj{{"get", schemaOp}}},
		{base + "/query", service.Obj{{"post", post}, {"get", get}}},
	}
}

func oaEvidenceOperation() oaOp {
	body := service.Obj{
		{"description", "A record-level citation (a record's `citation`), an aggregate citation's `verify` member, or a whole aggregate citation (its `verify` member is used)."},
		{"required", true},
		{"content", service.Obj{{"application/json", service.Obj{
			{"schema", oaSref("EvidenceRequest")},
			{"example", service.Obj{{"source_id", "eia860m"}, {"source_file", "may_generator2016.xlsx"}, {"sheet", "Operating"}, {"source_row", 22},
				{"raw_file_sha256", "b196f74ef36c02c34e956ffaed9fc2d996abb1319b87e7a0f77d3d9f3ff18fe5"}, {"as_of", "2016-05-31"}}},
		}}}},
	}
	return oaOp{
		id: "evidence_source_row_post", tags: []string{"evidence"}, summary: "Verify a cited source row",
		desc: "Verify: finds the raw file by its sha256 in the raw store, checks its name, re-hashes it, opens the sheet and returns every cell of the cited row as stored (a numeric cell as its stored decimal, a published blank as \" \"), with the snapshots built from that file. A citation that cannot be verified is a 400 with its own code, never a guess. The answer is revalidated on every call (Cache-Control: no-cache).",
		body: body, ok: oaJSONOK("The row, verified.", oaSref("EvidenceResponse"), "ETag", "Cache-Control"), cached: true,
		errs: []string{"400", "413"},
	}
}

// oaOp is one operation of the document.
type oaOp struct {
	id, summary, desc string
	tags              []string
	params            []service.Obj // besides X-Request-Id (and If-None-Match when cached)
	body              service.Obj   // the request body, if any
	ok                service.Obj   // the 200 response
	// cached operations answer with an ETag and take If-None-Match (304 when it matches).
	cached bool
	// errs are the statuses of the operation's own errors; 405 and 500 apply to every one.
	errs []string
}

func (op oaOp) build() service.Obj {
	o := service.Obj{{"operationId", op.id}, {"tags", op.tags}, {"summary", op.summary}, {"description", op.desc}}
	params := []service.Obj{oaPref("RequestId")}
	if op.cached {
		params = append(params, oaPref("IfNoneMatch"))
	}
	o = append(o, service.KV{"parameters", append(params, op.params...)})
	if op.body != nil {
		o = append(o, service.KV{"requestBody", op.body})
	}
	responses := service.Obj{{"200", op.ok}}
	if op.cached {
		responses = append(responses, service.KV{"304", oaRref("NotModified")})
	}
	for _, status := range append(append([]string{}, op.errs...), "405", "500") {
		responses = append(responses, service.KV{status, oaRref(oaErrorResponseName(status, op.id))})
	}
	return append(o, service.KV{"responses", responses})
}

// oaJSONOK is a 200 answer in JSON with the X-Request-Id header and the named others.
func oaJSONOK(desc string, schema service.Obj, headers ...string) service.Obj {
	return service.Obj{{"description", desc}, {"headers", oaHeaders(headers...)}, {"content", service.Obj{{"application/json", service.Obj{{"schema", schema}}}}}}
}

// oaHeaders refers to response headers of components/headers: X-Request-Id and the named.
func oaHeaders(names ...string) service.Obj {
	o := service.Obj{}
	for _, n := range append([]string{"X-Request-Id"}, names...) {
		o = append(o, service.KV{n, service.Obj{{"$ref", "#/components/headers/" + n}}})
	}
	return o
}

func oaHeaderComponents() service.Obj {
	return service.Obj{
		{"X-Request-Id", service.Obj{
			{"description", "The request id: the caller's X-Request-Id when given (64 characters at most), else a new one. Every log line of the request carries it."},
			{"schema", service.Obj{{"type", "string"}, {"maxLength", 64}}}}},
		{"ETag", service.Obj{
			{"description", "A strong entity tag of the body; send it back in If-None-Match to get 304 while the answer is unchanged."},
			{"schema", service.Obj{{"type", "string"}}}}},
		{"X-Free-Queries-Remaining", service.Obj{
			{"description", fmt.Sprintf("How many of the %d free queries the caller (its key, or without a key its client address) has left after this one, or `unlimited` on a paid plan.", state.FreeQueries)},
			{"schema", service.Obj{{"type", "string"}, {"pattern", "^([0-9]+|unlimited)$"}}}}},
		{"Retry-After", service.Obj{
			{"description", "How many seconds to wait before sending the request again."},
			{"schema", service.Obj{{"type", "integer"}, {"minimum", 1}}}}},
		{"Cache-Control", service.Obj{
			{"description", "How long the answer may be reused: a long, immutable lifetime for a query that pins as_of (its answer never changes), a short one for an answer over latest (a newer snapshot may be promoted), no-cache for evidence and for a query with include_evidence (re-verified on every call; cited_by grows when a later snapshot is built from the same file) and no-store for health."},
			{"schema", service.Obj{{"type", "string"}}}}},
	}
}

func oaSref(name string) service.Obj { return service.Obj{{"$ref", "#/components/schemas/" + name}} }
func oaRref(name string) service.Obj { return service.Obj{{"$ref", "#/components/responses/" + name}} }
func oaPref(name string) service.Obj { return service.Obj{{"$ref", "#/components/parameters/" + name}} }

// oaErrorResponseName picks the error response of a status for an operation: a 400 of the
// evidence endpoint has other codes than a 400 of a query.
func oaErrorResponseName(status, opID string) string {
	switch status {
	case "400":
		if opID == oaAggregateEvidenceOpID {
			return "AggregateEvidenceBadRequest"
		}
		if strings.HasPrefix(opID, "evidence_") {
			return "EvidenceBadRequest"
		}
		if strings.HasPrefix(opID, "webhooks_") {
			return "WebhookBadRequest"
		}
		return "QueryBadRequest"
	case "401":
		return "Unauthorized"
	case "402":
		return "PaymentRequired"
	case "404":
		if strings.HasPrefix(opID, "webhooks_") {
			return "SubscriptionNotFound"
		}
		return "NotFound"
	case "405":
		return "MethodNotAllowed"
	case "409":
		return "SubscriptionLimit"
	case "413":
		return "PayloadTooLarge"
	case "503":
		if opID == oaAggregateEvidenceOpID {
			return "AggregateEvidenceUnavailable"
		}
	}
	return "InternalError"
}

func oaErrorResponses() service.Obj {
	resp := func(desc, code, message string, codes ...string) service.Obj {
		schema := oaSref("Error")
		if len(codes) > 0 {
			schema = service.Obj{{"allOf", []service.Obj{oaSref("Error"), {{"type", "object"}, {"properties", service.Obj{{"error", service.Obj{{"type", "object"}, {"properties", service.Obj{{"code", service.Obj{{"enum", codes}}}, {"message", service.Obj{{"type", "string"}}}}}}}}}}}}}
		}
		return service.Obj{{"description", desc}, {"headers", oaHeaders()}, {"content", service.Obj{{"application/json", service.Obj{
			{"schema", schema},
			{"example", service.Obj{{"error", service.Obj{{"code", code}, {"message", message}}}}},
		}}}}}
	}
	return service.Obj{
		{"NotModified", service.Obj{{"description", "The If-None-Match entity tag matches: the answer has not changed, and has no body."},
			{"headers", oaHeaders("ETag", "Cache-Control")}}},
		{"QueryBadRequest", resp(oaCodeList([][2]string{
			{apierror.CodeInvalidFilter, "unknown filter, unknown value, badly typed value"},
			{apierror.CodeInvalidParameter, "bad group_by, order_by, order, top_n, limit, as_of (the message lists the served dates), date format or range"},
			{apierror.CodeInvalidRequest, "malformed JSON, not one JSON object, `q=` mixed with other pairs"},
		}), apierror.CodeInvalidParameter, `order must be asc or desc (default desc), got "up"`,
			apierror.CodeInvalidFilter, apierror.CodeInvalidParameter, apierror.CodeInvalidRequest)},
		{"EvidenceBadRequest", resp(oaCodeList([][2]string{
			{apierror.CodeInvalidRequest, "the body is not a JSON object"},
			{apierror.CodeEvidenceInvalid, "a citation without file, sheet, row or hash, or badly typed"},
			{apierror.CodeEvidenceUnknownFile, "no raw file with that sha256 (a tampered hash)"},
			{apierror.CodeEvidenceFileName, "the hash is of a file with another name"},
			{apierror.CodeEvidenceHash, "the stored file changed on disk since ingest"},
			{apierror.CodeEvidenceUnreadable, "the stored file cannot be read or parsed"},
			{apierror.CodeEvidenceSheet, "no such sheet"},
			{apierror.CodeEvidenceRow, "the row is outside the sheet"},
			{apierror.CodeEvidenceSheetNotCited, "no served snapshot cites any row of that sheet"},
			{apierror.CodeEvidenceRowNotCited, "no served snapshot cites that row (a title, header or note row)"},
			{apierror.CodeEvidenceAsOf, "the as_of is not that of a snapshot citing the row"},
			{apierror.CodeEvidenceSourceID, "the source_id is not the one the row is cited with"},
			{apierror.CodeEvidenceSourceURL, "the source_url is not the one the file is cited with"},
			{apierror.CodeEvidenceDerived, "derived, original_url or original_page is not what the row is cited with"},
		}), apierror.CodeEvidenceInvalid, "a citation needs raw_file_sha256, source_file, sheet and source_row; take them from a record's citation or an aggregate citation's verify member",
			apierror.CodeInvalidRequest, apierror.CodeEvidenceInvalid, apierror.CodeEvidenceUnknownFile, apierror.CodeEvidenceFileName, apierror.CodeEvidenceHash, apierror.CodeEvidenceUnreadable, apierror.CodeEvidenceSheet, apierror.CodeEvidenceRow,
			apierror.CodeEvidenceSheetNotCited, apierror.CodeEvidenceRowNotCited, apierror.CodeEvidenceAsOf, apierror.CodeEvidenceSourceID, apierror.CodeEvidenceSourceURL, apierror.CodeEvidenceDerived)},
		{"AggregateEvidenceBadRequest", resp(oaCodeList(oaAggregateEvidenceCodes), apierror.CodeEvidenceRowsCount,
			`the citation's source_rows_count is 1, but the rows its lineage_filter selects are cited with source_rows_count 3287: a citation is verified only as the service gives it; take it unchanged from the answer's citations`,
			oaCodes(oaAggregateEvidenceCodes)...)},
		{"AggregateEvidenceUnavailable", oaWithHeaders(resp(oaCodeList(oaAggregateEvidenceBusy), apierror.CodeOverCapacity,
			"4 aggregate verifications are running, the most this service runs at once; send the request again in 2 seconds",
			oaCodes(oaAggregateEvidenceBusy)...), "Retry-After")},
		{"NotFound", resp(oaCodeList([][2]string{
			{apierror.CodeNotFound, "no capability (or endpoint) at that path"},
			{apierror.CodeNotServed, "the capability is defined but has no promoted snapshot (a query; its schema is described all the same)"},
		}), apierror.CodeNotFound, "no capability at /v1/"+exampleCap().Path+"s; GET /v1/capabilities lists the served capabilities and their paths",
			apierror.CodeNotFound, apierror.CodeNotServed)},
		{"MethodNotAllowed", resp(oaCodeList([][2]string{{apierror.CodeMethodNotAllowed, "the path is served, but not for this method (e.g. DELETE on a query path)"}}),
			apierror.CodeMethodNotAllowed, "DELETE is not served at /v1/"+exampleCap().Path+"/query; schema is GET, query is POST or GET, evidence is POST",
			apierror.CodeMethodNotAllowed)},
		{"PayloadTooLarge", resp(oaCodeList([][2]string{{apierror.CodeInvalidRequest, fmt.Sprintf("the body is over %d MiB", MaxBody>>20)}}),
			apierror.CodeInvalidRequest, bodyTooLarge().Message,
			apierror.CodeInvalidRequest)},
		{"Unauthorized", resp(oaCodeList([][2]string{
			{apierror.CodeKeyRequired, "a webhook endpoint called without an API key"},
			{apierror.CodeInvalidKey, "the Authorization header is not `Bearer <key>` of a known key"},
			{apierror.CodeRevokedKey, "the key has been revoked"},
		}), apierror.CodeKeyRequired, "this endpoint needs an API key: send \"Authorization: Bearer <key>\" (an operator creates one with citeq keys create)",
			apierror.CodeKeyRequired, apierror.CodeInvalidKey, apierror.CodeRevokedKey)},
		{"PaymentRequired", resp(oaCodeList([][2]string{{apierror.CodePaymentRequired, fmt.Sprintf("the %d free queries of the key (or, without a key, of the client address) are used; the message names the plans (monthly %d USD, annual %d USD) and how to upgrade", state.FreeQueries, access.PriceMonthlyUSD, access.PriceAnnualUSD)}}),
			apierror.CodePaymentRequired, fmt.Sprintf("the %d free queries of this API key are used. Subscribe to a paid plan for unlimited queries: %s; ...", state.FreeQueries, access.PlanPrices()),
			apierror.CodePaymentRequired)},
		{"WebhookBadRequest", resp(oaCodeList([][2]string{
			{apierror.CodeInvalidRequest, "malformed body or data after the JSON object, unknown or ineligible (unserved or sub-daily) data_point, a callback_url over " + strconv.Itoa(webhooks.MaxCallbackURL) + " bytes, not https, or resolving to a loopback, private, link-local, unique-local, multicast or unspecified address (or an IPv6 address embedding one)"},
			{apierror.CodeInvalidParameter, "a listing's limit outside 1.." + strconv.Itoa(MaxPage) + ", or an after that is not one of the key's subscriptions"},
		}), apierror.CodeInvalidRequest, "callback_url must use https, not \"http\"; give a public https URL", apierror.CodeInvalidRequest, apierror.CodeInvalidParameter)},
		{"SubscriptionLimit", resp(oaCodeList([][2]string{{apierror.CodeSubscriptionLimit, fmt.Sprintf("the key already holds %d active subscriptions", state.MaxSubscriptionsPerKey)}}),
			apierror.CodeSubscriptionLimit, subscriptionLimit().Message, apierror.CodeSubscriptionLimit)},
		{"SubscriptionNotFound", resp(oaCodeList([][2]string{{apierror.CodeSubscriptionNotFound, "no such subscription of the calling key (unknown, deleted, or another key's: not told apart)"}}),
			apierror.CodeSubscriptionNotFound, "no subscription sub_0123 of this key; GET /v1/webhooks/subscriptions lists yours", apierror.CodeSubscriptionNotFound)},
		{"InternalError", resp(oaCodeList([][2]string{{apierror.CodeInternal, "a bug; logged with the request id"}}),
			apierror.CodeInternal, "the server failed on this request; it has been logged — retry, and report the X-Request-Id if it persists",
			apierror.CodeInternal)},
	}
}

func oaCodeList(codes [][2]string) string {
	lines := make([]string, len(codes))
	for i, c := range codes {
		lines[i] = "- `" + c[0] + "`: " + c[1]
	}
	return "Error codes:\n\n" + strings.Join(lines, "\n")
}

func oaFilterDescription(c *capability.Capability, f capability.Field) string {
	d := strings.TrimSuffix(f.Description, ".") + "."
	switch {
	case len(f.Enum) > 0:
	case f.Codebook != "":
		d += " Valid values: the codebook " + f.Codebook + " of GET /v1/" + c.Path + "/schema (a code of the agency's table matches nothing when no row carries it)."
	case f.Type == capability.String:
		d += fmt.Sprintf(" Values are case-sensitive, as published; GET /v1/%s/schema lists the snapshot's values when there are at most %d.", c.Path, service.ValuesListed)
	}
	return d
}

func oaRangeDescription(r capability.DateRange, name string) string {
	d := "Lower bound (inclusive) on " + r.Column + ": YYYY-MM-DD, YYYY-MM or YYYY (a month or year means its first day)."
	field := ""
	if r.Instants != nil {
		field = r.Instants.From
	}
	if strings.HasSuffix(name, "_to") {
		d = "Upper bound (inclusive) on " + r.Column + ": YYYY-MM-DD, YYYY-MM or YYYY (a month or year means its last day)."
		if r.Instants != nil {
			field = r.Instants.To
		}
	}
	if r.Instants != nil {
		d += " Or an RFC 3339 timestamp (2022-02-19T19:00:00Z, 2022-02-19T11:00:00-08:00), compared in UTC, inclusive, with " + field + ": " + r.Instants.Convention
	}
	return d
}

// oaRangeBound is the schema of a bound of date range r.
func oaRangeBound(r capability.DateRange) service.Obj {
	if r.Instants != nil {
		return oaSref("DateOrInstantBound")
	}
	return oaSref("DateBound")
}

// oaDateOrInstantPattern matches a date bound (YYYY, YYYY-MM, YYYY-MM-DD) or an RFC 3339
// timestamp (seconds and fraction optional, Z or an offset).
const oaDateOrInstantPattern = `^[0-9]{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12][0-9]|3[01])([Tt ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?([Zz]|[+-][0-9]{2}:[0-9]{2}))?)?)?$`

func oaCommaListPattern(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	alt := "(" + strings.Join(quoted, "|") + ")"
	return `^\s*` + alt + `\s*(,\s*` + alt + `\s*)*$`
}

// oaSchemaPrefix names the capability's component schemas: domain.some_name → DomainSomeName.
func oaSchemaPrefix(c *capability.Capability) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(c.ID, func(r rune) bool { return r == '.' || r == '_' || r == '-' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// oaValueSchema is the schema of one value of field f.
func oaValueSchema(f capability.Field) service.Obj {
	o := service.Obj{{"type", f.Type.JSONType()}}
	if f.Type == capability.Date {
		o = append(o, service.KV{"format", "date"})
	}
	if len(f.Enum) > 0 {
		o = append(o, service.KV{"enum", f.Enum})
	}
	return o
}

// oaNullableSchema is the schema of one value of field f, or null.
func oaNullableSchema(f capability.Field, desc string) service.Obj {
	o := service.Obj{{"type", []string{f.Type.JSONType(), "null"}}}
	if f.Type == capability.Date {
		o = append(o, service.KV{"format", "date"})
	}
	if len(f.Enum) > 0 {
		vals := make([]any, 0, len(f.Enum)+1)
		for _, e := range f.Enum {
			vals = append(vals, e)
		}
		o = append(o, service.KV{"enum", append(vals, nil)})
	}
	if desc != "" {
		o = append(o, service.KV{"description", desc})
	}
	return o
}

// oaFilterSchema is a filter's value in a params object: one value or a non-empty list.
func oaFilterSchema(f capability.Field, desc string) service.Obj {
	return service.Obj{{"description", desc}, {"oneOf", []service.Obj{
		oaValueSchema(f),
		{{"type", "array"}, {"items", oaValueSchema(f)}, {"minItems", 1}},
	}}}
}

func oaObject(desc string, props service.Obj, required ...string) service.Obj {
	o := service.Obj{{"type", "object"}}
	if desc != "" {
		o = append(o, service.KV{"description", desc})
	}
	if len(required) > 0 {
		o = append(o, service.KV{"required", required})
	}
	return append(o, service.KV{"properties", props})
}

func oaStr(desc string) service.Obj     { return oaWithDesc(service.Obj{{"type", "string"}}, desc) }
func oaInteger(desc string) service.Obj { return oaWithDesc(service.Obj{{"type", "integer"}}, desc) }
func oaBoolean(desc string) service.Obj { return oaWithDesc(service.Obj{{"type", "boolean"}}, desc) }
func oaDate(desc string) service.Obj {
	return oaWithDesc(service.Obj{{"type", "string"}, {"format", "date"}}, desc)
}
func oaArray(items service.Obj, desc string) service.Obj {
	return oaWithDesc(service.Obj{{"type", "array"}, {"items", items}}, desc)
}
func oaMapOf(values service.Obj, desc string) service.Obj {
	return oaWithDesc(service.Obj{{"type", "object"}, {"additionalProperties", values}}, desc)
}

func oaWithDesc(o service.Obj, desc string) service.Obj {
	if desc == "" {
		return o
	}
	return append(o, service.KV{"description", desc})
}

const (
	oaSha256Pattern      = `^[0-9a-f]{64}$`
	oaCitationRefPattern = `^c_[0-9a-f]{16}$`
)

// oaCapabilitySchemas are the component schemas of capability c: its params object, filters,
// the query echo, the response, rows, groups, metrics and detail records.
func oaCapabilitySchemas(s *service.Service, c *capability.Capability) service.Obj {
	pfx := oaSchemaPrefix(c)
	dates := s.ServedDates(c.ID)

	echoFilters := service.Obj{}
	for _, p := range c.Params() {
		if p.Kind == capability.KindFilter {
			echoFilters = append(echoFilters, service.KV{p.Name, oaArray(oaValueSchema(p.Field), "")})
		}
	}
	echo := service.Obj{
		{"as_of", oaDate("the exact snapshot date")},
		{"filters", oaWithAdditional(oaObject("the filters as validated: each a sorted list of distinct values", echoFilters), false)},
	}
	for _, r := range c.DateRanges {
		if r.Instants != nil {
			echo = append(echo,
				service.KV{r.From(), oaStr("lower bound: a date (a month or year expanded to its first day) or a UTC instant YYYY-MM-DDTHH:MM:SSZ")},
				service.KV{r.To(), oaStr("upper bound: a date (a month or year expanded to its last day) or a UTC instant YYYY-MM-DDTHH:MM:SSZ")})
			continue
		}
		echo = append(echo,
			service.KV{r.From(), oaDate("lower bound, expanded to a day")},
			service.KV{r.To(), oaDate("upper bound, expanded to a day")})
	}
	metricEnum := service.Obj{{"type", "string"}, {"enum", c.MetricNames()}}
	order, _ := capability.CommonParam("order")
	echo = append(echo,
		service.KV{"group_by", oaArray(service.Obj{{"type", "string"}, {"enum", c.GroupByNames()}}, "")},
		service.KV{"order_by", metricEnum},
		service.KV{"order", service.Obj{{"type", "string"}, {"enum", order.Enum}}},
		service.KV{"top_n", oaInteger("given only with top_n")},
		service.KV{"rollup_other", oaBoolean("given only with top_n")},
		service.KV{"include_records", service.Obj{{"type", "boolean"}}},
		service.KV{"limit", oaInteger("given only with include_records")},
		service.KV{"include_evidence", service.Obj{{"type", "boolean"}}},
		service.KV{capability.ParamCursor, oaStr("given only for a page after the first")},
	)

	metrics := service.Obj{}
	units := service.Obj{}
	for _, m := range c.Metrics {
		metrics = append(metrics, service.KV{m.Name, service.Obj{{"type", []string{"number", "null"}}, {"description", m.Description + " (" + m.Unit + ", " + string(m.Agg) + ")"}}})
		if m.UnitColumn != "" {
			units = append(units, service.KV{m.Name, service.Obj{{"type", "string"}, {"description", "the unit the matched rows share (their " + m.UnitColumn + "), or \"" + m.Unit + "\" when they mix units or none matched"}}})
			continue
		}
		units = append(units, service.KV{m.Name, service.Obj{{"type", "string"}, {"const", m.Unit}}})
	}
	group := service.Obj{}
	for _, f := range c.Fields {
		if !f.GroupBy {
			continue
		}
		if f.Type == capability.String && len(f.Enum) == 0 {
			group = append(group, service.KV{f.Name, oaNullableSchema(f, f.Description+"; "+service.OtherGroup+" in the row top_n folds the rest into")})
			continue
		}
		group = append(group, service.KV{f.Name, service.Obj{{"description", f.Description + "; " + service.OtherGroup + " in the row top_n folds the rest into"},
			{"anyOf", []service.Obj{oaNullableSchema(f, ""), {{"type", "string"}, {"const", service.OtherGroup}}}}}})
	}
	record := service.Obj{}
	names := make([]string, 0, len(c.Fields)+1)
	for _, f := range c.Fields {
		record = append(record, service.KV{f.Name, oaNullableSchema(f, f.Description)})
		names = append(names, f.Name)
	}
	record = append(record, service.KV{"citation", oaSref("RecordCitation")})
	names = append(names, "citation")

	summary := oaObject("", service.Obj{
		{"group_count", oaInteger("number of groups in the matched set, before top_n folds any")},
		{"returned_group_count", oaInteger("number of rows returned")},
		{"matched_source_rows", oaInteger("source rows the filters and date ranges match")},
		{"totals", oaWithDesc(oaSref(pfx+"Metrics"), "each metric over the whole matched set, computed directly (never by summing rows)")},
		{"units", oaSref(pfx + "Units")},
		{"notes", oaArray(oaSref("Note"), "")},
		{"citation_refs", oaArray(oaSref("CitationRef"), "the citations of the whole matched set, keys of citations")},
		{"records_returned", oaInteger("with include_records: the records returned")},
		{"records_truncated", oaBoolean("with include_records: true when more records matched than this page holds (limit, or the page budget)")},
		{"records_offset", oaInteger("with cursor: the matched records before this page")},
	}.With(oaPageMembers()...), "group_count", "returned_group_count", "matched_source_rows", "totals", "units", "notes", "citation_refs")

	row := oaObject("One group (or the (other) row of top_n).", service.Obj{
		{"group", oaSref(pfx + "Group")},
		{"metrics", oaSref(pfx + "Metrics")},
		{"notes", oaArray(oaSref("Note"), "present when a metric of the row has a note")},
		{"lineage", oaObject("", service.Obj{
			{"citation_ref", service.Obj{{"type", []string{"string", "null"}}, {"pattern", oaCitationRefPattern}, {"description", "the first citation of the group's rows (null when the group has no rows); a key of citations"}}},
			{"citation_refs", oaArray(oaSref("CitationRef"), "present when the group spans several source files: one citation per file")},
			{"source_rows_count", oaInteger("source rows of the group")},
		}, "citation_ref", "source_rows_count")},
	}, "group", "metrics", "lineage")

	response := oaObject("The answer to a query of "+c.ID+".", service.Obj{
		{"capability", service.Obj{{"type", "string"}, {"const", c.ID}}},
		{"as_of", oaDate("the snapshot answered from (latest resolved)")},
		{"query", oaSref(pfx + "CanonicalQuery")},
		{"summary", summary},
		{"rows", oaArray(oaSref(pfx+"Row"), "the groups, in group-key order or ranked by order_by")},
		{"records", oaArray(oaSref(pfx+"Record"), "with include_records: the matched detail records in source order, up to limit")},
		{"citations", oaWithDesc(service.Obj{{"type", "object"}, {"propertyNames", service.Obj{{"pattern", oaCitationRefPattern}}}, {"additionalProperties", oaSref("AggregateCitation")}},
			"the aggregate citations, de-duplicated, keyed by citation_ref")},
	}, "capability", "as_of", "query", "summary", "rows", "citations")

	return append(service.Obj{
		{pfx + "AsOf", oaAsOfSchema(c, dates)},
		{pfx + "QueryParams", oaQueryParams(c)},
		{pfx + "CanonicalQuery", oaObject("The params as validated and canonicalized: the same question always echoes the same query.", echo,
			"as_of", "filters", "group_by", "order", "include_records", "include_evidence")},
		{pfx + "QueryResponse", response},
		{pfx + "Row", row},
		{pfx + "Group", oaObject("The row's value of each group_by dimension, in group_by order (null where the source has none).", group)},
		{pfx + "Metrics", oaObject("Each metric: a number, or null when no matched row reports its column (SQL semantics; see notes).", metrics, c.MetricNames()...)},
		{pfx + "Units", oaObject("The unit of each metric: for a metric whose rows carry their unit, the unit the matched rows share.", units, c.MetricNames()...)},
		{pfx + "Record", oaObject("One matched detail record with its record-level citation.", record, names...)},
	}, oaCompareSchemas(c)...)
}

// oaAsOfExamples are latest, the served dates and the on: form at the first of them.
func oaAsOfExamples(dates []string) []string {
	ex := append([]string{"latest"}, dates...)
	if len(dates) > 0 {
		ex = append(ex, service.AsOfOnPrefix+dates[0])
	}
	return ex
}

func oaWithAdditional(o service.Obj, allowed bool) service.Obj {
	return append(o, service.KV{"additionalProperties", allowed})
}

// oaQueryExample is a query of capability c to show: a closed-enum filter, a grouping, a
// ranking and a top_n.
func oaQueryExample(c *capability.Capability) service.Obj {
	ex := service.Obj{}
	var filtered string
	for _, f := range c.Fields {
		if f.Filter && len(f.Enum) > 0 {
			ex = append(ex, service.KV{"filters", service.Obj{{f.Name, f.Enum[0]}}})
			filtered = f.Name
			break
		}
	}
	for _, g := range c.GroupByNames() {
		if g != filtered {
			ex = append(ex, service.KV{"group_by", []string{g}})
			if len(c.Metrics) > 0 {
				ex = append(ex, service.KV{"order_by", c.Metrics[0].Name}, service.KV{"top_n", 5})
			}
			break
		}
	}
	return ex
}

// oaSharedSchemas are the component schemas every capability shares: citations, evidence,
// notes, errors and the discover and describe payloads.
func oaSharedSchemas(served []*capability.Capability) service.Obj {
	noteCodes := []string{"not_published", "mixed_units", service.NoteNotAdditive, service.NoteRatioUndefined, service.NoteNoRows, service.NoteMixedPartition, service.NoteDateUnplaced, service.NoteNotCounted, service.NoteJoinUnmatched,
		service.NoteNotAdditiveOverTime, service.NoteShareNotAveraged, service.NotePeriodsPresent, service.NoteUnequalCoverage, service.NoteValuesMissing, service.NoteNullGroupKey, service.NoteStale,
		service.NotePartialPeriod, service.NoteReleaseRevised}
	for _, c := range served {
		for _, m := range c.Metrics {
			if m.NullNote != "" && !slices.Contains(noteCodes, m.NullNote) {
				noteCodes = append(noteCodes, m.NullNote)
			}
		}
	}
	noteCodes = service.FlagNoteCodes(noteCodes, served)
	sha := service.Obj{{"type", "string"}, {"pattern", oaSha256Pattern}}
	recordCitation := service.Obj{
		{"source_id", oaStr("source identifier")},
		{"source_url", oaStr("the official URL of the file")},
		{"source_file", oaStr("file name as published")},
		{"sheet", oaStr("sheet (or page) of the file")},
		{"source_row", service.Obj{{"type", "integer"}, {"minimum", 1}, {"description", "1-based row number as the publisher's file numbers it (the Excel row, or the CSV line)"}}},
		{"raw_file_sha256", oaWithDesc(sha, "sha256 of the raw file")},
		{"as_of", oaDate("snapshot date")},
		{"derived", oaBoolean("present and true when the cited file is a third party's extract or re-save of the publisher's data; the file named and hashed is that copy")},
		{"original_url", oaStr("with derived: the publisher's own address of the data the copy was made from; for a row of a transcription that names the publisher's document it was copied from, that document")},
		{"original_page", oaStr("with derived, for a row of a transcription: the page (and table) of the publisher's document, as the row names it")},
	}
	citationInput := oaObject("A record-level citation to verify.", service.Obj{
		{"source_id", oaStr("")},
		{"source_url", oaStr("")},
		{"source_file", oaStr("")},
		{"sheet", oaStr("")},
		{"source_row", oaInteger("")},
		{"raw_file_sha256", oaStr("")},
		{"as_of", oaStr("")},
		{"derived", oaBoolean("")},
		{"original_url", oaStr("")},
		{"original_page", oaStr("")},
	}, "source_file", "sheet", "source_row", "raw_file_sha256")
	cell := oaObject("", service.Obj{
		{"column", oaStr("column letter(s), A for the first")},
		{"header", oaStr("the column's header, spaces normalized (absent when the sheet has no known header row)")},
		{"value", oaStr("the literal stored value: a numeric cell as its stored decimal, a published blank as \" \"")},
		{"type", service.Obj{{"type", "string"}, {"enum", []string{"text", "number", "boolean", "error", "empty"}}}},
	}, "column", "value", "type")
	codebookCode := oaObject("", service.Obj{
		{"code", oaStr("")},
		{"description", oaStr("")},
		{"group", oaStr("the code's group in the agency table")},
		{"in_agency_table", oaBoolean("false for a code the data uses that the agency's table lacks")},
		{"rows_in_snapshot", oaInteger("")},
		{"source", oaObject("the row of the agency's table the code was read from", service.Obj{
			{"source_file", oaStr("")}, {"sheet", oaStr("")}, {"source_row", oaInteger("")}, {"raw_file_sha256", sha},
		})},
		{"note", oaStr("")},
	}, "code", "in_agency_table", "rows_in_snapshot")
	scalar := service.Obj{{"type", []string{"string", "integer", "number", "boolean"}}}
	nullableScalar := service.Obj{{"type", []string{"string", "integer", "number", "boolean", "null"}}}
	named := func(props ...service.KV) service.Obj { return oaObject("", service.Obj(props), "name") }

	return service.Obj{
		{"Error", oaObject("An error: the code, and a message that says what to do.", service.Obj{
			{"error", oaObject("", service.Obj{
				{"code", service.Obj{{"type", "string"}, {"enum", []string{apierror.CodeInvalidFilter, apierror.CodeInvalidParameter, apierror.CodeInvalidRequest, apierror.CodeEvidenceInvalid,
					apierror.CodeEvidenceUnknownFile, apierror.CodeEvidenceFileName, apierror.CodeEvidenceHash, apierror.CodeEvidenceUnreadable, apierror.CodeEvidenceSheet, apierror.CodeEvidenceRow,
					apierror.CodeEvidenceSheetNotCited, apierror.CodeEvidenceRowNotCited, apierror.CodeEvidenceAsOf, apierror.CodeEvidenceSourceID, apierror.CodeEvidenceSourceURL,
					apierror.CodeEvidenceLineage, apierror.CodeEvidenceCellsUnknown, apierror.CodeNotRecomputable, apierror.CodeOverCapacity, apierror.CodeEvidencePublisher, apierror.CodeEvidenceSourceFile,
					apierror.CodeEvidenceSHA256, apierror.CodeEvidenceDerived, apierror.CodeEvidenceRowsCount, apierror.CodeEvidenceRowsSample, apierror.CodeEvidenceVerify, apierror.CodeEvidenceSourceView,
					apierror.CodeNotFound, apierror.CodeNotServed, apierror.CodeMethodNotAllowed, apierror.CodeInternal, apierror.CodeCancelled,
					apierror.CodeKeyRequired, apierror.CodeInvalidKey, apierror.CodeRevokedKey, apierror.CodePaymentRequired, apierror.CodeSubscriptionNotFound, apierror.CodeSubscriptionLimit}}}},
				{"message", oaStr("")},
			}, "code", "message")},
		}, "error")},
		{"CitationRef", service.Obj{{"type", "string"}, {"pattern", oaCitationRefPattern}, {"description", "c_ and the first 16 hex digits of the sha256 of the citation's JSON"}}},
		{"DateBound", service.Obj{{"type", "string"}, {"pattern", `^[0-9]{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12][0-9]|3[01]))?)?$`},
			{"description", "YYYY-MM-DD, YYYY-MM or YYYY; inclusive"}}},
		{"DateOrInstantBound", service.Obj{{"type", "string"}, {"pattern", oaDateOrInstantPattern},
			{"description", "YYYY-MM-DD, YYYY-MM or YYYY, or an RFC 3339 timestamp (Z or an offset; compared in UTC); inclusive"}}},
		{"Note", oaObject("Why a metric is null or incomplete, or what an answer adds that should not be added silently.", append(append(service.Obj{
			{"code", service.Obj{{"type", "string"}, {"enum", noteCodes}}},
			{"metric", oaStr("the metric the note is about (absent for a note on the matched set as a whole)")},
			{"count", oaInteger("matched rows with no value (the null note of a count_distinct metric); " + service.NoteDateUnplaced + ": the rows the range could not place; a flag's note: the matched rows it names")},
			{"dimension", oaStr(service.NoteMixedPartition + ": the partition dimension the matched rows span several values of")},
			{"values", oaArray(oaObject("", service.Obj{{"value", nullableScalar}, {"rows", oaInteger("")}}, "value", "rows"),
				service.NoteMixedPartition+": the dimension's values in the matched set, with their rows")},
			{"sides", oaArray(oaObject("", service.Obj{
				{"side", oaStr("the input (generation, capacity)")}, {"plants", oaInteger("")}, {"rows", oaInteger("")},
				{"net_generation_mwh", service.Obj{{"type", "number"}}}, {"nameplate_mw", service.Obj{{"type", "number"}}},
				{"plants_first", oaArray(service.Obj{{"type", "string"}}, "the first plant ids left out")},
			}, "side", "plants", "rows"), service.NoteJoinUnmatched+": per input of a derived capability, the rows without a partner in the other input, left out of the answer")},
			{"repeating", oaObject(service.NoteMixedPartition+" on a dimension whose rows of some values repeat what rows of others count: those values, the values they repeat, and the metrics that leave them out", service.Obj{
				{"values", oaArray(service.Obj{{"type", "string"}}, "")}, {"of", oaArray(service.Obj{{"type", "string"}}, "")}, {"left_out_of", oaArray(service.Obj{{"type", "string"}}, "")},
			}, "values", "of", "left_out_of")},
			{"sources", oaArray(service.Obj{{"type", "string"}}, service.NoteStale+": the sources of the capability that are stale")},
			{"date_range", oaStr(service.NoteDateUnplaced + ": the date range (its parameters are <date_range>_date_from and _to)")},
			{"column", oaStr(service.NoteDateUnplaced + ": the date column the range reads")},
			{"year_filter", service.Obj{{"type", []string{"string", "null"}}, {"description", service.NoteDateUnplaced + ": the year filter that reaches the rows by year, null when the capability has none"}}},
			{"with_year", oaInteger(service.NoteDateUnplaced + ": of the rows left out, those that have a year (published without a month)")},
			{"in_range_years", oaInteger(service.NoteDateUnplaced + ": of the rows left out, those whose year lies within the range's years")},
			{"periods", oaInteger(service.NoteNotAdditiveOverTime + ": the periods the rows' values are of; " + service.NotePeriodsPresent + ": the periods the row's group has a value for")},
			{"most", oaInteger(service.NotePeriodsPresent + ", " + service.NoteUnequalCoverage + ": the most periods any group of the answer has a value for")},
			{"fewest", oaInteger(service.NoteUnequalCoverage + ": the fewest periods a group of the answer has a value for")},
			{"field", oaStr(service.NotePeriodsPresent + ", " + service.NoteUnequalCoverage + ": the field that holds the period; a flag's note: the field that marks the rows named")},
			{"groups_below_most", oaInteger(service.NoteUnequalCoverage + ": the groups with fewer periods than the most")},
			{"shares", oaInteger(service.NoteShareNotAveraged + ": the shares the rows hold")},
			{"rows", oaInteger(service.NoteValuesMissing + ": the matched rows without a value in column; " + service.NoteNullGroupKey + ": the matched rows without a value of dimension")},
			{"matched_rows", oaInteger(service.NoteValuesMissing + ": the matched rows")},
			{"metrics", oaArray(service.Obj{{"type", "string"}}, service.NoteValuesMissing+": the metrics that leave those rows out")},
			{"first", oaArray(service.Obj{{"type", "string"}}, service.NoteValuesMissing+": the record keys of the first of those rows")},
			{"blank_in_source", service.Obj{{"type", []string{"integer", "null"}}, {"description", service.NoteNullGroupKey + ": of those rows, the ones the publisher left blank (null when a null value of the dimension means something else, said in the message)"}}},
			{"not_mapped", oaInteger(service.NoteNullGroupKey + ": of those rows, the ones whose published value maps to no value of the dimension")},
			{"held_by", oaArray(oaObject("", service.Obj{{"as_of", oaDate("")}, {"rows", oaInteger("")}}, "as_of", "rows"),
				service.NoteNoRows+": the earlier as_of dates whose snapshot has rows that match, with their count")},
			{"covers", oaObject(service.NoteNoRows+": what this as_of holds of the rows that match the filters other than the period asked", service.Obj{
				{"rows", oaInteger("")},
				{"ranges", oaMapOf(oaObject("", service.Obj{{"from", oaStr("")}, {"to", oaStr("")}}, "from", "to"), "date column → its first and last value over those rows")},
			}, "rows", "ranges")},
			{"period", oaStr(service.NotePartialPeriod + ": the period a document covers only in part")},
			{"where", oaMapOf(scalar, service.NotePartialPeriod+": the field values that select the period's rows")},
			{"source_file", oaStr(service.NotePartialPeriod + ": the document that covers it in part")},
			{"covered", oaStr(service.NotePartialPeriod + ": what the document holds of the period, and how much of it that is")},
			{"complete", oaStr(service.NotePartialPeriod + ": how to get the complete figure, or that no published file here has it")},
			{"revisions", oaArray(oaObject("", service.Obj{
				{"source_record_key", oaStr("the served row")},
				{"values", oaArray(oaObject("", service.Obj{{"field", oaStr("")}, {"served", nullableScalar}, {"earlier", nullableScalar}}, "field", "served", "earlier"), "")},
				{"served_release", oaStr("")},
				{"served_file", oaStr("")},
				{"earlier_release", oaStr("")},
				{"earlier", oaWithDesc(oaSref("RecordCitation"), "the earlier publication's row, as of its own date: post it to /v1/evidence/source-row")},
			}, "source_record_key", "values", "earlier"), service.NoteReleaseRevised+": the matched rows a newer publication revised (the first 24)")},
		}, oaFlagNoteMembers()...), service.KV{"message", oaStr("")}), "code", "message")},
		{"RecordCitation", oaObject("A record-level citation: the evidence endpoint takes it as is.", recordCitation,
			"source_id", "source_url", "source_file", "sheet", "source_row", "raw_file_sha256", "as_of")},
		{"AggregateCitation", oaObject("The citation of the rows of one group (or of the whole matched set) from one source file.", service.Obj{
			{"source_id", oaStr("")},
			{"publisher", oaStr("")},
			{"source_url", oaStr("")},
			{"derived", oaBoolean("present and true when the cited file is a third party's extract or re-save of the publisher's data")},
			{"original_url", oaStr("with derived: the publisher's own address of the data (for a transcription, where the publisher lists the documents its rows were copied from; each sampled row and the verify member name their own document and page)")},
			{"source_file", oaStr("")},
			{"raw_file_sha256", sha},
			{"as_of", oaDate("")},
			{"source_rows_count", oaInteger("the cited rows")},
			{"source_rows_sample", oaArray(oaObject("", service.Obj{{"sheet", oaStr("")}, {"source_row", oaInteger("")},
				{"original_url", oaStr("with derived, for a row of a transcription: the publisher's document the row was copied from")},
				{"original_page", oaStr("with derived, for a row of a transcription: the page of that document")}}, "sheet", "source_row"),
				"the first five cited rows in source order")},
			{"verify", oaWithDesc(oaSref("RecordCitation"), "the record-level citation of the first sampled row: post it to /v1/evidence/source-row")},
			{"lineage_filter", oaObject("What selects exactly the cited rows: the rows of source_file whose value of each filter is one of its list (null matches a null value), whose date columns lie within date_ranges (a row without the date does not), and that match no group of excludes. POST it to /v1/evidence/aggregate to recompute a metric from the cited rows' literal cells.", service.Obj{
				{"source_file", oaStr("")},
				{"raw_file_sha256", sha},
				{"filters", oaMapOf(oaArray(nullableScalar, ""), "filters and group values → allowed values")},
				{"date_ranges", oaMapOf(oaObject("", service.Obj{
					{"from", service.Obj{{"type", "string"}, {"pattern", `^([0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}Z)?)?$`}, {"description", "a date (or, on an instant field, a UTC instant), or empty when unbounded"}}},
					{"to", service.Obj{{"type", "string"}, {"pattern", `^([0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}Z)?)?$`}, {"description", "a date (or, on an instant field, a UTC instant), or empty when unbounded"}}},
				}, "from", "to"), "date column (or instant field of a timestamp bound) → inclusive bounds")},
				{"excludes", oaArray(oaMapOf(nullableScalar, "group_by dimension → value"), "for the (other) row: the groups listed before it, whose rows it leaves out (a row matching every value of one of them)")},
			}, "source_file", "raw_file_sha256", "filters")},
			{"source_view", oaObject("The document the rows lie in (capabilities that have one).", service.Obj{
				{"title", oaStr("")}, {"release", oaStr("")}, {"sheets", oaArray(service.Obj{{"type", "string"}}, "")},
			})},
			{"evidence", service.Obj{{"description", "with include_evidence: the verified row of verify, or why it could not be verified"},
				{"oneOf", []service.Obj{oaSref("EvidenceResponse"), oaSref("EvidenceFailure")}}}},
		}, "source_id", "publisher", "source_url", "source_file", "raw_file_sha256", "as_of", "source_rows_count", "source_rows_sample", "verify", "lineage_filter")},
		{"EvidenceRequest", service.Obj{{"description", "A citation, or an object whose verify member is one (an aggregate citation)."},
			{"anyOf", []service.Obj{citationInput, oaObject("", service.Obj{{"verify", citationInput}}, "verify")}}}},
		{"EvidenceResponse", oaObject("A verified source row.", service.Obj{
			{"verified", service.Obj{{"type", "boolean"}, {"const", true}}},
			{"citation", oaSref("RecordCitation")},
			{"raw_file_sha256", oaWithDesc(sha, "the cited hash")},
			{"computed_sha256", oaWithDesc(sha, "the hash of the stored file, computed now")},
			{"source_file", oaStr("")},
			{"sheet", oaStr("")},
			{"source_row", oaInteger("")},
			{"header_row", service.Obj{{"type", []string{"integer", "null"}}, {"description", "the sheet's header row, null when unknown"}}},
			{"cells", oaArray(cell, "every cell of the row, in column order")},
			{"cited_by", oaArray(oaObject("", service.Obj{{"capability", oaStr("")}, {"as_of", oaDate("")}, {"role", service.Obj{{"type", "string"}, {"enum", []string{"data", "reference", "check"}}}}},
				"capability", "as_of", "role"), "the snapshots built from the file")},
		}, "verified", "citation", "raw_file_sha256", "computed_sha256", "source_file", "sheet", "source_row", "header_row", "cells", "cited_by")},
		{"EvidenceFailure", oaObject("A citation that could not be verified.", service.Obj{
			{"verified", service.Obj{{"type", "boolean"}, {"const", false}}},
			{"error", oaObject("", service.Obj{{"code", oaStr("")}, {"message", oaStr("")}}, "code", "message")},
		}, "verified", "error")},
		{"Freshness", oaFreshnessSchema()},
		{"Health", oaObject("", service.Obj{
			{"status", service.Obj{{"type", "string"}, {"const", "ok"}}},
			{"snapshots", oaArray(oaObject("", service.Obj{{"capability", oaStr("")}, {"as_of", oaDate("")}, {"rows", oaInteger("")}}, "capability", "as_of", "rows"), "")},
		}, "status", "snapshots")},
		{"Capabilities", oaObject("", service.Obj{
			{"capabilities", oaArray(oaObject("", service.Obj{
				{"capability", oaStr("")},
				{"path", oaStr("the path segment under /v1")},
				{"title", oaStr("")},
				{"description", oaStr("")},
				{"cadence", oaStr("")},
				{"publisher", oaStr("")},
				{"as_of_latest", oaDate("")},
				{"as_of_available", oaArray(oaDate(""), "")},
				{"answerable", oaBoolean("false for a derived capability whose inputs have nothing to join: every query is refused, for the reason given")},
				{"not_answerable_because", oaStr("with answerable false: the refusal every query gets (what each input has, and which files would make it answer)")},
				{"derived", oaBoolean("true when the latest snapshot answers, wholly or in part, from a third party's copy of the publisher's data (every citation of such a file says derived too); absent for a capability that joins others")},
				{"derived_files", oaArray(oaObject("", service.Obj{{"source_file", oaStr("the copy, the file hashed in citations")}, {"original_url", oaStr("the publisher's own address of the data it was copied from")}}, "source_file", "original_url"), "with derived true: each such file of the latest snapshot")},
				{"endpoints", oaObject("", service.Obj{{"schema", oaStr("")}, {"query", oaStr("")}}, "schema", "query")},
				{"mcp_tools", oaObject("", service.Obj{{"describe", oaStr("")}, {"query", oaStr("")}}, "describe", "query")},
				{"join_keys", oaJoinKeys()},
				{"freshness", oaSref("Freshness")},
			}, "capability", "path", "title", "description", "cadence", "publisher", "as_of_latest", "as_of_available", "answerable", "endpoints", "mcp_tools", "join_keys"), "")},
			{"flow", oaStr("")},
			{"evidence", oaStr("the evidence endpoint")},
			{"join_key_vocabulary", oaMapOf(oaObject("", service.Obj{{"description", oaStr("")}, {"name_only", oaBoolean("the key is a printed name, not a code")}}, "description"), "join key → what its values are")},
			{"mcp", oaObject("the MCP endpoint and its server card", service.Obj{{"endpoint", oaStr("")}, {"server_card", oaStr("")}}, "endpoint", "server_card")},
		}, "capabilities", "flow", "evidence", "join_key_vocabulary", "mcp")},
		{"CapabilitySchema", oaObject("The description of a capability (its latest snapshot).", service.Obj{
			{"capability", oaStr("")},
			{"path", oaStr("")},
			{"title", oaStr("")},
			{"description", oaStr("")},
			{"grain", oaStr("")},
			{"cadence", oaStr("")},
			{"served", oaBoolean("false for a capability defined but without a promoted snapshot yet (no dates, codebooks or sources)")},
			{"answerable", oaBoolean("present when served: false for a derived capability whose inputs have nothing to join")},
			{"not_answerable_because", oaStr("with answerable false: the refusal every query gets")},
			{"as_of", service.Obj{{"type", []string{"string", "null"}}, {"format", "date"}, {"description", "the latest snapshot described (null when not served)"}}},
			{"as_of_available", oaArray(oaDate(""), "")},
			{"as_of_rule", oaStr("")},
			{"documents", oaObject("How the publisher's documents relate, which decides what one snapshot holds; for the snapshot described, the documents it holds and the periods one covers only in part.", service.Obj{
				{"relation", service.Obj{{"type", "string"}, {"enum", []capability.Relation{capability.Complement, capability.Restate, capability.Derived}}}},
				{"document", oaStr("what one document is, and what makes two files versions of one document")},
				{"rule", oaStr("what a snapshot holds, given the relation")},
				{"overlap", oaStr("complementing documents: the rows two documents may both publish, served from the newest publication")},
				{"kinds", oaArray(oaObject("", service.Obj{
					{"kind", oaStr("")}, {"files", oaStr("how the publisher names its files")},
					{"served", oaBoolean("whether the snapshot described holds a file of the kind")},
					{"not_served_because", oaStr("with served false: why, and how to have one served")},
				}, "kind", "files", "served"), "present when the publisher's data comes in more than one kind of document: whether the snapshot holds each")},
				{"in_snapshot", oaArray(oaObject("", service.Obj{{"document", oaStr("")}, {"published", oaDate("its date: its own as_of")}, {"source_files", oaArray(service.Obj{{"type", "string"}}, "")}},
					"document", "published", "source_files"), "complementing documents: the newest version of each published on or before the snapshot's as_of")},
				{"partial_periods", oaArray(oaObject("", service.Obj{
					{"period", oaStr("")}, {"where", oaMapOf(scalar, "field → value of the period's rows")}, {"source_file", oaStr("")},
					{"covered", oaStr("")}, {"complete", oaStr("how to get the complete figure, or that no published file here has it")},
				}, "period", "where", "source_file", "covered", "complete"), "periods a document covers only in part: an answer over them carries a "+service.NotePartialPeriod+" note")},
				{"revised_rows", oaInteger("rows a newer publication revised: an answer over them carries a " + service.NoteReleaseRevised + " note")},
			}, "relation", "document", "rule")},
			{"mcp_tools", oaObject("", service.Obj{{"describe", oaStr("")}, {"query", oaStr("")}})},
			{"filters", oaArray(named(
				service.KV{"name", oaStr("")}, service.KV{"type", oaStr("")}, service.KV{"description", oaStr("")},
				service.KV{"group_by", oaBoolean("")}, service.KV{"values", oaArray(service.Obj{{"type", "string"}}, "")}, service.KV{"codebook", oaStr("")},
				service.KV{"first_value_answered", oaStr("a value of the filter ordered before it is refused (invalid_filter)")}, service.KV{"before_first_value", oaStr("why the values before it are not answered")},
				service.KV{"distinct_values", oaInteger("")}, service.KV{"values_in_snapshot", oaArray(scalar, "")},
				service.KV{"published", oaBoolean("")}, service.KV{"note", oaStr("")}), "")},
			{"group_by", oaArray(service.Obj{{"type", "string"}}, "")},
			{"date_ranges", oaArray(oaObject("", service.Obj{{"from", oaStr("")}, {"to", oaStr("")}, {"field", oaStr("")}, {"format", oaStr("")},
				{"instants", oaObject("present when the range also takes RFC 3339 timestamps: the fields they are compared with, in UTC, and what the instants mark", service.Obj{
					{"from_field", oaStr("")}, {"to_field", oaStr("")}, {"time_zone", oaStr("")}, {"convention", oaStr("")},
				}, "from_field", "to_field", "time_zone", "convention")}}), "")},
			{"metrics", oaArray(named(
				service.KV{"name", oaStr("")}, service.KV{"unit", oaStr("")},
				service.KV{"aggregation", service.Obj{{"type", "string"}, {"enum", capability.Aggs}}},
				service.KV{"additive_across_groups", oaBoolean("")}, service.KV{"description", oaStr("")},
				service.KV{"numerator", oaStr("ratio: the column summed above")}, service.KV{"denominator", oaStr("ratio: the column summed below")},
				service.KV{"note", oaStr("")},
				service.KV{"percentile", service.Obj{{"type", "number"}, {"exclusiveMinimum", 0}, {"exclusiveMaximum", 100}, {"description", "median and percentile: the percentile taken (50 for the median)"}}},
				service.KV{"interpolation", oaStr("median and percentile: how a percentile between two values is taken")},
				service.KV{"not_recomputable", oaStr("present when the metric cannot be recomputed from the cells its citations cite: why (the aggregate evidence refuses it with metric_not_recomputable)")},
				service.KV{"one_period", oaObject("present when the metric adds the values of one period only: over rows of several periods it is null with a "+service.NoteNotAdditiveOverTime+" note", service.Obj{{"reason", oaStr("")}, {"instead", oaStr("")}}, "reason", "instead")},
				service.KV{"shares", oaObject("present when the metric's values are shares on the rows of these units: over more than one share it is null with a "+service.NoteShareNotAveraged+" note", service.Obj{{"units", oaArray(service.Obj{{"type", "string"}}, "")}, {"reason", oaStr("")}, {"instead", oaStr("")}}, "units", "reason", "instead")}), "")},
			{"order_by", oaArray(service.Obj{{"type", "string"}}, "")},
			{"controls", oaArray(named(
				service.KV{"name", oaStr("")}, service.KV{"type", oaStr("")}, service.KV{"default", scalar}, service.KV{"minimum", oaInteger("")}, service.KV{"maximum", oaInteger("")},
				service.KV{"enum", oaArray(service.Obj{{"type", "string"}}, "")}, service.KV{"description", oaStr("")}), "")},
			{"ranking", oaArray(service.Obj{{"type", "string"}}, "")},
			{"detail_fields", oaArray(named(service.KV{"name", oaStr("")}, service.KV{"type", oaStr("")}, service.KV{"description", oaStr("")},
				service.KV{"from", oaStr("the published field this one is mapped from")}, service.KV{"nulls", oaStr("what a null value means when it is not a blank the publisher left")},
				service.KV{"join_key", oaStr("the shared vocabulary of the field's values (join_keys)")},
				service.KV{"published", oaBoolean("")}, service.KV{"note", oaStr("")}), "")},
			{"citation_fields", oaObject("", service.Obj{{"record", oaArray(service.Obj{{"type", "string"}}, "")}, {"aggregate", oaArray(service.Obj{{"type", "string"}}, "")}})},
			{"codebooks", oaMapOf(oaObject("", service.Obj{{"description", oaStr("")}, {"code_count", oaInteger("")}, {"codes", oaArray(codebookCode, "")}}), "codebook name → its codes")},
			{"join_keys", oaJoinKeys()},
			{"partitions", oaArray(service.Obj{{"type", "string"}}, "dimensions whose values are not meant to be added together: an answer spanning several of their values, neither filtered to one nor grouped by, carries a "+service.NoteMixedPartition+" note")},
			{"repeats", oaArray(oaObject("", service.Obj{
				{"dimension", oaStr("a partition dimension")},
				{"values", oaArray(service.Obj{{"type", "string"}}, "its values whose rows repeat what rows of other values count")},
				{"of", oaArray(service.Obj{{"type", "string"}}, "the values they repeat")},
				{"metrics", oaArray(service.Obj{{"type", "string"}}, "the metrics that leave the repeating rows out")},
				{"reason", oaStr("")},
			}, "dimension", "values", "of", "metrics", "reason"), "present when rows of some values of a partition repeat what others count: an answer spanning both carries a "+service.NoteMixedPartition+" note with a repeating member, and a metric null because only repeating rows match a "+service.NoteNotCounted+" note")},
			{"flags", oaArray(oaObject("", service.Obj{
				{"field", oaStr("the filter field marking the rows")},
				{"value", oaStr("its value on them")},
				{"note", oaStr("the code of the note an answer that includes them carries")},
				{"rows", oaStr("what the rows are")},
				{"sum", oaStr("a field the note sums over them")},
				{"before", oaStr("a date field: the note counts those dated before the as_of")},
				{"advice", oaStr("how to leave them out, or see only them")},
			}, "field", "value", "note", "rows", "advice"), "present when some rows are named by a note whenever an answer includes them (a status inferred, a project counted in another capability too, a row that is not a project): the note gives their count, with the sum and the count of dated rows where declared")},
			{"inputs", oaArray(oaObject("", service.Obj{
				{"capability", oaStr("")}, {"side", oaStr("")}, {"gives", oaStr("")},
				{"months", oaMapOf(oaDate(""), "month (YYYY-MM) → as_of of the input snapshot that serves it")},
				{"states", oaArray(service.Obj{{"type", "string"}}, "")},
			}, "capability", "side", "months"), "a derived capability (computed at query time from other capabilities): what each input serves as of the date described")},
			{"periods", oaObject("present when the capability names the period of a row's value: grouped answers whose groups have values for different numbers of periods carry "+service.NoteUnequalCoverage+" and, on each row, "+service.NotePeriodsPresent, service.Obj{
				{"field", oaStr("the field that holds the period")}, {"value", oaStr("the field whose value makes a period present")}}, "field", "value")},
			{"rules", oaArray(service.Obj{{"type", "string"}}, "")},
			{"sources", oaArray(oaObject("", service.Obj{
				{"source_id", oaStr("")}, {"publisher", oaStr("")}, {"source_url", oaStr("")}, {"source_file", oaStr("")},
				{"raw_file_sha256", sha}, {"role", oaStr("")}, {"title", oaStr("")}, {"release", oaStr("")},
				{"derived", oaBoolean("")}, {"original_url", oaStr("")},
			}), "")},
			{"not_served_because", oaStr("present when served is false: why no snapshot is promoted yet and what serves one")},
			{"freshness", oaSref("Freshness")},
		}, "capability", "path", "served", "as_of", "filters", "group_by", "metrics", "order_by", "controls")},
	}
}

// oaSchemaPayload is the describe payload of c (nil when it cannot be rendered).
func oaSchemaPayload(s *service.Service, c *capability.Capability) []byte {
	b, _ := s.Schema(c.Path)
	return b
}

// oaPayloadString reads a string member of a JSON payload: the discover and describe payloads
// state the flow and the ranking rules once, and the document quotes them.
func oaPayloadString(b []byte, key string) string {
	var m map[string]json.RawMessage
	var v string
	if json.Unmarshal(b, &m) == nil {
		_ = json.Unmarshal(m[key], &v)
	}
	return v
}

func oaPayloadStrings(b []byte, key string) []string {
	var m map[string]json.RawMessage
	var v []string
	if json.Unmarshal(b, &m) == nil {
		_ = json.Unmarshal(m[key], &v)
	}
	return v
}

// oaMergePath adds a path item, or adds its methods to the item already at that path.
func oaMergePath(paths service.Obj, p string, item service.Obj) service.Obj {
	for i, kv := range paths {
		if kv.K == p {
			existing, _ := kv.V.(service.Obj)
			paths[i].V = append(append(service.Obj{}, existing...), item...)
			return paths
		}
	}
	return append(paths, service.KV{p, item})
}

// oaDeclareTags declares the tags the operations of a path item use that are not declared.
func oaDeclareTags(tags []service.Obj, item service.Obj) []service.Obj {
	declared := map[string]bool{}
	for _, t := range tags {
		declared[t[0].V.(string)] = true
	}
	for _, kv := range item {
		op, ok := kv.V.(service.Obj)
		if !ok {
			continue
		}
		for _, m := range op {
			if m.K != "tags" {
				continue
			}
			names, _ := m.V.([]string)
			for _, n := range names {
				if !declared[n] {
					declared[n] = true
					tags = append(tags, service.Obj{{"name", n}, {"description", "Operations on " + n + "."}})
				}
			}
		}
	}
	return tags
}

// exampleCap is the capability the document's examples name: the first defined one whose
// cadence webhooks accept.
func exampleCap() *capability.Capability {
	all := capability.All()
	for _, c := range all {
		if !c.Cadence.SubDaily() {
			return c
		}
	}
	return all[0]
}
