package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/citeq/citeq/capability"
)

// defaultServer is the server the client commands talk to without --server or $CITEQ_SERVER.
const defaultServer = "http://127.0.0.1:8080"

// clientTimeout bounds one request of the client commands.
const clientTimeout = 2 * time.Minute

// recordColumns is how many descriptive fields the records table shows (besides the fields
// that match a metric, and the source sheet and row).
const recordColumns = 6

// recordCellWidth is the widest a records table cell is printed; longer values are cut.
const recordCellWidth = 32

func serverDefault() string {
	if v := os.Getenv("CITEQ_SERVER"); v != "" {
		return v
	}
	return defaultServer
}

// apiError is a structured error answered by the server: {"error": {"code", "message"}}.
type apiError struct {
	Status  int
	Code    string
	Message string
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

// client talks HTTP to a running citeq server.
type client struct {
	base string
	hc   *http.Client
	// key is the API key sent as Authorization: Bearer ("" for none); keyFrom says where it
	// came from (apiKey).
	key, keyFrom string
}

// operatorKeyFile is where make run keeps the operator key (citeq serve --operator-key),
// relative to the directory make run runs in: the client reads it from the working
// directory.
const operatorKeyFile = "var/operator.key"

// apiKey is the key sent to the server at base, and where it came from: $CITEQ_API_KEY;
// else the file $CITEQ_API_KEY_FILE names (set empty: no key); else, for a server on this
// machine (a loopback address), the operator key make run wrote to var/operator.key. The
// operator key is never sent elsewhere: it is a key of the local server alone.
func apiKey(base *url.URL) (key, from string, err error) {
	if k := strings.TrimSpace(os.Getenv("CITEQ_API_KEY")); k != "" {
		return k, "$CITEQ_API_KEY", nil
	}
	file, explicit := os.LookupEnv("CITEQ_API_KEY_FILE")
	if !explicit {
		if !loopback(base.Hostname()) {
			return "", "", nil
		}
		file = operatorKeyFile
	}
	if file == "" {
		return "", "", nil
	}
	b, err := os.ReadFile(file)
	switch {
	case err == nil:
		return strings.TrimSpace(string(b)), file, nil
	case errors.Is(err, os.ErrNotExist) && !explicit:
		return "", "", nil
	}
	return "", "", fmt.Errorf("the API key file cannot be read (%v); fix it, or set CITEQ_API_KEY_FILE= (empty) to send no key", err)
}

// loopback reports whether host names this machine: localhost or a loopback address.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func newClient(server string) (*client, error) {
	s := strings.TrimSpace(server)
	if s == "" {
		return nil, errors.New("--server is empty; give the base URL of a citeq server, e.g. " + defaultServer)
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("--server %q is not an http(s) URL; give the base URL of a citeq server, e.g. %s", server, defaultServer)
	}
	key, from, err := apiKey(u)
	if err != nil {
		return nil, err
	}
	return &client{base: strings.TrimRight(s, "/"), hc: &http.Client{Timeout: clientTimeout}, key: key, keyFrom: from}, nil
}

// get and post return the body of a 200 response; any other status is an *apiError (or a
// plain error when the body is not the server's error document).
func (c *client) get(path string) ([]byte, error) { return c.do(http.MethodGet, path, nil) }

func (c *client) post(path string, body []byte) ([]byte, error) {
	return c.do(http.MethodPost, path, body)
}

func (c *client) do(method, path string, body []byte) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("cannot reach a citeq server at %s (%v); start one with `make run` (ingests the raw files into ./var and serves on 127.0.0.1:8080) or `citeq serve --data DIR`, or point --server or $CITEQ_SERVER at a running server", c.base, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s%s: reading the response: %v", method, c.base, path, err)
	}
	if resp.StatusCode == http.StatusOK {
		return b, nil
	}
	var eb struct {
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &eb) == nil && eb.Error != nil && eb.Error.Code != "" {
		msg := eb.Error.Message
		if resp.StatusCode == http.StatusUnauthorized && c.keyFrom != "" {
			msg += " (the key sent was read from " + c.keyFrom + ": a key belongs to the server whose store made it; " +
				"var/operator.key is the one make run made for its own server)"
		}
		return nil, &apiError{Status: resp.StatusCode, Code: eb.Error.Code, Message: msg}
	}
	snippet := strings.TrimSpace(string(b))
	if len(snippet) > 200 {
		snippet = snippet[:200] + "..."
	}
	return nil, fmt.Errorf("%s %s%s answered %s, not a citeq response: %s (is --server a citeq server?)", method, c.base, path, resp.Status, snippet)
}

// parseArgs parses flags wherever they stand among the positional arguments (the flag
// package alone stops at the first non-flag) and returns the positional arguments. After
// "--" everything is positional.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, " ") }

func (l *listFlag) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// capabilityPath accepts a capability path (domain/name), its identifier (domain.name) or an
// endpoint path (/v1/domain/name/query) and returns the path.
func capabilityPath(p string) string {
	p = strings.Trim(strings.TrimSpace(p), "/")
	p = strings.TrimPrefix(p, "v1/")
	p = strings.TrimSuffix(strings.TrimSuffix(p, "/query"), "/schema")
	if c := capability.ByID(p); c != nil {
		return c.Path
	}
	return p
}

