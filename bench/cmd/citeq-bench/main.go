// Command citeq-bench measures how the service answers questions over the latest snapshot of
// every capability a data directory serves, and over deterministic synthetic scale-ups of a
// few of them: every snapshot is asked the question set generated from its capability's
// definition, by the service, by the engine alone and by DuckDB over the same Parquet file,
// the answers checked against each other before any time is reported: load time, median
// query time, ns per row and how it grows with rows, and memory. It prints a table and writes
// bench/results/latest.json.
//
//	citeq-bench [--raw DIR] [--data DIR] [--runs N] [--warmup N] [--scales N,N]
//	            [--scale-caps ID,PREFIX*] [--seed S] [--cache DIR] [--out FILE]
//	citeq-bench synth --data DIR --capability ID --rows N [--seed S] [--cache DIR] [--workers W]
//	citeq-bench duckdb-job --data DIR --capability ID [--parquet FILE] [--table] [--runs N] [--duckdb-… ]
//	citeq-bench aggregate-evidence [--data DIR] [--capability ID] [--metric M] [--rows N] [--parallel N] [--in-flight N,N] [--excludes N]
//	citeq-bench answers --data DIR [--raw DIR] [--out FILE] [--against FILE] [--bodies DIR]
//
// The second form only generates (or finds) one scale-up; the first runs it in a child
// process for every missing scale, so the generator's memory never counts against the
// measurements. The third prints the job the benchmark gives bench/duckdb for one
// capability's question set, to run DuckDB's side alone (citeq-bench duckdb-job … |
// bench/.cache/duckdb-bench). The fourth measures the aggregate evidence under load
// (aggregate.go). The fifth writes the answers dump (answers.go): a line per
// answer of every served snapshot to the questions a change must leave byte for byte as
// they were, compared with an earlier dump by --against.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/citeq/citeq/bench/synth"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/adapters"
	"github.com/citeq/citeq/internal/bytesize"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/snapshots"
)

// defaultScaleCaps are the capabilities scaled up by default: the three largest kinds of
// table, hourly prices, hourly demand and the largest interconnection queue (see
// resolveScaleCaps for the * form).
const defaultScaleCaps = "power.price_ercot,power.demand,power.interconnection_queue*"

func main() {
	var err error
	switch {
	case len(os.Args) > 1 && os.Args[1] == "synth":
		err = runSynth(os.Args[2:])
	case len(os.Args) > 1 && os.Args[1] == "duckdb-job":
		err = runDuckDBJob(os.Args[2:])
	case len(os.Args) > 1 && os.Args[1] == "aggregate-evidence":
		err = runAggregateEvidence(os.Args[2:])
	case len(os.Args) > 1 && os.Args[1] == "answers":
		err = runAnswers(os.Args[2:])
	default:
		err = runBench(os.Args[1:])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "citeq-bench:", err)
		os.Exit(1)
	}
}

// Config is how the run was asked for.
type Config struct {
	Raw    string `json:"raw"`
	Runs   int    `json:"runs"`
	Warmup int    `json:"warmup"`
	Scales []int  `json:"scales"`
	// ScaleCaps is --scale-caps as given; the capabilities it resolved to are the
	// source_snapshots of the report.
	ScaleCaps string `json:"scale_caps"`
	Seed      uint64 `json:"seed"`
	DuckDB    bool   `json:"duckdb"`
}

