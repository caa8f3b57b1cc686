package fcc_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/citeq/citeq/ingest/fcc"
	"github.com/citeq/citeq/internal/testenv"
)

// schemaTables reads the create table statements of ibfs.txt: each table's columns, in
// order, with their types as declared.
func schemaTables(t *testing.T, text string) map[string][]fcc.IBFSColumn {
	t.Helper()
	tables := map[string][]fcc.IBFSColumn{}
	start := regexp.MustCompile(`(?m)^create table (\w+)\s*\n\(\s*\n`)
	for _, m := range start.FindAllStringSubmatchIndex(text, -1) {
		name := text[m[2]:m[3]]
		body := text[m[1]:]
		body = body[:strings.Index(body, "\n)")]
		var cols []fcc.IBFSColumn
		for _, line := range strings.Split(body, "\n") {
			f := strings.Fields(line)
			if len(f) < 2 {
				t.Fatalf("table %s: column line %q", name, line)
			}
			cols = append(cols, fcc.IBFSColumn{Name: f[0], Type: f[1]})
		}
		tables[name] = cols
	}
	return tables
}

// TestLayoutIsTheSchemas compares the adapter's layouts of tables MAIN and ADDRESS with
// the FCC's own schema of the export, space/fcc_ibfs_schema/ibfs.txt (read through
// CITEQ_RAW), column by column, and checks the record end the schema's note states.
func TestLayoutIsTheSchemas(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testenv.Raw(t), "space", "fcc_ibfs_schema", "ibfs.txt"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if !strings.Contains(text, "All records are now terminated with a |^|CRLF") {
		t.Error("the schema's note on the record end (|^| and CRLF) is not there")
	}
	tables := schemaTables(t, text)
	if len(tables) != 119 {
		t.Errorf("%d tables read from ibfs.txt, it declares 119", len(tables))
	}
	for name, ours := range map[string][]fcc.IBFSColumn{"MAIN": fcc.MainLayout, "ADDRESS": fcc.AddressLayout} {
		theirs := tables[name]
		if len(theirs) != len(ours) {
			t.Errorf("%s: the schema has %d columns, the adapter's layout %d", name, len(theirs), len(ours))
		}
		for i := range min(len(theirs), len(ours)) {
			if theirs[i] != ours[i] {
				t.Errorf("%s column %d: the schema has %s %s, the adapter %s %s", name, i+1, theirs[i].Name, theirs[i].Type, ours[i].Name, ours[i].Type)
			}
		}
	}
	if n := len(tables["MAIN"]); n != 53 {
		t.Errorf("MAIN has %d columns in the schema, 53 expected", n)
	}
}

// TestLiveDumpShape: MAIN records as the live dump writes them, with some 18 fields beyond
// the schema's 53 at the end, file numbers without dashes and Sybase datetimes
// ("Jun 18 2025  4:50:24:023PM"), are read as the schema's records are: the trailing fields
// are left unread and no gate fails.
func TestLiveDumpShape(t *testing.T) {
	extra := strings.Repeat("|X", 17) + "|"
	raw := copyFixtures(t, fcc.IBFSFolder, "main.dat", func(s string) string {
		return strings.ReplaceAll(s, "|^|\r\n", extra+"|^|\r\n")
	})
	b, failed := build(t, fcc.Filings{}, raw)
	if len(failed) > 0 {
		t.Fatalf("records of 71 fields fail %v", failed)
	}
	want, _ := build(t, fcc.Filings{}, fixtures(t))
	if len(b.Rows) != len(want.Rows) || b.AsOf != want.AsOf {
		t.Errorf("%d rows as of %s, the schema's records give %d as of %s", len(b.Rows), b.AsOf, len(want.Rows), want.AsOf)
	}
	for i := range b.Rows {
		for j := range b.Rows[i] {
			if b.Rows[i][j] != want.Rows[i][j] {
				t.Fatalf("row %d column %d: %v, the schema's record gives %v", i, j, b.Rows[i][j], want.Rows[i][j])
			}
		}
	}
}