func onePath(cmd string, pos []string) (string, error) {
	if len(pos) != 1 || capabilityPath(pos[0]) == "" {
		return "", fmt.Errorf("%s takes one capability path, e.g. citeq %s %s (citeq capabilities lists them); got %q", cmd, cmd, examples().path, pos)
	}
	return capabilityPath(pos[0]), nil
}

// writeRaw writes a response body unchanged, adding a newline only on a terminal.
func writeRaw(w io.Writer, body []byte) error {
	if _, err := w.Write(body); err != nil {
		return err
	}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			_, err = io.WriteString(w, "\n")
			return err
		}
	}
	return nil
}

// ---- query ----

// queryFlags are the flags of citeq query; params turns them into the params object.
type queryFlags struct {
	filters, groupBy, from, to listFlag
	orderBy, order, asOf       string
	top, limit                 int
	records                    bool
}

func (q *queryFlags) params(set map[string]bool) (map[string]any, error) {
	p := map[string]any{}
	filters := map[string][]string{}
	var order []string
	for _, f := range q.filters {
		k, v, ok := strings.Cut(f, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			ex := examples()
			return nil, fmt.Errorf("--filter %q: give name=value, e.g. --filter %s=%s (repeat it for a list: --filter %s=%s --filter %s=%s)", f,
				ex.filter, ex.value, ex.filter, ex.value, ex.filter, ex.value2)
		}
		if _, seen := filters[k]; !seen {
			order = append(order, k)
		}
		filters[k] = append(filters[k], v)
	}
	if len(filters) > 0 {
		fo := map[string]any{}
		for _, k := range order {
			if vs := filters[k]; len(vs) == 1 {
				fo[k] = vs[0]
			} else {
				fo[k] = vs
			}
		}
		p["filters"] = fo
	}
	var groupBy []string
	for _, g := range q.groupBy {
		for _, part := range strings.Split(g, ",") {
			if part = strings.TrimSpace(part); part != "" {
				groupBy = append(groupBy, part)
			}
		}
	}
	if len(groupBy) > 0 {
		p["group_by"] = groupBy
	}
	for _, r := range []struct {
		flag   string
		list   listFlag
		suffix string
	}{{"--from", q.from, "_from"}, {"--to", q.to, "_to"}} {
		for _, f := range r.list {
			name, d, ok := strings.Cut(f, "=")
			name = strings.TrimSpace(name)
			if !ok || name == "" || strings.TrimSpace(d) == "" {
				ex := examples().dateRange
				return nil, fmt.Errorf("%s %q: give name=DATE, e.g. %s %s=2015 (sets %s_date%s; DATE is YYYY, YYYY-MM or YYYY-MM-DD)", r.flag, f, r.flag, ex, ex, r.suffix)
			}
			name = strings.TrimSuffix(strings.TrimSuffix(name, r.suffix), "_date")
			key := name + "_date" + r.suffix
			if _, dup := p[key]; dup {
				return nil, fmt.Errorf("%s %s is given twice; give it once", r.flag, name)
			}
			p[key] = strings.TrimSpace(d)
		}
	}
	if q.orderBy != "" {
		p["order_by"] = q.orderBy
	}
	if q.order != "" {
		p["order"] = q.order
	}
	if set["top"] {
		p["top_n"] = q.top
	}
	if q.asOf != "" {
		p["as_of"] = q.asOf
	}
	if q.records {
		p["include_records"] = true
	}
	if set["limit"] {
		p["limit"] = q.limit
	}
	return p, nil
}

func runQuery(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("query", flag.ContinueOnError)
	var q queryFlags
	fs.Var(&q.filters, "filter", "filter name=value; repeat it for several values of one filter")
	fs.Var(&q.groupBy, "group-by", "group_by dimensions, comma-separated")
	ex := examples().dateRange
	fs.Var(&q.from, "from", fmt.Sprintf("date range lower bound name=DATE (%s=2015 sets %s_date_from)", ex, ex))
	fs.Var(&q.to, "to", fmt.Sprintf("date range upper bound name=DATE (%s=2015 sets %s_date_to)", ex, ex))
	fs.StringVar(&q.orderBy, "order-by", "", "metric to rank groups by")
	fs.StringVar(&q.order, "order", "", "asc or desc (default desc)")
	fs.IntVar(&q.top, "top", 0, "keep the top N groups (needs --group-by and --order-by)")
	fs.StringVar(&q.asOf, "as-of", "", "snapshot date YYYY-MM-DD (default latest)")
	fs.BoolVar(&q.records, "records", false, "also return the matched detail records")
	fs.IntVar(&q.limit, "limit", 0, "with --records: the most records returned (server default 100, maximum 5000)")
	var metricFlags listFlag
	fs.Var(&metricFlags, "metrics", "the metrics the table shows, comma-separated, in that order (default: every metric); --json prints them all")
	asJSON := fs.Bool("json", false, "print the response body unchanged")
	server := fs.String("server", serverDefault(), "citeq server base URL ($CITEQ_SERVER)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	path, err := onePath("query", pos)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	params, err := q.params(set)
	if err != nil {
		return err
	}
	metrics := splitList(metricFlags)
	// The metrics are checked against the definition before the query is sent (and counted).
	if c := capability.ByPath(path); c != nil {
		if err := knownMetrics(metrics, definedMetrics(c)); err != nil {
			return err
		}
	}
	body, err := json.Marshal(params)
	if err != nil {
		return err
	}
	c, err := newClient(*server)
	if err != nil {
		return err
	}
	resp, err := c.post("/v1/"+path+"/query", body)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeRaw(stdout, resp)
	}
	return printQuery(stdout, resp, metrics, outputWidth(stdout))
}

