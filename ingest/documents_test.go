package ingest_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/snapshots"
)

// docs is an adapter of small synthetic documents under docs/ in the raw directory, for the
// composition of complementing documents: a file <document>@<version>.txt holds its date
// ("date 2020-01-31") and then one price per line ("S1 2020-01 2.5"). Its capability is
// natural_gas.prices (documents that complement each other and may overlap), or a copy that
// declares no overlap.
type docs struct {
	c      *capability.Capability
	builds *atomic.Int32
}

func (d docs) Capability() *capability.Capability { return d.c }
func (docs) Version() string                      { return "docs/1" }
func (docs) Folders() []string                    { return []string{"docs"} }
func (docs) Known() []fetch.Source                { return nil }

func (docs) Plan(f *ingest.Finder) ([]ingest.Plan, error) {
	paths, err := f.Find(func(n string) bool { return strings.HasSuffix(n, ".txt") })
	var plans []ingest.Plan
	for _, p := range paths {
		id, _, _ := strings.Cut(filepath.Base(p), "@")
		plans = append(plans, ingest.Plan{Document: id, Files: []ingest.File{{Path: p, SourceID: "docs", Publisher: "p", URL: "https://example.org/" + filepath.Base(p), Role: ingest.RoleData}}})
	}
	return plans, err
}

