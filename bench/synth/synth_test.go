package synth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/adapters"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/snapshots"
)

// scale is the row count the tests generate: two whole replicas of the real snapshot and a
// third one partial, so the verbatim first replica, a perturbed whole replica and the
// sampled partial one are all exercised (about 60,000 rows for May 2016).
func scale(src *Source) int { return 2*len(src.Rows) + len(src.Rows)/3 }

var (
	srcOnce sync.Once
	srcData string
	srcErr  error
)

// TestMain removes the data directory the tests ingest once.
func TestMain(m *testing.M) {
	code := m.Run()
	if srcData != "" {
		os.RemoveAll(srcData)
	}
	os.Exit(code)
}

// scaledCaps are the capabilities the row-level tests scale up: the generator snapshot the
// streaming and serving tests use (first), and the benchmark's default scale-ups (hourly
// prices, hourly demand, the largest queue), whose natural keys and measures differ.
var scaledCaps = []string{capability.PowerCapacity.ID, capability.PowerPriceERCOT.ID, capability.PowerDemand.ID, "power.interconnection_queue_pjm"}

// source ingests the real raw files ($CITEQ_RAW, else ../shared/data/raw beside the
// repository) once and reads back the latest promoted snapshot of capID (power.capacity when
// empty); the test is skipped when the raw files are absent.
func source(t *testing.T, capID ...string) *Source {
	t.Helper()
	raw := testenv.Raw(t)
	srcOnce.Do(func() {
		srcData, srcErr = os.MkdirTemp("", "citeq-synth-test-")
		if srcErr != nil {
			return
		}
		_, srcErr = ingest.Run(raw, &snapshots.Store{Dir: srcData}, adapters.All(), io.Discard)
	})
	if srcErr != nil {
		t.Fatalf("ingest %s: %v", raw, srcErr)
	}
	id := capability.PowerCapacity.ID
	if len(capID) > 0 {
		id = capID[0]
	}
	src, err := Read(&snapshots.Store{Dir: srcData}, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(src.Rows) == 0 {
		t.Fatal("the real snapshot has no rows")
	}
	return src
}

var (
	scaledMu   sync.Mutex
	scaledRows = map[string][]snapshots.Row{}
)

// scaled returns the latest snapshot of capID and its scale-up to scale(src) rows with seed
// 1, generated once and shared by the tests that only read it.
func scaled(t *testing.T, capID string) (*Source, []snapshots.Row) {
	t.Helper()
	src := source(t, capID)
	scaledMu.Lock()
	defer scaledMu.Unlock()
	if rows, ok := scaledRows[capID]; ok {
		return src, rows
	}
	rows := generate(t, src, Options{Rows: scale(src), Seed: 1})
	scaledRows[capID] = rows
	return src, rows
}

func generate(t *testing.T, src *Source, opt Options) []snapshots.Row {
	t.Helper()
	rows, err := Generate(src, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != opt.Rows {
		t.Fatalf("generated %d rows, want %d", len(rows), opt.Rows)
	}
	return rows
}

// origin maps each generated row to its source row and replica through its record key:
// the source row's, verbatim in the first replica and with the suffix ~k in replica k.
func origin(t *testing.T, src *Source, rows []snapshots.Row) (srcRow, replica []int) {
	t.Helper()
	key := testenv.Column(t, src.Cap, capability.FieldRecordKey)
	bySource := map[string]int{}
	for j, r := range src.Rows {
		k := r[key].(string)
		if _, dup := bySource[k]; dup {
			t.Fatalf("source rows %d and %d share the record key %s", bySource[k], j, k)
		}
		bySource[k] = j
	}
	srcRow, replica = make([]int, len(rows)), make([]int, len(rows))
	for i, r := range rows {
		k := r[key].(string)
		j, ok := bySource[k]
		if !ok {
			at := strings.LastIndex(k, "~")
			if at < 0 {
				t.Fatalf("row %d: record key %q is no source row's, nor suffixed", i, k)
			}
			if j, ok = bySource[k[:at]]; !ok {
				t.Fatalf("row %d: record key %q does not derive from a source row's", i, k)
			}
			if _, err := fmt.Sscan(k[at+1:], &replica[i]); err != nil || replica[i] < 1 {
				t.Fatalf("row %d: record key %q has no replica number", i, k)
			}
		}
		srcRow[i] = j
	}
	return srcRow, replica
}

func TestGenerateIsDeterministic(t *testing.T) {
	src := source(t)
	a := generate(t, src, Options{Rows: scale(src), Seed: 7})
	b := generate(t, src, Options{Rows: scale(src), Seed: 7})
	if i := firstDiff(a, b); i >= 0 {
		t.Fatalf("the same source, rows and seed gave different rows (first at row %d)", i)
	}
	c := generate(t, src, Options{Rows: scale(src), Seed: 8})
	if firstDiff(a, c) < 0 {
		t.Fatal("seeds 7 and 8 gave identical rows: the seed is not used")
	}
	// A smaller scale-up is a prefix only up to the last whole replica; the whole replicas
	// themselves never depend on the target size.
	small := generate(t, src, Options{Rows: len(src.Rows) + 10, Seed: 7})
	if firstDiff(a[:len(src.Rows)], small[:len(src.Rows)]) >= 0 {
		t.Fatal("the first replica depends on the target size")
	}
}

// firstDiff returns the first row where a and b differ (a length difference counts at the
// shorter length), or -1.
func firstDiff(a, b []snapshots.Row) int {
	for i := range min(len(a), len(b)) {
		if len(a[i]) != len(b[i]) {
			return i
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return i
			}
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// TestRangesAreIndependent checks that any range of rows, generated alone or into a reused
// buffer, is that range of the whole scale-up: parts can be written in any order.
func TestRangesAreIndependent(t *testing.T) {
	src := source(t)
	opt := Options{Rows: scale(src), Seed: 3}
	all := generate(t, src, opt)
	g, err := NewGenerator(src, opt)
	if err != nil {
		t.Fatal(err)
	}
	buf := g.Range(0, 10_000)
	for _, lo := range []int{len(all) - 7_000, len(src.Rows) - 5_000, 0, 12_345} {
		hi := min(lo+10_000, len(all))
		if i := firstDiff(g.Range(lo, hi), all[lo:hi]); i >= 0 {
			t.Fatalf("Range(%d, %d) differs from the whole scale-up at row %d", lo, hi, lo+i)
		}
		g.Fill(buf[:hi-lo], lo)
		if i := firstDiff(buf[:hi-lo], all[lo:hi]); i >= 0 {
			t.Fatalf("Fill into a reused buffer at %d differs at row %d", lo, lo+i)
		}
	}
}

func TestFirstReplicaIsTheSource(t *testing.T) {
	for _, id := range scaledCaps {
		t.Run(id, func(t *testing.T) {
			src, rows := scaled(t, id)
			if firstDiff(rows[:len(src.Rows)], src.Rows) >= 0 {
				t.Fatal("the first replica is not the source rows verbatim")
			}
		})
	}
}

func TestDimensionCardinalitiesPreserved(t *testing.T) {
	for _, id := range scaledCaps {
		t.Run(id, func(t *testing.T) { testDimensionCardinalities(t, id) })
	}
}

func testDimensionCardinalities(t *testing.T, id string) {
	src, rows := scaled(t, id)
	spec, err := SpecFor(src.Cap)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range spec.Suffix {
		if f, _ := src.Cap.Field(name); f.GroupBy {
			t.Errorf("suffixed column %s is a group_by dimension", name)
		}
	}
	changed := map[string]bool{}
	for _, n := range append(append([]string{}, spec.Perturb...), spec.Suffix...) {
		changed[n] = true
	}
	for ci, f := range snapshots.Columns(src.Cap) {
		if changed[f.Name] {
			continue
		}
		want, got := distinct(src.Rows, ci), distinct(rows, ci)
		if !reflect.DeepEqual(want, got) {
			t.Errorf("column %s: %d distinct values in the source, %d in the scale-up", f.Name, len(want), len(got))
		}
	}
	// Every source row appears once per whole replica, plus at most once in the partial one.
	srcRow, _ := origin(t, src, rows)
	times := make([]int, len(src.Rows))
	for _, j := range srcRow {
		times[j]++
	}
	full := len(rows) / len(src.Rows)
	for j, n := range times {
		if n != full && n != full+1 {
			t.Fatalf("source row %d appears %d times, want %d or %d", j, n, full, full+1)
		}
	}
}

func distinct(rows []snapshots.Row, ci int) map[any]bool {
	out := map[any]bool{}
	for _, r := range rows {
		out[r[ci]] = true
	}
	return out
}

func TestPerturbationWithinBounds(t *testing.T) {
	for _, id := range scaledCaps {
		t.Run(id, func(t *testing.T) { testPerturbation(t, id) })
	}
}

func testPerturbation(t *testing.T, id string) {
	src, rows := scaled(t, id)
	srcRow, replica := origin(t, src, rows)
	spec, err := SpecFor(src.Cap)
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Perturb) == 0 {
		t.Fatal("no column is perturbed")
	}
	type bounds struct{ lo, hi, got, exact, moved float64 }
	perCol := map[string]*bounds{}
	var factorSum float64
	var factors int
	for i, r := range rows {
		s := src.Rows[srcRow[i]]
		var factor float64 // the row's factor, the same for every perturbed column
		for _, name := range spec.Perturb {
			ci := testenv.Column(t, src.Cap, name)
			b := perCol[name]
			if b == nil {
				b = &bounds{}
				perCol[name] = b
			}
			if (r[ci] == nil) != (s[ci] == nil) {
				t.Fatalf("row %d %s: null in one of source and scale-up only", i, name)
			}
			if r[ci] == nil {
				continue
			}
			v, sv := r[ci].(float64), s[ci].(float64)
			b.got += v
			b.exact += sv
			if replica[i] == 0 {
				if v != sv {
					t.Fatalf("row %d %s: source row changed from %v to %v", i, name, sv, v)
				}
				b.lo, b.hi = b.lo+sv, b.hi+sv
				continue
			}
			lo, hi := min(MinFactor*sv, MaxFactor*sv), max(MinFactor*sv, MaxFactor*sv)
			if v < lo || v > hi {
				t.Fatalf("row %d %s: %v is outside [%v, %v] around the source's %v", i, name, v, lo, hi, sv)
			}
			b.lo, b.hi = b.lo+lo, b.hi+hi
			if sv != 0 {
				b.moved++
				f := v / sv
				if factor != 0 && abs(f-factor) > 1e-9 {
					t.Fatalf("row %d: perturbed columns use different factors %v and %v", i, factor, f)
				}
				factor = f
			}
		}
		if factor != 0 {
			factorSum += factor
			factors++
		}
	}
	for name, b := range perCol {
		if b.got < b.lo || b.got > b.hi {
			t.Errorf("%s: sum %v outside [%v, %v]", name, b.got, b.lo, b.hi)
		}
		if b.moved > 0 && b.got == b.exact {
			t.Errorf("%s: sum equals the unperturbed sum: nothing was perturbed", name)
		}
	}
	if factors == 0 {
		t.Fatal("no replicated row had a perturbed value")
	}
	if mean := factorSum / float64(factors); abs(mean-1) > 0.01 {
		t.Errorf("mean factor %v over %d rows, want about 1 (uniform in [%v, %v))", mean, factors, MinFactor, MaxFactor)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestNaturalKeysUniqueAndGatesPass(t *testing.T) {
	for _, id := range scaledCaps {
		t.Run(id, func(t *testing.T) {
			src, rows := scaled(t, id)
			// The ingest gates: lineage complete and citing the snapshot's raw files, every
			// value typed, natural key present and unique.
			gates := snapshots.RunGates(snapshots.GateInput{Cap: src.Cap, Rows: rows, Sources: src.Manifest.Sources, Required: src.Cap.NaturalKey})
			for _, g := range gates {
				if !g.Passed {
					t.Errorf("gate %s: %s", g.Name, g.Detail)
				}
			}
			// The record key stays unique.
			key := testenv.Column(t, src.Cap, capability.FieldRecordKey)
			seen := map[string]int{}
			for i, r := range rows {
				k := r[key].(string)
				if j, dup := seen[k]; dup {
					t.Fatalf("rows %d and %d share source_record_key %q", j, i, k)
				}
				seen[k] = i
			}
		})
	}
}

// TestSpecFor: the scale-up of a capability is derived from its definition: measures read by
// metrics are perturbed, the record key and a non-dimension natural-key field suffixed; a
// capability whose natural key is all dimensions has none.
func TestSpecFor(t *testing.T) {
	for _, tc := range []struct {
		name    string
		c       *capability.Capability
		perturb []string
		suffix  []string
	}{
		{"the generator inventory", capability.PowerCapacity, []string{"nameplate_mw", "net_summer_mw", "net_winter_mw"}, []string{"source_record_key", "generator_id"}},
		{"hourly prices", capability.PowerPriceERCOT, []string{"price"}, []string{"source_record_key", "hour_ending"}},
		{"hourly demand: a filter-only key field", capability.PowerDemand, []string{"demand_mwh"}, []string{"source_record_key", "hour_ending_utc"}},
		{"a key of dimensions only", &capability.Capability{ID: "x", NaturalKey: []string{"zone"}, Fields: []capability.Field{
			{Name: "zone", Type: capability.String, GroupBy: true}, {Name: "v", Type: capability.Number}}}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := SpecFor(tc.c)
			if tc.suffix == nil {
				if err == nil {
					t.Fatalf("SpecFor = %+v, want an error", spec)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(spec.Perturb, tc.perturb) || !reflect.DeepEqual(spec.Suffix, tc.suffix) {
				t.Errorf("SpecFor = %+v, %v; want perturb %v, suffix %v", spec, err, tc.perturb, tc.suffix)
			}
		})
	}
	if a, b := SpecHash(capability.PowerCapacity), SpecHash(capability.PowerDemand); a == b || len(a) != 8 {
		t.Errorf("SpecHash gives %q and %q: it does not tell specs apart", a, b)
	}
}

func TestCodebookRecountMatchesIngest(t *testing.T) {
	src := source(t)
	if got := Codebooks(src, src.Rows); !reflect.DeepEqual(got, src.Codebooks) {
		t.Fatal("recounting the source rows does not reproduce the ingested codebook counts")
	}
}

// TestSpliceCopiesPagesVerbatim checks the part-wise write: a part spliced alone is
// byte-for-byte the file WriteFacts wrote (the pages are copied, not re-encoded), and parts
// spliced together read back as the rows they were written from.
func TestSpliceCopiesPagesVerbatim(t *testing.T) {
	src := source(t)
	rows := generate(t, src, Options{Rows: 3 * 7_000, Seed: 1})
	cols := snapshots.Columns(src.Cap)
	dir := t.TempDir()
	var parts []string
	for i := 0; i < 3; i++ {
		p := filepath.Join(dir, fmt.Sprintf("part%d.parquet", i))
		if err := snapshots.WriteFacts(p, cols, rows[i*7_000:(i+1)*7_000]); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	one := filepath.Join(dir, "one.parquet")
	if err := splice(one, parts[:1], 7_000); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(parts[0])
	b, _ := os.ReadFile(one)
	if !bytes.Equal(a, b) {
		t.Fatalf("a part spliced alone (%d bytes) is not the part WriteFacts wrote (%d bytes)", len(b), len(a))
	}
	all := filepath.Join(dir, "all.parquet")
	if err := splice(all, parts, 7_000); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRows(src.Cap, all)
	if err != nil {
		t.Fatal(err)
	}
	if i := firstDiff(back, rows); i >= 0 {
		t.Fatalf("the spliced file differs from the rows written at row %d", i)
	}
}

// TestBuildServes writes a scale-up as a data directory and queries it through the service:
// it loads, answers with the scaled row counts and the real groups, and its citations verify
// against the real raw file.
func TestBuildServes(t *testing.T) {
	src := source(t)
	root := t.TempDir()
	opt := Options{Rows: scale(src), Seed: 1}
	info, err := Build(root, src, opt, 2)
	if err != nil {
		t.Fatal(err)
	}
	dir := Dir(root, src, opt)
	if got, err := ReadInfo(dir); err != nil || got.Rows != opt.Rows || got.Fingerprint != info.Fingerprint {
		t.Fatalf("ReadInfo = %+v, %v", got, err)
	}
	if info.Fingerprint == src.Manifest.Fingerprint {
		t.Fatal("the scale-up has the source snapshot's fingerprint")
	}
	const body = `{"filters":{"lifecycle":"operating"},"group_by":["state","technology"],"order_by":"nameplate_mw","top_n":10}`
	query := func(dataDir string, verify bool) []byte {
		svc, err := service.New(dataDir)
		if err != nil {
			t.Fatal(err)
		}
		out, e := svc.QueryJSON(context.Background(), src.Cap.Path, []byte(body))
		if e != nil {
			t.Fatalf("query %s: %s", dataDir, e.Message)
		}
		var doc map[string]any
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatal(err)
		}
		if doc["as_of"] != src.Manifest.AsOf {
			t.Fatalf("as_of %v, want %s", doc["as_of"], src.Manifest.AsOf)
		}
		// Every citation's verify member resolves to a literal row of the real raw file.
		cites := doc["citations"].(map[string]any)
		if len(cites) == 0 {
			t.Fatal("no citations")
		}
		for ref, c := range cites {
			if !verify {
				break
			}
			v, _ := json.Marshal(c.(map[string]any)["verify"])
			ev, e := svc.Evidence(context.Background(), v)
			if e != nil {
				t.Fatalf("citation %s does not verify: %s", ref, e.Message)
			}
			var evd map[string]any
			if err := json.Unmarshal(ev, &evd); err != nil || evd["verified"] != true {
				t.Fatalf("citation %s: evidence %s", ref, ev)
			}
		}
		return out
	}
	summary := func(out []byte) map[string]any {
		var doc map[string]any
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatal(err)
		}
		return doc["summary"].(map[string]any)
	}
	synthOut := query(dir, true)
	orig, synth := summary(query(srcData, false)), summary(synthOut)
	if orig["group_count"] != synth["group_count"] {
		t.Errorf("group_count %v in the scale-up, %v in the real snapshot", synth["group_count"], orig["group_count"])
	}
	rm, sm := orig["matched_source_rows"].(float64), synth["matched_source_rows"].(float64)
	if ratio, want := sm/rm, float64(opt.Rows)/float64(len(src.Rows)); abs(ratio-want) > 0.05*want {
		t.Errorf("matched rows %v against %v in the real snapshot: ratio %.3f, want about %.3f", sm, rm, ratio, want)
	}
	// The same scale-up written in several parts spliced together serves the same payload.
	g, err := NewGenerator(src, opt)
	if err != nil {
		t.Fatal(err)
	}
	parts := t.TempDir()
	if _, err := WriteDataDir(parts, src, g, Parts{Rows: opt.Rows/3 + 1, Workers: 2}, info.Fingerprint, "parts"); err != nil {
		t.Fatal(err)
	}
	if got := query(parts, false); !bytes.Equal(got, synthOut) {
		t.Error("the scale-up written in three spliced parts answers differently from the one written whole")
	}
	// Building the same scale-up again finds it complete and leaves it as it is.
	again, err := Build(root, src, opt, 1)
	if err != nil || again.Fingerprint != info.Fingerprint {
		t.Fatalf("second build: %+v, %v", again, err)
	}
}

// TestStreamingMatchesInMemory checks that the streaming writer (every worker generating its
// parts into a reused buffer, parts appended as they are done and removed) writes the bytes
// of the in-memory path (every row generated at once, its slices written as parts and
// spliced), whatever the number of workers, and counts what the in-memory rows count.
func TestStreamingMatchesInMemory(t *testing.T) {
	src := source(t)
	opt := Options{Rows: scale(src), Seed: 5}
	rows := generate(t, src, opt)
	cols := snapshots.Columns(src.Cap)
	wantSheets := RowsBySheet(src.Cap, rows)
	wantBooks := Codebooks(src, rows)
	for _, tc := range []struct {
		name     string
		partRows int
		workers  []int
	}{
		{"several parts, the last partial", opt.Rows/4 + 1, []int{1, 2, 3, 8}},
		{"a single part", opt.Rows, []int{1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var parts []string
			for lo := 0; lo < len(rows); lo += tc.partRows {
				p := filepath.Join(dir, fmt.Sprintf("mem-%d.parquet", lo))
				if err := snapshots.WriteFacts(p, cols, rows[lo:min(lo+tc.partRows, len(rows))]); err != nil {
					t.Fatal(err)
				}
				parts = append(parts, p)
			}
			want := filepath.Join(dir, "memory.parquet")
			if len(parts) == 1 {
				want = parts[0]
			} else if err := splice(want, parts, tc.partRows); err != nil {
				t.Fatal(err)
			}
			wantBytes, err := os.ReadFile(want)
			if err != nil {
				t.Fatal(err)
			}
			for _, workers := range tc.workers {
				g, err := NewGenerator(src, opt)
				if err != nil {
					t.Fatal(err)
				}
				out := filepath.Join(t.TempDir(), "facts.parquet")
				tl := newTally(src.Cap)
				if err := writeFacts(out, cols, g, Parts{Rows: tc.partRows, Workers: workers}, tl); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, wantBytes) {
					t.Errorf("%d workers: the streamed file (%d bytes) differs from the in-memory one (%d bytes)", workers, len(got), len(wantBytes))
				}
				if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".*")); len(left) > 0 {
					t.Errorf("%d workers: temporary files left behind: %v", workers, left)
				}
				if !reflect.DeepEqual(tl.sheets, wantSheets) || !reflect.DeepEqual(tl.codebooks(src.Codebooks), wantBooks) {
					t.Errorf("%d workers: the streamed counts differ from the in-memory rows'", workers)
				}
			}
		})
	}
}

// TestStreamingMatchesWholeFile checks, above one row group, that the streamed file is the
// one a single WriteFacts call over every row writes. It holds about 1.1M rows in memory
// (several GiB), so it runs only when CITEQ_SYNTH_LARGE is set.
func TestStreamingMatchesWholeFile(t *testing.T) {
	if os.Getenv("CITEQ_SYNTH_LARGE") == "" {
		t.Skip("set CITEQ_SYNTH_LARGE=1 to write 1.1M rows whole and streamed")
	}
	src := source(t)
	opt := Options{Rows: PartRows + len(src.Rows) + 123, Seed: 1}
	cols := snapshots.Columns(src.Cap)
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.parquet")
	if err := snapshots.WriteFacts(whole, cols, generate(t, src, opt)); err != nil {
		t.Fatal(err)
	}
	g, err := NewGenerator(src, opt)
	if err != nil {
		t.Fatal(err)
	}
	streamed := filepath.Join(dir, "streamed.parquet")
	if err := writeFacts(streamed, cols, g, Parts{Rows: PartRows, Workers: 2}, newTally(src.Cap)); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(whole)
	b, _ := os.ReadFile(streamed)
	if !bytes.Equal(a, b) {
		t.Fatalf("the streamed file (%d bytes) is not the one WriteFacts writes whole (%d bytes)", len(b), len(a))
	}
}
