package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"github.com/citeq/citeq/capability"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/citeq/citeq/api"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/snapshots"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// apiServer serves the ingested real data over a loopback server.
func apiServer(t *testing.T) *httptest.Server {
	t.Helper()
	svc, err := service.New(testenv.Data(t))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.New(svc, zerolog.Nop()))
	t.Cleanup(srv.Close)
	return srv
}

// rest calls the server directly (body nil: GET) and returns the body of a 200 response.
func rest(t *testing.T, srv *httptest.Server, path string, body any) []byte {
	t.Helper()
	var resp *http.Response
	var err error
	if body == nil {
		resp, err = http.Get(srv.URL + path)
	} else {
		b, ok := body.([]byte)
		if !ok {
			if b, err = json.Marshal(body); err != nil {
				t.Fatal(err)
			}
		}
		resp, err = http.Post(srv.URL+path, "application/json", bytes.NewReader(b))
	}
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("%s: status %d: %s", path, resp.StatusCode, out)
	}
	return out
}

func decodeJSON[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %.300s: %v", b, err)
	}
	return v
}

// command runs a client subcommand as main would, with stdin and a captured stdout.
func command(name string, args []string, stdin string) (string, error) {
	var out bytes.Buffer
	var err error
	switch name {
	case "query":
		err = runQuery(args, &out)
	case "describe":
		err = runDescribe(args, &out)
	case "capabilities":
		err = runCapabilities(args, &out)
	case "verify":
		err = runVerify(args, strings.NewReader(stdin), &out)
	default:
		err = errors.New("no command " + name)
	}
	return out.String(), err
}

var cellSep = regexp.MustCompile(`\s{2,}`)

// fields splits a table line into its cells (cells are two or more spaces apart).
func fields(line string) []string { return cellSep.Split(strings.TrimSpace(line), -1) }

// queryTable is the rows and the TOTAL line of a printed query table, split into cells.
type queryTable struct {
	head  []string
	units []string // the units line: one "(unit)" per metric
	rows  [][]string
	total []string
}

func parseQueryTable(t *testing.T, out string) queryTable {
	t.Helper()
	lines := strings.Split(out, "\n")
	var q queryTable
	// line 0 is the capability and as_of, line 1 blank, line 2 the column header (the
	// metrics' names), line 3 their units.
	if len(lines) < 5 || !strings.Contains(lines[0], " as_of ") {
		t.Fatalf("no query table in:\n%s", out)
	}
	q.head = fields(lines[2])
	if strings.HasPrefix(lines[2], " ") { // an ungrouped table's first column has no header
		q.head = append([]string{""}, q.head...)
	}
	i := 3
	if strings.HasPrefix(lines[3], " ") { // the units line (absent over columns without one)
		q.units = fields(lines[3])
		i = 4
	}
	for ; i < len(lines) && strings.Trim(lines[i], "-") != ""; i++ {
		q.rows = append(q.rows, fields(lines[i]))
	}
	if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "TOTAL ") {
		t.Fatalf("no TOTAL line after the rows:\n%s", out)
	}
	q.total = fields(lines[i+1])
	return q
}

func (q queryTable) col(t *testing.T, name string) int {
	t.Helper()
	for i, h := range q.head {
		if h == name {
			return i
		}
	}
	t.Fatalf("no column %q in %q", name, q.head)
	return -1
}

// number parses a printed number back ("1,167,975.9").
func number(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	if err != nil {
		t.Fatalf("printed number %q: %v", s, err)
	}
	return f
}

// sameAt3 says whether a printed value (rounded to 3 decimals) stands for v.
func sameAt3(printed, v float64) bool { return math.Abs(printed-v) <= 0.0005+1e-9*math.Abs(v) }

