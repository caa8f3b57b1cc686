package service

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
)

// Params is a validated, canonical query: the same question always yields the same Params,
// whichever form (POST body, GET q=, GET pairs) it came in.
type Params struct {
	AsOf            string
	Filters         map[string][]string // field → allowed values (canonical text), sorted
	Ranges          map[string][2]string
	GroupBy         []string
	IncludeRecords  bool
	IncludeEvidence bool
	Limit           int
	OrderBy         string
	Order           string
	TopN            int
	RollupOther     bool
	// offset is the first item of the page cursor names (paging.go); pageKey identifies
	// the answer its pages belong to.
	offset          int
	cursor, pageKey string
}

// canonical renders the params as the query echo of a response.
func (p *Params) canonical(c *capability.Capability) Obj {
	o := Obj{{"as_of", p.AsOf}}
	var fs Obj
	for _, name := range c.FilterNames()[1:] {
		if vals, ok := p.Filters[name]; ok {
			f, _ := c.Field(name)
			list := make([]any, len(vals))
			for i, v := range vals {
				list[i] = typed(f.Type, v)
			}
			fs = append(fs, KV{name, list})
		}
	}
	o = append(o, KV{"filters", orEmpty(fs)})
	for _, r := range c.DateRanges {
		if b, ok := p.Ranges[r.Name]; ok {
			if b[0] != "" {
				o = append(o, KV{r.From(), b[0]})
			}
			if b[1] != "" {
				o = append(o, KV{r.To(), b[1]})
			}
		}
	}
	o = append(o, KV{"group_by", orEmpty(p.GroupBy)})
	if p.OrderBy != "" {
		o = append(o, KV{"order_by", p.OrderBy})
	}
	o = append(o, KV{"order", p.Order})
	if p.TopN > 0 {
		o = append(o, KV{"top_n", p.TopN}, KV{"rollup_other", p.RollupOther})
	}
	o = append(o, KV{"include_records", p.IncludeRecords})
	if p.IncludeRecords {
		o = append(o, KV{"limit", p.Limit})
	}
	o = append(o, KV{"include_evidence", p.IncludeEvidence})
	if p.cursor != "" {
		o = append(o, KV{capability.ParamCursor, p.cursor})
	}
	return o
}

// members are the members of a params object as sent: name → JSON value. The GET pairs are
// read into the same form, so that every form of a query is read into one Request.
type members map[string]json.RawMessage

// ParseBody reads a POST body or MCP arguments (a JSON params object; an empty body is {})
// into a Request.
func ParseBody(body []byte) (*Request, *apierror.Error) {
	m, e := parseObject(body)
	if e != nil {
		return nil, e
	}
	return newRequest(m), nil
}

// parseObject reads a JSON params object (empty: {}) into its members.
func parseObject(body []byte) (members, *apierror.Error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return members{}, nil
	}
	var raw members
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, apierror.New(400, apierror.CodeInvalidRequest, "the body is not a JSON object (%v); send a params object such as {\"filters\":{\"state\":\"TX\"},\"group_by\":[\"technology\"]}", err)
	}
	if dec.More() {
		return nil, apierror.New(400, apierror.CodeInvalidRequest, "the body holds more than one JSON value; send one params object")
	}
	if raw == nil {
		return nil, apierror.New(400, apierror.CodeInvalidRequest, "the body is null; send a params object such as {} or {\"group_by\":[\"state\"]}")
	}
	return raw, nil
}

// ParseRawQuery reads the query string of a GET query URL (without the "?"). A query string
// that does not parse — a malformed percent escape, a semicolon separator — is refused, never
// read as fewer parameters than were sent.
func ParseRawQuery(rawQuery string) (*Request, *apierror.Error) {
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return nil, apierror.New(400, apierror.CodeInvalidParameter, "the query string does not parse (%v); separate pairs with & (not ;), percent-encode reserved characters (%%25 for %%), or send the params as q=<URL-encoded JSON> or as a POST body", err)
	}
	return ParseQuery(q)
}

