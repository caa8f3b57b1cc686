package census

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/grid"
	"github.com/citeq/citeq/ingest/kit"
)

// A USA Trade Online export ("Standard Report - Imports", a CSV file the report page
// downloads) is the agency's own bytes: two title lines, the report's title and the date it
// was generated ("Current date: 05/31/2026 5:56 AM (Eastern Daylight Time)"), then the header
// "Commodity","Country","Time","Customs Value (Gen) ($US)", and one line per commodity,
// country and month with trade (a month without is absent, not zero). The Commodity cell is
// the HS code and the Census short description in one string ("8542 Electronic Integrated
// Circuits & Microassembl, Pts"), Time a month name and year ("January 2024"), the value
// whole dollars with thousands separators ("106,393,568"). It prints no total line.
const (
	exportSourceID  = "CENSUS:USATradeOnline:Imports"
	exportPublisher = "U.S. Census Bureau, U.S. International Trade in Goods (USA Trade Online, Standard Report - Imports)"
	exportURL       = "https://usatrade.census.gov/"
	exportTitle     = "Standard Report - Imports"
	// exportHeaderRow is the header's line below the two title lines.
	exportHeaderRow = 3
)

var (
	// exportName matches an export as saved here (usatradeonline_<what>.csv) or under the
	// name the report page gives it.
	exportName = regexp.MustCompile(`(?i)^(usatradeonline_.*|standard report - imports.*)\.csv$`)
	// exportDataLine is a data line as written: its Commodity cell starts with an HS code.
	exportDataLine  = regexp.MustCompile(`^"?(\d{2,10}) `)
	exportCommodity = regexp.MustCompile(`^(\d{2,10}) (.+)$`)
	exportDate      = regexp.MustCompile(`^Current date: (\d{2}/\d{2}/\d{4})\b`)
	// exportValue is a whole number of dollars, with or without thousands separators.
	exportValue = regexp.MustCompile(`^(\d{1,3}(,\d{3})*|\d+)$`)
	// exportAggregate is a Country cell that names a total or a group, not one country.
	exportAggregate = regexp.MustCompile(`(?i)\b(total|world)\b`)
	exportLabels    = []string{"Commodity", "Country", "Time", "Customs Value (Gen) ($US)"}
)

// exportCurrentDate reads the date of a "Current date:" line as YYYY-MM-DD.
func exportCurrentDate(line string) (string, bool) {
	m := exportDate.FindStringSubmatch(strings.TrimSpace(line))
	if m == nil {
		return "", false
	}
	t, err := time.Parse("01/02/2006", m[1])
	if err != nil {
		return "", false
	}
	return t.Format("2006-01-02"), true
}

