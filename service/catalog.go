package service

import (
	"fmt"
	"strings"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
)

// ValuesListed is the largest dictionary whose values the schema lists for a dimension.
const ValuesListed = 300

// CompactValues is how many values of a filter or codes of a codebook the compact
// description lists (after the count of them all).
const CompactValues = 8

// Capabilities is the discover payload: every served capability with its snapshots.
func (s *Service) Capabilities() []byte {
	var list []Obj
	for _, c := range s.Served() {
		_, dates := s.served(c.ID)
		entry := Obj{
			{"capability", c.ID},
			{"path", c.Path},
			{"title", c.Title},
			{"description", c.Description},
			{"cadence", c.Cadence},
			{"publisher", c.Publisher},
			{"as_of_latest", dates[len(dates)-1]},
			{"as_of_available", dates},
		}
		entry = append(entry, s.answerable(c)...)
		entry = append(entry, derivedDoc(s.latest(c))...)
		entry = append(entry,
			KV{"endpoints", Obj{
				{"schema", "/v1/" + c.Path + "/schema"},
				{"query", "/v1/" + c.Path + "/query"},
			}},
			KV{"mcp_tools", Obj{
				{"describe", "describe_" + c.ToolName() + "_v1"},
				{"query", "query_" + c.ToolName() + "_v1"},
			}},
			KV{"join_keys", joinKeysDoc(c)})
		if fr := s.freshnessDoc(c, s.latest(c)); fr != nil {
			entry = append(entry, KV{"freshness", fr})
		}
		list = append(list, entry)
	}
	if list == nil {
		list = []Obj{}
	}
	return mustJSON(Obj{
		{"capabilities", list},
		{"flow", "discover (GET /v1/capabilities) → describe (GET /v1/<path>/schema) → query (POST or GET /v1/<path>/query) → verify (POST /v1/evidence/source-row with a citation's verify member)"},
		{"evidence", "/v1/evidence/source-row"},
		{"join_key_vocabulary", joinKeyVocabulary()},
		{"mcp", Obj{{"endpoint", "/mcp"}, {"server_card", ServerCardPath}}},
	})
}

// derivedDoc says whether a capability's latest snapshot answers from a third party's copy of the
// publisher's data (MANIFEST's derived = yes): derived, and with it each such file and the
// publisher's own address of the data it was copied from. A capability that joins others has no
// files of its own (nil).
func derivedDoc(snap *Snapshot) Obj {
	if snap == nil {
		return nil
	}
	var files []Obj
	for _, src := range snap.Manifest.Sources {
		if src.Derived {
			files = append(files, Obj{{"source_file", src.File}, {"original_url", src.OriginalURL}})
		}
	}
	if files == nil {
		return Obj{{"derived", false}}
	}
	return Obj{{"derived", true}, {"derived_files", files}}
}

// answerable are the members that say whether a served capability answers queries: answerable
// true for one with a snapshot of its own; for a derived one, whether its inputs as of its
// latest date have anything to join, and when not, not_answerable_because (the refusal every
// query would get: what each input has, and which files would make it answer).
func (s *Service) answerable(c *capability.Capability) Obj {
	if len(c.Inputs) == 0 {
		return Obj{{"answerable", true}}
	}
	snap, e := s.snapshot(c, "latest")
	if e == nil && snap.derived != nil {
		e = snap.derived.check(&Params{Filters: map[string][]string{}, Ranges: map[string][2]string{}})
	}
	if e == nil {
		return Obj{{"answerable", true}}
	}
	return Obj{{"answerable", false}, {"not_answerable_because", e.Message}}
}

// Schema is the describe payload of capability path p: filters, groupings, metrics, date
// ranges, controls, detail fields, citation fields and codebooks (of the latest snapshot).
//
// A capability that is defined but not served yet is described too (served false, no
// snapshot dates, no codebooks), so its parameters and tool names can be read ahead.
func (s *Service) Schema(p string) ([]byte, *apierror.Error) { return s.schema(p, false) }

// SchemaCompact is the describe payload of capability path p for an agent's context: the same
// document as Schema, but each filter lists only its first CompactValues values (with
// distinct_values counting them all) and each codebook its code_count and first CompactValues
// codes. Its "compact" member says so and how to get the full codebooks.
func (s *Service) SchemaCompact(p string) ([]byte, *apierror.Error) { return s.schema(p, true) }

func (s *Service) schema(p string, compact bool) ([]byte, *apierror.Error) {
	return s.schemaAt(p, "latest", compact)
}

