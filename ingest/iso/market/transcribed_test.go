package market_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/iso/market"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/snapshots"
)

// The transcriptions (a third party's copies of MISO's and PJM's tables, iso/miso/pra_derived
// and iso/pjm/elcc_derived) are read from the raw files; the tests that damage them edit a
// copy in a temporary raw directory.

const (
	misoACPFile  = "miso_pra_auction_clearing_prices_transcribed.csv"
	misoCONEFile = "miso_pra_cone_prm_rbdc_transcribed_EXCERPT.csv"
	pjmELCCFile  = "pjm_elcc_class_ratings_DY2025-2028_transcribed_EXCERPT.csv"
)

// buildOne plans a's files under raw, expects one plan, hashes and builds it.
func buildOne(t *testing.T, a ingest.Adapter, raw string) (ingest.Plan, *ingest.Build) {
	t.Helper()
	plans, err := a.Plan(ingest.NewFinder(raw, a.Folders()))
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) != 1 {
		t.Fatalf("%d plans, want one", len(plans))
	}
	p := plans[0]
	testenv.HashPlan(t, &p)
	b, err := a.Build(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, b
}

// atomsOf is the rows of b as atoms of capability c, by field name.
func atomsOf(c *capability.Capability, b *ingest.Build) []atom {
	cols := snapshots.Columns(c)
	var out []atom
	for _, r := range b.Rows {
		a := atom{}
		for i, f := range cols {
			a[f.Name] = r[i]
		}
		out = append(out, a)
	}
	return out
}

// failed lists the gates of b that failed, with their details.
func failed(b *ingest.Build) map[string]string {
	out := map[string]string{}
	for _, g := range b.Checks {
		if !g.Passed {
			out[g.Name] = g.Detail
		}
	}
	return out
}

