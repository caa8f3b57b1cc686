package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/citeq/citeq/bench/synth"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/snapshots"
)

// The history scale-up (--history N) is one data directory serving N snapshots of the
// largest interconnection queue (synth.BuildHistory: the real rows, perturbed per snapshot,
// a day apart), measured twice:
//
//   - as a dataset like the others, in this process: its load is service.New over every
//     snapshot plus decoding the columns the questions read of the latest one, and the
//     question set is asked of the latest snapshot by both citeq paths and DuckDB, with the
//     tables under the memory budget's share;
//   - by a citeq serve process over the directory with --memory-budget (HistoryRun): the
//     time from its start to its first answer, its resident memory once it has warmed up,
//     then the whole question set asked of every snapshot, oldest first, over HTTP (each
//     snapshot's first questions decode its columns, evicting the snapshots asked longest
//     ago), each question's latency over all snapshots, and its resident memory after that
//     and at its peak, against the budget.

// HistoryRun is what the citeq serve process over a history did.
type HistoryRun struct {
	Snapshots       int    `json:"snapshots"`
	RowsPerSnapshot int    `json:"rows_per_snapshot"`
	FactsBytes      int64  `json:"facts_bytes"`
	BudgetBytes     int64  `json:"memory_budget_bytes"`
	TablesBudget    int64  `json:"tables_budget_bytes"`
	GoLimitBytes    int64  `json:"go_memory_limit_bytes"`
	Command         string `json:"command"`
	// StartSeconds is the time from starting the process to its first answer (a grouped,
	// cited answer of the latest snapshot, asked as soon as it listens); ListenSeconds to
	// the line saying it listens; WarmSeconds to the log line saying it has warmed up.
	StartSeconds  float64 `json:"start_seconds"`
	ListenSeconds float64 `json:"listen_seconds"`
	WarmSeconds   float64 `json:"warm_seconds"`
	// Resident memory (VmRSS, and its anonymous and file-backed parts) after the warm-up
	// and after a question to every snapshot; PeakRSS is VmHWM at the end.
	RSSAfterWarm  Resident `json:"rss_after_warm"`
	RSSAfterSweep Resident `json:"rss_after_sweep"`
	PeakRSSBytes  int64    `json:"peak_rss_bytes"`
	// WithinBudget says PeakRSSBytes is at most BudgetBytes.
	WithinBudget bool `json:"within_budget"`
	// The tables' memory as /metrics gives it after the warm-up and after the sweep, and
	// the columns, indexes and files decoded or opened and dropped over the whole run.
	TablesBytesAfterWarm  int64 `json:"tables_bytes_after_warm"`
	TablesBytesAfterSweep int64 `json:"tables_bytes_after_sweep"`
	Loads                 int64 `json:"loads"`
	Evictions             int64 `json:"evictions"`
	// The sweep: every question of the set asked of every snapshot, oldest first.
	SweepSeconds float64            `json:"sweep_seconds"`
	Requests     int                `json:"requests"`
	Questions    []HistoryQuestion  `json:"questions"`
	Generation   *synth.HistoryInfo `json:"generation,omitempty"`
}

// Resident is a process's resident memory.
type Resident struct {
	RSS  int64 `json:"rss_bytes"`
	Anon int64 `json:"anon_bytes"`
	File int64 `json:"file_bytes"`
}

// HistoryQuestion is one question's latency over every snapshot of the sweep, as the client
// measured it over loopback HTTP (the first ask of each snapshot's question: its columns
// were decoded by it or by a question before it in the set).
type HistoryQuestion struct {
	Name     string `json:"name"`
	MedianNs int64  `json:"median_ns"`
	P90Ns    int64  `json:"p90_ns"`
	MaxNs    int64  `json:"max_ns"`
	// VsDuckDB is MedianNs over DuckDB's median on the latest snapshot's Parquet file (read
	// at every run, as a snapshot not in memory is), set once DuckDB has run.
	VsDuckDB float64 `json:"vs_duckdb,omitempty"`
}