// ParseQuery reads the GET form into a Request: q=<URL-encoded JSON params object>, or plain
// pairs where repeated keys are lists, group_by may be comma separated, and limit/top_n are
// integers.
func ParseQuery(q url.Values) (*Request, *apierror.Error) {
	if qs, ok := q["q"]; ok {
		if len(q) > 1 || len(qs) > 1 {
			return nil, apierror.New(400, apierror.CodeInvalidRequest, "q carries the whole params object; do not combine it with other query parameters or repeat it")
		}
		return ParseBody([]byte(qs[0]))
	}
	raw := members{}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		vals := q[k]
		// The parameters every capability shares are read by their type; the others (filters,
		// date ranges, compare_as_of) are one value or a list.
		p, _ := capability.CommonParam(k)
		switch {
		case p.List:
			var list []string
			for _, v := range vals {
				for _, part := range strings.Split(v, ",") {
					if part = strings.TrimSpace(part); part != "" {
						list = append(list, part)
					}
				}
			}
			raw[k] = mustJSON(list)
		case p.Type == capability.Integer:
			if len(vals) > 1 {
				return nil, apierror.New(400, apierror.CodeInvalidParameter, "%s is given %d times; give it once", k, len(vals))
			}
			n, err := strconv.Atoi(strings.TrimSpace(vals[0]))
			if err != nil {
				return nil, apierror.New(400, apierror.CodeInvalidParameter, "%s must be an integer, got %q", k, vals[0])
			}
			raw[k] = mustJSON(n)
		case p.Type == capability.Boolean:
			if len(vals) > 1 {
				return nil, apierror.New(400, apierror.CodeInvalidParameter, "%s is given %d times; give it once", k, len(vals))
			}
			raw[k] = mustJSON(vals[0])
		default:
			if len(vals) == 1 {
				raw[k] = mustJSON(vals[0])
			} else {
				raw[k] = mustJSON(vals)
			}
		}
	}
	return newRequest(raw), nil
}

var (
	isoDay   = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	isoMonth = regexp.MustCompile(`^\d{4}-\d{2}$`)
	isoYear  = regexp.MustCompile(`^\d{4}$`)
)