func runBench(args []string) error {
	root := repoRoot()
	fs := flag.NewFlagSet("citeq-bench", flag.ContinueOnError)
	raw := fs.String("raw", defaultRaw(), "directory holding the agencies' source files ($CITEQ_RAW)")
	data := fs.String("data", "", "data directory of the real snapshots: reused when its catalog promotes a snapshot, else ingested into (default: a temporary directory)")
	runs := fs.Int("runs", 7, "timed runs per query; the median is reported")
	warmup := fs.Int("warmup", 2, "untimed runs per query and path before the timed ones")
	scales := fs.String("scales", "1000000,10000000", "row counts of the synthetic scale-ups, comma separated (k and M suffixes allowed; empty: the real snapshots only)")
	scaleCaps := fs.String("scale-caps", defaultScaleCaps, "capabilities scaled up to each of --scales, comma separated: an id, or a prefix ending in * for the served capability with the most rows among those whose id starts with it, either followed by @ and row counts of its own joined by + (power.capacity@100M) (empty: none)")
	seed := fs.Uint64("seed", 1, "seed of the scale-up generator")
	cache := fs.String("cache", filepath.Join(root, "bench", ".cache"), "directory caching the generated scale-ups")
	out := fs.String("out", filepath.Join(root, "bench", "results", "latest.json"), "JSON results file")
	duck := fs.Bool("duckdb", true, "also run every query on DuckDB (bench/duckdb, built into --cache on first use) and report citeq's times as ratios to it")
	duckTable := fs.Bool("duckdb-table", true, "also run the queries on DuckDB over an in-memory table created from the Parquet file (timed once, like citeq's load)")
	duckMem := fs.String("duckdb-memory", "auto", "DuckDB's memory_limit (e.g. 8GB); auto: half of the memory available when DuckDB starts; empty: DuckDB's default (80% of RAM)")
	duckTemp := fs.String("duckdb-temp", "", "DuckDB's temp_directory, where it spills what exceeds its memory_limit (default: duckdb-tmp in --cache)")
	duckStorage := fs.String("duckdb-table-storage", "auto", "where DuckDB keeps its table: memory (an in-memory database, uncompressed), file (a database file in --duckdb-temp, compressed by DuckDB's storage, cached in memory up to the limit), or auto (memory when the table's estimated size fits in half of the memory available, else file)")
	duckAll := fs.Bool("duckdb-table-all", false, "create DuckDB's in-memory table with every column of the Parquet file, not only those the queries name")
	goCmd := fs.String("go", goTool(), "go command that builds bench/duckdb ($GO)")
	bwMiB := fs.Int("bandwidth-mib", 512, "size of the float64 array of the memory-bandwidth baseline, MiB (0: skip)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the citeq query runs on the last dataset (the last --scale-caps capability's largest scale-up) to this file")
	history := fs.Int("history", 1000, "snapshots of the history scale-up: one data directory serving that many snapshots of --history-cap, measured in this process and by a citeq serve process under --history-budget (0: none)")
	historyCap := fs.String("history-cap", "power.interconnection_queue*", "the capability of the history scale-up: an id, or a prefix ending in * for the served one with the most rows")
	historyBudget := bytesize.Size(service.DefaultMemoryBudget)
	fs.Var(&historyBudget, "history-budget", "the memory budget the history is served under (citeq serve --memory-budget; k, M, G suffixes: 1G)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *runs < 1 || *warmup < 0 {
		return errors.New("--runs must be at least 1 and --warmup at least 0")
	}
	sizes, err := parseScales(*scales)
	if err != nil {
		return err
	}
	if *duckStorage != "memory" && *duckStorage != "file" && *duckStorage != "auto" {
		return fmt.Errorf("--duckdb-table-storage is memory, file or auto, not %q", *duckStorage)
	}
	duckSet := duckSettings{MemoryLimit: *duckMem, TempDirectory: *duckTemp, TableStorage: *duckStorage}
	if duckSet.TempDirectory == "" {
		duckSet.TempDirectory = filepath.Join(*cache, "duckdb-tmp")
	}
	duckSet.AllColumns = *duckAll
	started := time.Now()
	// A soft limit on the Go heap, unless GOMEMLIMIT sets one: with the 100M dataset's columns
	// live, the default GOGC alone would let the heap grow to twice them between collections.
	if os.Getenv("GOMEMLIMIT") == "" {
		if avail := procKB("/proc/meminfo", "MemAvailable"); avail > 0 {
			debug.SetMemoryLimit(avail * 3 / 4)
		}
	}
	cfg := Config{Raw: *raw, Runs: *runs, Warmup: *warmup, Scales: sizes, ScaleCaps: *scaleCaps, Seed: *seed, DuckDB: *duck}
	var duckBin string
	if *duck {
		if duckBin, err = buildDuckDB(*goCmd, root, *cache); err != nil {
			return err
		}
	}

	dataDir, cleanup, err := ingestedData(*raw, *data)
	if err != nil {
		return err
	}
	defer cleanup()
	datasets, err := realDatasets(dataDir)
	if err != nil {
		return err
	}
	scaled, extra, err := resolveScaleCaps(*scaleCaps, datasets)
	if err != nil {
		return err
	}
	var citeqBin string
	if *history > 0 {
		hds, err := historyDataset(datasets, *historyCap, dataDir, *cache, *history, *seed, int64(historyBudget))
		if err != nil {
			return err
		}
		if citeqBin, err = buildCiteq(*goCmd, root, *cache); err != nil {
			return err
		}
		datasets = append(datasets, hds)
	}
	var sources []SourceSnapshot
	for _, id := range scaled {
		own := append(slices.Clone(sizes), extra[id]...)
		if len(own) == 0 {
			continue
		}
		slices.Sort(own)
		ups, desc, err := scaleUps(datasets, id, dataDir, *cache, slices.Compact(own), *seed)
		if err != nil {
			return err
		}
		sources = append(sources, desc)
		datasets = append(datasets, ups...)
	}

	rep := &Report{Date: started.UTC().Format(time.RFC3339), Machine: describeMachine(), Config: cfg, Sources: sources, Queries: allQueries(datasets),
		LoadAverage: LoadAverage{Start: loadAverage()}}
	if *bwMiB > 0 {
		bw := measureBandwidth(int64(*bwMiB)<<20, 5)
		rep.Bandwidth = &bw
		fmt.Printf("memory    sequential float64 sum over %s: %.1f GB/s on 1 goroutine, %.1f GB/s on %d\n",
			fmtBytes(bw.Bytes), bw.SingleGBPerSec, bw.ParallelGBPerSec, bw.Goroutines)
		runtime.GC()
		debug.FreeOSMemory()
	}
	for i, ds := range datasets {
		prof := ""
		if i == len(datasets)-1 {
			prof = *cpuprofile
		}
		run, err := measureDataset(ds, *warmup, *runs, prof)
		if err != nil {
			return fmt.Errorf("%s: %w", ds.Name, err)
		}
		rep.Datasets = append(rep.Datasets, ds)
		rep.Results = append(rep.Results, run.results...)
		// The dataset's service is gone with measureDataset: its tables are returned to the
		// OS before DuckDB or the next dataset starts, so neither shares memory with them.
		runtime.GC()
		debug.FreeOSMemory()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		ds.HeapBytesAfterRelease, ds.RSSBytesAfterRelease = ms.HeapAlloc, rss()
		fmt.Printf("memory    %-10s released: Go heap %s, RSS %s\n", ds.Name, fmtBytes(int64(ms.HeapAlloc)), fmtBytes(ds.RSSBytesAfterRelease))
		if ds.History != nil {
			if err := measureHistoryServer(citeqBin, ds); err != nil {
				return fmt.Errorf("%s: citeq serve: %w", ds.Name, err)
			}
		}
		if *duck {
			for _, table := range []bool{false, true} {
				if table && !*duckTable {
					continue
				}
				results, err := measureDuckDB(duckBin, ds, run, *warmup, *runs, table, duckSet)
				if err != nil {
					return fmt.Errorf("%s: %w", ds.Name, err)
				}
				rep.Results = append(rep.Results, results...)
			}
		}
	}
	rep.growth()
	rep.rates()
	rep.historyRatios()
	rep.LoadAverage.End = loadAverage()
	rep.TotalSeconds = time.Since(started).Seconds()

	fmt.Println()
	rep.printTable(os.Stdout)
	rep.printHistory(os.Stdout)
	if err := rep.write(*out); err != nil {
		return err
	}
	fmt.Printf("\nwrote %s (%s in all)\n", *out, fmtDuration(time.Since(started)))
	return nil
}