// splitList splits comma-separated flag values into their trimmed, non-empty parts.
func splitList(l listFlag) []string {
	var out []string
	for _, v := range l {
		for _, part := range strings.Split(v, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

func definedMetrics(c *capability.Capability) []string {
	var names []string
	for _, m := range c.Metrics {
		names = append(names, m.Name)
	}
	return names
}

// knownMetrics checks that every metric --metrics names is one of the capability's.
func knownMetrics(chosen, defined []string) error {
	for _, m := range chosen {
		if !slices.Contains(defined, m) {
			return fmt.Errorf("--metrics %s: no such metric; the metrics are %s (e.g. --metrics %s)", m, strings.Join(defined, ", "), strings.Join(defined[:min(2, len(defined))], ","))
		}
	}
	return nil
}

type note struct {
	Code    string `json:"code"`
	Metric  string `json:"metric"`
	Message string `json:"message"`
}

type queryResponse struct {
	Capability string `json:"capability"`
	AsOf       string `json:"as_of"`
	Query      struct {
		GroupBy []string `json:"group_by"`
	} `json:"query"`
	Summary struct {
		GroupCount         int64                      `json:"group_count"`
		ReturnedGroupCount int64                      `json:"returned_group_count"`
		MatchedSourceRows  int64                      `json:"matched_source_rows"`
		Totals             map[string]json.RawMessage `json:"totals"`
		Units              json.RawMessage            `json:"units"`
		Notes              []note                     `json:"notes"`
		CitationRefs       []string                   `json:"citation_refs"`
		RecordsReturned    *int64                     `json:"records_returned"`
		RecordsTruncated   bool                       `json:"records_truncated"`
		NextCursor         string                     `json:"next_cursor"`
	} `json:"summary"`
	Rows []struct {
		Group   map[string]json.RawMessage `json:"group"`
		Metrics map[string]json.RawMessage `json:"metrics"`
		Notes   []note                     `json:"notes"`
		Lineage struct {
			Ref  *string  `json:"citation_ref"`
			Refs []string `json:"citation_refs"`
		} `json:"lineage"`
	} `json:"rows"`
	Records   []json.RawMessage          `json:"records"`
	Citations map[string]json.RawMessage `json:"citations"`
}

// refsCell prints a row's citation refs: the first, and how many more (--json lists them).
func refsCell(refs []string) string {
	switch len(refs) {
	case 0:
		return ""
	case 1:
		return refs[0]
	}
	return fmt.Sprintf("%s +%d", refs[0], len(refs)-1)
}

// printQuery renders a query response as an aligned table of the chosen metrics (all when
// none is chosen), fitted to width characters (0: no limit): metric names on the first header
// line and their units on the second; columns that do not fit are wrapped into further blocks
// that repeat the group columns, and the output says so.
func printQuery(w io.Writer, body []byte, chosen []string, width int) error {
	var r queryResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return fmt.Errorf("the query response does not parse: %v", err)
	}
	metrics, err := objectKeys(r.Summary.Units)
	if err != nil {
		return fmt.Errorf("the query response's summary.units does not parse: %v", err)
	}
	if len(chosen) > 0 {
		if err := knownMetrics(chosen, metrics); err != nil {
			return err
		}
		metrics = chosen
	}
	// Each metric's unit is the one the server states in summary.units, from the capability's
	// definition; the client holds no unit of its own.
	var units map[string]string
	_ = json.Unmarshal(r.Summary.Units, &units)

	writeWrapped(w, "", "  ", fmt.Sprintf("%s  as_of %s  (%s matched; %s, %s shown)", r.Capability, r.AsOf,
		count(r.Summary.MatchedSourceRows, "source row"), count(r.Summary.GroupCount, "group"),
		formatNumber(strconv.FormatInt(r.Summary.ReturnedGroupCount, 10))), width)
	fmt.Fprintln(w)

	dims := r.Query.GroupBy
	t := &table{}
	labelCols := max(len(dims), 1)
	t.keep = labelCols
	if len(dims) == 0 {
		t.head = append(t.head, "")
		t.sub = append(t.sub, "")
		t.right = append(t.right, false)
	}
	for _, d := range dims {
		t.head = append(t.head, d)
		t.sub = append(t.sub, "")
		t.right = append(t.right, false)
	}
	for _, m := range metrics {
		t.head = append(t.head, m)
		t.sub = append(t.sub, "("+units[m]+")")
		t.right = append(t.right, true)
	}
	t.head = append(t.head, "citation")
	t.sub = append(t.sub, "")
	t.right = append(t.right, false)

	type rowNote struct {
		label string
		n     note
	}
	var rowNotes []rowNote
	for _, row := range r.Rows {
		var cells, label []string
		if len(dims) == 0 {
			cells = append(cells, "(all)")
		}
		for _, d := range dims {
			v := plainValue(row.Group[d])
			cells = append(cells, v)
			label = append(label, d+"="+v)
		}
		for _, m := range metrics {
			cells = append(cells, metricValue(row.Metrics[m]))
		}
		refs := row.Lineage.Refs
		if len(refs) == 0 && row.Lineage.Ref != nil {
			refs = []string{*row.Lineage.Ref}
		}
		cells = append(cells, refsCell(refs))
		t.rows = append(t.rows, cells)
		for _, n := range row.Notes {
			if len(chosen) == 0 || n.Metric == "" || slices.Contains(metrics, n.Metric) {
				rowNotes = append(rowNotes, rowNote{strings.Join(label, " "), n})
			}
		}
	}
	t.rows = append(t.rows, nil)
	total := []string{"TOTAL"}
	for i := 1; i < labelCols; i++ {
		total = append(total, "")
	}
	for _, m := range metrics {
		total = append(total, metricValue(r.Summary.Totals[m]))
	}
	total = append(total, refsCell(r.Summary.CitationRefs))
	t.rows = append(t.rows, total)
	fit := t.write(w, "", width)
	if fit.blocks > 1 || fit.cut {
		var said []string
		if fit.blocks > 1 {
			said = append(said, fmt.Sprintf("the columns are wrapped into %d blocks, one below the other", fit.blocks))
		}
		if fit.cut {
			said = append(said, "long group values are cut (...)")
		}
		writeWrapped(w, "\n(", " ", fmt.Sprintf("%s, to fit %d characters: --metrics %s picks the metrics shown; COLUMNS sets the width, COLUMNS=0 for no limit; --json prints everything)",
			strings.Join(said, " and "), width, strings.Join(metrics[:min(2, len(metrics))], ",")), width)
	}

	var notes []note
	for _, n := range r.Summary.Notes {
		if len(chosen) == 0 || n.Metric == "" || slices.Contains(metrics, n.Metric) {
			notes = append(notes, n)
		}
	}
	if len(notes) > 0 || len(rowNotes) > 0 {
		fmt.Fprintln(w, "\nnotes:")
		for _, n := range notes {
			writeWrapped(w, "  ", "    ", noteText(n), width)
		}
		for _, rn := range rowNotes {
			writeWrapped(w, "  ", "    ", "["+rn.label+"] "+noteText(rn.n), width)
		}
	}
	if r.Records != nil {
		if err := printRecords(w, &r, width); err != nil {
			return err
		}
	}
	writeWrapped(w, "\n", "", count(int64(len(r.Citations)), "citation")+": --json prints them in full; citeq verify checks any of them against the raw file.", width)
	return nil
}

// noteText is a note as printed: its metric (when it has one), code and message.
func noteText(n note) string {
	if n.Metric == "" {
		return n.Code + ": " + n.Message
	}
	return n.Metric + ": " + n.Code + ": " + n.Message
}

// printRecords renders the detail records: the first few fields that tell the records apart
// (not bookkeeping, not null or identical on every record returned), every field a metric
// sums, averages or takes the extreme of, and the source sheet and row of the citation. The
// capability's definition says which fields are which (layoutOf).
func printRecords(w io.Writer, r *queryResponse, width int) error {
	var returned int64
	if r.Summary.RecordsReturned != nil {
		returned = *r.Summary.RecordsReturned
	}
	fmt.Fprintf(w, "\nrecords: %s of %s", formatNumber(strconv.FormatInt(returned, 10)), count(r.Summary.MatchedSourceRows, "matched source row"))
	switch {
	case r.Summary.RecordsTruncated && r.Summary.NextCursor != "":
		fmt.Fprintf(w, " (truncated: --limit, at most 5000, or the 128 KiB page budget ends this page; the next is the same params with \"cursor\": %q, or narrow the filters)", r.Summary.NextCursor)
	case r.Summary.RecordsTruncated:
		fmt.Fprint(w, " (truncated: raise --limit, at most 5000, or narrow the filters)")
	}
	fmt.Fprintln(w)
	if len(r.Records) == 0 {
		return nil
	}
	recs := make([]map[string]json.RawMessage, len(r.Records))
	var fields []string
	for i, raw := range r.Records {
		if err := json.Unmarshal(raw, &recs[i]); err != nil {
			return fmt.Errorf("a record does not parse: %v", err)
		}
		if i == 0 {
			keys, err := objectKeys(raw)
			if err != nil {
				return fmt.Errorf("a record does not parse: %v", err)
			}
			fields = keys
		}
	}
	layout := layoutOf(r.Capability)
	var cols []string
	descriptive := 0
	for _, f := range fields {
		if layout.skip[f] || f == "citation" {
			continue
		}
		if allNull(recs, f) {
			continue
		}
		if layout.measures[f] {
			cols = append(cols, f)
			continue
		}
		if descriptive >= recordColumns || (len(recs) > 1 && constant(recs, f)) {
			continue
		}
		cols = append(cols, f)
		descriptive++
	}
	t := &table{}
	for _, f := range cols {
		t.head = append(t.head, f)
		t.right = append(t.right, numeric(recs, f))
	}
	t.head = append(t.head, "sheet", "row")
	t.right = append(t.right, false, true)
	for _, rec := range recs {
		var cells []string
		for _, f := range cols {
			cells = append(cells, cut(plainValue(rec[f]), recordCellWidth))
		}
		var cit struct {
			Sheet string `json:"sheet"`
			Row   int64  `json:"source_row"`
		}
		_ = json.Unmarshal(rec["citation"], &cit)
		cells = append(cells, cit.Sheet, strconv.FormatInt(cit.Row, 10))
		t.rows = append(t.rows, cells)
	}
	t.keep = 1
	if fit := t.write(w, "", width); fit.blocks > 1 {
		writeWrapped(w, "\n(", " ", fmt.Sprintf("the record columns are wrapped into %d blocks, each led by %s, to fit %d characters: COLUMNS sets the width, COLUMNS=0 for no limit; --json prints every field)",
			fit.blocks, t.head[0], width), width)
	}
	return nil
}

func allNull(recs []map[string]json.RawMessage, f string) bool {
	for _, r := range recs {
		if v, ok := r[f]; ok && string(v) != "null" {
			return false
		}
	}
	return true
}

// numeric reports whether every value of field f is a JSON number or null.
func numeric(recs []map[string]json.RawMessage, f string) bool {
	for _, r := range recs {
		v := bytes.TrimSpace(r[f])
		if len(v) > 0 && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) || string(v) == "null" {
			continue
		}
		return false
	}
	return true
}

func constant(recs []map[string]json.RawMessage, f string) bool {
	for _, r := range recs[1:] {
		if !bytes.Equal(r[f], recs[0][f]) {
			return false
		}
	}
	return true
}

func cut(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-3]) + "..."
}

