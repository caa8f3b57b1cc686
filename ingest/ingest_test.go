package ingest_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/eia"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/snapshots"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// broken is an adapter whose planning fails.
type broken struct{}

func (broken) Capability() *capability.Capability { return capability.PowerCapacity }
func (broken) Version() string                    { return "broken/1" }
func (broken) Folders() []string                  { return []string{"eia/eia860m"} }
func (broken) Plan(*ingest.Finder) ([]ingest.Plan, error) {
	return nil, errors.New("the publisher changed its layout")
}
func (broken) Build(ingest.Plan) (*ingest.Build, error) { return nil, errors.New("unreachable") }
func (broken) Known() []fetch.Source                    { return nil }

// TestRunGoesOnPastAFailedAdapter: one adapter failing does not stop the others; the
// failure is an outcome of its own and Run's error names it.
func TestRunGoesOnPastAFailedAdapter(t *testing.T) {
	raw := testenv.Raw(t)
	store := &snapshots.Store{Dir: t.TempDir()}
	outcomes, err := ingest.Run(raw, store, []ingest.Adapter{broken{}, eia.NaturalGasPrices}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "power.capacity") {
		t.Fatalf("error %v, want one naming power.capacity", err)
	}
	// The natural gas workbooks are three documents: a snapshot per release date.
	if len(outcomes) != 4 {
		t.Fatalf("%d outcomes, want 4: %+v", len(outcomes), outcomes)
	}
	if outcomes[0].Status != ingest.Failed || !strings.Contains(strings.Join(outcomes[0].Reasons, " "), "changed its layout") {
		t.Errorf("first outcome %+v", outcomes[0])
	}
	for _, o := range outcomes[1:] {
		if o.Capability != capability.NaturalGasPrices.ID || o.Status != snapshots.Promoted {
			t.Errorf("outcome %+v", o)
		}
	}
	cat, err := store.ReadCatalog()
	if err != nil || len(cat.Promoted[capability.NaturalGasPrices.ID]) != 3 || len(cat.Promoted[capability.PowerCapacity.ID]) != 0 {
		t.Errorf("catalog %+v %v", cat, err)
	}
}

// TestFinderStaysInItsFolders: a file of the same name in another publisher's folder is not
// found.
func TestFinderStaysInItsFolders(t *testing.T) {
	root := t.TempDir()
	for _, rel := range []string{"eia/ng_prices/data.csv", "iso/miso/data.csv", "eia/ng_prices/sub/data.csv", "data.csv"} {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ingest.NewFinder(root, []string{"eia/ng_prices", "eia/absent"}).Named("data.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(root, "eia/ng_prices/data.csv"), filepath.Join(root, "eia/ng_prices/sub/data.csv")}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("found %v, want %v", got, want)
	}
}

// TestRowsRefuseWhatTheDefinitionDoesNot: an unknown field, a value of the wrong type, a
// malformed date and a row without its key fail the build; a good row gets its lineage and
// common fields.
func TestRowsRefuseWhatTheDefinitionDoesNot(t *testing.T) {
	lin := ingest.Lineage{SourceID: "s", File: "f.xls", Sheet: "Data 1", Row: 7, SHA256: strings.Repeat("a", 64)}
	cases := []struct {
		name string
		fill func(r *ingest.Row)
		want string
	}{
		{"misspelt field", func(r *ingest.Row) { r.Key("k").Set("prise", 1.0) }, "prise is not a field"},
		{"lineage column", func(r *ingest.Row) { r.Key("k").Set(capability.ColSourceRow, int64(1)) }, "is not a field"},
		{"text in a number", func(r *ingest.Row) { r.Key("k").Set("price", "2.5") }, "field price"},
		{"float in an integer", func(r *ingest.Row) { r.Key("k").Set("year", 2024.5) }, "field year"},
		{"bad date", func(r *ingest.Row) { r.Key("k").Set("observation_date", "2024-13-01") }, "not a YYYY-MM-DD date"},
		{"no key", func(r *ingest.Row) { r.Set("price", 2.5) }, "no source_record_key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rs := ingest.NewRows(capability.NaturalGasPrices)
			tc.fill(rs.Add(lin))
			_, err := rs.Finish("2024-07-10")
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "f.xls Data 1 row 7") {
				t.Fatalf("error %v, want one containing %q and the row", err, tc.want)
			}
		})
	}
	rs := ingest.NewRows(capability.NaturalGasPrices)
	rs.Add(lin).Key("RNGWHHD:2024-07-09").Set("year", 2024).SetCell("period", 1, "2024-07-09").Set("series_id", "RNGWHHD").SetCell("price", 2, 2.42)
	rows, err := rs.Finish("2024-07-10")
	if err != nil {
		t.Fatal(err)
	}
	cols := snapshots.Columns(capability.NaturalGasPrices)
	got := map[string]any{}
	for i, f := range cols {
		got[f.Name] = rows[0][i]
	}
	for k, v := range map[string]any{"source_id": "s", "as_of": "2024-07-10", "source_row_number": int64(7), "raw_file_sha256": lin.SHA256,
		"year": int64(2024), "price": 2.42, capability.ColSourceFile: "f.xls", capability.ColSheet: "Data 1", capability.ColSourceRow: int64(7)} {
		if got[k] != v {
			t.Errorf("%s = %v (%T), want %v", k, got[k], got[k], v)
		}
	}
	if col := rs.Cells()[ingest.CellKey{File: "f.xls", Sheet: "Data 1"}]["period"]; col != 1 {
		t.Errorf("period read from column %d, want 1", col)
	}
	// The same field read from another column on another row.
	other := lin
	other.Row = 8
	rs.Add(other).Key("RNGWHHD:2024-07-08").SetCell("period", 3, "2024-07-08")
	for row, want := range map[int]int{7: 1, 8: 3, 9: 1} {
		if got := ingest.CellColumn(rs.Cells(), "f.xls", "Data 1", row, "period"); got != want {
			t.Errorf("row %d: period column %d, want %d", row, got, want)
		}
	}
	// price's column is chosen by series_id (a wide sheet: one column per series): recorded
	// by series, on the rows of every series of one sheet row.
	rs.Add(lin).Key("N3045TX3:2024-07").Set("series_id", "N3045TX3").SetCell("price", 5, 3.1)
	for by, want := range map[string]int{"RNGWHHD": 2, "N3045TX3": 5, "N3045CA3": 0} {
		if got := ingest.CellColumnBy(rs.Cells(), "f.xls", "Data 1", by, "price"); got != want {
			t.Errorf("series %s: price column %d, want %d", by, got, want)
		}
	}
	if _, err := rs.Finish("2024-07-10"); err != nil {
		t.Fatal(err)
	}
	// One series read from two columns of a sheet, or before its series is set, fails the build.
	for name, fill := range map[string]func(*ingest.Row){
		"two columns": func(r *ingest.Row) { r.Set("series_id", "RNGWHHD").SetCell("price", 4, 1.0) },
		"no series":   func(r *ingest.Row) { r.SetCell("price", 4, 1.0) },
	} {
		rs2 := ingest.NewRows(capability.NaturalGasPrices)
		rs2.Add(lin).Key("a").Set("series_id", "RNGWHHD").SetCell("price", 2, 2.42)
		fill(rs2.Add(lin).Key("b"))
		if _, err := rs2.Finish("2024-07-10"); err == nil || !strings.Contains(err.Error(), "price") {
			t.Errorf("%s: %v, want the build to fail naming price", name, err)
		}
	}
}

