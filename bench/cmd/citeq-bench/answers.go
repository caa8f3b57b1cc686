package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/citeq/citeq/api"
	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
	"github.com/citeq/citeq/internal/bytesize"
	"github.com/citeq/citeq/service"
)

// The answers dump is what a change to the engine, the loading or the rendering must leave
// byte for byte as it was: for every capability a data directory serves and every snapshot
// of it, the service's answer to
//
//   - total: {} (every metric over every row);
//   - records: include_records with limit 100;
//   - by_<k>: group_by each dimension;
//   - by_<k1>_<k2>: group_by each pair of dimensions, in definition order;
//   - top3_<k>: each dimension ranked by the first metric that aggregates values (else the
//     first metric), top_n 3, the rest folded into (other);
//
//   - compare_<other>_total, _records, _by_<k>: for a capability that answers
//     compare_as_of, the total, the records and each dimension compared with every other
//     served snapshot;
//   - evidence_agg_<question>, evidence_row_<question>: for every answer above, the aggregate
//     evidence of its first citation (by the metric top3 ranks by) and the source-row
//     evidence of that citation's verify member;
//
// plus the capabilities document, the OpenAPI document, each capability's schema, each
// snapshot's schema and snapshot document, what REST and MCP put around the answers (the MCP
// handshake, tool list, describe and query tool results, and the error bodies of bad
// requests over both: answers_protocol.go), and a digest of every file of every snapshot
// the data directory holds (facts.parquet, manifest.json, codebooks.json; served or not).
// Each answer is one line: its SHA-256, its length, the HTTP status (200, or the refusal's),
// the capability, the as_of, the question's name and its params, so two dumps compare line
// by line and a difference names the question to ask again.

// dumpLine is one answer of the dump.
type dumpLine struct {
	SHA    string
	Bytes  int
	Status int
	Key    string // capability, as_of and name, tab-separated
	Params string
}

func (l dumpLine) String() string {
	return fmt.Sprintf("%s\t%d\t%d\t%s\t%s", l.SHA, l.Bytes, l.Status, l.Key, l.Params)
}