// historyDataset builds (or finds) the history of n snapshots of the latest snapshot of the
// served capability pick resolves to (a capability id, or a prefix with *, see
// resolveScaleCaps), asked the question set of that real snapshot.
func historyDataset(real []*Dataset, pick, dataDir, cache string, n int, seed uint64, budget int64) (*Dataset, error) {
	ids, _, err := resolveScaleCaps(pick, real)
	if err != nil {
		return nil, fmt.Errorf("--history-cap: %w", err)
	}
	if len(ids) != 1 {
		return nil, fmt.Errorf("--history-cap %s names %d capabilities, not one", pick, len(ids))
	}
	i := slices.IndexFunc(real, func(ds *Dataset) bool { return ds.Capability == ids[0] && !ds.Synthetic })
	src, err := synth.Read(&snapshots.Store{Dir: dataDir}, ids[0])
	if err != nil {
		return nil, err
	}
	start := time.Now()
	info, dir, err := synth.BuildHistory(cache, src, n, seed)
	if err != nil {
		return nil, err
	}
	cached := time.Since(start) < time.Duration(info.Seconds*float64(time.Second))/2
	fmt.Printf("history   %s: %d snapshots of %s rows (%s of Parquet, %s to %s) %s → %s\n", ids[0], info.Snapshots, commas(info.RowsPerSnapshot),
		fmtBytes(info.FactsBytes), info.FirstAsOf, info.LastAsOf, map[bool]string{true: "found", false: "generated in " + fmtDuration(secs(info.Seconds))}[cached], dir)
	return &Dataset{Name: fmt.Sprintf("history-%s-%d", ids[0], n), Dir: dir, Capability: ids[0], queries: real[i].queries,
		Rows: info.RowsPerSnapshot, Synthetic: true, Cached: cached, MemoryBudget: budget,
		History: &HistoryRun{Snapshots: info.Snapshots, RowsPerSnapshot: info.RowsPerSnapshot, FactsBytes: info.FactsBytes, Generation: info}}, nil
}

// buildCiteq builds the citeq binary into the cache.
func buildCiteq(goCmd, root, cache string) (string, error) {
	bin := filepath.Join(cache, "citeq")
	cmd := exec.Command(goCmd, "build", "-tags", "nomsgpack", "-o", bin, "./cmd/citeq")
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build citeq: %w", err)
	}
	return bin, nil
}