// editedRaw copies the raw files of folder into a new raw directory, with file name
// rewritten by edit (its text in, its text out).
func editedRaw(t *testing.T, folder, name string, edit func(string) string) string {
	t.Helper()
	src := filepath.Join(testenv.Raw(t), filepath.FromSlash(folder))
	dir := t.TempDir()
	dst := filepath.Join(dir, filepath.FromSlash(folder))
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if e.Name() == name {
			if text = edit(text); text == string(b) {
				t.Fatalf("the edit changed nothing in %s", name)
			}
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestMISOTranscriptionAtoms reads the transcriptions of MISO's postings: the ACP of zones 1
// to 10 in each season of planning years 2024-2025 and 2025-2026, the fall 2025 ERZ range as
// quoted, the seasonal CONE of both subregions (which the transcriber files under net_cone)
// and the annual CONE of 2024-2025 to 2026-2027 in the unit stated, each atom naming the MISO
// document and page it was transcribed from; what the contract does not answer is left out.
func TestMISOTranscriptionAtoms(t *testing.T) {
	t.Parallel()
	p, b := buildOne(t, market.MISOAuctionTranscribed, testenv.Raw(t))
	if len(failed(b)) > 0 {
		t.Fatalf("gates failed: %v", failed(b))
	}
	if b.AsOf != "2025-10-15" {
		t.Errorf("as_of %s, want 2025-10-15 (the ER26-139 filing, the latest document cited)", b.AsOf)
	}
	for _, f := range p.Files {
		if !f.Derived || f.OriginalURL != "https://www.misoenergy.org/planning/resource-adequacy/" || !strings.HasPrefix(f.URL, "https://github.com/jessicacohen554-cyber/market-simulator/blob/") {
			t.Errorf("%s: derived %v, original %q, copy %q", filepath.Base(f.Path), f.Derived, f.OriginalURL, f.URL)
		}
	}
	byType := map[any]int{}
	byDocYear := map[string]int{}
	for _, a := range atomsOf(capability.PowerCapacityMarketMISO, b) {
		byType[a["atom_type"]]++
		byDocYear[a["report_period"].(string)+" "+a["planning_year"].(string)]++
		if a["scope"] == nil || a["original_document_url"] == nil || a["original_page"] == nil {
			t.Errorf("atom without scope, document or page: %v", a)
		}
		if a["imm_conduct_threshold_usd_mw_day"] != nil {
			t.Errorf("an IMM threshold read from a transcription that has none: %v", a)
		}
		switch a["atom_type"] {
		case "cone_annual":
			if a["cone_unit"] != "USD/MW-year" || a["season"] != nil {
				t.Errorf("annual CONE %v", a)
			}
		case "cone_seasonal":
			if a["cone_unit"] != "USD/MW-day" || a["zone"] != nil {
				t.Errorf("seasonal CONE %v", a)
			}
		case "acp":
			if a["scope"] != "zone" || a["cone_unit"] != nil {
				t.Errorf("ACP %v", a)
			}
		}
	}
	want := map[any]int{"acp": 80, "acp_erz_verbatim": 1, "cone_seasonal": 8, "cone_annual": 32}
	for k, n := range want {
		if byType[k] != n {
			t.Errorf("%d %s atoms, want %d (all: %v)", byType[k], k, n, byType)
		}
	}
	if len(byType) != len(want) {
		t.Errorf("atom types %v, want %v", byType, want)
	}
	for k, n := range map[string]int{"2024-04-25 2024-2025": 51, "2025-05-29 2025-2026": 60, "2025-10-15 2026-2027": 10} {
		if byDocYear[k] != n {
			t.Errorf("%d atoms of %s, want %d (all: %v)", byDocYear[k], k, n, byDocYear)
		}
	}
	find := func(py, season, zone, scope, atomType string) atom {
		for _, a := range atomsOf(capability.PowerCapacityMarketMISO, b) {
			if a["planning_year"] == py && (season == "" && a["season"] == nil || a["season"] == season) &&
				(zone == "" && a["zone"] == nil || a["zone"] == zone) && a["scope"] == scope && a["atom_type"] == atomType {
				return a
			}
		}
		t.Fatalf("no %s %s %s %s %s atom", py, season, zone, scope, atomType)
		return nil
	}
	for _, c := range []struct {
		py, season, zone, scope, atomType, field string
		want                                     any
		page                                     string
	}{
		{"2024-2025", "fall", "Z5", "zone", "acp", "acp_usd_mw_day", 719.81, "p.17, ZONE=5"},
		{"2025-2026", "fall", "Z10", "zone", "acp", "acp_usd_mw_day", 74.10, "p.19, ZONE=10"},
		{"2025-2026", "fall", "", "external_resource_zone", "acp_erz_verbatim", "acp_erz_verbatim", "$83.24-$91.60", "p.19, ERZ column"},
		{"2025-2026", "winter", "", "north_central_subregion", "cone_seasonal", "cone_usd_mw_day", 1415.13, "p.26 table, Winter 2025-26"},
		{"2025-2026", "", "Z1", "zone", "cone_annual", "cone_usd_mw_day", 127720.0, "p.26 table 'CONE (Annual)', LRZ 1"},
		{"2026-2027", "", "Z5", "zone", "cone_annual", "cone_usd_mw_day", 142970.0, "Attachment B"},
		{"2024-2025", "", "", "external_resource_zone", "cone_annual", "cone_usd_mw_day", 131725.0, "p.26 table 'Fall Auction Clearing Price Comparison'"},
	} {
		a := find(c.py, c.season, c.zone, c.scope, c.atomType)
		if a[c.field] != c.want || !strings.Contains(a["original_page"].(string), c.page) {
			t.Errorf("%s %s %s %s: %s %v on page %q, want %v on %q", c.py, c.season, c.zone, c.atomType, c.field, a[c.field], a["original_page"], c.want, c.page)
		}
	}
	if a := find("2026-2027", "", "Z5", "zone", "cone_annual"); a["report_period"] != "2025-10-15" || !strings.Contains(a["original_document_url"].(string), "ER26-139") {
		t.Errorf("2026-2027 CONE: %v", a)
	}
	detail := ""
	for _, g := range b.Checks {
		if g.Name == "cells_parse" {
			detail = g.Detail
		}
	}
	for _, s := range []string{"18 rows of planning years before 2024-2025", "12 rows of Net CONE", "16 rows of planning reserve margins", "8 rows of demand-curve points", "1 row of MISO system-wide clearing prices", "4 rows of MISO system-wide seasonal CONE"} {
		if !strings.Contains(detail, s) {
			t.Errorf("cells_parse does not account for %q: %s", s, detail)
		}
	}
}

// TestMISOTranscriptionRefuses damages a copy of a transcription one cell at a time: each
// damage fails its own gate, naming the cell.
func TestMISOTranscriptionRefuses(t *testing.T) {
	t.Parallel()
	const folder = "iso/miso/pra_derived"
	for _, c := range []struct {
		name, file, from, to, gate, says string
	}{
		{"a price in another unit", misoACPFile, "MISO,2024-2025,spring,LRZ 3,lrz,planning_resource_auction,34.10,usd_per_mw_day", "MISO,2024-2025,spring,LRZ 3,lrz,planning_resource_auction,34.10,usd_per_mw_yr", "cells_parse", "usd_per_mw_day expected"},
		{"a zone left out", misoACPFile, "MISO,2024-2025,winter,LRZ 7,", "", "sheets_complete", "ACP of 9 zones in winter"},
		{"an undated document", misoACPFile, "Posting%2020240425632665.pdf,\"p.16, ZONE=4\"", "Posting.pdf,\"p.16, ZONE=4\"", "cells_parse", "gives no posting or filing date"},
		{"another year's posting", misoACPFile, "MISO,2024-2025,summer,LRZ 9,lrz,planning_resource_auction,30.00,usd_per_mw_day,20225,https://cdn.misoenergy.org/2024%20PRA", "MISO,2024-2025,summer,LRZ 9,lrz,planning_resource_auction,30.00,usd_per_mw_day,20225,https://cdn.misoenergy.org/2023%20PRA", "cells_parse", "not planning year 2024-2025's"},
		{"no ERZ clearing", misoACPFile, "published as a RANGE '$83.24-$91.60'", "published as a range", "cells_parse", "no external resource zone clearing"},
		{"a CONE without unit", misoCONEFile, "MISO,2025-2026,LRZ 4,,gross_cone,,,,126040,usd_per_mw_yr", "MISO,2025-2026,LRZ 4,,gross_cone,,,,126040,", "cells_parse", "usd_per_mw_yr or usd_per_mw_day expected"},
		{"a seasonal CONE left out", misoCONEFile, "MISO,2025-2026,South,fall,net_cone,,,,1296.70,usd_per_mw_day,\"CONE (Seasonal)", "MISO,2025-2026,South,fall,net_cone,,,,1296.70,usd_per_mw_day,\"Net CONE (Seasonal)", "sheets_complete", "no fall seasonal CONE of south_subregion"},
		{"a renamed header", misoCONEFile, "y_value,y_unit", "value,y_unit", "headers_present", `lacks ["y_value"]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			raw := editedRaw(t, folder, c.file, func(s string) string {
				if c.to == "" { // drop the line
					i := strings.Index(s, c.from)
					return s[:i] + s[i+strings.Index(s[i:], "\n")+1:]
				}
				return strings.Replace(s, c.from, c.to, 1)
			})
			_, b := buildOne(t, market.MISOAuctionTranscribed, raw)
			f := failed(b)
			if !strings.Contains(f[c.gate], c.says) {
				t.Errorf("gate %s: %q, want it to say %q (failed: %v)", c.gate, f[c.gate], c.says, f)
			}
			if c.gate != "sheets_complete" && f["sheets_complete"] != "" {
				t.Errorf("sheets_complete failed too: %s", f["sheets_complete"])
			}
		})
	}
}

// TestPJMTranscriptionRatings reads the transcription of PJM's ELCC class ratings: the final
// ratings of the 2026/2027 and 2027/2028 base residual auctions and of the 2025/2026 Third
// Incremental Auction (not its base residual auction), with no posting date (the one the
// transcription gives for the 3IA set is not taken), installed MW where it is given, and
// each rating naming its PJM document and page.
func TestPJMTranscriptionRatings(t *testing.T) {
	t.Parallel()
	p, b := buildOne(t, market.PJMAccreditationTranscribed, testenv.Raw(t))
	if len(failed(b)) > 0 {
		t.Fatalf("gates failed: %v", failed(b))
	}
	if f := p.Files[0]; !f.Derived || f.OriginalURL != "https://www.pjm.com/planning/resource-adequacy-planning/effective-load-carrying-capability" {
		t.Errorf("derived %v, original %q", f.Derived, f.OriginalURL)
	}
	if b.AsOf != "2025-12-31" {
		t.Errorf("as_of %s, want 2025-12-31 (the year of PJM's 2025 ELCC report)", b.AsOf)
	}
	sets := map[string]int{}
	ratings := map[string]any{}
	for _, a := range atomsOf(capability.PowerCapacityAccreditationPJM, b) {
		set := a["document_kind"].(string) + " " + a["auction"].(string) + " " + a["delivery_year"].(string)
		sets[set]++
		ratings[set+" "+a["resource_class"].(string)] = a["rating_percent"]
		if a["posted_date"] != nil {
			t.Errorf("a posting date served: %v", a)
		}
		if strings.Contains(a["document_label"].(string), "3IA") && a["auction"] != "3IA" {
			t.Errorf("3IA ratings served as %v", a["auction"])
		}
		if a["resource_class"] == "Offshore Wind" && a["installed_mw"] != nil {
			t.Errorf("installed MW of offshore wind, which PJM withholds: %v", a["installed_mw"])
		}
		if a["resource_class"] == "Nuclear" && a["delivery_year"] == "2026/2027" && a["installed_mw"] != 32144.0 {
			t.Errorf("installed MW of nuclear 2026/2027: %v", a["installed_mw"])
		}
	}
	for s, n := range map[string]int{"final BRA 2026/2027": 18, "final BRA 2027/2028": 20, "final 3IA 2025/2026": 18} {
		if sets[s] != n {
			t.Errorf("%d ratings in %s, want %d (all: %v)", sets[s], s, n, sets)
		}
	}
	if len(sets) != 3 {
		t.Errorf("rating sets %v", sets)
	}
	for k, want := range map[string]float64{
		"final BRA 2026/2027 Demand Resource": 69, "final BRA 2027/2028 Demand Resource": 92,
		"final 3IA 2025/2026 Onshore Wind": 38, "final BRA 2027/2028 Oil-Fired Combustion Turbine": 80,
	} {
		if ratings[k] != want {
			t.Errorf("%s: %v, want %v", k, ratings[k], want)
		}
	}
}

// TestPJMTranscriptionRefuses damages a copy of the transcription one cell at a time.
func TestPJMTranscriptionRefuses(t *testing.T) {
	t.Parallel()
	const folder = "iso/pjm/elcc_derived"
	for _, c := range []struct {
		name, from, to, gate, says string
	}{
		{"a set of no known kind", "2026/2027 BRA (official/final),3549", "2026/2027 BRA (official),3549", "cells_parse", "names neither a final nor a preliminary document"},
		{"a delivery year that is not one", "PJM,Coal,2026/2027 BRA", "PJM,Coal,2026/2028 BRA", "cells_parse", "is not a delivery year"},
		{"installed MW in another unit", "3549,installed_mw", "3549,pct_of_peak_load", "cells_parse", "installed_mw expected"},
		{"no document naming its year", "2025-pjm-elcc-rrs.pdf", "pjm-elcc-rrs.pdf", "sheets_complete", "no document it cites names its year"},
	} {
		t.Run(c.name, func(t *testing.T) {
			raw := editedRaw(t, folder, pjmELCCFile, func(s string) string {
				if c.name == "no document naming its year" {
					return strings.ReplaceAll(s, c.from, c.to)
				}
				return strings.Replace(s, c.from, c.to, 1)
			})
			_, b := buildOne(t, market.PJMAccreditationTranscribed, raw)
			if f := failed(b); !strings.Contains(f[c.gate], c.says) {
				t.Errorf("gate %s: %q, want it to say %q (failed: %v)", c.gate, f[c.gate], c.says, f)
			}
		})
	}
}
