package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/citeq/citeq/api"
	"github.com/citeq/citeq/bench/synth"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/snapshots"
)

// runAggregateEvidence measures the aggregate evidence under load, over HTTP against the
// service in this process: parallel verifications of one metric over the whole of a
// scale-up's citation (peak RSS growth, answers, refusals over capacity, latency), and
// (other) citations with many excluded groups (time to answer or refuse).
//
//	citeq-bench aggregate-evidence [--raw DIR] [--data DIR] [--capability ID] [--metric M]
//	            [--rows N] [--parallel N] [--in-flight N,N] [--excludes N] [--seed S] [--cache DIR]
func runAggregateEvidence(args []string) error {
	root := repoRoot()
	fs := flag.NewFlagSet("citeq-bench aggregate-evidence", flag.ContinueOnError)
	raw := fs.String("raw", defaultRaw(), "directory holding the agencies' source files ($CITEQ_RAW)")
	data := fs.String("data", "", "data directory of the real snapshots: reused when its catalog promotes a snapshot, else ingested into (default: a temporary directory)")
	capID := fs.String("capability", "power.price_ercot", "the capability whose latest snapshot is scaled up")
	metric := fs.String("metric", "median_price", "the metric verified")
	rowsFlag := fs.String("rows", "3M", "row count of the scale-up (k and M suffixes allowed)")
	parallel := fs.Int("parallel", 20, "verifications sent at once")
	inFlight := fs.String("in-flight", strconv.Itoa(service.DefaultAggregateInFlight)+",20", "the service's cap on verifications in flight, one round each (comma separated)")
	excludes := fs.Int("excludes", 30000, "excluded groups of the (other) citations posted")
	seed := fs.Uint64("seed", 1, "seed of the scale-up generator")
	cache := fs.String("cache", filepath.Join(root, "bench", ".cache"), "directory caching the generated scale-ups")
	if err := fs.Parse(args); err != nil {
		return err
	}
	n, err := parseCount(*rowsFlag)
	if err != nil {
		return err
	}
	var caps []int
	for _, s := range bytes.Split([]byte(*inFlight), []byte(",")) {
		k, err := strconv.Atoi(string(bytes.TrimSpace(s)))
		if err != nil || k < 1 {
			return fmt.Errorf("--in-flight takes positive integers, not %q", s)
		}
		caps = append(caps, k)
	}
	dataDir, cleanup, err := ingestedData(*raw, *data)
	if err != nil {
		return err
	}
	defer cleanup()
	src, err := synth.Read(&snapshots.Store{Dir: dataDir}, *capID)
	if err != nil {
		return err
	}
	ds, err := ensureScale(src, dataDir, *cache, n, *seed)
	if err != nil {
		return err
	}
	src = nil
	runtime.GC()
	debug.FreeOSMemory()

	svc, err := service.New(ds.Dir)
	if err != nil {
		return err
	}
	c := capability.ByID(*capID)
	if _, ok := c.Metric(*metric); !ok {
		return fmt.Errorf("%s has no metric %s", c.ID, *metric)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: api.New(svc, zerolog.Nop()), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *parallel}, Timeout: 30 * time.Minute}
	post := func(path string, body []byte) (int, []byte, http.Header, time.Duration, error) {
		start := time.Now()
		resp, err := client.Post(base+path, "application/json", bytes.NewReader(body))
		if err != nil {
			return 0, nil, nil, 0, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, resp.Header, time.Since(start), err
	}

	// The citation of every row of the scale-up (one source file: the real one, replicated).
	st, body, _, took, err := post("/v1/"+c.Path+"/query", []byte(`{}`))
	if err != nil || st != 200 {
		return fmt.Errorf("query %s: %d %v %.300s", c.Path, st, err, body)
	}
	fmt.Printf("evidence  %s: %d rows, the unfiltered query in %s\n", ds.Name, n, fmtDuration(took))
	var whole struct {
		Summary struct {
			Refs []string `json:"citation_refs"`
		} `json:"summary"`
		Citations map[string]json.RawMessage `json:"citations"`
	}
	if err := json.Unmarshal(body, &whole); err != nil {
		return err
	}
	biggest, most := json.RawMessage(nil), int64(-1)
	for _, ref := range whole.Summary.Refs {
		var h struct {
			Rows int64 `json:"source_rows_count"`
		}
		json.Unmarshal(whole.Citations[ref], &h)
		if h.Rows > most {
			biggest, most = whole.Citations[ref], h.Rows
		}
	}
	verify, _ := json.Marshal(map[string]any{"capability": c.ID, "metric": *metric, "citation": biggest})

	// Warm: the first verification parses the raw workbook (kept) and decodes the columns.
	st, body, _, took, err = post(service.AggregateEvidencePath, verify)
	if err != nil || st != 200 {
		return fmt.Errorf("warm-up verification: %d %v %.300s", st, err, body)
	}
	var v struct {
		Rows       int64    `json:"rows"`
		CellsRead  int64    `json:"cells_read"`
		Recomputed *float64 `json:"recomputed"`
		Served     *float64 `json:"served"`
		Equal      bool     `json:"equal"`
	}
	json.Unmarshal(body, &v)
	fmt.Printf("evidence  one %s verification of %d cited rows (%d cells read) in %s (first: parses the workbook); recomputed %v, served %v, equal %v\n",
		*metric, v.Rows, v.CellsRead, fmtDuration(took), deref(v.Recomputed), deref(v.Served), v.Equal)
	st, _, _, took, err = post(service.AggregateEvidencePath, verify)
	if err != nil || st != 200 {
		return fmt.Errorf("second verification: %d %v", st, err)
	}
	fmt.Printf("evidence  one verification, warm: %s\n", fmtDuration(took))

	for _, k := range caps {
		svc.SetAggregateInFlight(k)
		runtime.GC()
		debug.FreeOSMemory()
		base := rss()
		if !resetPeakRSS() {
			return errors.New("cannot reset the peak RSS (/proc/self/clear_refs): the growth would not be this round's")
		}
		type outcome struct {
			attempts int
			took     time.Duration
			err      error
		}
		out := make([]outcome, *parallel)
		var ready, done sync.WaitGroup
		gate := make(chan struct{})
		for i := range out {
			ready.Add(1)
			done.Add(1)
			go func(i int) {
				defer done.Done()
				ready.Done()
				<-gate
				t0 := time.Now()
				for {
					out[i].attempts++
					st, b, h, _, err := post(service.AggregateEvidencePath, verify)
					switch {
					case err != nil:
						out[i].err = err
					case st == 503:
						wait, _ := strconv.Atoi(h.Get("Retry-After"))
						time.Sleep(time.Duration(max(wait, 1)) * time.Second)
						continue
					case st != 200:
						out[i].err = fmt.Errorf("%d %.200s", st, b)
					}
					break
				}
				out[i].took = time.Since(t0)
			}(i)
		}
		ready.Wait()
		start := time.Now()
		close(gate)
		done.Wait()
		wall := time.Since(start)
		peak := peakRSS()
		first, refused := 0, 0
		var lat []time.Duration
		for _, o := range out {
			if o.err != nil {
				return fmt.Errorf("in flight %d: %w", k, o.err)
			}
			if o.attempts == 1 {
				first++
			} else {
				refused += o.attempts - 1
			}
			lat = append(lat, o.took)
		}
		slices.Sort(lat)
		_, admitted, over, _ := svc.AggregateEvidenceStats()
		fmt.Printf("evidence  %d parallel %s verifications of %d rows, at most %d in flight: all %d answered in %s (%d on the first attempt, %d refusals over capacity retried after Retry-After); latency median %s, max %s; RSS %s before, peak %s: growth %s (%d admitted, %d refused in all so far)\n",
			*parallel, *metric, v.Rows, k, *parallel, fmtDuration(wall), first, refused, fmtDuration(lat[len(lat)/2]), fmtDuration(lat[len(lat)-1]),
			fmtBytes(base), fmtBytes(peak), fmtBytes(peak-base), admitted, over)
	}
	svc.SetAggregateInFlight(service.DefaultAggregateInFlight)

	// (other) citations with many excluded groups.
	return excludesRounds(c, svc, base, *excludes, post)
}

