package census

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// The Census Bureau's import statistics come here in three forms, each its own document
// identity and its own snapshot: the international trade API's answers (trade_api.go), USA
// Trade Online report exports (trade_export.go) and a third party's transcription of API
// answers, which is derived (trade_excerpt.go).

// TradeFolder is the raw directory's folder of the Census Bureau's own trade files: the
// international trade API's answers, one file per HS commodity (imports_hs<code>.json), and
// USA Trade Online report exports (usatradeonline_*.csv).
const TradeFolder = "aiinfra_robotics/census_trade"

// TradeDerivedFolder is the raw directory's folder of third parties' copies of Census trade
// data: transcriptions of API answers (census_api_imports_hs<code>_*.csv), read as derived.
const TradeDerivedFolder = "aiinfra_robotics/census_trade_derived"

// Trade ingests one of the import capabilities from the Census Bureau's import statistics
// for its commodities; ChipTrade, EquipmentTrade and RobotTrade configure it.
type Trade struct {
	cap *capability.Capability
	// api lists the HS headings requested from the international trade API (Known).
	api []string
}

// ChipTrade is the adapter of ai_infrastructure.trade (HS 8541, 8542 and the subheading
// 854232).
func ChipTrade() Trade {
	return Trade{capability.AIInfrastructureTrade, []string{"8541", "8542"}}
}

// EquipmentTrade is the adapter of ai_infrastructure.equipment_trade (HS 8486).
func EquipmentTrade() Trade {
	return Trade{capability.AIInfrastructureEquipmentTrade, []string{"8486"}}
}

// RobotTrade is the adapter of robotics.trade (HS 847950).
func RobotTrade() Trade {
	return Trade{capability.RoboticsTrade, []string{"847950"}}
}

// Capability implements ingest.Adapter.
func (a Trade) Capability() *capability.Capability { return a.cap }

// Version implements ingest.Adapter.
func (Trade) Version() string { return "census-trade/2" }

// Folders implements ingest.Adapter.
func (Trade) Folders() []string { return []string{TradeFolder, TradeDerivedFolder} }

// commodities lists every HS code the capability answers (its commodity field's values).
func (a Trade) commodities() []string {
	f, _ := a.cap.Field("commodity")
	return f.Enum
}

