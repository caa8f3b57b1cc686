package api_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/citeq/citeq/internal/testenv"
)

// TestCapabilitiesSayDerived checks /v1/capabilities against the MANIFESTs: a capability whose
// latest snapshot reads a file the MANIFEST marks derived says derived: true and lists that file
// with the publisher's address, and one that reads none says derived: false. The four
// capabilities of the FERC, MISO, PJM and EIA-923 page 5 files are among those served.
func TestCapabilitiesSayDerived(t *testing.T) {
	manifest := map[string]bool{}
	for _, m := range testenv.Manifest(t, testenv.Raw(t)) {
		manifest[m.SHA256] = m.IsDerived()
	}
	srv := newServer(t, testenv.Data(t))
	_, body := get(t, srv, "/v1/capabilities")
	var list struct {
		Capabilities []struct {
			ID           string `json:"capability"`
			Path         string `json:"path"`
			Derived      *bool  `json:"derived"`
			DerivedFiles []struct {
				File        string `json:"source_file"`
				OriginalURL string `json:"original_url"`
			} `json:"derived_files"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatal(err)
	}
	derived := map[string]bool{}
	for _, c := range list.Capabilities {
		if c.Derived == nil {
			continue // a join of other capabilities: no files of its own
		}
		derived[c.ID] = *c.Derived
		_, sb := get(t, srv, "/v1/"+c.Path+"/schema")
		var schema struct {
			Sources []struct {
				File   string `json:"source_file"`
				SHA256 string `json:"raw_file_sha256"`
			} `json:"sources"`
		}
		if err := json.Unmarshal(sb, &schema); err != nil {
			t.Fatalf("%s schema: %v", c.ID, err)
		}
		var want []string
		for _, src := range schema.Sources {
			yes, listed := manifest[src.SHA256]
			if !listed {
				t.Errorf("%s: %s (%s) is in no MANIFEST.tsv", c.ID, src.File, src.SHA256)
			}
			if yes {
				want = append(want, src.File)
			}
		}
		var got []string
		for _, f := range c.DerivedFiles {
			got = append(got, f.File)
			if !strings.HasPrefix(f.OriginalURL, "https://") {
				t.Errorf("%s: derived file %s has original_url %q", c.ID, f.File, f.OriginalURL)
			}
		}
		slices.Sort(want)
		slices.Sort(got)
		if *c.Derived != (len(want) > 0) || !slices.Equal(got, want) {
			t.Errorf("%s: derived %v, derived_files %v; the MANIFESTs mark %v derived", c.ID, *c.Derived, got, want)
		}
	}
	for id, want := range map[string]bool{
		"power.plant_costs":                false,
		"power.capacity_market_miso":       true,
		"power.capacity_accreditation_pjm": true,
		"power.fuel_cost":                  true,
		"power.capacity":                   false,
	} {
		got, ok := derived[id]
		if !ok || got != want {
			t.Errorf("%s: listed %v, derived %v, want listed and derived %v", id, ok, got, want)
		}
	}
}