// ---- describe ----

type schemaDoc struct {
	Capability    string      `json:"capability"`
	Path          string      `json:"path"`
	Title         string      `json:"title"`
	Grain         string      `json:"grain"`
	AsOf          string      `json:"as_of"`
	AsOfAvailable []string    `json:"as_of_available"`
	Filters       []filterDoc `json:"filters"`
	GroupBy       []string    `json:"group_by"`
	DateRanges    []struct {
		From   string `json:"from"`
		To     string `json:"to"`
		Field  string `json:"field"`
		Format string `json:"format"`
	} `json:"date_ranges"`
	Metrics []struct {
		Name        string `json:"name"`
		Unit        string `json:"unit"`
		Aggregation string `json:"aggregation"`
		Additive    bool   `json:"additive_across_groups"`
		Description string `json:"description"`
	} `json:"metrics"`
	Controls []struct {
		Name        string          `json:"name"`
		Type        string          `json:"type"`
		Default     json.RawMessage `json:"default"`
		Minimum     json.RawMessage `json:"minimum"`
		Maximum     json.RawMessage `json:"maximum"`
		Enum        []string        `json:"enum"`
		Description string          `json:"description"`
	} `json:"controls"`
	Codebooks json.RawMessage `json:"codebooks"`
}

// filterDoc is one filter of the schema.
type filterDoc struct {
	Name             string            `json:"name"`
	Type             string            `json:"type"`
	GroupBy          bool              `json:"group_by"`
	Values           []string          `json:"values"`
	ValuesInSnapshot []json.RawMessage `json:"values_in_snapshot"`
	Codebook         string            `json:"codebook"`
	DistinctValues   *int              `json:"distinct_values"`
	Published        *bool             `json:"published"`
}