// levels lists the commodity levels of the capability's codes (HS4, HS6).
func (a Trade) levels() []string {
	var out []string
	for _, c := range a.commodities() {
		if l := capability.TradeLevel(c); !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// Known implements ingest.Adapter. The response is a JSON document.
func (a Trade) Known() []fetch.Source {
	var out []fetch.Source
	for _, c := range a.api {
		out = append(out, fetch.Source{URL: TradeURL(c), Kind: fetch.JSON, Dest: TradeFolder + "/" + tradeFile(c)})
	}
	return out
}

// Plan implements ingest.Adapter: each document is its own snapshot. The API's answers for
// the adapter's headings are one document set; each USA Trade Online export at the level of
// one of the capability's commodities is one document, as of its "Current date:" line; each
// transcription of API answers for one of its commodities is one document, derived. Plans
// are in the order of their as_of (the API set, whose as_of is known once read, last).
func (a Trade) Plan(finder *ingest.Finder) ([]ingest.Plan, error) {
	var plans []ingest.Plan
	var api []ingest.File
	for _, c := range a.api {
		ps, err := finder.Named(tradeFile(c))
		if err != nil {
			return nil, fmt.Errorf("census trade plan: %w", err)
		}
		for _, p := range ps {
			api = append(api, ingest.File{Path: p, SourceID: "CENSUS:intltrade:imports:HS" + c, Publisher: tradePublisher, URL: TradeURL(c), Role: ingest.RoleData})
		}
	}
	exports, err := finder.Find(exportName.MatchString)
	if err != nil {
		return nil, fmt.Errorf("census trade plan: %w", err)
	}
	for _, p := range exports {
		hint, level, err := peekExport(p)
		if err != nil {
			return nil, fmt.Errorf("census trade plan: %w", err)
		}
		if !slices.Contains(a.levels(), level) {
			continue // an export of another level holds none of the capability's commodities
		}
		plans = append(plans, ingest.Plan{AsOfHint: hint, Files: []ingest.File{{Path: p, SourceID: exportSourceID,
			Publisher: exportPublisher, URL: exportURL, Role: ingest.RoleData}}})
	}
	excerpts, err := finder.Find(excerptName.MatchString)
	if err != nil {
		return nil, fmt.Errorf("census trade plan: %w", err)
	}
	for _, p := range excerpts {
		code := excerptName.FindStringSubmatch(filepath.Base(p))[1]
		if !slices.Contains(a.commodities(), code) {
			continue
		}
		plans = append(plans, ingest.Plan{AsOfHint: excerptHint(filepath.Base(p)), Files: []ingest.File{{Path: p,
			SourceID: excerptSourceID(code), Publisher: excerptPublisher, URL: excerptURL, Role: ingest.RoleData,
			Derived: true, OriginalURL: excerptOriginal(code, "", "")}}})
	}
	sort.SliceStable(plans, func(i, j int) bool { return plans[i].AsOfHint < plans[j].AsOfHint })
	if len(api) > 0 {
		plans = append(plans, ingest.Plan{Files: api})
	}
	return plans, nil
}

// peekExport reads the first lines of a USA Trade Online export: the date of its "Current
// date:" line (the plan's as_of hint, "" when the line is missing) and the commodity level of
// its first data line (HS4, ...; "" when none is found).
func peekExport(path string) (hint, level string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", "", fmt.Errorf("census trade export: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for n := 0; n < 50 && sc.Scan(); n++ {
		line := strings.Trim(strings.TrimSpace(sc.Text()), `"`)
		if d, ok := exportCurrentDate(line); ok && hint == "" {
			hint = d
		}
		if m := exportDataLine.FindStringSubmatch(sc.Text()); m != nil {
			return hint, capability.TradeLevel(m[1]), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", "", fmt.Errorf("census trade export %s: %w", filepath.Base(path), err)
	}
	return hint, "", nil
}

// tradeBuild gathers what the readers of one plan's files find.
type tradeBuild struct {
	a    Trade
	rows *ingest.Rows
	// bad are cells that do not parse; layout the files whose title lines or header are not
	// the form's (found says what was found where they are).
	bad           kit.Problems
	layout, found []string
	read          []string
	// sums are the API's and transcriptions' commodity-months, for totals_reconcile; reconcile
	// is set when a file of such a form was read.
	sums      map[string]*tradeSum
	reconcile bool
	// missing lists the capability's commodities an export lacks (sheets_complete); complete
	// is set when an export was read.
	missing, present []string
	complete         bool
	// asOf is the latest as_of among the plan's documents.
	asOf    string
	sources []snapshots.Source
}

// tradeSum is one commodity-month's total line and the sum of its countries, in one file.
type tradeSum struct {
	total     any
	countries float64
	n         int
}

// add counts a line of a file with total lines into its commodity-month.
func (tb *tradeBuild) add(file, code, period, kind string, value any) {
	k := file + ": HS " + code + " " + period
	s := tb.sums[k]
	if s == nil {
		s = &tradeSum{}
		tb.sums[k] = s
	}
	switch kind {
	case "all_countries_total":
		s.total = value
	case "country":
		if v, ok := value.(float64); ok {
			s.countries += v
			s.n++
		}
	}
}

// document records a document's as_of; the snapshot is as of the latest.
func (tb *tradeBuild) document(asOf string) {
	if asOf > tb.asOf {
		tb.asOf = asOf
	}
}

// Build implements ingest.Adapter.
func (a Trade) Build(p ingest.Plan) (*ingest.Build, error) {
	tb := &tradeBuild{a: a, rows: ingest.NewRows(a.cap), sums: map[string]*tradeSum{}}
	for i := range p.Files {
		f := &p.Files[i]
		name := filepath.Base(f.Path)
		var err error
		switch {
		case exportName.MatchString(name):
			err = tb.readExport(f)
		case excerptName.MatchString(name):
			err = tb.readExcerpt(f)
		default:
			err = tb.readAPI(f)
		}
		if err != nil {
			return nil, fmt.Errorf("census trade: %w", err)
		}
	}
	asOf := tb.asOf
	if asOf == "" {
		asOf = noDataAsOf
	}
	facts, err := tb.rows.Finish(asOf)
	if err != nil {
		return nil, fmt.Errorf("census trade: %w", err)
	}
	b := &ingest.Build{
		AsOf: asOf, Rows: facts, Cells: tb.rows.Cells(), Sources: tb.sources,
		Ranges:   map[string]snapshots.Range{"general_imports_usd": {Min: 0, Max: 1e13}, "consumption_imports_usd": {Min: 0, Max: 1e13}, "year": {Min: 1990, Max: 2100}},
		Required: []string{"source_form", "commodity", "commodity_level", "value_unit", "country_name", "country_kind", "period", "observation_date"},
	}
	b.Checks = append(b.Checks,
		kit.Failures(kit.GateHeaders, tb.layout, strings.Join(tb.found, "; ")),
		tb.bad.Gate(kit.GateCells, strings.Join(tb.read, "; ")))
	if tb.reconcile {
		b.Checks = append(b.Checks, reconcileTrade(tb.sums))
	}
	if tb.complete {
		b.Checks = append(b.Checks, kit.Failures(kit.GateComplete, tb.missing,
			"every heading of the capability at the export's level is in it: "+strings.Join(tb.present, "; ")))
	}
	return b, nil
}

// reconcileTrade checks each commodity-month of each file with total lines: its
// total-for-all-countries line equals the sum of its countries' general imports.
func reconcileTrade(sums map[string]*tradeSum) snapshots.Gate {
	keys := make([]string, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var bad []string
	for _, k := range keys {
		s := sums[k]
		total, ok := s.total.(float64)
		switch {
		case !ok:
			bad = append(bad, k+": no TOTAL FOR ALL COUNTRIES line (CTY_CODE -) with a value")
		case math.Abs(total-s.countries) > 0.5:
			bad = append(bad, fmt.Sprintf("%s: total %.0f USD, its %d countries sum to %.0f USD", k, total, s.n, s.countries))
		}
	}
	return kit.Failures(kit.GateReconcile, bad, fmt.Sprintf("%d commodity-months: each total line equals the sum of its countries' general imports", len(keys)))
}

var (
	continentCode = regexp.MustCompile(`^\dXXX$`)
	groupingCode  = regexp.MustCompile(`^00\d\d$`)
)

// countryKind tells a country of origin from the aggregates the API returns beside them, by
// the Census country code: "-" the total for all countries, 00nn a grouping, nXXX a continent.
func countryKind(code string) string {
	switch {
	case code == "-":
		return "all_countries_total"
	case continentCode.MatchString(code):
		return "continent"
	case groupingCode.MatchString(code):
		return "country_grouping"
	}
	return "country"
}