// realDatasets are the latest snapshot of every capability dataDir serves, each named
// real-<capability> and asked its generated question set (generatedQueries), read off a
// service over dataDir that is dropped before anything is measured.
func realDatasets(dataDir string) ([]*Dataset, error) {
	svc, err := service.New(dataDir)
	if err != nil {
		return nil, err
	}
	latest := map[string]*service.Snapshot{}
	var order []string
	for _, snap := range svc.SnapshotsServed() { // by capability, then as_of ascending
		if latest[snap.Cap.ID] == nil {
			order = append(order, snap.Cap.ID)
		}
		latest[snap.Cap.ID] = snap
	}
	var out []*Dataset
	for _, id := range order {
		snap := latest[id]
		qs, err := generatedQueries(snap.Cap, snap.Table)
		if err != nil {
			return nil, err
		}
		out = append(out, &Dataset{Name: "real-" + id, Dir: dataDir, Capability: id, queries: qs, Rows: snap.Table.Rows})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s serves no snapshot", dataDir)
	}
	return out, nil
}

// resolveScaleCaps reads --scale-caps against the real datasets: each comma-separated item
// is a capability id, or a prefix ending in * standing for the capability with the most rows
// (in its latest snapshot) among the served ones whose id starts with the prefix, the first
// in the datasets' order on a tie, either followed by "@" and row counts joined by "+", which
// that capability is scaled up to beyond --scales (returned by capability). Every item must
// name a served capability; a capability named twice is scaled up once.
func resolveScaleCaps(list string, real []*Dataset) ([]string, map[string][]int, error) {
	var out []string
	extra := map[string][]int{}
	for _, item := range strings.Split(list, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		var more []int
		if id, counts, ok := strings.Cut(item, "@"); ok {
			for _, c := range strings.Split(counts, "+") {
				n, err := parseCount(c)
				if err != nil {
					return nil, nil, fmt.Errorf("--scale-caps %s: %w", item, err)
				}
				more = append(more, n)
			}
			item = id
		}
		var pick *Dataset
		for _, ds := range real {
			prefix, pattern := strings.CutSuffix(item, "*")
			match := ds.Capability == item
			if pattern {
				match = strings.HasPrefix(ds.Capability, prefix)
			}
			if match && (pick == nil || ds.Rows > pick.Rows) {
				pick = ds
			}
		}
		if pick == nil {
			return nil, nil, fmt.Errorf("--scale-caps: %s names no capability the data directory serves", item)
		}
		if !slices.Contains(out, pick.Capability) {
			out = append(out, pick.Capability)
		}
		extra[pick.Capability] = append(extra[pick.Capability], more...)
	}
	return out, extra, nil
}