// codebookDoc is one codebook of the schema.
type codebookDoc struct {
	Description string `json:"description"`
	Codes       []struct {
		Code          json.RawMessage `json:"code"`
		Description   string          `json:"description"`
		InAgencyTable *bool           `json:"in_agency_table"`
		Rows          *int64          `json:"rows_in_snapshot"`
	} `json:"codes"`
}

// defaultValuesPage is how many values of each filter and codes of each codebook describe
// prints at a time.
const defaultValuesPage = 10

// valuesPage is the part of every value list describe prints: page (1-based) of per values,
// or every value.
type valuesPage struct {
	per, page int
	all       bool
	// field, when set, limits the lists printed to one filter or codebook.
	field string
}

// slice returns the bounds [lo, hi) of the page within a list of n values.
func (p valuesPage) slice(n int) (lo, hi int) {
	if p.all {
		return 0, n
	}
	lo = min(n, (p.page-1)*p.per)
	return lo, min(n, lo+p.per)
}

// span says which values of n a page shows: "all 4", "1-10 of 51", "none of 4 on page 9".
func (p valuesPage) span(n int) string {
	lo, hi := p.slice(n)
	switch {
	case lo == 0 && hi == n:
		if n == 1 {
			return "1 value"
		}
		return "all " + formatNumber(strconv.Itoa(n))
	case lo == hi:
		return fmt.Sprintf("none of %s on page %d", formatNumber(strconv.Itoa(n)), p.page)
	}
	return fmt.Sprintf("%d-%d of %s", lo+1, hi, formatNumber(strconv.Itoa(n)))
}

