package census

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/grid"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// TradeFolder is the raw directory's folder of the Census international trade API
// responses, one file per HS commodity (imports_hs<code>.json).
const TradeFolder = "aiinfra_robotics/census_trade"

const (
	tradePublisher = "U.S. Census Bureau, U.S. International Trade in Goods (international trade API)"
	tradeAPI       = "https://api.census.gov/data/timeseries/intltrade/imports/hs"
	// tradeGet is the variables requested, in the order of the response's columns; the API
	// appends the predicates (I_COMMODITY, COMM_LVL, time) after them.
	tradeGet = "CTY_CODE,CTY_NAME,I_COMMODITY_LDESC,GEN_VAL_MO,CON_VAL_MO,GEN_QY1_MO,CON_QY1_MO,UNIT_QY1,GEN_QY1_MO_FLAG,CON_QY1_MO_FLAG"
	// tradeFrom is the first month requested.
	tradeFrom = "2024-01"
)

// tradeColumns maps each field read from a response to its API variable.
var tradeColumns = []struct{ field, variable string }{
	{"country_code", "CTY_CODE"},
	{"country_name", "CTY_NAME"},
	{"commodity", "I_COMMODITY"},
	{"commodity_description", "I_COMMODITY_LDESC"},
	{"period", "time"},
	{"general_imports_usd", "GEN_VAL_MO"},
	{"consumption_imports_usd", "CON_VAL_MO"},
	{"general_quantity", "GEN_QY1_MO"},
	{"consumption_quantity", "CON_QY1_MO"},
	{"quantity_unit", "UNIT_QY1"},
	{"general_quantity_flag", "GEN_QY1_MO_FLAG"},
	{"consumption_quantity_flag", "CON_QY1_MO_FLAG"},
}

// Trade ingests one of the import capabilities from Census international trade API
// responses for its HS commodities; ChipTrade, EquipmentTrade and RobotTrade configure it.
type Trade struct {
	cap         *capability.Capability
	commodities []string
}

// ChipTrade is the adapter of ai_infrastructure.trade (HS 8541, 8542).
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
func (Trade) Version() string { return "census-trade/1" }

// Folders implements ingest.Adapter.
func (Trade) Folders() []string { return []string{TradeFolder} }

func tradeFile(code string) string { return "imports_hs" + code + ".json" }

// TradeURL is the API request of one commodity: every country and aggregate, every month
// from tradeFrom on, at the commodity's own HS level.
func TradeURL(code string) string {
	return fmt.Sprintf("%s?get=%s&I_COMMODITY=%s&COMM_LVL=HS%d&time=from+%s", tradeAPI, tradeGet, code, len(code), tradeFrom)
}

// Known implements ingest.Adapter. The response is a JSON document.
func (a Trade) Known() []fetch.Source {
	var out []fetch.Source
	for _, c := range a.commodities {
		out = append(out, fetch.Source{URL: TradeURL(c), Kind: fetch.JSON, Dest: TradeFolder + "/" + tradeFile(c)})
	}
	return out
}

// Plan implements ingest.Adapter: one snapshot of the adapter's commodity files; the
// folder's other commodities belong to the other trade capabilities.
func (a Trade) Plan(finder *ingest.Finder) ([]ingest.Plan, error) {
	var files []ingest.File
	for _, c := range a.commodities {
		ps, err := finder.Named(tradeFile(c))
		if err != nil {
			return nil, fmt.Errorf("census trade plan: %w", err)
		}
		for _, p := range ps {
			files = append(files, ingest.File{Path: p, SourceID: "CENSUS:intltrade:imports:HS" + c, Publisher: tradePublisher, URL: TradeURL(c), Role: ingest.RoleData})
		}
	}
	if len(files) == 0 {
		return nil, nil
	}
	return []ingest.Plan{{Files: files}}, nil
}

var (
	continentCode = regexp.MustCompile(`^\dXXX$`)
	groupingCode  = regexp.MustCompile(`^00\d\d$`)
)

// countryKind tells a country of origin from the aggregates the API returns beside them.
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

// tradeSum is one commodity-month's total line and the sum of its countries.
type tradeSum struct {
	total     any
	countries float64
	n         int
}