// scaleUps are the scale-ups of capability id's latest snapshot in dataDir to each of sizes
// rows above its own, found in the cache or generated, each asked the question set of the
// real snapshot (so ns per row grows from it), and the description of that snapshot.
func scaleUps(real []*Dataset, id, dataDir, cache string, sizes []int, seed uint64) ([]*Dataset, SourceSnapshot, error) {
	i := slices.IndexFunc(real, func(ds *Dataset) bool { return ds.Capability == id && !ds.Synthetic })
	if i < 0 {
		return nil, SourceSnapshot{}, fmt.Errorf("no real snapshot of %s", id)
	}
	src, err := synth.Read(&snapshots.Store{Dir: dataDir}, id)
	if err != nil {
		return nil, SourceSnapshot{}, err
	}
	desc := SourceSnapshot{Capability: id, AsOf: src.Manifest.AsOf, Fingerprint: src.Manifest.Fingerprint, Rows: len(src.Rows),
		SpecHash: synth.SpecHash(src.Cap)}
	if spec, err := synth.SpecFor(src.Cap); err == nil {
		desc.Perturbed, desc.Suffixed = spec.Perturb, spec.Suffix
	}
	var out []*Dataset
	for _, n := range sizes {
		if n <= len(src.Rows) {
			fmt.Printf("synth     %s: %s rows is no scale-up of its %s rows, skipped\n", id, commas(n), commas(len(src.Rows)))
			continue
		}
		ds, err := ensureScale(src, dataDir, cache, n, seed)
		if err != nil {
			return nil, SourceSnapshot{}, fmt.Errorf("scale %s up to %d rows: %w", id, n, err)
		}
		ds.Capability, ds.queries = id, real[i].queries
		out = append(out, ds)
	}
	return out, desc, nil
}

// allQueries lists every dataset's queries once, in dataset order.
func allQueries(datasets []*Dataset) []Query {
	var out []Query
	seen := map[string]bool{}
	for _, ds := range datasets {
		for _, q := range ds.queries {
			if !seen[q.Name] {
				seen[q.Name] = true
				out = append(out, q)
			}
		}
	}
	return out
}

// ingestedData returns the data directory data (a temporary one when empty, which cleanup
// removes) with the raw files ingested into it unless its catalog already promotes a snapshot.
func ingestedData(raw, data string) (dir string, cleanup func(), err error) {
	dir, cleanup = data, func() {}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "citeq-bench-data-"); err != nil {
			return "", nil, err
		}
		cleanup = func() { os.RemoveAll(dir) }
	}
	if err := ensureIngested(raw, dir); err != nil {
		cleanup()
		return "", nil, err
	}
	return dir, cleanup, nil
}

// ensureIngested makes dataDir serve the real snapshots: a directory whose catalog already
// promotes a snapshot is reused as it is, otherwise the raw files are ingested into it.
func ensureIngested(raw, dataDir string) error {
	store := &snapshots.Store{Dir: dataDir}
	if cat, err := store.ReadCatalog(); err == nil && len(cat.Promoted) > 0 {
		fmt.Printf("data      %s (reused)\n", dataDir)
		return nil
	}
	start := time.Now()
	outcomes, err := ingest.Run(raw, store, adapters.All(), io.Discard)
	if err != nil {
		return fmt.Errorf("ingest %s: %w", raw, err)
	}
	for _, o := range outcomes {
		fmt.Printf("ingest    %-20s %s  %8d rows  %s\n", o.Capability, o.AsOf, o.Rows, o.Status)
	}
	fmt.Printf("ingest    %s into %s in %s\n", raw, dataDir, fmtDuration(time.Since(start)))
	return nil
}

// ensureScale finds the scale-up of src to n rows in the cache, or generates it in a child
// process.
func ensureScale(src *synth.Source, dataDir, cache string, n int, seed uint64) (*Dataset, error) {
	opt := synth.Options{Rows: n, Seed: seed}
	dir := synth.Dir(cache, src, opt)
	ds := &Dataset{Name: scaleName(src.Cap.ID, n), Dir: dir, Rows: n, Synthetic: true, Cached: true}
	info, err := synth.ReadInfo(dir)
	if err != nil {
		ds.Cached = false
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		cmd := exec.Command(self, "synth", "--data", dataDir, "--capability", src.Cap.ID, "--rows", strconv.Itoa(n),
			"--seed", strconv.FormatUint(seed, 10), "--cache", cache)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("generate %d rows of %s: %w", n, src.Cap.ID, err)
		}
		if info, err = synth.ReadInfo(dir); err != nil {
			return nil, err
		}
	} else {
		fmt.Printf("synth     %-10s cached in %s\n", ds.Name, dir)
	}
	ds.Generation = info
	return ds, nil
}

