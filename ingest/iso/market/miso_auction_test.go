package market_test

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/iso/market"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/snapshots"
)

// The tests below are named after the rules of the contract's section 2.4, one each, and
// run on the fixtures under testdata/fixtures/iso/miso/pra (MISO's posting layout).

func misoFixtures(t *testing.T) string {
	return filepath.Join(testenv.RepoRoot(t), "testdata", "fixtures")
}

func misoBuild(t *testing.T, file string) []atom {
	t.Helper()
	a := market.MISOAuction{}
	plans, err := a.Plan(ingest.NewFinder(misoFixtures(t), a.Folders()))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plans {
		if filepath.Base(p.Files[0].Path) != file {
			continue
		}
		b, err := a.Build(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range b.Checks {
			if !g.Passed {
				t.Errorf("gate %s: %s", g.Name, g.Detail)
			}
		}
		return atomsOf(capability.PowerCapacityMarketMISO, b)
	}
	t.Fatalf("no fixture %s", file)
	return nil
}

const misoPosting2025 = "2025-2026 PRA Results Posting 20250428.pdf"

func TestRuleAtomTypes(t *testing.T) {
	want := []string{"acp", "acp_erz_verbatim", "cone_seasonal", "cone_annual", "imm_threshold"}
	f, _ := capability.PowerCapacityMarketMISO.Field("atom_type")
	if !reflect.DeepEqual(f.Enum, want) {
		t.Errorf("atom_type enum %v, want %v", f.Enum, want)
	}
	seen := map[any]int{}
	for _, a := range misoBuild(t, misoPosting2025) {
		seen[a["atom_type"]]++
	}
	for _, w := range want {
		if seen[w] == 0 {
			t.Errorf("no %s atom read from the posting", w)
		}
	}
	if seen["acp"] != 40 || seen["acp_erz_verbatim"] != 4 || seen["cone_seasonal"] != 8 || seen["cone_annual"] != 11 || seen["imm_threshold"] != 40 {
		t.Errorf("atoms by type %v", seen)
	}
}

func TestRuleSixMetrics(t *testing.T) {
	want := []capability.Metric{
		{Name: "avg_acp_usd_mw_day", Unit: "USD/MW-day", Agg: capability.Avg, Column: "acp_usd_mw_day"},
		{Name: "min_acp_usd_mw_day", Unit: "USD/MW-day", Agg: capability.Min, Column: "acp_usd_mw_day"},
		{Name: "max_acp_usd_mw_day", Unit: "USD/MW-day", Agg: capability.Max, Column: "acp_usd_mw_day"},
		{Name: "cone_usd_mw_day", Unit: "USD/MW-day", Agg: capability.Max, Column: "cone_usd_mw_day"},
		{Name: "imm_conduct_threshold_usd_mw_day", Unit: "USD/MW-day", Agg: capability.Max, Column: "imm_conduct_threshold_usd_mw_day"},
		{Name: "source_record_count", Unit: "count", Agg: capability.Count, Additive: true},
	}
	got := capability.PowerCapacityMarketMISO.Metrics
	if len(got) != len(want) {
		t.Fatalf("%d metrics, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Name != w.Name || g.Unit != w.Unit || g.Agg != w.Agg || g.Column != w.Column || g.Additive != w.Additive {
			t.Errorf("metric %d: %+v, want %+v", i, g, w)
		}
	}
}

func TestRuleFiltersGroupByNoDateRanges(t *testing.T) {
	c := capability.PowerCapacityMarketMISO
	if want := []string{"as_of", "auction_label", "planning_year", "season", "zone", "scope", "atom_type"}; !reflect.DeepEqual(c.FilterNames(), want) {
		t.Errorf("filters %v, want %v", c.FilterNames(), want)
	}
	if want := []string{"auction_label", "planning_year", "season", "zone", "scope", "atom_type"}; !reflect.DeepEqual(c.GroupByNames(), want) {
		t.Errorf("group_by %v, want %v", c.GroupByNames(), want)
	}
	if len(c.DateRanges) != 0 {
		t.Errorf("date ranges %v, want none", c.DateRanges)
	}
}

func TestRuleDetailRecordFields(t *testing.T) {
	// citation is added to every record by the service. Three fields go beyond the contract's
	// list. cone_unit: MISO states annual CONE per MW-year, the contract's metric is per MW-day
	// and CONE is never converted, so each CONE atom says which unit it is in.
	// original_document_url and original_page: an atom read from a transcription names the
	// MISO document and page it was copied from, which its citation (of the transcription, one
	// file of rows from several documents) cannot.
	want := []string{"cone_unit", "original_document_url", "original_page", "source_id", "sheet_name", "iso", "auction_label", "planning_year", "season", "zone", "scope", "atom_type",
		"acp_usd_mw_day", "acp_erz_verbatim", "cone_usd_mw_day", "imm_conduct_threshold_usd_mw_day", "report_period",
		"source_record_key", "source_row_number", "as_of", "raw_file_sha256"}
	var got []string
	for _, f := range capability.PowerCapacityMarketMISO.Fields {
		got = append(got, f.Name)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fields %v, want %v", got, want)
	}
}

func TestRuleShapesOfFilterValues(t *testing.T) {
	py, zone := regexp.MustCompile(`^\d{4}-\d{4}$`), regexp.MustCompile(`^Z\d+$`)
	for _, a := range misoBuild(t, misoPosting2025) {
		if !py.MatchString(a["planning_year"].(string)) {
			t.Fatalf("planning_year %v", a["planning_year"])
		}
		if s, ok := a["season"].(string); ok && s != strings.ToLower(s) {
			t.Fatalf("season %v", s)
		}
		if z, ok := a["zone"].(string); ok && !zone.MatchString(z) {
			t.Fatalf("zone %v", z)
		}
	}
}

func TestRuleCONEStatedNeverAnnualizedOrConverted(t *testing.T) {
	// The figures as printed in each fixture: the seasonal CONE in USD/MW-day, the annual CONE
	// per MW-year as MISO states it (2025-2026 and 2024-2025: the figures of MISO's postings;
	// 2026-2027: MISO's CONE filing for that year, ERZ a placeholder). Never multiplied by the
	// days of a season, divided by 365 or by four.
	for _, tc := range []struct {
		file         string
		north, south []float64 // summer, fall, winter, spring
		annual       []float64 // zones 1 to 10
		erz          float64
	}{
		{misoPosting2025, []float64{1384.36, 1399.58, 1415.13, 1384.36}, []float64{1282.61, 1296.70, 1311.11, 1282.61},
			[]float64{127720, 125090, 121220, 126040, 136170, 124360, 130930, 118960, 117710, 117330}, 136170},
		// Annual CONE from the "Cost of New Entry (Annual)" rows of two season comparison tables.
		{"2024-2025 PRA Results Posting 20240425.pdf", []float64{110, 110, 110, 110}, []float64{95, 95, 95, 95},
			[]float64{124541, 121731, 117600, 121434, 131725, 120340, 127135, 113810, 112804, 112263}, 131725},
		// Both CONE tables with the other axis across, figures with a dollar sign.
		{"2026-2027 PRA Results Posting 20260522 Corrections.pdf", []float64{1420, 1420, 1420, 1420}, []float64{1300, 1300, 1300, 1300},
			[]float64{134160, 131310, 127330, 132380, 142970, 130710, 137510, 125070, 123890, 123250}, 140000},
	} {
		t.Run(tc.file, func(t *testing.T) {
			seasonal := map[any][]float64{}
			annual := make([]float64, 10)
			var erz []float64
			for _, a := range misoBuild(t, tc.file) {
				// Each CONE atom carries the unit it is stated in, so a metric over both
				// kinds is null (mixed_units) rather than a maximum of two units.
				if want := map[any]any{"cone_seasonal": "USD/MW-day", "cone_annual": "USD/MW-year"}[a["atom_type"]]; a["cone_unit"] != want {
					t.Errorf("%v atom: cone_unit %v, want %v", a["atom_type"], a["cone_unit"], want)
				}
				switch a["atom_type"] {
				case "cone_seasonal":
					seasonal[a["scope"]] = append(seasonal[a["scope"]], a["cone_usd_mw_day"].(float64))
				case "cone_annual":
					if a["season"] != nil {
						t.Errorf("annual CONE with a season: %v", a)
					}
					if a["scope"] == "external_resource_zone" {
						erz = append(erz, a["cone_usd_mw_day"].(float64))
						continue
					}
					z, _ := strconv.Atoi(strings.TrimPrefix(a["zone"].(string), "Z"))
					if annual[z-1] != 0 {
						t.Errorf("zone %d: two annual CONE atoms", z)
					}
					annual[z-1] = a["cone_usd_mw_day"].(float64)
				default:
					if a["cone_usd_mw_day"] != nil {
						t.Errorf("%v atom carries a CONE", a["atom_type"])
					}
				}
			}
			want := map[any][]float64{"north_central_subregion": tc.north, "south_subregion": tc.south}
			if !reflect.DeepEqual(seasonal, want) {
				t.Errorf("seasonal CONE %v, want %v (the system CONE is no atom)", seasonal, want)
			}
			if !reflect.DeepEqual(annual, tc.annual) || !reflect.DeepEqual(erz, []float64{tc.erz}) {
				t.Errorf("annual CONE %v, ERZ %v; want %v, %v", annual, erz, tc.annual, tc.erz)
			}
		})
	}
}

func TestRuleERZClearingQuotedVerbatim(t *testing.T) {
	got := map[any]any{}
	for _, a := range misoBuild(t, misoPosting2025) {
		if a["atom_type"] == "acp_erz_verbatim" {
			got[a["season"]] = a["acp_erz_verbatim"]
			if a["acp_usd_mw_day"] != nil || a["scope"] != "external_resource_zone" || a["zone"] != nil {
				t.Errorf("ERZ atom %v", a)
			}
		}
	}
	// The fall range wraps in its cell ("74.09-" over "91.60") and is quoted as one text.
	want := map[any]any{"summer": "666.50", "fall": "74.09-91.60", "winter": "33.20", "spring": "69.88"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ERZ %v, want %v", got, want)
	}
}

func TestRuleCorrectionsPostingIsDistinctDocument(t *testing.T) {
	store := &snapshots.Store{Dir: t.TempDir()}
	outcomes, err := ingest.Run(misoFixtures(t), store, []ingest.Adapter{market.MISOAuction{}}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var asOfs []string
	for _, o := range outcomes {
		if o.Status != snapshots.Promoted {
			t.Fatalf("%s not promoted: %v", o.AsOf, o.Reasons)
		}
		asOfs = append(asOfs, o.AsOf)
		if o.AsOf != "2025-05-29" {
			continue
		}
		// The postings of different planning years complement each other; the corrections
		// posting, a document of its own, republishes every atom of the posting it corrects,
		// which it replaces from its date on, citing the original where it revises a value.
		var files []string
		for _, s := range o.Manifest.Sources {
			files = append(files, s.File)
		}
		if !reflect.DeepEqual(files, []string{"2024-2025 PRA Results Posting 20240425.pdf", "2025-2026 PRA Results Posting 20250529 Corrections.pdf"}) {
			t.Errorf("the corrections snapshot cites %v", files)
		}
		if rv := o.Manifest.Revisions; len(rv) != 1 || !strings.Contains(rv[0].Served.File, "Corrections") ||
			rv[0].Earlier.File != "2025-2026 PRA Results Posting 20250428.pdf" || rv[0].Earlier.AsOf != "2025-04-28" {
			t.Errorf("revisions %+v", rv)
		}
	}
	if !reflect.DeepEqual(asOfs, []string{"2024-04-25", "2025-04-28", "2025-05-29", "2026-05-22"}) {
		t.Errorf("as_of %v", asOfs)
	}
	cat, err := store.ReadCatalog()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range asOfs {
		if cat.Promoted[capability.PowerCapacityMarketMISO.ID][d] == "" {
			t.Errorf("as_of %s is not served after the corrections posting", d)
		}
	}
	for _, a := range misoBuild(t, "2025-2026 PRA Results Posting 20250529 Corrections.pdf") {
		if !strings.Contains(a["_source_file"].(string), "Corrections") || a["report_period"] != "2025-05-29" {
			t.Fatalf("corrections atom cites %v (%v)", a["_source_file"], a["report_period"])
		}
	}
}

func TestRulePlanningYearsBefore2024Refused(t *testing.T) {
	src := filepath.Join(misoFixtures(t), "iso", "miso", "pra", "2024-2025 PRA Results Posting 20240425.pdf")
	raw := t.TempDir()
	dir := filepath.Join(raw, "iso", "miso", "pra")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "2023-2024 PRA Results Posting 20230428.pdf"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	store := &snapshots.Store{Dir: t.TempDir()}
	outcomes, err := ingest.Run(raw, store, []ingest.Adapter{market.MISOAuction{}}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(outcomes) != 1 || outcomes[0].Status != snapshots.Rejected {
		t.Fatalf("outcomes %+v", outcomes)
	}
	why := strings.Join(outcomes[0].Reasons, "; ")
	if !strings.Contains(why, "planning_year_supported") || !strings.Contains(why, "planning years before 2024-2025 are not answered") {
		t.Errorf("reasons %s", why)
	}
	if !slices.ContainsFunc(capability.PowerCapacityMarketMISO.Rules, func(r string) bool { return strings.HasPrefix(r, "Planning years before 2024 are not answered") }) {
		t.Error("the schema does not state the refusal")
	}
}

func TestRuleDoesNotAnswer(t *testing.T) {
	want := "Does not answer: energy-market prices or plant revenue; PRMR, LCR, CIL/CEL, cleared-MW or offer-curve quantities; planning years before 2024; demand-curve position, scarcity interpretation or effective capacity price; ZRC-to-UCAP conversion, resource-specific accreditation or FRAP volumes."
	if !slices.Contains(capability.PowerCapacityMarketMISO.Rules, want) {
		t.Errorf("rules lack %q", want)
	}
}