func runDescribe(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("describe", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the response body unchanged")
	server := fs.String("server", serverDefault(), "citeq server base URL ($CITEQ_SERVER)")
	var pg valuesPage
	fs.IntVar(&pg.per, "values", defaultValuesPage, "how many values of each filter and codes of each codebook to print")
	fs.IntVar(&pg.page, "page", 1, "which page of --values values to print (1 is the first)")
	fs.BoolVar(&pg.all, "all", false, "print every value and code")
	fs.StringVar(&pg.field, "field", "", "print the values of this filter or codebook only")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	path, err := onePath("describe", pos)
	if err != nil {
		return err
	}
	if pg.per < 1 || pg.page < 1 {
		return fmt.Errorf("--values and --page take a whole number from 1 (got --values %d --page %d); --all prints every value", pg.per, pg.page)
	}
	c, err := newClient(*server)
	if err != nil {
		return err
	}
	body, err := c.get("/v1/" + path + "/schema")
	if err != nil {
		return err
	}
	if *asJSON {
		return writeRaw(stdout, body)
	}
	return printSchema(stdout, body, pg, outputWidth(stdout))
}

// printSchema renders a schema: the filters, group_by, date ranges, metrics and controls,
// then a page of the values of every filter that lists them and of the codes of every
// codebook (pg), fitted to width characters.
func printSchema(w io.Writer, body []byte, pg valuesPage, width int) error {
	var s schemaDoc
	if err := json.Unmarshal(body, &s); err != nil {
		return fmt.Errorf("the schema response does not parse: %v", err)
	}
	names, err := objectKeys(s.Codebooks)
	if err != nil {
		return fmt.Errorf("the schema's codebooks do not parse: %v", err)
	}
	var books map[string]codebookDoc
	_ = json.Unmarshal(s.Codebooks, &books)
	if pg.field != "" && !slices.ContainsFunc(s.Filters, func(f filterDoc) bool { return f.Name == pg.field }) && !slices.Contains(names, pg.field) {
		return fmt.Errorf("--field %s: %s has no such filter or codebook (citeq describe %s lists them)", pg.field, s.Capability, s.Path)
	}

	writeWrapped(w, "", "  ", fmt.Sprintf("%s  (path %s)  as_of %s  (available: %s)", s.Capability, s.Path, s.AsOf, strings.Join(s.AsOfAvailable, ", ")), width)
	writeWrapped(w, "", "  ", fmt.Sprintf("%s; grain: %s", s.Title, s.Grain), width)

	// The filters table says what each filter's values are: a list (printed below), a
	// codebook (its codes printed below), or only how many there are.
	type valueList struct {
		name   string
		values []string
	}
	var lists []valueList
	fmt.Fprintln(w, "\nfilters:")
	t := &table{head: []string{"name", "type", "group_by", "values"}, wrapLast: true}
	for _, f := range s.Filters {
		var vals string
		var inSnapshot []string
		for _, v := range f.ValuesInSnapshot {
			inSnapshot = append(inSnapshot, plainValue(v))
		}
		switch {
		case f.Codebook != "":
			vals = "codebook " + f.Codebook
			if f.DistinctValues != nil {
				vals += fmt.Sprintf(" (%s in snapshot)", formatNumber(strconv.Itoa(*f.DistinctValues)))
			}
			vals += ", its codes listed below"
			if len(inSnapshot) > 0 {
				lists = append(lists, valueList{f.Name, inSnapshot})
			}
		case len(f.Values) > 0:
			vals = count(int64(len(f.Values)), "value") + ", listed below"
			lists = append(lists, valueList{f.Name, f.Values})
		case len(inSnapshot) > 0:
			vals = count(int64(len(inSnapshot)), "value") + " in snapshot, listed below"
			lists = append(lists, valueList{f.Name, inSnapshot})
		case f.DistinctValues != nil && *f.DistinctValues > 0:
			vals = count(int64(*f.DistinctValues), "value") + " in snapshot, too many to list"
		case f.DistinctValues != nil:
			vals = "no value in snapshot"
		}
		if f.Published != nil && !*f.Published {
			vals += "; not published in as_of " + s.AsOf
		}
		t.rows = append(t.rows, []string{f.Name, f.Type, yesNo(f.GroupBy), vals})
	}
	t.write(w, "  ", width)

	fmt.Fprintln(w, "\ngroup_by:")
	writeWrapped(w, "  ", "  ", strings.Join(s.GroupBy, ", "), width)

	fmt.Fprintln(w, "\ndate ranges (YYYY-MM-DD, YYYY-MM or YYYY; inclusive):")
	if len(s.DateRanges) == 0 {
		fmt.Fprintln(w, "  none")
	} else {
		t = &table{head: []string{"from", "to", "field"}}
		for _, r := range s.DateRanges {
			t.rows = append(t.rows, []string{r.From, r.To, r.Field})
		}
		t.write(w, "  ", width)
	}

	fmt.Fprintln(w, "\nmetrics:")
	t = &table{head: []string{"name", "unit", "aggregation", "additive", "description"}, wrapLast: true}
	for _, m := range s.Metrics {
		t.rows = append(t.rows, []string{m.Name, m.Unit, m.Aggregation, yesNo(m.Additive), m.Description})
	}
	t.write(w, "  ", width)

	fmt.Fprintln(w, "\ncontrols:")
	t = &table{head: []string{"name", "type", "default", "description"}, wrapLast: true}
	for _, c := range s.Controls {
		def := ""
		if len(c.Default) > 0 {
			def = plainValue(c.Default)
		}
		desc := c.Description
		if len(c.Enum) > 0 {
			desc = strings.Join(c.Enum, " or ")
		}
		if len(c.Maximum) > 0 {
			desc += " (maximum " + plainValue(c.Maximum) + ")"
		}
		if len(c.Minimum) > 0 {
			desc += " (minimum " + plainValue(c.Minimum) + ")"
		}
		t.rows = append(t.rows, []string{c.Name, c.Type, def, desc})
	}
	t.write(w, "  ", width)

	// With --field, only the section holding that field is printed.
	more := false // whether some list has values beyond the page
	var picked []valueList
	for _, l := range lists {
		if pg.field == "" || l.name == pg.field {
			picked = append(picked, l)
		}
	}
	if pg.field == "" || len(picked) > 0 {
		fmt.Fprintln(w, "\nvalues:")
	}
	for _, l := range picked {
		lo, hi := pg.slice(len(l.values))
		more = more || hi < len(l.values)
		writeWrapped(w, fmt.Sprintf("  %s (%s): ", l.name, pg.span(len(l.values))), "    ", strings.Join(l.values[lo:hi], ", "), width)
	}
	if pg.field == "" && len(picked) == 0 {
		fmt.Fprintln(w, "  none listed")
	}

	if pg.field != "" {
		names = slices.DeleteFunc(names, func(n string) bool { return n != pg.field })
		if len(names) == 0 {
			return nil
		}
	}
	fmt.Fprintln(w, "\ncodebooks:")
	if len(names) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, n := range names {
		b := books[n]
		out := 0
		for _, c := range b.Codes {
			if c.InAgencyTable != nil && !*c.InAgencyTable {
				out++
			}
		}
		lo, hi := pg.slice(len(b.Codes))
		more = more || hi < len(b.Codes)
		fmt.Fprintf(w, "  %s: %s, %d not in the agency table (%s)\n", n, count(int64(len(b.Codes)), "code"), out, strings.TrimPrefix(pg.span(len(b.Codes)), "all "))
		if lo == hi {
			continue
		}
		t = &table{head: []string{"code", "rows", "description"}, right: []bool{false, true, false}, wrapLast: true}
		for _, c := range b.Codes[lo:hi] {
			rows, desc := "", c.Description
			if c.Rows != nil {
				rows = formatNumber(strconv.FormatInt(*c.Rows, 10))
			}
			if c.InAgencyTable != nil && !*c.InAgencyTable {
				desc += " (not in the agency table)"
			}
			t.rows = append(t.rows, []string{plainValue(c.Code), rows, desc})
		}
		t.write(w, "    ", width)
	}
	if more {
		next := pg
		next.page++
		writeWrapped(w, "\n", "", fmt.Sprintf("More values follow: --page %d for the next %d, --values N for N at a time, --all for every one, --field NAME for one filter or codebook.", next.page, pg.per), width)
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// ---- capabilities ----

func runCapabilities(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("capabilities", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the response body unchanged")
	server := fs.String("server", serverDefault(), "citeq server base URL ($CITEQ_SERVER)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("capabilities takes no arguments, got %q", pos)
	}
	c, err := newClient(*server)
	if err != nil {
		return err
	}
	body, err := c.get("/v1/capabilities")
	if err != nil {
		return err
	}
	if *asJSON {
		return writeRaw(stdout, body)
	}
	var doc struct {
		Capabilities []struct {
			Capability string   `json:"capability"`
			Path       string   `json:"path"`
			Latest     string   `json:"as_of_latest"`
			Available  []string `json:"as_of_available"`
			Answerable *bool    `json:"answerable"`
			Because    string   `json:"not_answerable_because"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return fmt.Errorf("the capabilities response does not parse: %v", err)
	}
	if len(doc.Capabilities) == 0 {
		fmt.Fprintf(stdout, "the server at %s serves no capability yet: run citeq ingest, then the server picks the snapshots up\n", c.base)
		return nil
	}
	// The capability column is repeated in every block when the columns do not fit side by
	// side, so no block is without names.
	t := &table{head: []string{"capability", "path", "as_of latest", "as_of available"}, wrapLast: true, keep: 1}
	var refused []string
	for _, cp := range doc.Capabilities {
		name := cp.Capability
		if cp.Answerable != nil && !*cp.Answerable {
			name += " *"
			refused = append(refused, cp.Capability+": "+cp.Because)
		}
		t.rows = append(t.rows, []string{name, cp.Path, cp.Latest, strings.Join(cp.Available, ", ")})
	}
	width := outputWidth(stdout)
	t.write(stdout, "", width)
	if len(refused) > 0 {
		fmt.Fprintln(stdout)
		for _, r := range refused {
			writeWrapped(stdout, "* answers no query now: ", "  ", r, width)
		}
	}
	return nil
}

// ---- verify ----

func runVerify(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the response body unchanged")
	server := fs.String("server", serverDefault(), "citeq server base URL ($CITEQ_SERVER)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return errors.New("verify takes one citation: its JSON as the argument, or - to read it from stdin (a record's citation, an aggregate citation or its verify member)")
	}
	var in []byte
	if pos[0] == "-" {
		if in, err = io.ReadAll(stdin); err != nil {
			return fmt.Errorf("reading the citation from stdin: %v", err)
		}
	} else {
		in = []byte(pos[0])
	}
	in = citationBody(bytes.TrimSpace(in))
	if len(in) == 0 {
		return errors.New("the citation is empty; give a citation's JSON (a record's citation, an aggregate citation or its verify member)")
	}
	c, err := newClient(*server)
	if err != nil {
		return err
	}
	body, err := c.post("/v1/evidence/source-row", in)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeRaw(stdout, body)
	}
	return printEvidence(stdout, body)
}

// citationBody unwraps what is handy to paste but is not itself a citation: a whole detail
// record (its citation member) or a one-member object keyed by a citation_ref. Anything else
// goes to the server as given (it takes a record-level citation, an aggregate citation or
// its verify member, and says what is wrong with anything else).
func citationBody(in []byte) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal(in, &obj) != nil {
		return in
	}
	if c, ok := obj["citation"]; ok && len(obj) > 1 && bytes.HasPrefix(bytes.TrimSpace(c), []byte("{")) {
		return c
	}
	if len(obj) == 1 {
		for k, v := range obj {
			if strings.HasPrefix(k, "c_") && bytes.HasPrefix(bytes.TrimSpace(v), []byte("{")) {
				return v
			}
		}
	}
	return in
}

func printEvidence(w io.Writer, body []byte) error {
	var ev struct {
		Verified  bool   `json:"verified"`
		Cited     string `json:"raw_file_sha256"`
		Computed  string `json:"computed_sha256"`
		File      string `json:"source_file"`
		Sheet     string `json:"sheet"`
		Row       int64  `json:"source_row"`
		HeaderRow *int64 `json:"header_row"`
		Citation  struct {
			URL  string `json:"source_url"`
			AsOf string `json:"as_of"`
		} `json:"citation"`
		Cells []struct {
			Column string `json:"column"`
			Header string `json:"header"`
			Value  string `json:"value"`
			Type   string `json:"type"`
		} `json:"cells"`
		CitedBy []struct {
			Capability string `json:"capability"`
			AsOf       string `json:"as_of"`
			Role       string `json:"role"`
		} `json:"cited_by"`
	}
	if err := json.Unmarshal(body, &ev); err != nil {
		return fmt.Errorf("the evidence response does not parse: %v", err)
	}
	state := "VERIFIED"
	if !ev.Verified {
		state = "NOT VERIFIED"
	}
	header := "no header row"
	if ev.HeaderRow != nil {
		header = "header row " + strconv.FormatInt(*ev.HeaderRow, 10)
	}
	fmt.Fprintf(w, "%s  file %s  sheet %s  row %d  (%s)\n", state, ev.File, ev.Sheet, ev.Row, header)
	if ev.Citation.URL != "" {
		fmt.Fprintf(w, "source_url       %s\n", ev.Citation.URL)
	}
	fmt.Fprintf(w, "cited sha256     %s\n", ev.Cited)
	match := "matches"
	if ev.Cited != ev.Computed {
		match = "DIFFERS"
	}
	fmt.Fprintf(w, "computed sha256  %s  (%s)\n", ev.Computed, match)
	if len(ev.CitedBy) > 0 {
		var by []string
		for _, c := range ev.CitedBy {
			by = append(by, c.Capability+" "+c.AsOf+" ("+c.Role+")")
		}
		fmt.Fprintf(w, "cited by         %s\n", strings.Join(by, ", "))
	}
	fmt.Fprintln(w)
	t := &table{head: []string{"column", "header", "value", "type"}}
	for _, c := range ev.Cells {
		v := c.Value
		if strings.TrimSpace(v) != v || v == "" {
			v = strconv.Quote(v)
		}
		t.rows = append(t.rows, []string{c.Column, c.Header, v, c.Type})
	}
	// One line a cell, however wide: the value is the literal the file holds.
	t.write(w, "", 0)
	return nil
}

// ---- formatting ----

// objectKeys lists the members of a JSON object in document order.
func objectKeys(raw json.RawMessage) ([]string, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// plainValue prints a JSON value as text: a string unquoted, null as "null", anything else
// as written.
func plainValue(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "null"
	}
	var s string
	if raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// metricValue prints a metric: a number through formatNumber, null as "null".
func metricValue(raw json.RawMessage) string {
	v := plainValue(raw)
	if v == "null" || v == "" {
		return "null"
	}
	if _, err := strconv.ParseFloat(v, 64); err != nil {
		return v
	}
	return formatNumber(v)
}

// formatNumber writes a JSON number with thousands separators: an integer without decimals,
// any other number rounded to at most 3 decimals (trailing zeros dropped).
func formatNumber(s string) string {
	if !strings.ContainsAny(s, ".eE") {
		neg := strings.HasPrefix(s, "-")
		return sign(neg) + group(strings.TrimPrefix(s, "-"))
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	out := strconv.FormatFloat(f, 'f', 3, 64)
	neg := strings.HasPrefix(out, "-")
	out = strings.TrimPrefix(out, "-")
	intPart, frac, _ := strings.Cut(out, ".")
	frac = strings.TrimRight(frac, "0")
	if strings.Trim(intPart, "0") == "" && frac == "" {
		neg = false // no "-0"
	}
	if frac != "" {
		return sign(neg) + group(intPart) + "." + frac
	}
	return sign(neg) + group(intPart)
}

// count writes n with its noun, in the plural unless n is 1: "20,187 source rows", "2
// capabilities".
func count(n int64, noun string) string {
	if n != 1 {
		if strings.HasSuffix(noun, "y") {
			noun = strings.TrimSuffix(noun, "y") + "ie"
		}
		noun += "s"
	}
	return formatNumber(strconv.FormatInt(n, 10)) + " " + noun
}

func sign(neg bool) string {
	if neg {
		return "-"
	}
	return ""
}

// group puts a comma between every three digits of an unsigned integer.
func group(digits string) string {
	if len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	head := len(digits) % 3
	if head > 0 {
		b.WriteString(digits[:head])
	}
	for i := head; i < len(digits); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}