// scaleName is the dataset name of capability id's scale-up to n rows: synth-<id>-<n>.
func scaleName(id string, n int) string { return "synth-" + id + "-" + shortCount(n) }

// runSynth generates (or finds) one scale-up of the latest snapshot of a capability in --data.
func runSynth(args []string) error {
	root := repoRoot()
	fs := flag.NewFlagSet("citeq-bench synth", flag.ContinueOnError)
	data := fs.String("data", "", "data directory serving the real snapshot")
	capID := fs.String("capability", "", "the capability whose latest snapshot is scaled up")
	rows := fs.String("rows", "", "row count of the scale-up (k and M suffixes allowed)")
	seed := fs.Uint64("seed", 1, "seed of the generator")
	cache := fs.String("cache", filepath.Join(root, "bench", ".cache"), "directory caching the generated scale-ups")
	workers := fs.Int("workers", defaultSynthWorkers(), "parts of 2^20 rows generated and encoded at the same time (each adds about 3 GiB of peak memory; the output does not depend on it)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *workers < 1 {
		return errors.New("--workers must be at least 1")
	}
	n, err := parseCount(*rows)
	if err != nil || *data == "" || *capID == "" {
		return errors.New("synth needs --data DIR, --capability ID and --rows N")
	}
	src, err := synth.Read(&snapshots.Store{Dir: *data}, *capID)
	if err != nil {
		return err
	}
	opt := synth.Options{Rows: n, Seed: *seed}
	name := scaleName(src.Cap.ID, n)
	fmt.Printf("synth     %-10s generating %d rows from %d (seed %d)…\n", name, n, len(src.Rows), *seed)
	info, err := synth.Build(*cache, src, opt, *workers)
	if err != nil {
		return err
	}
	dir := synth.Dir(*cache, src, opt)
	if info.PeakRSSBytes == 0 {
		info.PeakRSSBytes = peakRSS()
		if err := synth.WriteInfo(dir, info); err != nil {
			return err
		}
	}
	fmt.Printf("synth     %-10s %d rows generated and written in %s, generator peak RSS %s → %s\n", name, info.Rows,
		fmtDuration(secs(info.Seconds)), fmtBytes(info.PeakRSSBytes), dir)
	return nil
}

// citeqRun is what measureDataset measured: the results of both citeq paths, their
// answers by query and system, and the fact table DuckDB reads.
type citeqRun struct {
	results []*Result
	answers map[string]map[string]Answer
	parquet string
}