// schemaAt is the describe payload of capability path p with the codebooks and values of
// its snapshot at (latest: the newest).
func (s *Service) schemaAt(p, at string, compact bool) ([]byte, *apierror.Error) {
	c := capability.ByPath(p)
	if c == nil {
		_, e := s.resolve(p)
		return nil, e
	}
	var snap *Snapshot
	_, dates := s.served(c.ID)
	if len(dates) > 0 {
		var e *apierror.Error
		if snap, e = s.snapshot(c, at); e != nil {
			return nil, e
		}
	}
	var filters []Obj
	filters = append(filters, Obj{{"name", "as_of"}, {"type", "date"}, {"description", "snapshot date; latest (default) resolves to the newest, and on:YYYY-MM-DD to the newest on or before that date (the snapshot in force then); every response states the date resolved"}, {"values", append([]string{"latest"}, dates...)}})
	for _, f := range c.Fields {
		if !f.Filter {
			continue
		}
		filters = append(filters, s.fieldDoc(snap, f, compact))
	}
	var groupBy []string
	for _, f := range c.Fields {
		if f.GroupBy {
			groupBy = append(groupBy, f.Name)
		}
	}
	var metrics []Obj
	for _, m := range c.Metrics {
		o := Obj{{"name", m.Name}, {"unit", m.Unit}, {"aggregation", string(m.Agg)}, {"additive_across_groups", m.Additive}, {"description", m.Description}}
		if m.Denominator != "" {
			o = append(o, KV{"numerator", m.Column}, KV{"denominator", m.Denominator})
		}
		if m.NullNote != "" {
			o = append(o, KV{"note", m.NullNote})
		}
		o = append(o, quantileDoc(m)...)
		if why := c.NotRecomputed(m); why != "" {
			o = append(o, KV{"not_recomputable", why})
		}
		if w := m.OnePeriod; w != nil {
			o = append(o, KV{"one_period", Obj{{"reason", w.Reason}, {"instead", w.Instead}}})
		}
		if sh := m.Shares; sh != nil {
			o = append(o, KV{"shares", Obj{{"units", sh.Units}, {"reason", sh.Reason}, {"instead", sh.Instead}}})
		}
		metrics = append(metrics, o)
	}
	var ranges []Obj
	for _, r := range c.DateRanges {
		ranges = append(ranges, rangeDoc(r))
	}
	var fields []Obj
	for _, f := range c.Fields {
		o := Obj{{"name", f.Name}, {"type", string(f.Type)}}
		if !compact {
			o = append(o, KV{"description", f.Description})
		}
		if f.From != "" {
			o = append(o, KV{"from", f.From})
		}
		if f.Nulls != "" {
			o = append(o, KV{"nulls", f.Nulls})
		}
		if f.Key != "" {
			o = append(o, KV{"join_key", string(f.Key)})
		}
		if snap != nil && notPublished(snap, f.Name) {
			o = append(o, KV{"published", false}, KV{"note", "null on every row: as_of " + snap.Manifest.AsOf + " does not publish it"})
		}
		fields = append(fields, o)
	}
	fields = append(fields, Obj{{"name", "citation"}, {"type", "object"}, {"description", "record-level citation of the row (citation.record fields)"}})
	codebooks := Obj{}
	sources := []Obj{}
	var asOf any
	if snap != nil {
		asOf = snap.Manifest.AsOf
		for _, cb := range snap.Codebooks {
			if compact {
				codes := make([]Obj, 0, CompactValues)
				for _, code := range cb.Codes[:min(len(cb.Codes), CompactValues)] {
					codes = append(codes, Obj{{"code", code.Code}, {"description", code.Description}})
				}
				codebooks = append(codebooks, KV{cb.Name, Obj{{"description", cb.Description}, {"code_count", len(cb.Codes)}, {"codes_first", codes}}})
				continue
			}
			codebooks = append(codebooks, KV{cb.Name, Obj{{"description", cb.Description}, {"code_count", len(cb.Codes)}, {"codes", cb.Codes}}})
		}
		for _, src := range snap.Manifest.Sources {
			o := Obj{{"source_id", src.SourceID}, {"publisher", src.Publisher}, {"source_url", src.URL}, {"source_file", src.File},
				{"raw_file_sha256", src.SHA256}, {"role", src.Role}, {"title", src.Title}, {"release", src.Release}}
			if src.Derived {
				o = append(o, KV{"derived", true}, KV{"original_url", src.OriginalURL})
			}
			sources = append(sources, o)
		}
	}
	doc := Obj{
		{"capability", c.ID},
		{"path", c.Path},
		{"title", c.Title},
		{"description", c.Description},
		{"grain", c.Grain},
		{"cadence", c.Cadence},
		{"served", snap != nil},
	}
	if snap != nil {
		doc = append(doc, s.answerable(c)...)
	}
	doc = append(doc, Obj{
		{"as_of", asOf},
		{"as_of_available", orEmpty(dates)},
		{"as_of_rule", c.AsOfRule},
		{"documents", documentsDoc(c, snap)},
		{"mcp_tools", Obj{{"describe", "describe_" + c.ToolName() + "_v1"}, {"query", "query_" + c.ToolName() + "_v1"}}},
		{"filters", filters},
		{"group_by", groupBy},
		{"date_ranges", orEmpty(ranges)},
		{"metrics", metrics},
		{"order_by", c.MetricNames()},
		{"controls", ControlsDoc()},
		{"ranking", []string{
			"Without order_by and top_n, all groups are returned in group-key order (nulls last).",
			"order_by needs group_by and names a metric; it never ranks by a dimension. Ties keep group-key order; null values rank last.",
			"top_n needs group_by and order_by; the remaining groups fold into one group named (other): additive metrics are summed, non-additive metrics are null, so rows reconcile to summary.totals.",
			"summary.totals is computed over the whole matched set and is authoritative; group values may be summed only for additive metrics.",
		}},
		{"detail_fields", fields},
		{"citation_fields", Obj{
			{"record", []string{"source_id", "source_url", "source_file", "sheet", "source_row", "raw_file_sha256", "as_of"}},
			{"aggregate", aggregateCitationFields(c)},
		}},
		{"codebooks", codebooks},
		{"partitions", orEmpty(c.Partitions)},
		{"join_keys", joinKeysDoc(c)},
	}...)
	if len(c.Repeats) > 0 {
		doc = append(doc, KV{"repeats", c.Repeats})
	}
	if len(c.Flags) > 0 {
		doc = append(doc, KV{"flags", c.Flags})
	}
	if pd := c.Periods; pd != nil {
		doc = append(doc, KV{"periods", Obj{{"field", pd.Field}, {"value", pd.Value}}})
	}
	if snap != nil && snap.derived != nil {
		doc = append(doc, KV{"inputs", snap.derived.inputs()})
	}
	doc = append(doc, KV{"rules", orEmpty(c.Rules)}, KV{"sources", sources})
	if fr := s.freshnessDoc(c, snap); fr != nil {
		doc = append(doc, KV{"freshness", fr})
	}
	if snap == nil && c.Unserved != "" {
		doc = append(doc, KV{"not_served_because", c.Unserved})
	} else if snap == nil && len(c.Inputs) > 0 {
		doc = append(doc, KV{"not_served_because", "it is computed at query time from " + join(c.Inputs) + ", and is served once each of them has a promoted snapshot"})
	}
	if compact {
		doc = append(doc, KV{"compact", Obj{
			{"values_listed", CompactValues},
			{"full", "filters list their first " + fmt.Sprint(CompactValues) + " values (values_first; distinct_values counts them all), codebooks their first codes with descriptions only (codes_first; code_count counts them all), and detail fields their name and type; call describe_" + c.ToolName() + "_v1 with {\"full\": true}, or GET /v1/" + c.Path + "/schema, for every value and code, or read the resource citeq://" + c.ID + "/latest/values/{field} for one filter's"},
		}})
	}
	return mustJSON(doc), nil
}