type restQuery struct {
	AsOf    string `json:"as_of"`
	Summary struct {
		Totals map[string]*float64 `json:"totals"`
	} `json:"summary"`
	Rows []struct {
		Group   map[string]any      `json:"group"`
		Metrics map[string]*float64 `json:"metrics"`
		Lineage struct {
			Ref string `json:"citation_ref"`
		} `json:"lineage"`
	} `json:"rows"`
	Records []struct {
		Citation json.RawMessage `json:"citation"`
	} `json:"records"`
	Citations map[string]json.RawMessage `json:"citations"`
}

type restEvidence struct {
	Computed string `json:"computed_sha256"`
	Cells    []struct {
		Column string `json:"column"`
		Header string `json:"header"`
		Value  string `json:"value"`
	} `json:"cells"`
}

func TestClientCommands(t *testing.T) {
	// The tables are checked whole here, on one line each (TestQueryFitsTheWidth fits them).
	t.Setenv("COLUMNS", "0")
	srv := apiServer(t)
	const top5 = `{"filters":{"lifecycle":"operating"},"group_by":["state"],"order_by":"nameplate_mw","top_n":5}`
	top5Body := rest(t, srv, "/v1/power/capacity/query", []byte(top5))
	top5Resp := decodeJSON[restQuery](t, top5Body)

	// A citation of each kind, from a query response.
	rec := decodeJSON[restQuery](t, rest(t, srv, "/v1/power/capacity/query", []byte(`{"filters":{"state":"RI"},"include_records":true,"limit":1}`)))
	aggregate := string(top5Resp.Citations[top5Resp.Rows[0].Lineage.Ref])
	var agg struct {
		Verify json.RawMessage `json:"verify"`
		SHA256 string          `json:"raw_file_sha256"`
	}
	if err := json.Unmarshal([]byte(aggregate), &agg); err != nil || len(agg.Verify) == 0 {
		t.Fatalf("aggregate citation %s: %v", aggregate, err)
	}
	record := string(rec.Records[0].Citation)

	// checkEvidence compares printed evidence with what the evidence endpoint returns.
	checkEvidence := func(citation string) func(t *testing.T, out string) {
		return func(t *testing.T, out string) {
			ev := decodeJSON[restEvidence](t, rest(t, srv, "/v1/evidence/source-row", []byte(citation)))
			if !strings.HasPrefix(out, "VERIFIED ") {
				t.Errorf("not VERIFIED:\n%s", out)
			}
			for _, want := range []string{"cited sha256     " + agg.SHA256, "computed sha256  " + ev.Computed + "  (matches)"} {
				if !strings.Contains(out, want+"\n") {
					t.Errorf("no line %q in:\n%s", want, out)
				}
			}
			lines := strings.Split(out, "\n")
			for _, c := range ev.Cells {
				v := c.Value
				if strings.TrimSpace(v) != v || v == "" {
					v = strconv.Quote(v)
				}
				found := false
				for _, l := range lines {
					if strings.HasPrefix(l, c.Column+" ") && strings.Contains(l, "  "+c.Header+" ") && strings.Contains(l, "  "+v+" ") {
						found = true
						break
					}
				}
				if !found {
					t.Errorf("cell %s (%s) = %q not printed", c.Column, c.Header, c.Value)
				}
			}
		}
	}
	tamper := func(old, repl string) string { return strings.ReplaceAll(aggregate, old, repl) }

	cases := []struct {
		name     string
		cmd      string
		args     []string
		stdin    string
		wantCode string // the server's error code; "" for success
		wantErr  string // a client-side error
		check    func(t *testing.T, out string)
	}{
		{
			name: "query top 5 states, (other) and TOTAL",
			cmd:  "query",
			args: []string{"power/capacity", "--filter", "lifecycle=operating", "--group-by", "state", "--order-by", "nameplate_mw", "--top", "5"},
			check: func(t *testing.T, out string) {
				if !strings.HasPrefix(out, "power.capacity  as_of "+top5Resp.AsOf+" ") {
					t.Errorf("header line: %q", strings.SplitN(out, "\n", 2)[0])
				}
				q := parseQueryTable(t, out)
				if len(q.rows) != 6 {
					t.Fatalf("%d rows, want 5 states and (other):\n%s", len(q.rows), out)
				}
				for i, r := range q.rows {
					if want := top5Resp.Rows[i].Group["state"]; r[0] != want {
						t.Errorf("row %d is %q, want %v", i, r[0], want)
					}
				}
				if q.rows[5][0] != "(other)" {
					t.Errorf("last row %q, want (other)", q.rows[5][0])
				}
				np := q.col(t, "nameplate_mw")
				if q.units[0] != "(MW)" {
					t.Errorf("units line %q: nameplate_mw's unit is not (MW)", q.units)
				}
				total := number(t, q.total[np])
				if want := *top5Resp.Summary.Totals["nameplate_mw"]; !sameAt3(total, want) {
					t.Errorf("TOTAL nameplate_mw printed %v, summary.totals.nameplate_mw is %v", total, want)
				}
				for i, r := range q.rows {
					if got, want := number(t, r[np]), *top5Resp.Rows[i].Metrics["nameplate_mw"]; !sameAt3(got, want) {
						t.Errorf("row %s nameplate_mw printed %v, response has %v", r[0], got, want)
					}
					if r[len(r)-1] != top5Resp.Rows[i].Lineage.Ref {
						t.Errorf("row %s citation %q, want %q", r[0], r[len(r)-1], top5Resp.Rows[i].Lineage.Ref)
					}
				}
				if q.total[q.col(t, "net_winter_mw")] != "null" {
					t.Errorf("net_winter_mw total is not null: %q", q.total)
				}
				if !strings.Contains(out, "\nnotes:\n  net_winter_mw: not_published: ") {
					t.Errorf("no not_published note:\n%s", out)
				}
			},
		},
		{
			name: "flags before the path give the same table",
			cmd:  "query",
			args: []string{"--top", "5", "--order-by", "nameplate_mw", "--filter", "lifecycle=operating", "power.capacity", "--group-by", "state"},
			check: func(t *testing.T, out string) {
				want, err := command("query", []string{"power/capacity", "--filter", "lifecycle=operating", "--group-by", "state", "--order-by", "nameplate_mw", "--top", "5", "--server", srv.URL}, "")
				if err != nil {
					t.Fatal(err)
				}
				if out != want {
					t.Errorf("output differs with the flags before the path:\n%s\nvs\n%s", out, want)
				}
			},
		},
		{
			name: "--json is the response body byte for byte",
			cmd:  "query",
			args: []string{"power/capacity", "--filter", "lifecycle=operating", "--group-by", "state", "--order-by", "nameplate_mw", "--top", "5", "--json"},
			check: func(t *testing.T, out string) {
				if out != string(top5Body) {
					t.Errorf("--json output differs from the POST response body (%d vs %d bytes)", len(out), len(top5Body))
				}
			},
		},
		{
			name: "--json with lists, date ranges and records",
			cmd:  "query",
			args: []string{"power/capacity", "--filter", "state=TX", "--filter", "state=CA", "--group-by", "technology", "--from", "operating=2010", "--to", "operating=2015-06", "--records", "--limit", "3", "--json"},
			check: func(t *testing.T, out string) {
				want := rest(t, srv, "/v1/power/capacity/query", []byte(`{"filters":{"state":["CA","TX"]},"group_by":["technology"],"operating_date_from":"2010","operating_date_to":"2015-06","include_records":true,"limit":3}`))
				if out != string(want) {
					t.Errorf("--json output differs from the POST response body:\n%.400s\nvs\n%.400s", out, want)
				}
			},
		},
		{
			name: "records table with source sheet and row",
			cmd:  "query",
			args: []string{"power/capacity", "--filter", "state=RI", "--records", "--limit", "3"},
			check: func(t *testing.T, out string) {
				r := decodeJSON[restQuery](t, rest(t, srv, "/v1/power/capacity/query", []byte(`{"filters":{"state":"RI"},"include_records":true,"limit":3}`)))
				_, recs, ok := strings.Cut(out, "\nrecords: 3 of ")
				if !ok || !strings.Contains(strings.SplitN(recs, "\n", 2)[0], "(truncated") {
					t.Fatalf("no records heading saying 3 of the matched rows, truncated:\n%s", out)
				}
				lines := strings.Split(recs, "\n")[1:]
				head := fields(lines[0])
				if n := len(head); n < 4 || head[n-2] != "sheet" || head[n-1] != "row" || !strings.Contains(lines[0], "nameplate_mw") {
					t.Fatalf("records header %q", head)
				}
				for i, rc := range r.Records {
					var c struct {
						Sheet string `json:"sheet"`
						Row   int    `json:"source_row"`
					}
					_ = json.Unmarshal(rc.Citation, &c)
					f := fields(lines[1+i])
					if f[len(f)-2] != c.Sheet || f[len(f)-1] != strconv.Itoa(c.Row) {
						t.Errorf("record %d printed %q, cited %s row %d", i, f, c.Sheet, c.Row)
					}
				}
			},
		},
		{
			name: "ungrouped prices over mixed units are null with a note",
			cmd:  "query",
			args: []string{"natural-gas/prices", "--from", "observation=2020", "--to", "observation=2020",
				"--filter", "atom=henry_hub_daily_spot", "--filter", "atom=us_electric_power_monthly"},
			check: func(t *testing.T, out string) {
				q := parseQueryTable(t, out)
				if len(q.rows) != 1 || q.rows[0][0] != "(all)" {
					t.Errorf("rows %q, want one (all) row", q.rows)
				}
				if q.total[q.col(t, "avg_price")] != "null" {
					t.Errorf("avg_price total %q, want null", q.total)
				}
				if got := number(t, q.total[q.col(t, "source_record_count")]); got != 267 {
					t.Errorf("source_record_count %v, want 267 (2020: 255 trading days and 12 months)", got)
				}
				if !strings.Contains(out, "  avg_price: mixed_units: ") {
					t.Errorf("no mixed_units note:\n%s", out)
				}
			},
		},
		{name: "invalid filter value", cmd: "query", args: []string{"power/capacity", "--filter", "state=XX"}, wantCode: "invalid_filter"},
		{name: "unknown capability", cmd: "query", args: []string{"power/nothing"}, wantCode: "capability_not_found"},
		{name: "top without order_by", cmd: "query", args: []string{"power/capacity", "--group-by", "state", "--top", "3"}, wantCode: "invalid_parameter"},
		{name: "query without a path", cmd: "query", args: []string{"--group-by", "state"}, wantErr: "takes one capability path"},
		{name: "filter without =", cmd: "query", args: []string{"power/capacity", "--filter", "state"}, wantErr: "give name=value"},
		{
			name: "describe lists metrics with units",
			cmd:  "describe",
			args: []string{"power/capacity"},
			check: func(t *testing.T, out string) {
				checkDescribe(t, out, rest(t, srv, "/v1/power/capacity/schema", nil))
				for _, want := range []string{
					"\n  lifecycle                       string   yes       4 values, listed below\n",
					"\n  lifecycle (all 4): operating, planned, retired, canceled_or_postponed\n",
					"\n  status_code: 15 codes, 1 not in the agency table (1-10 of 15)\n",
					"\n  operating_date_from ",
				} {
					if !strings.Contains(out, want) {
						t.Errorf("no %q in:\n%s", want, out)
					}
				}
			},
		},
		{
			name: "describe natural gas prices",
			cmd:  "describe",
			args: []string{"natural-gas/prices"},
			check: func(t *testing.T, out string) {
				checkDescribe(t, out, rest(t, srv, "/v1/natural-gas/prices/schema", nil))
			},
		},
		{
			name: "capabilities lists every promoted one",
			cmd:  "capabilities",
			check: func(t *testing.T, out string) {
				doc := decodeJSON[restCapabilities](t, rest(t, srv, "/v1/capabilities", nil))
				cat, err := (&snapshots.Store{Dir: testenv.Data(t)}).ReadCatalog()
				if err != nil {
					t.Fatal(err)
				}
				// A derived capability (Inputs) is served when every input is promoted.
				want := len(cat.Promoted)
				for _, c := range capability.All() {
					served := len(c.Inputs) > 0
					for _, in := range c.Inputs {
						served = served && len(cat.Promoted[in]) > 0
					}
					if served {
						want++
					}
				}
				if len(doc.Capabilities) != want || len(doc.Capabilities) < 2 {
					t.Fatalf("the server serves %d capabilities, the catalog promotes %d and makes %d derivable", len(doc.Capabilities), len(cat.Promoted), want-len(cat.Promoted))
				}
				lines := strings.Split(out, "\n")
				if f := fields(lines[0]); strings.Join(f, "|") != "capability|path|as_of latest|as_of available" {
					t.Errorf("header %q", f)
				}
				for i, c := range doc.Capabilities {
					name := c.Capability
					if c.Answerable != nil && !*c.Answerable {
						name += " *" // explained below the table
						if !strings.Contains(out, "* answers no query now: "+c.Capability+": ") {
							t.Errorf("%s answers no query, and the output does not say why:\n%s", c.Capability, out)
						}
					}
					want := []string{name, c.Path, c.Latest, strings.Join(c.Available, ", ")}
					if got := fields(lines[1+i]); strings.Join(got, "|") != strings.Join(want, "|") {
						t.Errorf("line %d: %q, want %q", i+1, got, want)
					}
				}
			},
		},
		{name: "verify an aggregate citation", cmd: "verify", args: []string{aggregate}, check: checkEvidence(aggregate)},
		{name: "verify a verify member from stdin", cmd: "verify", args: []string{"-"}, stdin: string(agg.Verify), check: checkEvidence(string(agg.Verify))},
		{name: "verify a record citation", cmd: "verify", args: []string{record}, check: checkEvidence(record)},
		{name: "verify a tampered hash", cmd: "verify", args: []string{tamper(agg.SHA256, strings.Repeat("0", 64))}, wantCode: "evidence_file_unknown"},
		{name: "verify a tampered file name", cmd: "verify", args: []string{tamper(`"source_file":"may_generator2016.xlsx"`, `"source_file":"june_generator2016.xlsx"`)}, wantCode: "evidence_file_name_mismatch"},
		{name: "verify a row outside the sheet", cmd: "verify", args: []string{`{"source_file":"may_generator2016.xlsx","sheet":"Operating","source_row":999999,"raw_file_sha256":"` + agg.SHA256 + `"}`}, wantCode: "evidence_row_out_of_range"},
		{name: "verify without a citation", cmd: "verify", args: []string{"-"}, stdin: "  ", wantErr: "the citation is empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := command(tc.cmd, append(tc.args, "--server", srv.URL), tc.stdin)
			var ae *apiError
			switch {
			case tc.wantCode != "":
				if !errors.As(err, &ae) || ae.Code != tc.wantCode {
					t.Fatalf("error %v, want the server's %s", err, tc.wantCode)
				}
				if !strings.HasPrefix(err.Error(), tc.wantCode+": ") || ae.Message == "" {
					t.Errorf("error prints as %q, want %q and the message", err.Error(), tc.wantCode+": ")
				}
				return
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, r := range out {
				if r > 127 && tc.cmd == "query" {
					t.Fatalf("query output is not plain ASCII (%q):\n%s", r, out)
				}
			}
			tc.check(t, out)
		})
	}
}