// measureDataset loads one dataset into a fresh service and measures every query with every
// citeq path; memory is reported for the dataset alone where the peak can be reset. With
// cpuprofile set, the query runs (not the load) are CPU-profiled into that file.
func measureDataset(ds *Dataset, warmup, runs int, cpuprofile string) (*citeqRun, error) {
	runtime.GC()
	debug.FreeOSMemory()
	ds.PeakRSSScope = "dataset"
	if !resetPeakRSS() {
		ds.PeakRSSScope = "process"
	}
	if ds.MemoryBudget > 0 {
		// The tables and pages under the budget's shares, as citeq serve holds them.
		plan := service.PlanMemory(ds.MemoryBudget)
		columnar.SetMemoryBudget(plan.Tables)
		columnar.SetPageCacheBytes(int(plan.Pages))
		defer func() {
			columnar.SetMemoryBudget(0)
			columnar.SetPageCacheBytes(columnar.DefaultPageCacheBytes)
		}()
	}
	start := time.Now()
	svc, err := service.New(ds.Dir)
	if err != nil {
		return nil, err
	}
	// The service maps the snapshot and decodes a column when a query first needs it: the
	// load time includes decoding every column the queries read, so no run pays for it.
	for _, q := range ds.queries {
		c, p, snap, err := validate(svc, q)
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", q.Name, err)
		}
		if err := snap.Table.Need(service.QueryColumns(c, p)...); err != nil {
			return nil, err
		}
	}
	ds.LoadSeconds = time.Since(start).Seconds()
	svc.SetCacheBytes(0) // every run does the work of an answer, not a cache lookup
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	ds.HeapBytesAfterLoad = ms.HeapAlloc
	fmt.Printf("load      %-10s %s rows in %s (Go heap after load %s)\n", ds.Name, commas(ds.Rows), fmtDuration(secs(ds.LoadSeconds)), fmtBytes(int64(ms.HeapAlloc)))

	if cpuprofile != "" {
		f, err := os.Create(cpuprofile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
		defer pprof.StopCPUProfile()
	}
	systems := []system{serviceSystem{svc}, engineSystem{svc}}
	out := &citeqRun{answers: map[string]map[string]Answer{}}
	for _, q := range ds.queries {
		c, p, snap, err := validate(svc, q)
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", q.Name, err)
		}
		out.parquet = snap.Manifest.FactsPath()
		rows := snap.Table.Rows
		timed := make([]func() (any, error), len(systems))
		answers := make([]func(any) (Answer, error), len(systems))
		for i, sys := range systems {
			if timed[i], answers[i], err = sys.Prepare(q); err != nil {
				return nil, fmt.Errorf("%s %s: %w", sys.Name(), q.Name, err)
			}
		}
		timings, last, err := measure(timed, warmup, runs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q.Name, err)
		}
		var ref Answer
		out.answers[q.Name] = map[string]Answer{}
		for i, sys := range systems {
			a, err := answers[i](last[i])
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", sys.Name(), q.Name, err)
			}
			if i == 0 {
				ref = a
			} else if !sameAnswer(ref, a) {
				return nil, fmt.Errorf("query %s: %s answers matched %d, groups %d, total %v; %s answered %d, %d, %v", q.Name,
					sys.Name(), a.Matched, a.Groups, a.Total, systems[0].Name(), ref.Matched, ref.Groups, ref.Total)
			}
			out.answers[q.Name][sys.Name()] = a
			tm := timings[i]
			r := newResult(q, ds, sys.Name(), rows, a, tm)
			if sys.Name() == "engine" {
				r.ScanBytes = scanBytes(q, c, p, snap.Table, a.Matched)
			}
			fmt.Printf("query     %-10s %-8s %s  median %s  (%s … %s, %d runs; first %s)  %.1f ns/row\n", ds.Name, sys.Name(), q.Name,
				fmtDuration(tm.Median), fmtDuration(tm.Min), fmtDuration(tm.Max), runs, fmtDuration(tm.First), r.NsPerRow)
			out.results = append(out.results, r)
		}
	}
	ds.PeakRSSBytes, ds.RSSBytesAfter = peakRSS(), rss()
	fmt.Printf("memory    %-10s peak RSS %s (VmHWM, %s), RSS now %s\n", ds.Name, fmtBytes(ds.PeakRSSBytes), ds.PeakRSSScope, fmtBytes(ds.RSSBytesAfter))
	runtime.KeepAlive(svc)
	return out, nil
}

// scanBytes is the size of the column data the engine path of q reads at least once: every
// row of each filter column, and the matched rows of each key and input column (4 bytes a
// row for dictionary codes, 8 for floats). Zero for a records query, which reads a few rows.
func scanBytes(q Query, c *capability.Capability, p *service.Params, t *columnar.Table, matched int) int64 {
	if q.Records {
		return 0
	}
	width := func(name string) int64 {
		if col := t.Col(name); col != nil && col.Kind == columnar.Float {
			return 8
		}
		return 4
	}
	seen := map[string]bool{}
	var n int64
	for _, pr := range service.Predicates(c, t, p) {
		if !seen[pr.Column] {
			seen[pr.Column] = true
			n += width(pr.Column) * int64(t.Rows)
		}
	}
	inputs := append([]string{}, p.GroupBy...)
	for _, m := range c.Metrics {
		inputs = append(inputs, m.Column, m.Denominator)
	}
	inputs = append(inputs, capability.ColSourceFile, capability.ColSheet)
	for _, name := range inputs {
		if name != "" && !seen[name] {
			seen[name] = true
			n += width(name) * int64(matched)
		}
	}
	return n
}