// Validate turns a decoded request into Params for capability c, or the first error found.
func (s *Service) Validate(c *capability.Capability, req *Request) (*Params, *Snapshot, *apierror.Error) {
	schemaURL := "/v1/" + c.Path + "/schema"
	p := &Params{Filters: map[string][]string{}, Ranges: map[string][2]string{}}
	params := map[string]capability.Param{}
	for _, prm := range c.Params() {
		params[prm.Name] = prm
		switch prm.Name {
		case "order":
			p.Order = prm.Default.(string)
		case "rollup_other":
			p.RollupOther = prm.Default.(bool)
		case "limit":
			p.Limit = prm.Default.(int)
		}
	}

	// as_of first: filter values are checked against the snapshot it pins.
	asOf, err := req.asOfValue()
	if err != nil {
		return nil, nil, err
	}
	snap, err := s.snapshot(c, asOf)
	if err != nil {
		return nil, nil, err
	}
	p.AsOf = snap.Manifest.AsOf

	if req.filtersBad {
		return nil, nil, apierror.New(400, apierror.CodeInvalidFilter, "filters must be an object of filter name → value or list of values, e.g. {\"state\":[\"TX\",\"CA\"]}; see %s", schemaURL)
	}
	filters := map[string]json.RawMessage{}
	for k, v := range req.filters {
		if !req.dropped(k, false) {
			filters[k] = v
		}
	}
	keys := make([]string, 0, len(req.top))
	for k := range req.top {
		if !req.dropped(k, true) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := req.top[k]
		prm, ok := params[k]
		switch {
		case !ok || prm.Kind == capability.KindFilter:
			// A top-level key that is not another parameter is a filter.
			if _, dup := filters[k]; dup {
				return nil, nil, apierror.New(400, apierror.CodeInvalidFilter, "filter %s is given both at the top level and inside filters; give it once", k)
			}
			filters[k] = v
		case prm.Kind == capability.KindRange:
			if e := setRange(p, prm.Range, k, v); e != nil {
				return nil, nil, e
			}
		case prm.List:
			list, e := stringList(v)
			if e != nil {
				return nil, nil, apierror.New(400, apierror.CodeInvalidParameter, "group_by must be a list of dimension names (or a comma-separated string): %s", join(c.GroupByNames()))
			}
			p.GroupBy = list
		case prm.Type == capability.Boolean:
			b, e := boolValue(v)
			if e != nil {
				return nil, nil, apierror.New(400, apierror.CodeInvalidParameter, "%s must be true or false (a boolean or its text), got %s", k, v)
			}
			switch k {
			case "include_records":
				p.IncludeRecords = b
			case "include_evidence":
				p.IncludeEvidence = b
			default:
				p.RollupOther = b
			}
		case prm.Type == capability.Integer:
			n, e := intValue(v)
			if e != nil {
				return nil, nil, apierror.New(400, apierror.CodeInvalidParameter, "%s must be an integer (5 or \"5\"), got %s", k, v)
			}
			if k == "limit" {
				if n < prm.Min || n > prm.Max {
					return nil, nil, apierror.New(400, apierror.CodeInvalidParameter, "limit must be between %d and %d (default %d); it caps the detail records of include_records", prm.Min, prm.Max, prm.Default)
				}
				p.Limit = n
			} else {
				if n < prm.Min {
					return nil, nil, apierror.New(400, apierror.CodeInvalidParameter, "top_n must be a positive integer")
				}
				p.TopN = n
			}
		default: // order_by, order (reading the request took as_of, cursor and compare_as_of out)
			var str string
			if e := json.Unmarshal(v, &str); e != nil {
				return nil, nil, apierror.New(400, apierror.CodeInvalidParameter, "%s must be a string", k)
			}
			if k == "order" {
				if !slices.Contains(prm.Enum, str) {
					return nil, nil, apierror.New(400, apierror.CodeInvalidParameter, "order must be asc or desc (default desc), got %q", str)
				}
				p.Order = str
			} else {
				p.OrderBy = str
			}
		}
	}
	if e := s.validateFilters(c, snap, filters, req.kept, p, schemaURL); e != nil {
		return nil, nil, e
	}
	for name, b := range p.Ranges {
		// Bounds of one kind compare as text; a date and a timestamp are left to the answer.
		if b[0] != "" && b[1] != "" && isInstant(b[0]) == isInstant(b[1]) && b[0] > b[1] {
			return nil, nil, apierror.New(400, apierror.CodeInvalidParameter, "%s_date_from (%s) is after %s_date_to (%s)", name, b[0], name, b[1])
		}
	}
	seen := map[string]bool{}
	for _, g := range p.GroupBy {
		f, ok := c.Field(g)
		if !ok || !f.GroupBy {
			return nil, nil, apierror.New(400, apierror.CodeInvalidParameter, "%q is not a group_by dimension of %s; valid: %s (see %s)", g, c.ID, join(c.GroupByNames()), schemaURL)
		}
		if seen[g] {
			return nil, nil, apierror.New(400, apierror.CodeInvalidParameter, "group_by lists %s twice", g)
		}
		seen[g] = true
	}
	if p.OrderBy != "" {
		if len(p.GroupBy) == 0 {
			return nil, nil, apierror.New(400, apierror.CodeInvalidParameter, "order_by ranks groups, so it needs group_by; add e.g. \"group_by\":[\"%s\"]", c.GroupByNames()[0])
		}
		if _, ok := c.Metric(p.OrderBy); !ok {
			hint := ""
			if _, isField := c.Field(p.OrderBy); isField {
				hint = " (order_by ranks groups by a metric, never by a dimension; groups already come in group-key order when order_by is omitted)"
			}
			return nil, nil, apierror.New(400, apierror.CodeInvalidParameter, "order_by %q is not a metric of %s%s; valid: %s", p.OrderBy, c.ID, hint, join(c.MetricNames()))
		}
	}
	if p.TopN > 0 && (len(p.GroupBy) == 0 || p.OrderBy == "") {
		return nil, nil, apierror.New(400, apierror.CodeInvalidParameter, "top_n needs both group_by and order_by, e.g. {\"group_by\":[\"%s\"],\"order_by\":\"%s\",\"top_n\":%d}", c.GroupByNames()[0], c.Metrics[0].Name, p.TopN)
	}
	return p, snap, nil
}