func (d docs) Build(p ingest.Plan) (*ingest.Build, error) {
	d.builds.Add(1)
	f := p.Files[0]
	file, err := os.Open(f.Path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	rows := ingest.NewRows(d.c)
	name := filepath.Base(f.Path)
	asOf := ""
	sc := bufio.NewScanner(file)
	for n := 1; sc.Scan(); n++ {
		parts := strings.Fields(sc.Text())
		if parts[0] == "date" {
			asOf = parts[1]
			continue
		}
		price, err := strconv.ParseFloat(parts[2], 64)
		if err != nil {
			return nil, err
		}
		year, _ := strconv.Atoi(parts[1][:4])
		rows.Add(ingest.Lineage{SourceID: f.SourceID, File: name, Sheet: "lines", Row: n, SHA256: f.SHA256}).
			Set("atom", "us_electric_power_monthly").Set("series_id", parts[0]).Set("period", parts[1]).
			Set("year", year).Set("month", parts[1]).SetCell("price", 3, price).Set("unit", "USD/Mcf").
			Key(parts[0] + ":" + parts[1])
	}
	facts, err := rows.Finish(asOf)
	if err != nil {
		return nil, err
	}
	src := f.Source()
	src.Release = asOf
	return &ingest.Build{AsOf: asOf, Rows: facts, Sources: []snapshots.Source{src}, Cells: rows.Cells(),
		Coverage: []snapshots.Coverage{{Where: map[string]string{"year": asOf[:4]}, Period: "the year " + asOf[:4], File: name, Covered: "through " + asOf, Complete: "a later version"}}}, nil
}

func writeDocs(t *testing.T, raw string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(raw, "docs", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sourceFiles lists the data files of a snapshot, sorted.
func sourceFiles(o ingest.Outcome) []string {
	m := o.Manifest
	var out []string
	for _, s := range m.Sources {
		out = append(out, "source "+s.File)
	}
	slices.Sort(out)
	return out
}

// TestDocumentsCompose: the snapshot at each document's date holds the newest version of every
// document published on or before it; a later version replaces its document (never added
// beside it), earlier snapshots keep the earlier version, and an ingest of the same files
// reads nothing again.
func TestDocumentsCompose(t *testing.T) {
	raw := t.TempDir()
	writeDocs(t, raw, map[string]string{
		"A@1.txt": "date 2020-01-31\nS1 2020-01 1.0\n",
		"B@1.txt": "date 2020-02-29\nS2 2020-01 5.0\nS2 2020-02 6.0\n",
		"A@2.txt": "date 2020-03-31\nS1 2020-01 1.0\nS1 2020-02 2.0\nS1 2020-03 3.0\n",
	})
	store := &snapshots.Store{Dir: t.TempDir()}
	builds := &atomic.Int32{}
	a := docs{c: capability.NaturalGasPrices, builds: builds}
	outcomes, err := ingest.Run(raw, store, []ingest.Adapter{a}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		asOf    string
		rows    int
		sources []string
		docs    []string
	}{
		{"2020-01-31", 1, []string{"source A@1.txt"}, []string{"A@2020-01-31"}},
		{"2020-02-29", 3, []string{"source A@1.txt", "source B@1.txt"}, []string{"A@2020-01-31", "B@2020-02-29"}},
		{"2020-03-31", 5, []string{"source A@2.txt", "source B@1.txt"}, []string{"B@2020-02-29", "A@2020-03-31"}},
	}
	if len(outcomes) != len(want) {
		t.Fatalf("%d outcomes, want %d: %+v", len(outcomes), len(want), outcomes)
	}
	for i, w := range want {
		o := outcomes[i]
		var ds []string
		for _, d := range o.Manifest.Documents {
			ds = append(ds, d.ID+"@"+d.AsOf)
		}
		if o.AsOf != w.asOf || o.Status != snapshots.Promoted || o.Rows != w.rows ||
			!slices.Equal(sourceFiles(o), w.sources) || !slices.Equal(ds, w.docs) {
			t.Errorf("snapshot %d: %s %s %d rows, sources %v, documents %v; want %+v (%v)", i, o.AsOf, o.Status, o.Rows, sourceFiles(o), ds, w, o.Reasons)
		}
	}
	// Each snapshot keeps only the coverage of the documents it holds.
	if cv := outcomes[2].Manifest.Coverage; len(cv) != 2 || cv[0].File != "B@1.txt" || cv[1].File != "A@2.txt" {
		t.Errorf("coverage of the last snapshot %+v", cv)
	}
	if outcomes[2].PreviousAsOf != "2020-02-29" || outcomes[2].PreviousRows != 3 {
		t.Errorf("previous snapshot %s with %d rows", outcomes[2].PreviousAsOf, outcomes[2].PreviousRows)
	}
	n := builds.Load()
	again, err := ingest.Run(raw, store, []ingest.Adapter{a}, io.Discard)
	if err != nil || len(again) != 3 || !again[2].Unchanged || builds.Load() != n {
		t.Fatalf("again: %+v %v; %d builds more", again, err, builds.Load()-n)
	}
}

// TestDocumentsOverlap: a row two documents of different identity publish is served from the
// newer publication, with the earlier one's value and citation (as of its own date) beside
// it; without a declared overlap the repeated row fails natural_key_unique; two versions of a
// document on the same date cannot be ordered and fail that date's snapshot.
func TestDocumentsOverlap(t *testing.T) {
	files := map[string]string{
		"US@1.txt":    "date 2022-04-29\nN3045US3 2022-01 6.15\nN3045US3 2022-02 6.26\n",
		"STATE@1.txt": "date 2023-02-28\nN3045US3 2022-01 6.97\nN3045US3 2022-02 6.26\nN3045US3 2022-03 7.0\n",
	}
	raw := t.TempDir()
	writeDocs(t, raw, files)
	store := &snapshots.Store{Dir: t.TempDir()}
	outcomes, err := ingest.Run(raw, store, []ingest.Adapter{docs{c: capability.NaturalGasPrices, builds: &atomic.Int32{}}}, io.Discard)
	if err != nil || len(outcomes) != 2 {
		t.Fatalf("%+v %v", outcomes, err)
	}
	m := outcomes[1].Manifest
	if m.Rows != 3 || len(m.Revisions) != 1 {
		t.Fatalf("%d rows, revisions %+v (%v)", m.Rows, m.Revisions, m.Reasons)
	}
	r := m.Revisions[0]
	if r.Key != "N3045US3:2022-01" || r.Values[0].Served != 6.97 || r.Values[0].Earlier != 6.15 ||
		r.Earlier.File != "US@1.txt" || r.Earlier.Row != 2 || r.Earlier.AsOf != "2022-04-29" || r.Served.File != "STATE@1.txt" || r.Served.AsOf != "2023-02-28" {
		t.Errorf("revision %+v", r)
	}
	// The earlier document's partial year is covered by the later one: only its coverage stands.
	if len(m.Coverage) != 1 || m.Coverage[0].File != "STATE@1.txt" {
		t.Errorf("coverage %+v", m.Coverage)
	}
	gate := func(m *snapshots.Manifest, name string) snapshots.Gate {
		for _, g := range m.Gates {
			if g.Name == name {
				return g
			}
		}
		return snapshots.Gate{}
	}
	if g := gate(m, "document_overlap"); !g.Passed || !strings.Contains(g.Detail, "2 rows published by more than one document") {
		t.Errorf("overlap gate %+v", g)
	}

	plain := *capability.NaturalGasPrices
	plain.Documents.Overlap = ""
	outcomes, err = ingest.Run(raw, &snapshots.Store{Dir: t.TempDir()}, []ingest.Adapter{docs{c: &plain, builds: &atomic.Int32{}}}, io.Discard)
	if err != nil || len(outcomes) != 2 || outcomes[1].Status != snapshots.Rejected || gate(outcomes[1].Manifest, "natural_key_unique").Passed {
		t.Fatalf("without a declared overlap: %+v %v", outcomes, err)
	}

	writeDocs(t, raw, map[string]string{"US@2.txt": "date 2022-04-29\nN3045US3 2022-01 6.16\n"})
	outcomes, err = ingest.Run(raw, &snapshots.Store{Dir: t.TempDir()}, []ingest.Adapter{docs{c: capability.NaturalGasPrices, builds: &atomic.Int32{}}}, io.Discard)
	if err == nil || outcomes[0].Status != ingest.Failed || !strings.Contains(fmt.Sprint(outcomes[0].Reasons), "two versions of document US are both dated 2022-04-29") {
		t.Fatalf("two versions on one date: %+v %v", outcomes, err)
	}
}

// TestDocumentCutShort: a new version of one document that gives fewer than half the rows it
// gave in the snapshot compared with is rejected by row_count_not_collapsed, though the other
// documents keep the snapshot's total up.
func TestDocumentCutShort(t *testing.T) {
	raw := t.TempDir()
	var many strings.Builder
	for m := 1; m <= 12; m++ {
		fmt.Fprintf(&many, "S2 2019-%02d 5.0\n", m)
	}
	writeDocs(t, raw, map[string]string{
		"A@1.txt": "date 2020-01-31\nS1 2019-01 1.0\nS1 2019-02 2.0\nS1 2019-03 3.0\nS1 2019-04 4.0\n",
		"B@1.txt": "date 2020-01-31\n" + many.String(),
	})
	store := &snapshots.Store{Dir: t.TempDir()}
	a := docs{c: capability.NaturalGasPrices, builds: &atomic.Int32{}}
	if _, err := ingest.Run(raw, store, []ingest.Adapter{a}, io.Discard); err != nil {
		t.Fatal(err)
	}
	writeDocs(t, raw, map[string]string{"A@2.txt": "date 2020-02-29\nS1 2019-01 1.0\n"})
	outcomes, err := ingest.Run(raw, store, []ingest.Adapter{a}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	o := outcomes[len(outcomes)-1]
	if o.AsOf != "2020-02-29" || o.Status != snapshots.Rejected || !strings.Contains(strings.Join(o.Reasons, " "), "document A gives 1 rows against 4") {
		t.Fatalf("%s %s %v", o.AsOf, o.Status, o.Reasons)
	}
}