// measureHistoryServer runs citeq serve (bin) over the history of ds and fills ds.History.
func measureHistoryServer(bin string, ds *Dataset) error {
	h := ds.History
	plan := service.PlanMemory(ds.MemoryBudget)
	h.BudgetBytes, h.TablesBudget, h.GoLimitBytes = plan.Total, plan.Tables, plan.GoLimit
	keyFile := filepath.Join(ds.Dir, "operator.key")
	args := []string{"serve", "--data", ds.Dir, "--addr", "127.0.0.1:0", "--operator-key", keyFile, "--memory-budget", strconv.FormatInt(ds.MemoryBudget, 10)}
	h.Command = "citeq " + strings.Join(args, " ")
	cmd := exec.Command(bin, args...)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GOMEMLIMIT=") || strings.HasPrefix(kv, "GOGC=") })
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", h.Command, err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	listen := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if _, addr, ok := strings.Cut(sc.Text(), " at http://"); ok && strings.HasPrefix(sc.Text(), "serving ") {
				addr, _, _ = strings.Cut(addr, " ")
				listen <- addr
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	warmed := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			var line struct {
				Message string `json:"message"`
				Error   string `json:"error"`
			}
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				continue
			}
			switch {
			case line.Message == "snapshots warmed":
				warmed <- nil
			case strings.HasPrefix(line.Message, "warm:"):
				warmed <- fmt.Errorf("%s: %s", line.Message, line.Error)
			}
		}
	}()
	var addr string
	select {
	case addr = <-listen:
	case <-time.After(10 * time.Minute):
		return errors.New("citeq serve did not listen within 10 minutes")
	}
	h.ListenSeconds = time.Since(start).Seconds()
	key, err := os.ReadFile(keyFile)
	if err != nil {
		return err
	}
	client := &http.Client{Timeout: time.Minute}
	ask := func(path, body string) error {
		req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/v1/"+path+"/query", strings.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(key)))
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s %s: %s %s", path, body, resp.Status, b)
		}
		return nil
	}
	first := ds.queries[0]
	for _, q := range ds.queries {
		if strings.Contains(q.Body, "group_by") {
			first = q
			break
		}
	}
	if err := ask(first.Path, first.Body); err != nil {
		return fmt.Errorf("first answer: %w", err)
	}
	h.StartSeconds = time.Since(start).Seconds()
	select {
	case err := <-warmed:
		if err != nil {
			return err
		}
	case <-time.After(10 * time.Minute):
		return errors.New("citeq serve did not warm up within 10 minutes")
	}
	h.WarmSeconds = time.Since(start).Seconds()
	pid := cmd.Process.Pid
	h.RSSAfterWarm = resident(pid)
	h.TablesBytesAfterWarm, _, _ = tablesMetrics(client, addr)

	ms, err := (&snapshots.Store{Dir: ds.Dir}).PromotedManifests()
	if err != nil {
		return err
	}
	times := make([][]time.Duration, len(ds.queries))
	sweep := time.Now()
	for _, m := range ms { // as_of ascending
		for qi, q := range ds.queries {
			body, err := withAsOf(q.Body, m.AsOf)
			if err != nil {
				return err
			}
			t0 := time.Now()
			if err := ask(q.Path, body); err != nil {
				return err
			}
			times[qi] = append(times[qi], time.Since(t0))
			h.Requests++
		}
	}
	h.SweepSeconds = time.Since(sweep).Seconds()
	h.RSSAfterSweep = resident(pid)
	h.PeakRSSBytes = procKB(fmt.Sprintf("/proc/%d/status", pid), "VmHWM")
	h.WithinBudget = h.PeakRSSBytes > 0 && h.PeakRSSBytes <= h.BudgetBytes
	h.TablesBytesAfterSweep, h.Loads, h.Evictions = tablesMetrics(client, addr)
	for qi, q := range ds.queries {
		d := slices.Clone(times[qi])
		slices.Sort(d)
		h.Questions = append(h.Questions, HistoryQuestion{Name: q.Name, MedianNs: d[len(d)/2].Nanoseconds(),
			P90Ns: d[len(d)*9/10].Nanoseconds(), MaxNs: d[len(d)-1].Nanoseconds()})
	}
	fmt.Printf("history   %s: first answer %s after start, warm %s; RSS after warm-up %s, after a question to every snapshot %s, peak %s (budget %s, %s)\n",
		ds.Name, fmtDuration(secs(h.StartSeconds)), fmtDuration(secs(h.WarmSeconds)), fmtBytes(h.RSSAfterWarm.RSS), fmtBytes(h.RSSAfterSweep.RSS),
		fmtBytes(h.PeakRSSBytes), fmtBytes(h.BudgetBytes), map[bool]string{true: "within", false: "OVER"}[h.WithinBudget])
	for _, q := range h.Questions {
		fmt.Printf("history   %s %-50s median %s  p90 %s  max %s over %d snapshots\n", ds.Name, q.Name, fmtDuration(time.Duration(q.MedianNs)),
			fmtDuration(time.Duration(q.P90Ns)), fmtDuration(time.Duration(q.MaxNs)), len(ms))
	}
	return nil
}

// withAsOf is the JSON params body with as_of set.
func withAsOf(body, asOf string) (string, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		return "", fmt.Errorf("params %s: %w", body, err)
	}
	m["as_of"] = asOf
	b, err := json.Marshal(m)
	return string(b), err
}