type restCapabilities struct {
	Capabilities []struct {
		Capability string   `json:"capability"`
		Path       string   `json:"path"`
		Latest     string   `json:"as_of_latest"`
		Available  []string `json:"as_of_available"`
		Answerable *bool    `json:"answerable"`
	} `json:"capabilities"`
}

type restSchema struct {
	Capability string `json:"capability"`
	Metrics    []struct {
		Name        string `json:"name"`
		Unit        string `json:"unit"`
		Aggregation string `json:"aggregation"`
		Additive    bool   `json:"additive_across_groups"`
	} `json:"metrics"`
	GroupBy []string `json:"group_by"`
}

// checkDescribe checks that every metric of the schema is printed with its unit,
// aggregation and additivity.
func checkDescribe(t *testing.T, out string, schema []byte) {
	t.Helper()
	s := decodeJSON[restSchema](t, schema)
	if !strings.HasPrefix(out, s.Capability+"  ") {
		t.Errorf("describe does not start with the capability:\n%s", out)
	}
	_, metrics, ok := strings.Cut(out, "\nmetrics:\n")
	if !ok {
		t.Fatalf("no metrics section:\n%s", out)
	}
	lines := strings.Split(metrics, "\n")
	if f := fields(lines[0]); strings.Join(f, "|") != "name|unit|aggregation|additive|description" {
		t.Errorf("metrics header %q", f)
	}
	for i, m := range s.Metrics {
		f := fields(lines[1+i])
		want := []string{m.Name, m.Unit, m.Aggregation, yesNo(m.Additive)}
		if len(f) < 4 || strings.Join(f[:4], "|") != strings.Join(want, "|") {
			t.Errorf("metric line %q, want %q", f, want)
		}
	}
	if !strings.Contains(out, "\ngroup_by:\n  "+strings.Join(s.GroupBy, ", ")+"\n") {
		t.Errorf("group_by dimensions not listed:\n%s", out)
	}
}

