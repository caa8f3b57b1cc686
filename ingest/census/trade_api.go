package census

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/grid"
	"github.com/citeq/citeq/ingest/kit"
)

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
	{"commodity_level", "COMM_LVL"},
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

func tradeFile(code string) string { return "imports_hs" + code + ".json" }

// TradeURL is the API request of one commodity: every country and aggregate, every month
// from tradeFrom on, at the commodity's own HS level.
func TradeURL(code string) string {
	return fmt.Sprintf("%s?get=%s&I_COMMODITY=%s&COMM_LVL=HS%d&time=from+%s", tradeAPI, tradeGet, code, len(code), tradeFrom)
}

// readAPI reads one response of the international trade API: one row per element of its
// array after the header, countries and aggregates alike. The API set is as of the first day
// of the latest month among its responses (an answer carries no release date).
func (tb *tradeBuild) readAPI(f *ingest.File) error {
	name := filepath.Base(f.Path)
	code := strings.TrimSuffix(strings.TrimPrefix(name, "imports_hs"), ".json")
	wb, err := grid.Open(f.Path)
	if err != nil {
		return err
	}
	sh := wb.Sheets[0]
	cols, err := tradeLayout(sh)
	if err != nil {
		// The snapshot is rejected for it; the columns are still read where the request
		// puts them, so that every other gate judges the rest of the file on its own.
		tb.layout = append(tb.layout, fmt.Sprintf("%s: %v", name, err))
	} else {
		tb.found = append(tb.found, fmt.Sprintf("%s: %d variables", name, len(cols)))
	}
	tb.reconcile = true
	n, latest := 0, ""
	for r := 2; r <= sh.NumRows(); r++ {
		if len(sh.Row(r)) == 0 {
			continue
		}
		cell := func(v string) grid.Cell { return sh.Cell(r, cols[v]) }
		ctyCode := kit.Text(cell("CTY_CODE"))
		period := kit.Text(cell("time"))
		comm := kit.Text(cell("I_COMMODITY"))
		if ctyCode == nil || period == nil || comm != code {
			tb.bad.Add("%s element %d: CTY_CODE %v, time %v, I_COMMODITY %v (want %s)", name, r, ctyCode, period, comm, code)
			continue
		}
		t, err := time.Parse("2006-01", period.(string))
		if err != nil {
			tb.bad.Add("%s element %d: time %q is not YYYY-MM", name, r, period)
			continue
		}
		row := tb.rows.Add(ingest.Lineage{SourceID: f.SourceID, File: name, Sheet: sh.Name, Row: r, SHA256: f.SHA256})
		vals := map[string]any{}
		for _, c := range tradeColumns {
			col := cols[c.variable]
			fd, _ := tb.a.cap.Field(c.field)
			var v any
			if fd.Type == capability.Number {
				v, err = kit.Number(sh.Cell(r, col))
				if err != nil {
					tb.bad.Add("%s element %d %s: %v", name, r, c.variable, err)
				}
			} else {
				v = kit.Text(sh.Cell(r, col))
			}
			vals[c.field] = v
			row.SetCell(c.field, col, v)
		}
		level, _ := vals["commodity_level"].(string)
		if level != capability.TradeLevel(code) {
			tb.bad.Add("%s element %d: COMM_LVL %v, want %s for I_COMMODITY %s", name, r, vals["commodity_level"], capability.TradeLevel(code), code)
		}
		kind := countryKind(ctyCode.(string))
		row.Set("source_form", capability.TradeFormAPI).
			Set("value_unit", capability.TradeValueUnit(capability.TradeLevel(code))).
			Set("country_kind", kind).
			Set("observation_date", t.Format("2006-01-02")).
			Set("year", t.Year()).
			Key(capability.TradeFormAPI + ":" + code + ":" + ctyCode.(string) + ":" + period.(string))
		tb.add(name, code, period.(string), kind, vals["general_imports_usd"])
		latest = max(latest, period.(string))
		n++
	}
	tb.read = append(tb.read, fmt.Sprintf("%s (API, HS %s): %d lines", name, code, n))
	if latest != "" {
		tb.document(latest + "-01")
	}
	src := f.Source()
	src.Title = "U.S. imports of HS " + code + " by country, monthly (Census international trade API, imports/hs)"
	src.HeaderRows = map[string]int{sh.Name: 1}
	tb.sources = append(tb.sources, src)
	return nil
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