// resident is process pid's resident memory.
func resident(pid int) Resident {
	status := fmt.Sprintf("/proc/%d/status", pid)
	return Resident{RSS: procKB(status, "VmRSS"), Anon: procKB(status, "RssAnon"), File: procKB(status, "RssFile")}
}

// tablesMetrics reads the tables' memory, loads and evictions from the server's /metrics.
func tablesMetrics(client *http.Client, addr string) (held, loads, evictions int64) {
	resp, err := client.Get("http://" + addr + "/metrics")
	if err != nil {
		return 0, 0, 0
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	for sc.Scan() {
		name, v, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			continue
		}
		switch name {
		case "citeq_tables_memory_bytes":
			held = int64(x)
		case "citeq_tables_loads_total":
			loads = int64(x)
		case "citeq_tables_evictions_total":
			evictions = int64(x)
		}
	}
	return held, loads, evictions
}

// historyRatios sets each history question's ratio to DuckDB's median over the latest
// snapshot's Parquet file.
func (rep *Report) historyRatios() {
	for _, ds := range rep.Datasets {
		if ds.History == nil {
			continue
		}
		for i := range ds.History.Questions {
			q := &ds.History.Questions[i]
			for _, r := range rep.Results {
				if r.Dataset == ds.Name && r.Query == q.Name && r.System == "duckdb" && r.MedianNs > 0 {
					q.VsDuckDB = float64(q.MedianNs) / float64(r.MedianNs)
				}
			}
		}
	}
}

// printHistory prints the history runs.
func (rep *Report) printHistory(w io.Writer) {
	for _, ds := range rep.Datasets {
		h := ds.History
		if h == nil || h.Requests == 0 {
			continue
		}
		var b bytes.Buffer
		fmt.Fprintf(&b, "\n%s: %d snapshots × %s rows (%s of Parquet) served by one process, %s\n", ds.Name, h.Snapshots, commas(h.RowsPerSnapshot),
			fmtBytes(h.FactsBytes), h.Command)
		fmt.Fprintf(&b, "  start to first answer %s; warmed up at %s; RSS after warm-up %s (anon %s, file %s); after %d questions to every snapshot %s (anon %s, file %s); peak %s; budget %s: %s\n",
			fmtDuration(secs(h.StartSeconds)), fmtDuration(secs(h.WarmSeconds)), fmtBytes(h.RSSAfterWarm.RSS), fmtBytes(h.RSSAfterWarm.Anon), fmtBytes(h.RSSAfterWarm.File),
			len(h.Questions), fmtBytes(h.RSSAfterSweep.RSS), fmtBytes(h.RSSAfterSweep.Anon), fmtBytes(h.RSSAfterSweep.File), fmtBytes(h.PeakRSSBytes), fmtBytes(h.BudgetBytes),
			map[bool]string{true: "within", false: "OVER"}[h.WithinBudget])
		fmt.Fprintf(&b, "  tables %s after warm-up, %s after the sweep (of %s); %d loads, %d evictions; sweep %s for %d requests\n",
			fmtBytes(h.TablesBytesAfterWarm), fmtBytes(h.TablesBytesAfterSweep), fmtBytes(h.TablesBudget), h.Loads, h.Evictions, fmtDuration(secs(h.SweepSeconds)), h.Requests)
		for _, q := range h.Questions {
			ratio := "-"
			if q.VsDuckDB > 0 {
				ratio = fmt.Sprintf("%.2fx", q.VsDuckDB)
			}
			fmt.Fprintf(&b, "  %-50s median %-9s p90 %-9s max %-9s vs DuckDB Parquet %s\n", q.Name, fmtDuration(time.Duration(q.MedianNs)),
				fmtDuration(time.Duration(q.P90Ns)), fmtDuration(time.Duration(q.MaxNs)), ratio)
		}
		w.Write(b.Bytes())
	}
}