// measureDuckDB runs the queries on DuckDB over the dataset's fact table (the Parquet file,
// or an in-memory table created from it: system duckdb-table), checks its answers
// against citeq's and returns its results, with every citeq result's ratio to DuckDB set.
// For a query with SummarySQL, DuckDB's time is both statements' and the service is compared
// with it, while the engine path, which answers the records alone, is compared with the
// records statement's time.
func measureDuckDB(bin string, ds *Dataset, run *citeqRun, warmup, runs int, table bool, set duckSettings) ([]*Result, error) {
	threads := runtime.GOMAXPROCS(0)
	if set.TableStorage == "auto" {
		set.TableStorage = autoStorage(ds.Rows)
	}
	if !set.AllColumns {
		set.Columns = tableColumns(ds.queries, snapshots.Columns(capability.ByID(ds.Capability)))
	}
	out, err := runDuckDB(bin, ds.queries, run.parquet, threads, warmup, runs, table, set)
	if err != nil {
		return nil, err
	}
	name := "duckdb"
	ds.DuckDBVersion, ds.DuckDBThreads, ds.DuckDBMemoryLimit = out.Version, out.Threads, out.MemoryLimit
	if table {
		name = "duckdb-table"
		ds.DuckDBLoadTableSeconds = float64(out.LoadTableNs) / 1e9
		ds.DuckDBTableColumns = out.TableColumns
		ds.DuckDBTableStorage = set.TableStorage
		ds.DuckDBTablePeakRSSBytes = out.PeakRSSBytes
		cols := "*"
		if len(out.TableColumns) > 0 {
			cols = fmt.Sprintf("%d columns", len(out.TableColumns))
		}
		for _, m := range []*duckMemory{out.TableMemory, out.EndMemory} {
			if m != nil {
				ds.DuckDBTableSpilledBytes = max(ds.DuckDBTableSpilledBytes, m.TempBytes)
			}
		}
		if out.TableMemory != nil {
			ds.DuckDBTableMemoryBytes = out.TableMemory.Bytes
		}
		fmt.Printf("duckdb    %-10s %s, %d threads, memory_limit %s: CREATE TABLE AS SELECT %s FROM read_parquet (%s) in %s (in memory %s, spilled %s)\n", ds.Name, out.Version, out.Threads,
			out.MemoryLimit, cols, set.TableStorage, fmtDuration(secs(ds.DuckDBLoadTableSeconds)), fmtBytes(ds.DuckDBTableMemoryBytes), fmtBytes(ds.DuckDBTableSpilledBytes))
	} else {
		ds.DuckDBPeakRSSBytes = out.PeakRSSBytes
	}
	fmt.Printf("memory    %-10s DuckDB (%s) peak RSS %s\n", ds.Name, name, fmtBytes(out.PeakRSSBytes))
	var results []*Result
	for qi, q := range ds.queries {
		dq := out.Queries[qi]
		if dq.Name != q.Name {
			return nil, fmt.Errorf("duckdb answered %s for %s", dq.Name, q.Name)
		}
		citeq := run.answers[q.Name]
		var keys int
		for _, a := range citeq {
			if len(a.Rows) > 0 {
				keys = len(a.Rows[0].Keys)
			}
		}
		first := dq.Statements[0]
		da, err := duckAnswer(q, keys, first.Columns, first.Rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q.Name, err)
		}
		checked := 0
		for _, sys := range []string{"engine", "service"} {
			a := citeq[sys]
			if a.Rows == nil && !q.Records {
				continue
			}
			want := da.Rows
			if a.Paged && len(a.Rows) > 0 && len(a.Rows) < len(want) {
				want = want[:len(a.Rows)] // a page of records cut at its bytes: the first of them
			}
			if err := compareRows(a.Rows, want, q.Ordered()); err != nil {
				return nil, fmt.Errorf("%s on %s: citeq %s and DuckDB disagree: %w", q.Name, ds.Name, sys, err)
			}
			checked++
		}
		if checked == 0 {
			return nil, fmt.Errorf("%s: no citeq answer to check DuckDB's against", q.Name)
		}
		if q.SummarySQL != "" {
			if err := compareSummary(citeq["service"].Totals, dq.Statements[1].Rows); err != nil {
				return nil, fmt.Errorf("%s on %s: citeq service's summary totals and DuckDB's disagree: %w", q.Name, ds.Name, err)
			}
		}
		tm := timing(dq.RunsNs)
		ref := citeq["engine"]
		da.Matched, da.Groups = ref.Matched, ref.Groups
		if !q.Records {
			da.Groups = len(first.Rows) // the folded rows, not the groups before top_n
		}
		r := newResult(q, ds, name, ds.Rows, da, tm)
		stmtMedian := make([]int64, len(dq.Statements))
		for si, st := range dq.Statements {
			stmtMedian[si] = timing(st.RunsNs).Median.Nanoseconds()
		}
		if len(stmtMedian) > 1 {
			r.StatementMedianNs = stmtMedian
		}
		checkedWhat := "rows checked against citeq"
		if q.SummarySQL != "" {
			checkedWhat = fmt.Sprintf("records %s + totals %s; records and totals checked against citeq",
				fmtDuration(time.Duration(stmtMedian[0])), fmtDuration(time.Duration(stmtMedian[1])))
		}
		fmt.Printf("query     %-10s %-8s %s  median %s  (%s … %s, %d runs)  %.1f ns/row  (%s)\n", ds.Name, name, q.Name,
			fmtDuration(tm.Median), fmtDuration(tm.Min), fmtDuration(tm.Max), runs, r.NsPerRow, checkedWhat)
		for _, cr := range run.results {
			if cr.Query != q.Name {
				continue
			}
			// The engine path answers the first statement's question alone.
			d := r.MedianNs
			if cr.System == "engine" {
				d = stmtMedian[0]
			}
			if d <= 0 {
				continue
			}
			if table {
				cr.VsDuckDBTable = float64(cr.MedianNs) / float64(d)
			} else {
				cr.VsDuckDB = float64(cr.MedianNs) / float64(d)
			}
		}
		results = append(results, r)
	}
	return results, nil
}