// validateFilters checks each filter given (its values as sent, or as a comparison's side
// kept them) against snap and sets its canonical values in p.
func (s *Service) validateFilters(c *capability.Capability, snap *Snapshot, filters map[string]json.RawMessage, kept map[string]keptFilter, p *Params, schemaURL string) *apierror.Error {
	names := make([]string, 0, len(filters))
	for k := range filters {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		f, ok := c.Field(name)
		if !ok || !f.Filter {
			var ranges []string
			for _, r := range c.DateRanges {
				ranges = append(ranges, r.From(), r.To())
			}
			return apierror.New(400, apierror.CodeInvalidFilter, "%q is not a filter or parameter of %s; filters: %s; date ranges: %s; controls: %s (see %s)",
				name, c.ID, join(c.FilterNames()), join(ranges), join(capability.ControlNames()), schemaURL)
		}
		vals, err := filterValues(filters[name])
		if k := kept[name]; len(k.vals) > 0 {
			vals, err = k.vals, nil
		}
		if err != nil || len(vals) == 0 {
			return apierror.New(400, apierror.CodeInvalidFilter, "filter %s takes a value or a non-empty list of values", name)
		}
		// A value before the field's floor is refused for what it is, whatever else the list holds.
		for _, v := range vals {
			if f.Floor != nil && f.Floor.Before(f.Type, v) {
				return apierror.New(400, apierror.CodeInvalidFilter, "filter %s %q is refused: %s; the first %s answered is %s, so filter on it or a later one (see %s)",
					name, v, f.Floor.Reason, name, f.Floor.Value, schemaURL)
			}
		}
		var canon []string
		for _, v := range vals {
			cv, e := s.checkValue(c, snap, f, v, schemaURL)
			if e != nil {
				return e
			}
			canon = append(canon, cv...)
		}
		sort.Strings(canon)
		p.Filters[name] = dedupe(canon)
	}
	return nil
}

// checkValue validates one filter value and returns its canonical text: for text, every
// published value it matches with surrounding white space trimmed (a sheet published as
// "Cluster 15 " is matched by "Cluster 15", and by "Cluster 15 ").
func (s *Service) checkValue(c *capability.Capability, snap *Snapshot, f capability.Field, v string, schemaURL string) ([]string, *apierror.Error) {
	switch f.Type {
	case capability.Integer:
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return nil, apierror.New(400, apierror.CodeInvalidFilter, "filter %s takes integers, got %q", f.Name, v)
		}
		return []string{strconv.FormatInt(n, 10)}, nil
	case capability.Number:
		// As the engine spells the value (shortest round-trip decimal): 2.50 is 2.5.
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, apierror.New(400, apierror.CodeInvalidFilter, "filter %s takes numbers, got %q", f.Name, v)
		}
		return []string{strconv.FormatFloat(x, 'g', -1, 64)}, nil
	case capability.Boolean:
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return nil, apierror.New(400, apierror.CodeInvalidFilter, "filter %s takes true or false, got %q", f.Name, v)
		}
		return []string{strconv.FormatBool(b)}, nil
	}
	trimmed := strings.TrimSpace(v)
	if snap.derived != nil {
		// A derived table holds only what its inputs join; a value it lacks is for the
		// derivation's check to name, with what each input has.
		if trimmed == "" {
			return nil, apierror.New(400, apierror.CodeInvalidFilter, "filter %s takes a non-empty value (see %s)", f.Name, schemaURL)
		}
		return []string{trimmed}, nil
	}
	if len(f.Enum) > 0 {
		for _, e := range f.Enum {
			if e == trimmed {
				return []string{e}, nil
			}
		}
		return nil, apierror.New(400, apierror.CodeInvalidFilter, "%q is not a value of filter %s; valid: %s", v, f.Name, quoteList(f.Enum))
	}
	var out []string
	if f.Codebook != "" {
		for _, cb := range snap.Codebooks {
			if cb.Name != f.Codebook {
				continue
			}
			for _, code := range cb.Codes {
				if strings.TrimSpace(code.Code) == trimmed {
					out = append(out, code.Code)
				}
			}
		}
	}
	col, err := snap.Table.Column(f.Name)
	if err != nil {
		return nil, unreadable(snap, err)
	}
	if col.Lookup(trimmed) >= 0 {
		out = append(out, trimmed)
	}
	out = append(out, snap.padded(f.Name, col)[trimmed]...)
	if len(out) > 0 {
		return out, nil
	}
	valid := s.dimensionValues(snap, f.Name, 60)
	more := ""
	if f.Codebook != "" {
		more = fmt.Sprintf("; the codebook %s in %s lists every code", f.Codebook, schemaURL)
	}
	return nil, apierror.New(400, apierror.CodeInvalidFilter, "%q is not a value of filter %s in %s as_of %s (values are case-sensitive, as published, and matched with surrounding white space trimmed); valid values include: %s%s (see %s)",
		v, f.Name, c.ID, snap.Manifest.AsOf, valid, more, schemaURL)
}

