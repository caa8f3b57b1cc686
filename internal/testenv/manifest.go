package testenv

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ManifestRow is a line of a family's MANIFEST.tsv under the raw folder, its cells read by the
// header's column names.
type ManifestRow struct {
	Family       string // the folder under the raw folder whose MANIFEST.tsv lists it
	RelativePath string // relative_path, below the family's folder
	OfficialURL  string // official_source_url
	SHA256       string // sha256
	Derived      string // derived: "no", "yes", or either followed by the reason
}

// IsDerived says whether the row's derived column says yes ("yes (third-party ...)" included).
func (m ManifestRow) IsDerived() bool { return strings.HasPrefix(m.Derived, "yes") }

// Manifest reads the MANIFEST.tsv of each family named (every family under raw when none is),
// failing the test when one is missing, lacks a column, or lists no file.
func Manifest(t testing.TB, raw string, families ...string) []ManifestRow {
	t.Helper()
	if len(families) == 0 {
		paths, err := filepath.Glob(filepath.Join(raw, "*", "MANIFEST.tsv"))
		if err != nil || len(paths) == 0 {
			t.Fatalf("no MANIFEST.tsv under %s (%v)", raw, err)
		}
		for _, p := range paths {
			families = append(families, filepath.Base(filepath.Dir(p)))
		}
	}
	var out []ManifestRow
	for _, fam := range families {
		p := filepath.Join(raw, fam, "MANIFEST.tsv")
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var col map[string]int
		n := 0
		for sc.Scan() {
			cells := strings.Split(sc.Text(), "\t")
			if col == nil {
				col = map[string]int{}
				for i, h := range cells {
					col[h] = i
				}
				for _, h := range []string{"relative_path", "official_source_url", "sha256", "derived"} {
					if _, ok := col[h]; !ok {
						f.Close()
						t.Fatalf("%s has no %s column", p, h)
					}
				}
				continue
			}
			cell := func(h string) string {
				if i := col[h]; i < len(cells) {
					return cells[i]
				}
				return ""
			}
			out = append(out, ManifestRow{fam, cell("relative_path"), cell("official_source_url"), cell("sha256"), cell("derived")})
			n++
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if n == 0 {
			t.Fatalf("%s lists no file", p)
		}
	}
	return out
}
