package census

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/kit"
)

// A transcription of the international trade API's answers is derived: a third party's
// collector asked the API for one commodity's general imports by country
// (get=CTY_CODE,CTY_NAME,GEN_VAL_MO&I_COMMODITY=<code>&time=<YYYY-MM>) and wrote one CSV line
// per row of the answer, in the API's order: period (the API's time), source "census",
// metric "us_imports_<what>_value:<CTY_CODE>", value (GEN_VAL_MO, whole dollars), value_wda
// (empty) and meta (CTY_NAME). The lines name no commodity: it is the one the file's name
// gives (census_api_imports_hs<code>_...csv), the collector's request. The countries and the
// API's aggregates (the total for all countries, groupings, continents) are all there, so a
// month's countries add up to its total line (totals_reconcile).
const (
	excerptPublisher = "U.S. Census Bureau, U.S. International Trade in Goods (international trade API), as transcribed by a third party's collector"
	// excerptURL is where the copy here came from: the collector's file, whose Census lines
	// the excerpt keeps verbatim.
	excerptURL = "https://github.com/hthommasson/memory-market-tracker/blob/087b043e393ab93a266e598f0419657cd8820a4f/docs/data/monthly_series.csv"
)

var (
	excerptName   = regexp.MustCompile(`^census_api_imports_hs(\d{4,10})_.*\.csv$`)
	excerptPeriod = regexp.MustCompile(`^\d{4}-(0[1-9]|1[0-2])$`)
	excerptMetric = regexp.MustCompile(`^us_imports_[a-z0-9_]+_value:(-|[0-9A-Z]{4})$`)
	// excerptPeriods is the last YYYY-MM of a transcription's name (..._2026-04_2026-06_...).
	excerptPeriods = regexp.MustCompile(`_(\d{4}-\d{2})_(\d{4}-\d{2})`)
	excerptLabels  = []string{"period", "source", "metric", "value", "value_wda", "meta"}
)

func excerptSourceID(code string) string {
	return "CENSUS:intltrade:imports:HS" + code + ":transcribed"
}

// excerptOriginal is the API request whose answers a transcription holds: the commodity's
// general imports by country from its first month to its last ("" when not known).
func excerptOriginal(code, from, to string) string {
	u := tradeAPI + "?get=CTY_CODE,CTY_NAME,GEN_VAL_MO&I_COMMODITY=" + code
	switch {
	case from == "":
	case from == to:
		u += "&time=" + from
	default:
		u += "&time=from+" + from + "+to+" + to
	}
	return u
}

// excerptHint is the as_of a transcription's name implies: the first day of its last month.
func excerptHint(name string) string {
	if m := excerptPeriods.FindStringSubmatch(name); m != nil {
		return m[2] + "-01"
	}
	return ""
}

// excerptKind declares the transcriptions of API answers: each its own document, derived,
// planned when its commodity is one of the capability's; every line is read, countries and
// aggregates alike. It is as of the first day of the latest month it holds, like the API's
// answers.
func (t *trade) excerptKind() *kit.File {
	return &kit.File{
		Match: excerptName,
		Source: func(_ string, m []string) (string, string, string) {
			return excerptSourceID(m[1]), excerptPublisher, excerptURL
		},
		Derived:    true,
		OriginalOf: func(_ string, m []string) string { return excerptOriginal(m[1], "", "") },
		Hint:       func(path string, _ []string) string { return excerptHint(filepath.Base(path)) },
		Accept: func(_ *ingest.Finder, _ string, m []string) (bool, error) {
			return slices.Contains(t.commodities(), m[1]), nil
		},
		Open: openTradeFile,
		Sheets: []*kit.Sheet{{
			Header: 1,
			Columns: []kit.Column{
				{Field: "period", Header: "period", At: 1},
				{Header: "source", At: 2},
				{Header: "metric", At: 3},
				{Field: "general_imports_usd", Header: "value", Kind: kit.AsNumber, At: 4},
				{Header: "value_wda", At: 5},
				{Field: "country_name", Header: "meta", At: 6},
			},
			Begin: func(s *kit.SheetRead) bool {
				if headed(s, excerptLabels) {
					tb := s.File.Book.State.(*tradeBuild)
					tb.found = append(tb.found, fmt.Sprintf("%s: header %s", s.File.Name, strings.Join(excerptLabels, ",")))
				}
				return true
			},
			IsRow: lineHeld,
			Each:  excerptLine,
		}},
		Close: closeExcerpt,
	}
}

// headed reports whether the sheet's header row holds every label.
func headed(s *kit.SheetRead, labels []string) bool {
	for _, l := range labels {
		if s.ColOf(l) == 0 {
			return false
		}
	}
	return true
}

// excerptLine reads one line of a transcription: a Census line of the file's commodity.
func excerptLine(r *kit.Row) {
	tb, name, s := r.Book.State.(*tradeBuild), r.File.Name, r.Sheet
	code := r.File.Match[1]
	level := capability.TradeLevel(code)
	text := func(label string) string { return strings.TrimSpace(r.CellAt(s.Col(label)).Value) }
	period, source, metric := text("period"), text("source"), text("metric")
	meta := strings.TrimSpace(r.Cell("country_name").Value)
	m := excerptMetric.FindStringSubmatch(metric)
	if !excerptPeriod.MatchString(period) || source != "census" || m == nil || meta == "" {
		r.Book.Bad.Add("%s line %d: period %q, source %q, metric %q, meta %q is not a Census line (YYYY-MM, census, us_imports_<what>_value:<CTY_CODE>, CTY_NAME)", name, r.N, period, source, metric, meta)
		return
	}
	t, _ := time.Parse("2006-01", period)
	value := r.Value("general_imports_usd")
	if v, ok := value.(float64); ok && v != math.Trunc(v) {
		r.Book.Bad.Add("%s line %d value: %v is not a whole number of dollars", name, r.N, v)
	}
	cty := m[1]
	kind := countryKind(cty)
	r.Add().
		Set("source_form", capability.TradeFormExcerpt).
		Set("commodity", code).
		Set("commodity_level", level).
		Set("country_code", cty).
		Set("country_kind", kind).
		Set("observation_date", t.Format("2006-01-02")).
		Set("year", t.Year()).
		Set("value_unit", capability.TradeValueUnit(level)).
		Key(capability.TradeFormExcerpt + ":" + code + ":" + cty + ":" + period)
	tb.add(name, code, period, kind, value)
	f := &tb.file
	if f.first == "" || period < f.first {
		f.first = period
	}
	f.last = max(f.last, period)
	f.n++
}

// closeExcerpt says what a transcription held and names the API request it transcribes.
func closeExcerpt(fr *kit.FileRead) error {
	tb, name, code := fr.Book.State.(*tradeBuild), fr.Name, fr.Match[1]
	tb.reconcile = true
	f := &tb.file
	tb.read = append(tb.read, fmt.Sprintf("%s (transcription of API answers, HS %s): %d lines", name, code, f.n))
	if f.last != "" {
		tb.document(f.last + "-01")
	}
	fr.Source.OriginalURL = excerptOriginal(code, f.first, f.last)
	fr.Source.Title = fmt.Sprintf("U.S. general imports of HS %s by country (GEN_VAL_MO), Census international trade API imports/hs, %s to %s: a third party's transcription of the API's answers, one line per row (derived)", code, f.first, f.last)
	fr.Source.Release = fmt.Sprintf("API answers for %s to %s, as fetched by the collector", f.first, f.last)
	return nil
}