// padded maps, for the text column name of the snapshot, each published value that has
// surrounding white space, trimmed, to the values that trim to it; built once per column.
func (snap *Snapshot) padded(name string, col *columnar.Column) map[string][]string {
	snap.padMu.Lock()
	defer snap.padMu.Unlock()
	if m, ok := snap.pads[name]; ok {
		return m
	}
	var m map[string][]string
	for _, v := range col.Values {
		if t := strings.TrimSpace(v); t != v {
			if m == nil {
				m = map[string][]string{}
			}
			m[t] = append(m[t], v)
		}
	}
	if snap.pads == nil {
		snap.pads = map[string]map[string][]string{}
	}
	snap.pads[name] = m
	return m
}

// quoteList writes values as a list of JSON strings, so that white space in a value shows.
func quoteList(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = strconv.Quote(v)
	}
	return join(q)
}

// dimensionValues lists up to max values of a field's dictionary in the snapshot, each
// quoted, and how many there are when there are more.
func (s *Service) dimensionValues(snap *Snapshot, field string, max int) string {
	col := snap.Table.Col(field)
	if col == nil {
		return ""
	}
	vals := col.Values
	if len(vals) > max {
		return quoteList(vals[:max]) + fmt.Sprintf(", … (%d in all)", len(vals))
	}
	return quoteList(vals)
}

func setRange(p *Params, r capability.DateRange, key string, v json.RawMessage) *apierror.Error {
	forms := "a date string YYYY-MM-DD, YYYY-MM or YYYY"
	if r.Instants != nil {
		forms += ", or an RFC 3339 timestamp such as 2022-02-19T19:00:00Z or 2022-02-19T11:00:00-08:00"
	}
	var str string
	if err := json.Unmarshal(v, &str); err != nil {
		var n json.Number
		if json.Unmarshal(v, &n) != nil {
			return apierror.New(400, apierror.CodeInvalidParameter, "%s must be %s", key, forms)
		}
		str = n.String()
	}
	upper := strings.HasSuffix(key, "_to")
	str = strings.TrimSpace(str)
	d, ok := normDate(str, upper)
	if !ok && looksLikeTimestamp(str) {
		if r.Instants == nil {
			return apierror.New(400, apierror.CodeInvalidParameter, "%s %q is a timestamp, but the range %s compares dates only: use YYYY-MM-DD, YYYY-MM or YYYY (a month or year means its first day in _from and its last day in _to)", key, str, r.Name)
		}
		inst, e := normInstant(key, str, upper)
		if e != nil {
			return e
		}
		d, ok = inst, true
	}
	if !ok {
		return apierror.New(400, apierror.CodeInvalidParameter, "%s %q is neither a date nor a timestamp: it must be %s (a month or year means its first day in _from and its last day in _to)", key, str, forms)
	}
	b := p.Ranges[r.Name]
	if upper {
		b[1] = d
	} else {
		b[0] = d
	}
	p.Ranges[r.Name] = b
	return nil
}

// InstantLayout is how an instant bound is held and echoed: UTC, whole seconds, so that text
// order is time order.
const InstantLayout = "2006-01-02T15:04:05Z"