// readExport reads the lines of the capability's commodities from one USA Trade Online
// export; the lines of other headings are counted, not read. The export is as of its
// "Current date:" line.
func (tb *tradeBuild) readExport(f *ingest.File) error {
	name := filepath.Base(f.Path)
	wb, err := grid.Open(f.Path)
	if err != nil {
		return err
	}
	sh := wb.Sheets[0]
	var layout []string
	if got := strings.TrimSpace(sh.Cell(1, 1).Value); got != exportTitle {
		layout = append(layout, fmt.Sprintf("line 1 is %q, not the report's title %q", got, exportTitle))
	}
	dateLine := strings.TrimSpace(sh.Cell(2, 1).Value)
	asOf, dated := exportCurrentDate(dateLine)
	if !dated {
		layout = append(layout, fmt.Sprintf("line 2 is %q, not the report's \"Current date: MM/DD/YYYY ...\" line, so the export's date (its as_of) is unknown", dateLine))
	}
	// The columns, where the header names them; else where the report puts them, so that
	// every other gate judges the rest of the file on its own.
	header := exportHeaderRow
	cols := map[string]int{}
	for i, l := range exportLabels {
		cols[l] = i + 1
	}
	h, err := kit.FindHeader(sh, exportHeaderRow, exportLabels...)
	switch {
	case err != nil:
		layout = append(layout, err.Error())
	default:
		header = h.Row
		for _, l := range exportLabels {
			cols[l] = h.Col(l)
		}
		if h.Row != exportHeaderRow {
			layout = append(layout, fmt.Sprintf("the header is on line %d, not on line %d below the two title lines", h.Row, exportHeaderRow))
		}
	}
	if len(layout) > 0 {
		tb.layout = append(tb.layout, name+": "+strings.Join(layout, "; "))
	} else {
		tb.found = append(tb.found, fmt.Sprintf("%s: the report's title, %s and the header on line %d", name, dateLine, header))
	}

	codes := tb.a.commodities()
	months := map[string]int{}
	levels := map[string]bool{}
	read, other := 0, 0
	for r := header + 1; r <= sh.NumRows(); r++ {
		if len(sh.Row(r)) == 0 {
			continue
		}
		text := func(label string) string { return strings.TrimSpace(sh.Cell(r, cols[label]).Value) }
		m := exportCommodity.FindStringSubmatch(text("Commodity"))
		if m == nil {
			tb.bad.Add("%s line %d: Commodity %q is not an HS code and its description", name, r, text("Commodity"))
			continue
		}
		code := m[1]
		levels[capability.TradeLevel(code)] = true
		if !slices.Contains(codes, code) {
			other++
			continue
		}
		country := text("Country")
		if country == "" || exportAggregate.MatchString(country) {
			tb.bad.Add("%s line %d: Country %q is not one country (the export's lines are read by country)", name, r, country)
			continue
		}
		t, err := time.Parse("January 2006", text("Time"))
		if err != nil {
			tb.bad.Add("%s line %d: Time %q is not a month and year (\"January 2024\")", name, r, text("Time"))
			continue
		}
		var value any
		if v := text("Customs Value (Gen) ($US)"); exportValue.MatchString(v) {
			x, _ := strconv.ParseFloat(strings.ReplaceAll(v, ",", ""), 64)
			value = x
		} else {
			tb.bad.Add("%s line %d: Customs Value (Gen) ($US) %q is not a whole number of dollars", name, r, v)
		}
		period := t.Format("2006-01")
		level := capability.TradeLevel(code)
		tb.rows.Add(ingest.Lineage{SourceID: f.SourceID, File: name, Sheet: sh.Name, Row: r, SHA256: f.SHA256}).
			Set("source_form", capability.TradeFormExport).
			Set("commodity", code).
			Set("commodity_level", level).
			Set("commodity_description", strings.TrimSpace(m[2])).
			SetCell("country_name", cols["Country"], country).
			Set("country_kind", "country").
			Set("period", period).
			Set("observation_date", t.Format("2006-01-02")).
			Set("year", t.Year()).
			Set("value_unit", capability.TradeValueUnit(level)).
			SetCell("general_imports_usd", cols["Customs Value (Gen) ($US)"], value).
			Key(capability.TradeFormExport + ":" + code + ":" + country + ":" + period)
		months[code]++
		read++
	}
	tb.read = append(tb.read, fmt.Sprintf("%s (USA Trade Online export): %d lines of the capability's commodities read, %d lines of other commodities not read", name, read, other))

	// Every commodity of the capability at a level the export holds must be in it.
	tb.complete = true
	for _, c := range codes {
		if !levels[capability.TradeLevel(c)] {
			continue
		}
		if months[c] == 0 {
			tb.missing = append(tb.missing, fmt.Sprintf("%s: no line of HS %s (the export holds other %s codes: is it cut short?)", name, c, capability.TradeLevel(c)))
		} else {
			tb.present = append(tb.present, fmt.Sprintf("HS %s %d months", c, months[c]))
		}
	}
	if dated {
		tb.document(asOf)
	}
	src := f.Source()
	src.Title = exportTitle + " (USA Trade Online): U.S. general imports by HS commodity, country and month, customs value in USD"
	src.Release = dateLine
	src.HeaderRows = map[string]int{sh.Name: header}
	tb.sources = append(tb.sources, src)
	return nil
}