// runAnswers is `citeq-bench answers`.
func runAnswers(args []string) error {
	fs := flag.NewFlagSet("citeq-bench answers", flag.ContinueOnError)
	raw := fs.String("raw", defaultRaw(), "directory holding the agencies' source files ($CITEQ_RAW), ingested into --data when its catalog promotes nothing")
	data := fs.String("data", "", "data directory whose served snapshots are asked (required)")
	out := fs.String("out", "", "write the dump here (default: standard output)")
	against := fs.String("against", "", "compare with this earlier dump: print every answer that differs, is new or is gone, and fail when one does")
	bodies := fs.String("bodies", "", "also write each answer's body into this directory, named by its SHA-256 (to look at a difference)")
	var budget bytesize.Size
	fs.Var(&budget, "tables-budget", "bound the tables' decoded columns to this many bytes (k, M, G suffixes, powers of 1024: 1M), so answers are also computed from columns dropped and decoded again (default 0: no bound)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *data == "" || fs.NArg() > 0 {
		return errors.New("usage: citeq-bench answers --data DIR [--raw DIR] [--out FILE] [--against FILE] [--bodies DIR]")
	}
	if err := ensureIngested(*raw, *data); err != nil {
		return err
	}
	columnar.SetMemoryBudget(int64(budget))
	svc, err := service.New(*data)
	if err != nil {
		return err
	}
	// Nothing is answered from a cache: every line is computed.
	svc.SetCacheBytes(0)
	if *bodies != "" {
		if err := os.MkdirAll(*bodies, 0o755); err != nil {
			return err
		}
	}
	var lines []dumpLine
	err = dumpAnswers(svc, *data, func(key, params string, status int, body []byte) error {
		sum := sha256.Sum256(body)
		l := dumpLine{SHA: hex.EncodeToString(sum[:]), Bytes: len(body), Status: status, Key: key, Params: params}
		lines = append(lines, l)
		if *bodies != "" {
			return os.WriteFile(filepath.Join(*bodies, l.SHA+".json"), body, 0o644)
		}
		return nil
	})
	if err != nil {
		return err
	}
	w := io.Writer(os.Stdout)
	if *out != "" {
		if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
			return err
		}
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriter(w)
	for _, l := range lines {
		fmt.Fprintln(bw, l)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	mem := columnar.Memory()
	fmt.Fprintf(os.Stderr, "answers   %d answers of %s (tables: %d decodings, %d evictions, %s held at the end)\n",
		len(lines), *data, mem.Loads, mem.Evictions, fmtBytes(mem.Used))
	if *against == "" {
		return nil
	}
	old, err := readDump(*against)
	if err != nil {
		return err
	}
	diffs := compareDumps(old, lines)
	for _, d := range diffs {
		fmt.Fprintln(os.Stderr, d)
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%d of %d answers differ from %s", len(diffs), len(lines), *against)
	}
	fmt.Fprintf(os.Stderr, "answers   all %d byte for byte as in %s\n", len(lines), *against)
	return nil
}

// dumpAnswers asks svc every question of the dump, in a fixed order, and hands each answer
// to emit with its key (capability, as_of and name), params and status; then the files of
// every snapshot under dataDir.
func dumpAnswers(svc *service.Service, dataDir string, emit func(key, params string, status int, body []byte) error) error {
	var doc struct {
		Capabilities []struct {
			ID    string   `json:"capability"`
			Path  string   `json:"path"`
			Dates []string `json:"as_of_available"`
		} `json:"capabilities"`
	}
	capsDoc := svc.Capabilities()
	if err := json.Unmarshal(capsDoc, &doc); err != nil {
		return fmt.Errorf("read the capabilities document: %w", err)
	}
	if err := emit("-\t-\tcapabilities", "", 200, capsDoc); err != nil {
		return err
	}
	if err := emit("-\t-\topenapi", "", 200, api.OpenAPI(svc)); err != nil {
		return err
	}
	var ids []string
	for _, e := range doc.Capabilities {
		ids = append(ids, e.ID)
	}
	caps, err := servedCaps(ids)
	if err != nil {
		return err
	}
	for i, e := range doc.Capabilities {
		c := caps[i]
		body, qe := svc.Schema(c.Path)
		if err := emitAnswer(emit, c.ID+"\t-\tschema", "", body, qe); err != nil {
			return err
		}
		for _, asOf := range e.Dates {
			key := c.ID + "\t" + asOf + "\t"
			body, qe := svc.SchemaAt(c.ID, asOf)
			if err := emitAnswer(emit, key+"schema_at", "", body, qe); err != nil {
				return err
			}
			body, qe = svc.SnapshotDoc(c.ID, asOf)
			if err := emitAnswer(emit, key+"snapshot", "", body, qe); err != nil {
				return err
			}
			qs := dumpQuestions(c, asOf)
			if capability.Compares(c) {
				qs = append(qs, compareQuestions(c, asOf, e.Dates)...)
			}
			ev := evidenceMemo{}
			for _, q := range qs {
				body, qe := svc.QueryJSON(context.Background(), c.Path, []byte(q.params))
				if err := emitAnswer(emit, key+q.name, q.params, body, qe); err != nil {
					return err
				}
				if qe != nil {
					continue
				}
				if err := ev.emit(svc, c, key, q, body, emit); err != nil {
					return err
				}
			}
		}
	}
	if err := dumpProtocol(svc, caps, emit); err != nil {
		return err
	}
	return dumpSnapshotFiles(dataDir, emit)
}

// evidenceMemo keeps the evidence answers of one snapshot by request, so that a citation
// many answers share is verified once.
type evidenceMemo map[string]evidenceAnswer

type evidenceAnswer struct {
	status int
	body   []byte
}

func (m evidenceMemo) ask(req string, ask func(context.Context, []byte) ([]byte, *apierror.Error)) evidenceAnswer {
	if a, ok := m[req]; ok {
		return a
	}
	body, qe := ask(context.Background(), []byte(req))
	a := evidenceAnswer{200, body}
	if qe != nil {
		a = evidenceAnswer{qe.Status, qe.Body()}
	}
	m[req] = a
	return a
}

// emit verifies the first citation of answer (by the metric the top-3 questions rank by) and
// its verify member, and emits both answers.
func (m evidenceMemo) emit(svc *service.Service, c *capability.Capability, key string, q dumpQuestion, answer []byte, emit func(string, string, int, []byte) error) error {
	var doc struct {
		Citations map[string]json.RawMessage `json:"citations"`
	}
	if err := json.Unmarshal(answer, &doc); err != nil {
		return fmt.Errorf("%s%s: read the answer's citations: %w", key, q.name, err)
	}
	if len(doc.Citations) == 0 {
		return nil
	}
	// Citation ids are c_ and 16 hex digits, written in ascending order: the least is first.
	first := slices.Sorted(maps.Keys(doc.Citations))[0]
	cit := doc.Citations[first]
	req, err := json.Marshal(struct {
		Capability string          `json:"capability"`
		Metric     string          `json:"metric"`
		Citation   json.RawMessage `json:"citation"`
	}{c.ID, rankMetric(c).Name, cit})
	if err != nil {
		return err
	}
	a := m.ask(string(req), svc.AggregateEvidence)
	if err := emit(key+"evidence_agg_"+q.name, q.params, a.status, a.body); err != nil {
		return err
	}
	var v struct {
		Verify json.RawMessage `json:"verify"`
	}
	if err := json.Unmarshal(cit, &v); err != nil {
		return fmt.Errorf("%s%s: read the first citation: %w", key, q.name, err)
	}
	if len(v.Verify) == 0 {
		return nil
	}
	a = m.ask(string(v.Verify), svc.Evidence)
	return emit(key+"evidence_row_"+q.name, q.params, a.status, a.body)
}

// dumpSnapshotFiles emits the SHA-256 of every file of every snapshot directory under
// dataDir (snapshots/<capability>/<as_of>/<fingerprint>/<file>), served or not, in path
// order: the facts and manifests a change to ingest must leave as they were.
func dumpSnapshotFiles(dataDir string, emit func(string, string, int, []byte) error) error {
	paths, err := filepath.Glob(filepath.Join(dataDir, "snapshots", "*", "*", "*", "*"))
	if err != nil {
		return err
	}
	sort.Strings(paths)
	for _, p := range paths {
		rel, err := filepath.Rel(filepath.Join(dataDir, "snapshots"), p)
		if err != nil {
			return err
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if strings.HasPrefix(parts[2], ".") {
			continue // a build that never finished
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("snapshot file: %w", err)
		}
		if err := emit(parts[0]+"\t"+parts[1]+"\tfile "+parts[2]+"/"+parts[3], "", 200, b); err != nil {
			return err
		}
	}
	return nil
}

func emitAnswer(emit func(string, string, int, []byte) error, key, params string, body []byte, qe *apierror.Error) error {
	if qe != nil {
		return emit(key, params, qe.Status, qe.Body())
	}
	return emit(key, params, 200, body)
}

type dumpQuestion struct{ name, params string }

// dumpQuestions are the questions of the dump for capability c's snapshot asOf.
func dumpQuestions(c *capability.Capability, asOf string) []dumpQuestion {
	type params struct {
		AsOf           string   `json:"as_of"`
		GroupBy        []string `json:"group_by,omitempty"`
		OrderBy        string   `json:"order_by,omitempty"`
		TopN           int      `json:"top_n,omitempty"`
		IncludeRecords bool     `json:"include_records,omitempty"`
		Limit          int      `json:"limit,omitempty"`
	}
	q := func(name string, p params) dumpQuestion {
		p.AsOf = asOf
		b, err := json.Marshal(p)
		if err != nil {
			panic(err) // strings and ints always marshal
		}
		return dumpQuestion{name, string(b)}
	}
	out := []dumpQuestion{q("total", params{}), q("records", params{IncludeRecords: true, Limit: recordsLimit})}
	dims := c.GroupByNames()
	for _, k := range dims {
		out = append(out, q("by_"+k, params{GroupBy: []string{k}}))
	}
	for i, k1 := range dims {
		for _, k2 := range dims[i+1:] {
			out = append(out, q("by_"+k1+"_"+k2, params{GroupBy: []string{k1, k2}}))
		}
	}
	order := rankMetric(c)
	for _, k := range dims {
		out = append(out, q("top3_"+k, params{GroupBy: []string{k}, OrderBy: order.Name, TopN: 3}))
	}
	return out
}

// rankMetric is the metric the top-3 questions rank by: the first that aggregates values,
// else the first.
func rankMetric(c *capability.Capability) capability.Metric {
	if i := slices.IndexFunc(c.Metrics, valueMetric); i >= 0 {
		return c.Metrics[i]
	}
	return c.Metrics[0]
}

// compareQuestions are the questions of the dump that compare capability c's snapshot asOf
// with each other served snapshot of dates: the total, the records and each dimension.
func compareQuestions(c *capability.Capability, asOf string, dates []string) []dumpQuestion {
	type params struct {
		AsOf           string   `json:"as_of"`
		CompareAsOf    string   `json:"compare_as_of"`
		GroupBy        []string `json:"group_by,omitempty"`
		IncludeRecords bool     `json:"include_records,omitempty"`
		Limit          int      `json:"limit,omitempty"`
	}
	var out []dumpQuestion
	for _, other := range dates {
		if other == asOf {
			continue
		}
		q := func(name string, p params) {
			p.AsOf, p.CompareAsOf = asOf, other
			b, err := json.Marshal(p)
			if err != nil {
				panic(err) // strings and ints always marshal
			}
			out = append(out, dumpQuestion{"compare_" + other + "_" + name, string(b)})
		}
		q("total", params{})
		q("records", params{IncludeRecords: true, Limit: recordsLimit})
		for _, k := range c.GroupByNames() {
			q("by_"+k, params{GroupBy: []string{k}})
		}
	}
	return out
}

// readDump reads a dump written by runAnswers.
func readDump(path string) ([]dumpLine, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []dumpLine
	for i, s := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		f := strings.SplitN(s, "\t", 7)
		if len(f) != 7 {
			return nil, fmt.Errorf("%s:%d: not a line of an answers dump", path, i+1)
		}
		var l dumpLine
		if _, err := fmt.Sscan(f[1]+" "+f[2], &l.Bytes, &l.Status); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		l.SHA, l.Key, l.Params = f[0], strings.Join(f[3:6], "\t"), f[6]
		out = append(out, l)
	}
	return out, nil
}

// compareDumps lists the answers of now that differ from old's, are not in old, or are in
// old alone, in now's order (then old's).
func compareDumps(old, now []dumpLine) []string {
	byKey := map[string]dumpLine{}
	for _, l := range old {
		byKey[l.Key+"\t"+l.Params] = l
	}
	var out []string
	for _, l := range now {
		k := l.Key + "\t" + l.Params
		o, ok := byKey[k]
		delete(byKey, k)
		switch {
		case !ok:
			out = append(out, "new      "+l.String())
		case o.SHA != l.SHA || o.Status != l.Status:
			out = append(out, fmt.Sprintf("differs  %s (was %s, %d bytes, status %d)", l, o.SHA[:16], o.Bytes, o.Status))
		}
	}
	for _, l := range old {
		if _, ok := byKey[l.Key+"\t"+l.Params]; ok {
			out = append(out, "gone     "+l.String())
		}
	}
	return out
}
