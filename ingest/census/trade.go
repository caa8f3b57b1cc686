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
// for its commodities; ChipTrade, EquipmentTrade and RobotTrade configure it. It is one sheet
// spec over the three forms (kit.Spec): each document its own snapshot, the API's answers for
// the adapter's headings one document set, in the order of their as_of, the API set (whose
// as_of is known once read) last.
type Trade struct{ kit.Adapter }

// ChipTrade is the adapter of ai_infrastructure.trade (HS 8541, 8542 and the subheading
// 854232).
func ChipTrade() Trade { return newTrade(capability.AIInfrastructureTrade, "8541", "8542") }

// EquipmentTrade is the adapter of ai_infrastructure.equipment_trade (HS 8486).
func EquipmentTrade() Trade { return newTrade(capability.AIInfrastructureEquipmentTrade, "8486") }

// RobotTrade is the adapter of robotics.trade (HS 847950).
func RobotTrade() Trade { return newTrade(capability.RoboticsTrade, "847950") }

// trade is what configures one import capability's adapter.
type trade struct {
	cap *capability.Capability
	// api lists the HS headings requested from the international trade API (Known).
	api []string
}

// newTrade declares the adapter of capability c, whose API answers are those of headings api.
func newTrade(c *capability.Capability, api ...string) Trade {
	t := &trade{cap: c, api: api}
	return Trade{kit.New(&kit.Spec{
		Cap:     c,
		Version: "census-trade/2",
		Folders: []string{TradeFolder, TradeDerivedFolder},
		Known:   t.known(),
		Files:   []*kit.File{t.exportKind(), t.excerptKind(), t.apiKind()},
		Sort:    tradeOrder,
		State:   func() any { return &tradeBuild{t: t, sums: map[string]*tradeSum{}} },
		AsOf: func(b *kit.Book) (string, error) {
			if tb := b.State.(*tradeBuild); tb.asOf != "" {
				return tb.asOf, nil
			}
			return noDataAsOf, nil
		},
		Gates:    tradeGates,
		Ranges:   map[string]snapshots.Range{"general_imports_usd": {Min: 0, Max: 1e13}, "consumption_imports_usd": {Min: 0, Max: 1e13}, "year": {Min: 1990, Max: 2100}},
		Required: []string{"source_form", "commodity", "commodity_level", "value_unit", "country_name", "country_kind", "period", "observation_date"},
	})}
}

// commodities lists every HS code the capability answers (its commodity field's values).
func (t *trade) commodities() []string {
	f, _ := t.cap.Field("commodity")
	return f.Enum
}

// levels lists the commodity levels of the capability's codes (HS4, HS6).
func (t *trade) levels() []string {
	var out []string
	for _, c := range t.commodities() {
		if l := capability.TradeLevel(c); !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// known are the API requests of the adapter's headings. The response is a JSON document.
func (t *trade) known() []fetch.Source {
	var out []fetch.Source
	for _, c := range t.api {
		out = append(out, fetch.Source{URL: TradeURL(c), Kind: fetch.JSON, Dest: TradeFolder + "/" + tradeFile(c)})
	}
	return out
}

// tradeOrder orders the plans by their as_of hints, the API set last.
func tradeOrder(plans []ingest.Plan) {
	last := func(p ingest.Plan) bool {
		return len(p.Files) > 0 && apiName.MatchString(filepath.Base(p.Files[0].Path))
	}
	sort.SliceStable(plans, func(i, j int) bool {
		li, lj := last(plans[i]), last(plans[j])
		if li != lj {
			return lj
		}
		return !li && plans[i].AsOfHint < plans[j].AsOfHint
	})
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
	t *trade
	// found says what was found where the files' title lines and header are.
	found []string
	read  []string
	// sums are the API's and transcriptions' commodity-months, for totals_reconcile; reconcile
	// is set when a file of such a form was read.
	sums      map[string]*tradeSum
	reconcile bool
	// missing lists the capability's commodities an export lacks (sheets_complete); complete
	// is set when an export was read.
	missing, present []string
	complete         bool
	// asOf is the latest as_of among the plan's documents.
	asOf string
	// file is what the file being read adds up to.
	file fileTally
}

// fileTally is what one file's lines add up to.
type fileTally struct {
	n, other    int
	first, last string
	dateLine    string
	months      map[string]int
	levels      map[string]bool
	dated       bool
	exportAsOf  string
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

// tradeGates are the snapshot's gates: the files' layout, their cells, the totals of the
// forms that print them, and the export's commodities.
func tradeGates(b *kit.Book) []snapshots.Gate {
	tb := b.State.(*tradeBuild)
	gates := []snapshots.Gate{
		kit.Failures(kit.GateHeaders, b.Missing, strings.Join(tb.found, "; ")),
		b.CellsGate(strings.Join(tb.read, "; ")),
	}
	if tb.reconcile {
		gates = append(gates, reconcileTrade(tb.sums))
	}
	if tb.complete {
		gates = append(gates, kit.Failures(kit.GateComplete, tb.missing,
			"every heading of the capability at the export's level is in it: "+strings.Join(tb.present, "; ")))
	}
	return gates
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