// TestEarlierSchemaSnapshotStands: a data directory that serves a snapshot written at schema
// version 1 from the same files keeps it when they are ingested again (reported unchanged,
// nothing rewritten), so its pinned as_of keeps its snapshot; an empty directory gets the
// current version. The version 1 fingerprint is computed here from the manifest's sources.
func TestEarlierSchemaSnapshotStands(t *testing.T) {
	raw := testenv.Raw(t)
	store := &snapshots.Store{Dir: t.TempDir()}
	adapter := eia.NaturalGasPrices
	first, err := ingest.Run(raw, store, []ingest.Adapter{adapter}, io.Discard)
	if err != nil || len(first) != 3 || first[2].Status != snapshots.Promoted {
		t.Fatalf("first ingest: %+v, %v", first, err)
	}
	// The latest snapshot, of every natural gas workbook (documents that complement each
	// other): its fingerprint covers all their files.
	m := first[2].Manifest
	if m.SchemaVersion != snapshots.SchemaVersion {
		t.Fatalf("schema version %d, want %d", m.SchemaVersion, snapshots.SchemaVersion)
	}
	// Make it the snapshot an ingest at schema version 1 wrote.
	var parts []string
	for _, s := range m.Sources {
		parts = append(parts, s.Role+":"+s.File+":"+s.SHA256)
	}
	sort.Strings(parts)
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\n%d\n%s\n%s", m.Capability, 1, adapter.Version(), strings.Join(parts, "\n"))))
	old := *m
	old.Fingerprint, old.SchemaVersion = hex.EncodeToString(sum[:])[:16], 1
	old.Dir = store.SnapshotDir(m.Capability, m.AsOf, old.Fingerprint)
	if err := os.Rename(m.Dir, old.Dir); err != nil {
		t.Fatal(err)
	}
	if err := snapshots.WriteJSONAtomic(filepath.Join(old.Dir, snapshots.ManifestFile), &old); err != nil {
		t.Fatal(err)
	}
	cat, err := store.ReadCatalog()
	if err != nil {
		t.Fatal(err)
	}
	cat.Promoted[m.Capability][m.AsOf] = old.Fingerprint
	if err := snapshots.WriteJSONAtomic(store.CatalogPath(), cat); err != nil {
		t.Fatal(err)
	}
	again, err := ingest.Run(raw, store, []ingest.Adapter{adapter}, io.Discard)
	if err != nil || len(again) != 3 || !again[2].Unchanged || again[2].Status != snapshots.Promoted || again[2].Manifest.Fingerprint != old.Fingerprint {
		t.Fatalf("second ingest: %+v, %v; want the schema 1 snapshot %s unchanged", again, err, old.Fingerprint)
	}
	cat, err = store.ReadCatalog()
	if err != nil || cat.Promoted[m.Capability][m.AsOf] != old.Fingerprint {
		t.Fatalf("catalog %+v %v, want %s promoted", cat, err, old.Fingerprint)
	}
	if _, err := os.Stat(m.Dir); !os.IsNotExist(err) {
		t.Fatalf("a schema %d snapshot was written beside the version 1 one: %v", snapshots.SchemaVersion, err)
	}
}