// dateBoundFormat is what every date range's bounds accept.
const dateBoundFormat = "YYYY-MM-DD, YYYY-MM or YYYY; inclusive; a month or year is its first day in _from and its last day in _to"

// instantBoundFormat is what a bound of a date range over instants accepts besides dates.
const instantBoundFormat = "or an RFC 3339 timestamp (2022-02-19T19:00:00Z, 2022-02-19T11:00:00-08:00; T or t, seconds optional, Z or an offset required), compared in UTC and inclusive: a timestamp bound selects on the range's instant fields instead of its date field; a fractional second rounds the lower bound up and the upper bound down to whole seconds"

// rangeDoc describes date range r in the schema: its parameters, field and the forms its
// bounds take; a range over instants also names its instant fields, their time zone (UTC)
// and convention.
func rangeDoc(r capability.DateRange) Obj {
	if r.Instants == nil {
		return Obj{{"from", r.From()}, {"to", r.To()}, {"field", r.Column}, {"format", dateBoundFormat}}
	}
	return Obj{{"from", r.From()}, {"to", r.To()}, {"field", r.Column},
		{"format", dateBoundFormat + "; " + instantBoundFormat},
		{"instants", Obj{{"from_field", r.Instants.From}, {"to_field", r.Instants.To}, {"time_zone", "UTC"}, {"convention", r.Instants.Convention}}}}
}