// looksLikeTimestamp reports whether s is meant as a timestamp: a date followed by a time.
func looksLikeTimestamp(s string) bool {
	return len(s) > 10 && isoDay.MatchString(s[:10]) && (s[10] == 'T' || s[10] == 't' || s[10] == ' ')
}

// normInstant reads an RFC 3339 timestamp (T or t, seconds optional, fractional seconds
// allowed, Z or an offset required) as a UTC instant in InstantLayout. The fields compared
// hold whole seconds, so a fraction rounds a lower bound up and an upper bound down, which
// selects exactly the instants within the bound.
func normInstant(key, s string, upper bool) (string, *apierror.Error) {
	u := strings.ToUpper(s)
	if u[10] == ' ' {
		u = u[:10] + "T" + u[11:]
	}
	// A + sent unencoded in a GET query string arrives as a space: 02:00:00 08:00.
	u = plusAsSpace.ReplaceAllString(u, "$1+$2")
	if e := strictInstant(key, s, u); e != nil {
		return "", e
	}
	var t time.Time
	var err error
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00"} {
		if t, err = time.Parse(layout, u); err == nil {
			break
		}
	}
	if err != nil {
		zone := ""
		if _, e := time.Parse("2006-01-02T15:04:05", u); e == nil {
			zone = " It has no time zone: add Z for UTC or an offset such as -08:00."
		} else if _, e := time.Parse("2006-01-02T15:04", u); e == nil {
			zone = " It has no time zone: add Z for UTC or an offset such as -08:00."
		}
		return "", notRFC3339(key, s, zone)
	}
	t = t.UTC()
	if frac := t.Sub(t.Truncate(time.Second)); frac > 0 {
		t = t.Truncate(time.Second)
		if !upper {
			t = t.Add(time.Second)
		}
	}
	if t.Year() < 1 || t.Year() > 9999 {
		return "", apierror.New(400, apierror.CodeInvalidParameter, "%s %q lies outside the years 0001 to 9999", key, s)
	}
	return t.Format(InstantLayout), nil
}

// instantSyntax is RFC 3339's date-time (seconds optional, as the bounds allow): a fraction
// only after seconds and with a ".", an offset of two-digit hours and minutes.
var instantSyntax = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-](\d{2}):(\d{2}))?$`)

// strictInstant refuses what time.Parse would take but RFC 3339 does not: a fraction after a
// comma, and an offset beyond 23:59 (time.Parse takes +24:00 and +05:60). u is s in upper
// case, its + restored. A timestamp without a zone passes, for normInstant to explain.
func strictInstant(key, s, u string) *apierror.Error {
	m := instantSyntax.FindStringSubmatch(u)
	switch {
	case m == nil && strings.Contains(u, ","):
		return apierror.New(400, apierror.CodeInvalidParameter, "%s %q is not an RFC 3339 timestamp: fractional seconds follow a \".\", not a \",\" (e.g. 2022-02-19T19:00:00.5Z)", key, s)
	case m == nil:
		return notRFC3339(key, s, "")
	case m[1] != "" && (m[1] > "23" || m[2] > "59"):
		return apierror.New(400, apierror.CodeInvalidParameter, "%s %q is not an RFC 3339 timestamp: its offset %s:%s is out of range (hours 00 to 23, minutes 00 to 59)", key, s, m[1], m[2])
	}
	return nil
}

// notRFC3339 is the error for a bound s of key that is not an RFC 3339 timestamp, with more
// to say (or "").
func notRFC3339(key, s, more string) *apierror.Error {
	return apierror.New(400, apierror.CodeInvalidParameter, "%s %q is not an RFC 3339 timestamp (YYYY-MM-DDTHH:MM:SSZ or with an offset, e.g. 2022-02-19T19:00:00Z or 2022-02-19T11:00:00-08:00).%s", key, s, more)
}

// plusAsSpace matches a timestamp whose offset lost its + to URL decoding.
var plusAsSpace = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}T[\d:.]+) (\d{2}:\d{2})$`)

// isInstant reports whether a canonical bound is an instant (InstantLayout), not a date.
func isInstant(b string) bool { return len(b) > 10 }