// Build implements ingest.Adapter.
func (a Trade) Build(p ingest.Plan) (*ingest.Build, error) {
	b := &ingest.Build{
		Ranges:   map[string]snapshots.Range{"general_imports_usd": {Min: 0, Max: 1e13}, "consumption_imports_usd": {Min: 0, Max: 1e13}, "year": {Min: 1990, Max: 2100}},
		Required: []string{"commodity", "country_code", "country_kind", "period", "observation_date"},
	}
	rows := ingest.NewRows(a.cap)
	var bad kit.Problems
	var missing, found, read []string
	sums := map[string]*tradeSum{}
	latest := ""
	for i := range p.Files {
		f := &p.Files[i]
		name := filepath.Base(f.Path)
		code := strings.TrimSuffix(strings.TrimPrefix(name, "imports_hs"), ".json")
		wb, err := grid.Open(f.Path)
		if err != nil {
			return nil, fmt.Errorf("census trade: %w", err)
		}
		sh := wb.Sheets[0]
		cols, err := tradeLayout(sh)
		if err != nil {
			// The snapshot is rejected for it; the columns are still read where the request
			// puts them, so that every other gate judges the rest of the file on its own.
			missing = append(missing, fmt.Sprintf("%s: %v", name, err))
		} else {
			found = append(found, fmt.Sprintf("%s: %d variables", name, len(cols)))
		}
		n := 0
		for r := 2; r <= sh.NumRows(); r++ {
			if len(sh.Row(r)) == 0 {
				continue
			}
			cell := func(v string) grid.Cell { return sh.Cell(r, cols[v]) }
			ctyCode := kit.Text(cell("CTY_CODE"))
			period := kit.Text(cell("time"))
			comm := kit.Text(cell("I_COMMODITY"))
			if ctyCode == nil || period == nil || comm != code {
				bad.Add("%s element %d: CTY_CODE %v, time %v, I_COMMODITY %v (want %s)", name, r, ctyCode, period, comm, code)
				continue
			}
			t, err := time.Parse("2006-01", period.(string))
			if err != nil {
				bad.Add("%s element %d: time %q is not YYYY-MM", name, r, period)
				continue
			}
			row := rows.Add(ingest.Lineage{SourceID: f.SourceID, File: name, Sheet: sh.Name, Row: r, SHA256: f.SHA256})
			vals := map[string]any{}
			for _, c := range tradeColumns {
				col := cols[c.variable]
				fd, _ := a.cap.Field(c.field)
				var v any
				if fd.Type == capability.Number {
					v, err = kit.Number(sh.Cell(r, col))
					if err != nil {
						bad.Add("%s element %d %s: %v", name, r, c.variable, err)
					}
				} else {
					v = kit.Text(sh.Cell(r, col))
				}
				vals[c.field] = v
				row.SetCell(c.field, col, v)
			}
			kind := countryKind(ctyCode.(string))
			row.Set("country_kind", kind).
				Set("observation_date", t.Format("2006-01-02")).
				Set("year", t.Year()).
				Key(code + ":" + ctyCode.(string) + ":" + period.(string))
			k := code + " " + period.(string)
			s := sums[k]
			if s == nil {
				s = &tradeSum{}
				sums[k] = s
			}
			switch kind {
			case "all_countries_total":
				s.total = vals["general_imports_usd"]
			case "country":
				if v, ok := vals["general_imports_usd"].(float64); ok {
					s.countries += v
					s.n++
				}
			}
			if p := period.(string); p > latest {
				latest = p
			}
			n++
		}
		read = append(read, fmt.Sprintf("HS %s: %d lines", code, n))
		src := f.Source()
		src.Title = "U.S. imports of HS " + code + " by country, monthly (Census international trade API, imports/hs)"
		src.HeaderRows = map[string]int{sh.Name: 1}
		b.Sources = append(b.Sources, src)
	}
	asOf := noDataAsOf
	if latest != "" {
		asOf = latest + "-01"
	}
	facts, err := rows.Finish(asOf)
	if err != nil {
		return nil, fmt.Errorf("census trade: %w", err)
	}
	b.AsOf, b.Rows, b.Cells = asOf, facts, rows.Cells()
	b.Checks = append(b.Checks,
		kit.Failures(kit.GateHeaders, missing, strings.Join(found, "; ")),
		bad.Gate(kit.GateCells, strings.Join(read, "; ")),
		reconcileTrade(sums))
	return b, nil
}

// reconcileTrade checks each commodity-month: its total-for-all-countries line equals the
// sum of its countries' general imports.
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

// tradeLayout finds each variable's column in the response's header row; when one is
// missing it returns the columns where the request puts them, with the error.
func tradeLayout(sh *grid.Sheet) (map[string]int, error) {
	var labels []string
	for _, c := range tradeColumns {
		labels = append(labels, c.variable)
	}
	cols := map[string]int{}
	h, err := kit.FindHeader(sh, 1, labels...)
	if err == nil {
		for _, l := range labels {
			cols[l] = h.Col(l)
		}
		return cols, nil
	}
	order := append(strings.Split(tradeGet, ","), "I_COMMODITY", "COMM_LVL", "time")
	for i, v := range order {
		cols[v] = i + 1
	}
	return cols, err
}