func TestClientServerDown(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	url := down.URL
	down.Close()
	for _, cmd := range []struct {
		name string
		args []string
	}{
		{"capabilities", nil},
		{"describe", []string{"power/capacity"}},
		{"query", []string{"power/capacity"}},
		{"verify", []string{`{"source_file":"a.xlsx"}`}},
	} {
		_, err := command(cmd.name, append(cmd.args, "--server", url), "")
		if err == nil {
			t.Fatalf("%s: no error with the server down", cmd.name)
		}
		for _, want := range []string{url, "make run", "citeq serve"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q does not mention %q", cmd.name, err, want)
			}
		}
	}
}

// TestQueryParams checks the params object the query flags build, on a server that records
// the body it receives.
func TestQueryParams(t *testing.T) {
	var got []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/power/capacity/query" {
			http.Error(w, `{"error":{"code":"unexpected","message":"`+r.Method+" "+r.URL.Path+`"}}`, 400)
			return
		}
		got, _ = io.ReadAll(r.Body)
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	cases := []struct {
		args []string
		want string
	}{
		{nil, `{}`},
		{[]string{"--filter", "state=TX"}, `{"filters":{"state":"TX"}}`},
		{[]string{"--filter", "state=TX", "--filter", "lifecycle=operating", "--filter", "state=CA"}, `{"filters":{"lifecycle":"operating","state":["TX","CA"]}}`},
		{[]string{"--filter", "technology=Solar Photovoltaic", "--filter", "eia_plant_id=3236"}, `{"filters":{"eia_plant_id":"3236","technology":"Solar Photovoltaic"}}`},
		{[]string{"--group-by", "state,lifecycle", "--group-by", "technology"}, `{"group_by":["state","lifecycle","technology"]}`},
		{[]string{"--group-by", "state", "--order-by", "generator_count", "--order", "asc", "--top", "3"}, `{"group_by":["state"],"order":"asc","order_by":"generator_count","top_n":3}`},
		{[]string{"--from", "operating=2015", "--to", "operating_date=2016-03", "--from", "retirement_date_from=2001-02-03"}, `{"operating_date_from":"2015","operating_date_to":"2016-03","retirement_date_from":"2001-02-03"}`},
		{[]string{"--as-of", "2016-05-31", "--records", "--limit", "7"}, `{"as_of":"2016-05-31","include_records":true,"limit":7}`},
		{[]string{"--top", "0"}, `{"top_n":0}`},
	}
	for _, tc := range cases {
		got = nil
		args := append([]string{"power/capacity", "--json", "--server", srv.URL}, tc.args...)
		out, err := command("query", args, "")
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if out != "{}" || string(got) != tc.want {
			t.Errorf("%q: posted %s, want %s", tc.args, got, tc.want)
		}
	}
	for _, bad := range [][]string{{"--filter", "=TX"}, {"--from", "operating"}, {"--to", "operating="}, {"--from", "operating=2015", "--from", "operating_date=2016"}} {
		if _, err := command("query", append([]string{"power/capacity", "--server", srv.URL}, bad...), ""); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseArgs(t *testing.T) {
	cases := []struct {
		args    []string
		pos     []string
		filters string
		json    bool
	}{
		{[]string{"power/capacity"}, []string{"power/capacity"}, "", false},
		{[]string{"power/capacity", "--json", "--filter", "a=1"}, []string{"power/capacity"}, "a=1", true},
		{[]string{"--filter", "a=1", "p", "--filter=b=2", "q"}, []string{"p", "q"}, "a=1 b=2", false},
		{[]string{"-json", "-", "--filter", "a=1"}, []string{"-"}, "a=1", true},
		{[]string{"--json", "--", "--filter", "x"}, []string{"--filter", "x"}, "", true},
		{nil, nil, "", false},
	}
	for _, tc := range cases {
		fs := newTestFlagSet()
		var filters listFlag
		fs.Var(&filters, "filter", "")
		asJSON := fs.Bool("json", false, "")
		pos, err := parseArgs(fs, tc.args)
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if strings.Join(pos, "|") != strings.Join(tc.pos, "|") || filters.String() != tc.filters || *asJSON != tc.json {
			t.Errorf("%q: positional %q, filters %q, json %v", tc.args, pos, filters.String(), *asJSON)
		}
	}
	fs := newTestFlagSet()
	if _, err := parseArgs(fs, []string{"p", "--nope"}); err == nil {
		t.Error("an unknown flag after the path is accepted")
	}
}

func newTestFlagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

func TestFormatNumber(t *testing.T) {
	cases := []struct{ in, want string }{
		{"0", "0"},
		{"7", "7"},
		{"999", "999"},
		{"1000", "1,000"},
		{"20187", "20,187"},
		{"1234567", "1,234,567"},
		{"-1234567", "-1,234,567"},
		{"1167975.9", "1,167,975.9"},
		{"4.13563846710051", "4.136"},
		{"2.0004", "2"},
		{"0.0004", "0"},
		{"-0.0004", "0"},
		{"-1234.5678", "-1,234.568"},
		{"999.9996", "1,000"},
		{"0.25", "0.25"},
		{"1e+21", "1,000,000,000,000,000,000,000"},
	}
	for _, tc := range cases {
		if got := formatNumber(tc.in); got != tc.want {
			t.Errorf("formatNumber(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for in, want := range map[string]string{"null": "null", "": "null", "12.5": "12.5", `"x"`: "x"} {
		if got := metricValue(json.RawMessage(in)); got != want {
			t.Errorf("metricValue(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestCitationBody(t *testing.T) {
	cit := `{"source_file":"f.xlsx","sheet":"S","source_row":3,"raw_file_sha256":"ab"}`
	cases := []struct{ in, want string }{
		{cit, cit},
		{`{"verify":` + cit + `,"source_rows_count":2}`, `{"verify":` + cit + `,"source_rows_count":2}`},
		{`{"c_0123456789abcdef":` + cit + `}`, cit},
		{`{"state":"RI","citation":` + cit + `}`, cit},
		{`not json`, `not json`},
	}
	for _, tc := range cases {
		if got := string(citationBody([]byte(tc.in))); got != tc.want {
			t.Errorf("citationBody(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
