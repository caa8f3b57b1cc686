package ferc

import (
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/citeq/citeq/capability"
)

func TestConceptsAreTheCapabilitys(t *testing.T) {
	var ours []string
	for c := range concepts {
		ours = append(ours, c)
	}
	theirs := append([]string(nil), capability.PlantCostConcepts...)
	sort.Strings(ours)
	sort.Strings(theirs)
	if !slices.Equal(ours, theirs) {
		t.Errorf("adapter concepts %v\ncapability enum %v", ours, theirs)
	}
	lines := map[int]string{}
	for name, c := range concepts {
		if c.line == 0 {
			continue
		}
		if prev, dup := lines[c.line]; dup {
			t.Errorf("line %d is both %s and %s", c.line, prev, name)
		}
		lines[c.line] = name
		if (c.line >= 36) != (c.part == partFuel) {
			t.Errorf("%s: line %d in part %s", name, c.line, c.part)
		}
	}
	if len(lines) != 44 {
		t.Errorf("%d lines, want 44", len(lines))
	}
}

func TestLocalUnit(t *testing.T) {
	for raw, want := range map[string]string{
		"iso4217:USD": "USD", "utr:MW": "MW", "iso4217:USD/utr:kW": "USD/kW", "utr:Btu/utr:kWh": "Btu/kWh",
		"pure": "pure", "xbrli:pure": "pure", "iso4217:USD*xbrli:shares/utr:kWh": "USD*shares/kWh", "": "",
	} {
		if got := localUnit(raw); got != want {
			t.Errorf("localUnit(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestLatest(t *testing.T) {
	f := func(name, attest, report, sub string) *filing {
		return &filing{name: name, attestation: attest, reportDate: report, submission: sub}
	}
	cases := []struct {
		name  string
		in    []*filing
		want  string
		clear bool
	}{
		{"one", []*filing{f("a", "2024-04-09", "2024-04-09", "O")}, "a", true},
		{"later attestation", []*filing{f("o", "2024-04-18", "2024-04-18", "O"), f("r", "2024-05-28", "2024-05-28", "R")}, "r", true},
		{"report date when no attestation", []*filing{f("o", "", "2022-04-15", "O"), f("r", "", "2022-10-19", "R")}, "r", true},
		{"resubmission on the same dates", []*filing{f("r", "2022-04-15", "2022-04-15", "R"), f("o", "2022-04-15", "2022-04-15", "O")}, "r", true},
		{"indistinguishable", []*filing{f("a", "2022-04-15", "2022-04-15", "R"), f("b", "2022-04-15", "2022-04-15", "R")}, "a", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, clear := latest(tc.in)
			if got.name != tc.want || clear != tc.clear {
				t.Errorf("latest = %s, %v; want %s, %v", got.name, clear, tc.want, tc.clear)
			}
		})
	}
}

func TestKnownAndSourceURL(t *testing.T) {
	for _, k := range (Form1{}).Known() {
		if got := sourceURL(filepath.Base(k.Dest)); got != k.URL {
			t.Errorf("%s is cited at %s but downloaded from %s", k.Dest, got, k.URL)
		}
	}
	// A fixture is named as a filing added by its document number: <document>-<instance>.
	for name, want := range map[string]string{
		"232550-wk-20231231.xml":                "https://ecollection.ferc.gov/api/DownloadDocument/232550/1?filename=wk-20231231.xml",
		"Some_Company_form1_Q4_1650309683.xbrl": "https://ecollection.ferc.gov/ (an eForms filing; the file name does not carry its document number)",
	} {
		if got := sourceURL(name); got != want {
			t.Errorf("sourceURL(%s) = %s, want %s", name, got, want)
		}
	}
}

func TestPlantEntry(t *testing.T) {
	for name, want := range map[string]string{
		"ROCKPORT UNIT 1 AEG": entryPlant, "ROCKPORT TOTAL AEG": entryTotal, "ROCKPORT TOTAL PLANT": entryTotal,
		"Total Steam": entryTotal, "Totals": entryTotal, "Subtotaling": entryPlant, "Jeffrey (JEC)": entryPlant, "Warrick Unit #4": entryPlant,
		"0": entryPlaceholder, "$—": entryPlaceholder, " 12 ": entryPlaceholder, "Broadway 1": entryPlant,
	} {
		if got := plantEntry(name); got != want {
			t.Errorf("plantEntry(%q) = %s, want %s", name, got, want)
		}
	}
}