// timing summarizes runs given in nanoseconds.
func timing(runsNs []int64) Timing {
	tm := Timing{}
	for _, ns := range runsNs {
		tm.Runs = append(tm.Runs, time.Duration(ns))
	}
	tm.summarize()
	return tm
}

// goTool is $GO, else go.
func goTool() string {
	if v := os.Getenv("GO"); v != "" {
		return v
	}
	return "go"
}

func defaultRaw() string {
	if v := os.Getenv("CITEQ_RAW"); v != "" {
		return v
	}
	return filepath.Join("..", "shared", "data", "raw")
}

// repoRoot is the nearest directory at or above the working directory holding go.mod (the
// working directory when there is none).
func repoRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			return wd
		}
	}
}

func parseScales(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		n, err := parseCount(part)
		if err != nil {
			return nil, fmt.Errorf("--scales: %w", err)
		}
		out = append(out, n)
	}
	return out, nil
}

// parseCount reads a positive row count: digits (underscores allowed), or a decimal number
// with a k or M suffix (2.5M).
func parseCount(s string) (int, error) {
	t := strings.ReplaceAll(strings.TrimSpace(s), "_", "")
	mult := 1.0
	switch {
	case strings.HasSuffix(t, "k"), strings.HasSuffix(t, "K"):
		mult, t = 1e3, t[:len(t)-1]
	case strings.HasSuffix(t, "M"), strings.HasSuffix(t, "m"):
		mult, t = 1e6, t[:len(t)-1]
	}
	if mult == 1 {
		n, err := strconv.Atoi(t)
		if err != nil || n < 1 {
			return 0, fmt.Errorf("%q is not a positive row count", s)
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(t, 64)
	n := f * mult
	if err != nil || n < 1 || n != math.Trunc(n) || n > math.MaxInt32 {
		return 0, fmt.Errorf("%q is not a positive row count", s)
	}
	return int(n), nil
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// defaultSynthWorkers is GOMAXPROCS, at most 2: each worker holds a part of 2^20 rows (about
// 3 GiB of peak resident memory with its garbage), and appending the parts to the file is
// sequential, so more workers add memory sooner than speed.
func defaultSynthWorkers() int { return min(runtime.GOMAXPROCS(0), 2) }

// runDuckDBJob prints the DuckDB job of a capability's generated question set, with the
// settings a benchmark run would use: the questions of its latest snapshot in --data, over
// that snapshot's fact table or --parquet (a scale-up's).
func runDuckDBJob(args []string) error {
	root := repoRoot()
	fs := flag.NewFlagSet("citeq-bench duckdb-job", flag.ContinueOnError)
	data := fs.String("data", "", "data directory serving the capability's real snapshot, whose question set is asked")
	capID := fs.String("capability", "", "the capability (default: the only one --data serves)")
	parquet := fs.String("parquet", "", "the fact table DuckDB reads (default: the snapshot's facts.parquet; a scale-up's to time it)")
	table := fs.Bool("table", false, "create DuckDB's table from the file first (DUCK TABLE), rather than reading the file in every query")
	runs := fs.Int("runs", 7, "timed runs per query")
	warmup := fs.Int("warmup", 2, "untimed runs per query before the timed ones")
	threads := fs.Int("threads", runtime.GOMAXPROCS(0), "DuckDB's threads")
	duckMem := fs.String("duckdb-memory", "auto", "DuckDB's memory_limit, as for the benchmark")
	duckTemp := fs.String("duckdb-temp", filepath.Join(root, "bench", ".cache", "duckdb-tmp"), "DuckDB's temp_directory")
	duckStorage := fs.String("duckdb-table-storage", "memory", "memory or file, as for the benchmark")
	duckAll := fs.Bool("duckdb-table-all", false, "create the table with every column")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *data == "" || *runs < 1 || *warmup < 0 {
		return errors.New("duckdb-job needs --data DIR, --runs of at least 1 and --warmup of at least 0")
	}
	real, err := realDatasets(*data)
	if err != nil {
		return err
	}
	var ds *Dataset
	for _, d := range real {
		if d.Capability == *capID || *capID == "" && len(real) == 1 {
			ds = d
		}
	}
	if ds == nil {
		return fmt.Errorf("duckdb-job: --capability names none of the %d capabilities %s serves", len(real), *data)
	}
	if *parquet == "" {
		src, err := synth.Read(&snapshots.Store{Dir: *data}, ds.Capability)
		if err != nil {
			return err
		}
		*parquet = src.Manifest.FactsPath()
	}
	set := duckSettings{MemoryLimit: *duckMem, TempDirectory: *duckTemp, TableStorage: *duckStorage}
	if !*duckAll {
		set.Columns = tableColumns(ds.queries, snapshots.Columns(capability.ByID(ds.Capability)))
	}
	job, err := newDuckJob(ds.queries, *parquet, *threads, *warmup, *runs, *table, set)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(job)
}