// excludesRounds posts (other) citations with k excluded groups and says how long each
// takes to be answered or refused: over REST, bodies a client may send (under 1 MiB) that
// list the real groups over and over, or values the snapshot lacks; through the service
// layer (the body is over the REST limit), k distinct groups of six dimensions whose every
// value exists, most of them held by no row (refused only after every row is read); and over
// REST, every group of four dimensions that holds rows but one (answered).
func excludesRounds(c *capability.Capability, svc *service.Service, base string, k int, post func(string, []byte) (int, []byte, http.Header, time.Duration, error)) error {
	dims := []string{"settlement_point", "month", "day_of_week", "hour_of_day", "utc_offset", "time_block"}
	for _, d := range dims {
		if f, ok := c.Field(d); !ok || !f.GroupBy {
			return fmt.Errorf("the excludes rounds group %s by %v, which it lacks", c.ID, dims)
		}
	}
	type answer struct {
		AsOf    string `json:"as_of"`
		Summary struct {
			GroupCount int `json:"group_count"`
		} `json:"summary"`
		Rows []struct {
			Group   map[string]any `json:"group"`
			Lineage struct {
				Ref string `json:"citation_ref"`
			} `json:"lineage"`
		} `json:"rows"`
		Citations map[string]json.RawMessage `json:"citations"`
	}
	query := func(q string) (*answer, error) {
		st, body, _, _, err := post("/v1/"+c.Path+"/query", []byte(q))
		if err != nil || st != 200 {
			return nil, fmt.Errorf("query %s: %d %v %.200s", q, st, err, body)
		}
		var a answer
		return &a, json.Unmarshal(body, &a)
	}
	top, err := query(`{"group_by":["settlement_point"],"order_by":"median_price","top_n":1}`)
	if err != nil {
		return err
	}
	other := top.Rows[len(top.Rows)-1]
	var cite map[string]any
	json.Unmarshal(top.Citations[other.Lineage.Ref], &cite)
	lf := cite["lineage_filter"].(map[string]any)
	values := map[string][]any{}
	for _, d := range dims {
		a, err := query(`{"group_by":["` + d + `"]}`)
		if err != nil {
			return err
		}
		for _, r := range a.Rows {
			values[d] = append(values[d], r.Group[d])
		}
	}
	report := func(name string, n, size int, st int, code string, took time.Duration) {
		verdict := fmt.Sprintf("answered %d", st)
		if code != "" {
			verdict += " " + code
		}
		fmt.Printf("evidence  (other) with %d excluded groups, %s: %s body, %s in %s\n", n, name, fmtBytes(int64(size)), verdict, fmtDuration(took))
	}
	rest := func(name string, ex []any) error {
		lf["excludes"] = ex
		b, _ := json.Marshal(map[string]any{"capability": c.ID, "metric": "median_price", "citation": cite})
		st, out, _, took, err := post(service.AggregateEvidencePath, b)
		if err != nil {
			return err
		}
		var e struct {
			Error struct{ Code string } `json:"error"`
		}
		json.Unmarshal(out, &e)
		report(name+", over REST", len(ex), len(b), st, e.Error.Code, took)
		return nil
	}
	var repeated []any
	for len(repeated) < k {
		for _, p := range values["settlement_point"] {
			repeated = append(repeated, map[string]any{"settlement_point": p})
		}
	}
	if err := rest("the real groups repeated", repeated[:k]); err != nil {
		return err
	}
	var absent []any
	for i := range k {
		absent = append(absent, map[string]any{"settlement_point": fmt.Sprintf("X%05d", i)})
	}
	if err := rest("values the snapshot lacks", absent); err != nil {
		return err
	}
	// Through the service layer: the body is over the REST limit.
	direct := func(name string, body map[string]any) {
		b, _ := json.Marshal(body)
		start := time.Now()
		out, e := svc.AggregateEvidence(context.Background(), b)
		took := time.Since(start)
		st, code := 200, ""
		if e != nil {
			st, code = e.Status, e.Code
		} else {
			var v struct {
				Rows int64 `json:"rows"`
			}
			json.Unmarshal(out, &v)
			code = fmt.Sprintf("(%d rows left cited)", v.Rows)
		}
		n := len(lf["excludes"].([]any))
		report(name+", through the service layer", n, len(b), st, code, took)
	}
	// k distinct groups of six dimensions, every value held, most combinations held by no row.
	var combos []any
	var walk func(i int, g map[string]any)
	walk = func(i int, g map[string]any) {
		if len(combos) == k {
			return
		}
		if i == len(dims) {
			cp := map[string]any{}
			for kk, v := range g {
				cp[kk] = v
			}
			combos = append(combos, cp)
			return
		}
		for _, v := range values[dims[i]] {
			g[dims[i]] = v
			walk(i+1, g)
		}
	}
	walk(0, map[string]any{})
	lf["excludes"] = combos
	direct(fmt.Sprintf("distinct, of %d dimensions, every value held, most held by no row", len(dims)),
		map[string]any{"capability": c.ID, "metric": "median_price", "citation": cite})
	// Every group of four dimensions that holds rows, but one: answered.
	four, err := query(`{"group_by":["settlement_point","month","day_of_week","hour_of_day"],"limit":1}`)
	if err != nil {
		return err
	}
	var held []any
	for _, r := range four.Rows[1:] {
		held = append(held, r.Group)
	}
	lf["excludes"] = held
	direct("every group of (settlement_point, month, day_of_week, hour_of_day) that holds rows but one",
		map[string]any{"capability": c.ID, "metric": "median_price", "lineage_filter": lf, "as_of": top.AsOf})
	return nil
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}
