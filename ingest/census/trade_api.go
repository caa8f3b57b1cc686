package census

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/citeq/citeq/capability"
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

// apiName is the name of an API answer, by the heading requested.
var apiName = regexp.MustCompile(`^imports_hs(\d+)\.json$`)

func tradeFile(code string) string { return "imports_hs" + code + ".json" }

// TradeURL is the API request of one commodity: every country and aggregate, every month
// from tradeFrom on, at the commodity's own HS level.
func TradeURL(code string) string {
	return fmt.Sprintf("%s?get=%s&I_COMMODITY=%s&COMM_LVL=HS%d&time=from+%s", tradeAPI, tradeGet, code, len(code), tradeFrom)
}

// apiKind declares the international trade API's answers for the adapter's headings, one
// document set: one row per element of each answer's array after the header, countries and
// aggregates alike. The set is as of the first day of the latest month among its answers (an
// answer carries no release date).
func (t *trade) apiKind() *kit.File {
	var names []string
	for _, c := range t.api {
		names = append(names, tradeFile(c))
	}
	// Each variable where the response's header names it, else where the request puts it, so
	// that every other gate judges the rest of the file on its own.
	order := append(strings.Split(tradeGet, ","), "I_COMMODITY", "COMM_LVL", "time")
	var cols []kit.Column
	for _, c := range tradeColumns {
		k := kit.AsText
		if fd, _ := t.cap.Field(c.field); fd.Type == capability.Number {
			k = kit.AsNumber
		}
		cols = append(cols, kit.Column{Field: c.field, Header: c.variable, Kind: k, At: slices.Index(order, c.variable) + 1})
	}
	return &kit.File{
		Names: names, Match: apiName, Together: true,
		Source: func(_ string, m []string) (string, string, string) {
			return "CENSUS:intltrade:imports:HS" + m[1], tradePublisher, TradeURL(m[1])
		},
		Open: openTradeFile,
		Sheets: []*kit.Sheet{{
			Header:  1,
			Columns: cols,
			Begin: func(s *kit.SheetRead) bool {
				tb := s.File.Book.State.(*tradeBuild)
				tb.reconcile = true
				if headed(s, variables()) {
					tb.found = append(tb.found, fmt.Sprintf("%s: %d variables", s.File.Name, len(tradeColumns)))
				}
				return true
			},
			IsRow: lineHeld,
			Each:  apiLine,
		}},
		Close: closeAPI,
	}
}

// variables are the API variables read.
func variables() []string {
	var out []string
	for _, c := range tradeColumns {
		out = append(out, c.variable)
	}
	return out
}

// apiLine reads one element of an answer: a country or aggregate of the requested heading in
// one month.
func apiLine(r *kit.Row) {
	tb, name := r.Book.State.(*tradeBuild), r.File.Name
	code := r.File.Match[1]
	ctyCode, period, comm := r.Value("country_code"), r.Value("period"), r.Value("commodity")
	if ctyCode == nil || period == nil || comm != code {
		r.Book.Bad.Add("%s element %d: CTY_CODE %v, time %v, I_COMMODITY %v (want %s)", name, r.N, ctyCode, period, comm, code)
		return
	}
	t, err := time.Parse("2006-01", period.(string))
	if err != nil {
		r.Book.Bad.Add("%s element %d: time %q is not YYYY-MM", name, r.N, period)
		return
	}
	level, _ := r.Value("commodity_level").(string)
	if level != capability.TradeLevel(code) {
		r.Book.Bad.Add("%s element %d: COMM_LVL %v, want %s for I_COMMODITY %s", name, r.N, r.Value("commodity_level"), capability.TradeLevel(code), code)
	}
	kind := countryKind(ctyCode.(string))
	r.Add().
		Set("source_form", capability.TradeFormAPI).
		Set("value_unit", capability.TradeValueUnit(capability.TradeLevel(code))).
		Set("country_kind", kind).
		Set("observation_date", t.Format("2006-01-02")).
		Set("year", t.Year()).
		Key(capability.TradeFormAPI + ":" + code + ":" + ctyCode.(string) + ":" + period.(string))
	tb.add(name, code, period.(string), kind, r.Value("general_imports_usd"))
	f := &tb.file
	f.last = max(f.last, period.(string))
	f.n++
}

// closeAPI says what an answer held.
func closeAPI(fr *kit.FileRead) error {
	tb, code := fr.Book.State.(*tradeBuild), fr.Match[1]
	f := &tb.file
	tb.read = append(tb.read, fmt.Sprintf("%s (API, HS %s): %d lines", fr.Name, code, f.n))
	if f.last != "" {
		tb.document(f.last + "-01")
	}
	fr.Source.Title = "U.S. imports of HS " + code + " by country, monthly (Census international trade API, imports/hs)"
	return nil
}