func aggregateCitationFields(c *capability.Capability) []string {
	f := []string{"source_id", "publisher", "source_url", "source_file", "raw_file_sha256", "as_of", "source_rows_count", "source_rows_sample", "verify", "lineage_filter"}
	if c.SourceView {
		f = append(f, "source_view")
	}
	return f
}

// ControlsDoc describes the controls and cursor, as the schema endpoint lists them.
func ControlsDoc() []Obj {
	var out []Obj
	// The schema's order of controls, which differs from the params object's; bytes pinned.
	for _, p := range capability.InOrder(capability.CommonParams(), "include_records", "limit", "include_evidence") {
		if p.Kind != capability.KindControl && p.Kind != capability.KindPaging {
			continue
		}
		o := Obj{{"name", p.Name}, {"type", string(p.Type)}}
		if p.Default != nil {
			o = append(o, KV{"default", p.Default})
		}
		if len(p.Enum) > 0 {
			o = append(o, KV{"enum", p.Enum})
		}
		// The schema has given limit its maximum only (its minimum is 1, as the error
		// says) and order no description; bytes pinned.
		if p.Max != 0 {
			o = append(o, KV{"maximum", p.Max})
		} else if p.Min != 0 {
			o = append(o, KV{"minimum", p.Min})
		}
		if p.Description != "" && p.Name != "order" {
			o = append(o, KV{"description", p.Description})
		}
		out = append(out, o)
	}
	return out
}

// fieldDoc describes a filter: its type, and its valid values when the set is small (only the
// first CompactValues of them, as values_first, when compact).
func (s *Service) fieldDoc(snap *Snapshot, f capability.Field, compact bool) Obj {
	o := Obj{{"name", f.Name}, {"type", string(f.Type)}, {"description", f.Description}}
	if f.GroupBy {
		o = append(o, KV{"group_by", true})
	}
	switch {
	case len(f.Enum) > 0:
		o = append(o, KV{"values", f.Enum})
	case f.Codebook != "":
		o = append(o, KV{"codebook", f.Codebook})
	}
	if f.Floor != nil {
		o = append(o, KV{"first_value_answered", f.Floor.Value}, KV{"before_first_value", f.Floor.Reason})
	}
	if snap == nil {
		return o
	}
	if col := snap.Table.Col(f.Name); col != nil {
		o = append(o, KV{"distinct_values", len(col.Values)})
		if len(f.Enum) == 0 && len(col.Values) <= ValuesListed {
			vals := make([]any, len(col.Values))
			for i, v := range col.Values {
				vals[i] = typed(f.Type, v)
			}
			if compact && len(vals) > CompactValues {
				o = append(o, KV{"values_first", vals[:CompactValues]})
			} else {
				o = append(o, KV{"values_in_snapshot", vals})
			}
		}
		if notPublished(snap, f.Name) {
			o = append(o, KV{"published", false}, KV{"note", "null on every row: as_of " + snap.Manifest.AsOf + " does not publish it"})
		}
	}
	return o
}

// notPublished reports whether a column is null on every row of the snapshot.
func notPublished(snap *Snapshot, name string) bool { return snap.unpublished[name] }

// Health is the liveness payload: the snapshots being served.
func (s *Service) Health() []byte {
	var snaps []Obj
	for _, snap := range s.SnapshotsServed() {
		snaps = append(snaps, Obj{{"capability", snap.Cap.ID}, {"as_of", snap.Manifest.AsOf}, {"rows", snap.Table.Rows}})
	}
	if snaps == nil {
		snaps = []Obj{}
	}
	return mustJSON(Obj{{"status", "ok"}, {"snapshots", snaps}})
}

