package census

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/grid"
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

// readExcerpt reads one transcription of API answers, every line: countries and aggregates
// alike. It is as of the first day of the latest month it holds, like the API's answers.
func (tb *tradeBuild) readExcerpt(f *ingest.File) error {
	name := filepath.Base(f.Path)
	code := excerptName.FindStringSubmatch(name)[1]
	level := capability.TradeLevel(code)
	wb, err := grid.Open(f.Path)
	if err != nil {
		return err
	}
	sh := wb.Sheets[0]
	cols := map[string]int{}
	for i, l := range excerptLabels {
		cols[l] = i + 1
	}
	if h, err := kit.FindHeader(sh, 1, excerptLabels...); err != nil {
		tb.layout = append(tb.layout, fmt.Sprintf("%s: %v", name, err))
	} else {
		for _, l := range excerptLabels {
			cols[l] = h.Col(l)
		}
		tb.found = append(tb.found, fmt.Sprintf("%s: header %s", name, strings.Join(excerptLabels, ",")))
	}
	tb.reconcile = true
	n, first, last := 0, "", ""
	for r := 2; r <= sh.NumRows(); r++ {
		if len(sh.Row(r)) == 0 {
			continue
		}
		text := func(label string) string { return strings.TrimSpace(sh.Cell(r, cols[label]).Value) }
		period, source, metric, meta := text("period"), text("source"), text("metric"), text("meta")
		m := excerptMetric.FindStringSubmatch(metric)
		if !excerptPeriod.MatchString(period) || source != "census" || m == nil || meta == "" {
			tb.bad.Add("%s line %d: period %q, source %q, metric %q, meta %q is not a Census line (YYYY-MM, census, us_imports_<what>_value:<CTY_CODE>, CTY_NAME)", name, r, period, source, metric, meta)
			continue
		}
		t, _ := time.Parse("2006-01", period)
		value, err := kit.Number(sh.Cell(r, cols["value"]))
		if err != nil {
			tb.bad.Add("%s line %d value: %v", name, r, err)
		} else if v, ok := value.(float64); ok && v != math.Trunc(v) {
			tb.bad.Add("%s line %d value: %v is not a whole number of dollars", name, r, v)
		}
		cty := m[1]
		kind := countryKind(cty)
		tb.rows.Add(ingest.Lineage{SourceID: f.SourceID, File: name, Sheet: sh.Name, Row: r, SHA256: f.SHA256}).
			Set("source_form", capability.TradeFormExcerpt).
			Set("commodity", code).
			Set("commodity_level", level).
			Set("country_code", cty).
			SetCell("country_name", cols["meta"], meta).
			Set("country_kind", kind).
			SetCell("period", cols["period"], period).
			Set("observation_date", t.Format("2006-01-02")).
			Set("year", t.Year()).
			Set("value_unit", capability.TradeValueUnit(level)).
			SetCell("general_imports_usd", cols["value"], value).
			Key(capability.TradeFormExcerpt + ":" + code + ":" + cty + ":" + period)
		tb.add(name, code, period, kind, value)
		if first == "" || period < first {
			first = period
		}
		last = max(last, period)
		n++
	}
	tb.read = append(tb.read, fmt.Sprintf("%s (transcription of API answers, HS %s): %d lines", name, code, n))
	if last != "" {
		tb.document(last + "-01")
	}
	src := f.Source()
	src.OriginalURL = excerptOriginal(code, first, last)
	src.Title = fmt.Sprintf("U.S. general imports of HS %s by country (GEN_VAL_MO), Census international trade API imports/hs, %s to %s: a third party's transcription of the API's answers, one line per row (derived)", code, first, last)
	src.Release = fmt.Sprintf("API answers for %s to %s, as fetched by the collector", first, last)
	src.HeaderRows = map[string]int{sh.Name: 1}
	tb.sources = append(tb.sources, src)
	return nil
}