// rangeBound is one column a date range compares, with its inclusive bounds (empty: open).
type rangeBound struct{ column, lo, hi string }

// rangeBounds are the columns and bounds that range r with canonical bounds b compares: the
// date column for date bounds, and the range's instant fields for timestamp bounds (From for
// the lower, To for the upper).
func rangeBounds(r capability.DateRange, b [2]string) []rangeBound {
	var out []rangeBound
	add := func(col, lo, hi string) {
		for i := range out {
			if out[i].column == col {
				if lo != "" {
					out[i].lo = lo
				}
				if hi != "" {
					out[i].hi = hi
				}
				return
			}
		}
		out = append(out, rangeBound{col, lo, hi})
	}
	if !isInstant(b[0]) && !isInstant(b[1]) {
		return []rangeBound{{r.Column, b[0], b[1]}}
	}
	if isInstant(b[0]) {
		add(r.Instants.From, b[0], "")
	} else if b[0] != "" {
		add(r.Column, b[0], "")
	}
	if isInstant(b[1]) {
		add(r.Instants.To, "", b[1])
	} else if b[1] != "" {
		add(r.Column, "", b[1])
	}
	return out
}

// normDate expands YYYY, YYYY-MM or YYYY-MM-DD to a calendar date: the first day of the
// period for a lower bound, the last for an upper bound.
func normDate(s string, upper bool) (string, bool) {
	switch {
	case isoDay.MatchString(s):
		t, err := time.Parse("2006-01-02", s)
		return t.Format("2006-01-02"), err == nil
	case isoMonth.MatchString(s):
		t, err := time.Parse("2006-01", s)
		if err != nil {
			return "", false
		}
		if upper {
			t = t.AddDate(0, 1, -1)
		}
		return t.Format("2006-01-02"), true
	case isoYear.MatchString(s):
		t, err := time.Parse("2006", s)
		if err != nil {
			return "", false
		}
		if upper {
			t = t.AddDate(1, 0, -1)
		}
		return t.Format("2006-01-02"), true
	}
	return "", false
}

func stringList(v json.RawMessage) ([]string, error) {
	var list []string
	if err := json.Unmarshal(v, &list); err == nil {
		return list, nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return nil, err
	}
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			list = append(list, part)
		}
	}
	return list, nil
}

func boolValue(v json.RawMessage) (bool, error) {
	var b bool
	if err := json.Unmarshal(v, &b); err == nil {
		return b, nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return false, err
	}
	return strconv.ParseBool(s)
}

func intValue(v json.RawMessage) (int, error) {
	var n json.Number
	if err := json.Unmarshal(v, &n); err != nil {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return 0, err
		}
		n = json.Number(strings.TrimSpace(s))
	}
	i, err := strconv.ParseInt(n.String(), 10, 32)
	return int(i), err
}

// filterValues reads one value or a list of values (strings, numbers or booleans) as text.
func filterValues(v json.RawMessage) ([]string, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(v, &list); err != nil {
		list = []json.RawMessage{v}
	}
	out := make([]string, 0, len(list))
	for _, item := range list {
		dec := json.NewDecoder(bytes.NewReader(item))
		dec.UseNumber()
		var x any
		if err := dec.Decode(&x); err != nil {
			return nil, err
		}
		switch t := x.(type) {
		case string:
			out = append(out, t)
		case json.Number:
			out = append(out, t.String())
		case bool:
			out = append(out, strconv.FormatBool(t))
		default:
			return nil, fmt.Errorf("unsupported filter value %s", item)
		}
	}
	return out, nil
}

func dedupe(sorted []string) []string {
	out := sorted[:0]
	for i, v := range sorted {
		if i == 0 || v != sorted[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func join(list []string) string { return strings.Join(list, ", ") }

// typed converts a canonical text value to its JSON type.
func typed(t capability.Type, v string) any {
	switch t {
	case capability.Integer:
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return n
		}
	case capability.Number:
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return f
		}
	case capability.Boolean:
		if b, err := strconv.ParseBool(v); err == nil {
			return b
		}
	}
	return v
}