// SmallValues returns the values of a field in the capability's latest snapshot — the enum
// when it has one, else the codebook's codes or the snapshot's distinct values — when there
// are at most max of them.
func (s *Service) SmallValues(c *capability.Capability, field string, max int) ([]string, bool) {
	f, ok := c.Field(field)
	if !ok {
		return nil, false
	}
	if len(f.Enum) > 0 {
		return f.Enum, len(f.Enum) <= max
	}
	if _, dates := s.served(c.ID); len(dates) == 0 {
		return nil, false
	}
	snap, e := s.snapshot(c, "latest")
	if e != nil {
		return nil, false
	}
	if f.Codebook != "" {
		for _, cb := range snap.Codebooks {
			if cb.Name == f.Codebook {
				if len(cb.Codes) == 0 || len(cb.Codes) > max {
					return nil, false
				}
				out := make([]string, len(cb.Codes))
				for i, code := range cb.Codes {
					out[i] = code.Code
				}
				return out, true
			}
		}
	}
	col := snap.Table.Col(field)
	if col == nil || len(col.Values) == 0 || len(col.Values) > max {
		return nil, false
	}
	return col.Values, true
}

// ServedKey identifies the set of served snapshots; it changes whenever one is promoted.
func (s *Service) ServedKey() string {
	var b []byte
	for _, snap := range s.SnapshotsServed() {
		b = append(b, snap.Cap.ID+"@"+snap.Manifest.AsOf+"/"+snap.Manifest.Fingerprint+";"...)
	}
	return string(b)
}

// SuggestPath is the path of the defined capability nearest to p, a path that names none (a
// misspelling such as power/capacty, or an identifier written as a path such as
// power.capacity), or "" when none is near enough to be meant.
func SuggestPath(p string) string {
	norm := func(s string) string {
		return strings.NewReplacer(".", "/", "_", "-").Replace(strings.ToLower(strings.Trim(s, "/ ")))
	}
	want := norm(p)
	best, bestD := "", -1
	for _, c := range capability.All() {
		d := editDistance(want, norm(c.Path))
		if bestD < 0 || d < bestD {
			best, bestD = c.Path, d
		}
	}
	if bestD < 0 || bestD > max(2, len(best)/5) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b (in bytes).
func editDistance(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// DidYouMean is the sentence a refusal of the unknown capability path p adds: the nearest
// path, with the endpoint asked (suffix, such as /query) under it; "" when none is near.
func DidYouMean(p, suffix string) string {
	s := SuggestPath(p)
	if s == "" {
		return ""
	}
	return "did you mean " + s + " (/v1/" + s + suffix + ")? "
}

// documentsDoc is the schema's account of the capability's documents: how they relate (the
// declaration), and, for a served snapshot of complementing documents, the documents it
// holds and the periods a document covers only in part.
func documentsDoc(c *capability.Capability, snap *Snapshot) Obj {
	d := c.Documents
	o := Obj{{"relation", d.Relation}, {"document", d.Document}, {"rule", d.Rule()}}
	if d.Overlap != "" {
		o = append(o, KV{"overlap", d.Overlap})
	}
	if len(d.Kinds) > 0 {
		o = append(o, KV{"kinds", documentKindsDoc(d.Kinds, snap)})
	}
	if snap == nil || snap.derived != nil {
		return o
	}
	if ds := snap.Manifest.Documents; len(ds) > 0 {
		held := make([]Obj, len(ds))
		for i, doc := range ds {
			held[i] = Obj{{"document", doc.ID}, {"published", doc.AsOf}, {"source_files", doc.Files}}
		}
		o = append(o, KV{"in_snapshot", held})
	}
	if cv := snap.Manifest.Coverage; len(cv) > 0 {
		parts := make([]Obj, len(cv))
		for i, x := range cv {
			parts[i] = Obj{{"period", x.Period}, {"where", sortedWhere(c, x.Where)}, {"source_file", x.File}, {"covered", x.Covered}, {"complete", x.Complete}}
		}
		o = append(o, KV{"partial_periods", parts})
	}
	if n := len(snap.Manifest.Revisions); n > 0 {
		o = append(o, KV{"revised_rows", n})
	}
	return o
}

// documentKindsDoc says of each kind of document whether the snapshot holds one of its files
// (served) and, when not, why and how to have one served.
func documentKindsDoc(kinds []capability.DocumentKind, snap *Snapshot) []Obj {
	out := make([]Obj, len(kinds))
	for i, k := range kinds {
		served := false
		if snap != nil && snap.derived == nil {
			for _, src := range snap.Manifest.Sources {
				served = served || k.Holds(src.File)
			}
		}
		out[i] = Obj{{"kind", k.Name}, {"files", k.Files}, {"served", served}}
		if !served {
			why := k.Unserved
			if why == "" {
				why = "no file of this kind is in the snapshot"
			}
			out[i] = append(out[i], KV{"not_served_because", why})
		}
	}
	return out
}
