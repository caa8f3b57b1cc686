package census

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
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

// exportKind declares the USA Trade Online exports: each its own document, planned when it
// holds the level of one of the capability's commodities, as of its "Current date:" line; the
// lines of the capability's commodities are read, those of other headings counted.
func (t *trade) exportKind() *kit.File {
	return &kit.File{
		Match:    exportName,
		SourceID: exportSourceID, Publisher: exportPublisher,
		URL: func(string, []string) string { return exportURL },
		Hint: func(path string, _ []string) string {
			hint, _, _ := peekExport(path)
			return hint
		},
		Accept: func(_ *ingest.Finder, path string, _ []string) (bool, error) {
			_, level, err := peekExport(path)
			// An export of another level holds none of the capability's commodities.
			return err == nil && slices.Contains(t.levels(), level), err
		},
		Open: openTradeFile,
		Sheets: []*kit.Sheet{{
			// The columns where the header names them; else where the report puts them, so
			// that every other gate judges the rest of the file on its own.
			Header: exportHeaderRow, Find: exportHeaderRow,
			Columns: []kit.Column{
				{Header: "Commodity", At: 1},
				{Field: "country_name", Header: "Country", At: 2},
				{Header: "Time", At: 3},
				{Header: "Customs Value (Gen) ($US)", At: 4},
			},
			Begin: exportTitleLines,
			IsRow: lineHeld,
			Each:  t.exportLine,
		}},
		Close: t.closeExport,
	}
}

// lineHeld reports whether a line of a text file holds anything.
func lineHeld(r *kit.Row) bool { return len(r.Sheet.Sheet.Row(r.N)) > 0 }

// openTradeFile starts the tally of a file.
func openTradeFile(fr *kit.FileRead) error {
	fr.Book.State.(*tradeBuild).file = fileTally{months: map[string]int{}, levels: map[string]bool{}}
	return nil
}

// exportTitleLines checks the export's two title lines, the report's title and its "Current
// date:" line (the export's as_of), and that the header is on the line below them.
func exportTitleLines(s *kit.SheetRead) bool {
	tb, name := s.File.Book.State.(*tradeBuild), s.File.Name
	var layout []string
	if got := strings.TrimSpace(s.Cell(1, 1).Value); got != exportTitle {
		layout = append(layout, fmt.Sprintf("line 1 is %q, not the report's title %q", got, exportTitle))
	}
	f := &tb.file
	f.dateLine = strings.TrimSpace(s.Cell(2, 1).Value)
	if f.exportAsOf, f.dated = exportCurrentDate(f.dateLine); !f.dated {
		layout = append(layout, fmt.Sprintf("line 2 is %q, not the report's \"Current date: MM/DD/YYYY ...\" line, so the export's date (its as_of) is unknown", f.dateLine))
	}
	headed := true
	for _, l := range exportLabels {
		headed = headed && s.ColOf(l) > 0
	}
	if headed && s.HeaderRow != exportHeaderRow {
		layout = append(layout, fmt.Sprintf("the header is on line %d, not on line %d below the two title lines", s.HeaderRow, exportHeaderRow))
	}
	switch {
	case len(layout) > 0:
		s.File.Book.Missing = append(s.File.Book.Missing, name+": "+strings.Join(layout, "; "))
	case headed:
		tb.found = append(tb.found, fmt.Sprintf("%s: the report's title, %s and the header on line %d", name, f.dateLine, s.HeaderRow))
	}
	return true
}

// exportLine reads one line of the export: one of the capability's commodities, one country
// and month; a line of another heading is counted, not read.
func (t *trade) exportLine(r *kit.Row) {
	tb, name, s := r.Book.State.(*tradeBuild), r.File.Name, r.Sheet
	f := &tb.file
	text := func(label string) string { return strings.TrimSpace(r.CellAt(s.Col(label)).Value) }
	m := exportCommodity.FindStringSubmatch(text("Commodity"))
	if m == nil {
		r.Book.Bad.Add("%s line %d: Commodity %q is not an HS code and its description", name, r.N, text("Commodity"))
		return
	}
	code := m[1]
	f.levels[capability.TradeLevel(code)] = true
	if !slices.Contains(t.commodities(), code) {
		f.other++
		return
	}
	country := r.Text("country_name")
	if country == "" || exportAggregate.MatchString(country) {
		r.Book.Bad.Add("%s line %d: Country %q is not one country (the export's lines are read by country)", name, r.N, country)
		return
	}
	tm, err := time.Parse("January 2006", text("Time"))
	if err != nil {
		r.Book.Bad.Add("%s line %d: Time %q is not a month and year (\"January 2024\")", name, r.N, text("Time"))
		return
	}
	var value any
	if v := text("Customs Value (Gen) ($US)"); exportValue.MatchString(v) {
		x, _ := strconv.ParseFloat(strings.ReplaceAll(v, ",", ""), 64)
		value = x
	} else {
		r.Book.Bad.Add("%s line %d: Customs Value (Gen) ($US) %q is not a whole number of dollars", name, r.N, v)
	}
	period := tm.Format("2006-01")
	level := capability.TradeLevel(code)
	r.Add().
		Set("source_form", capability.TradeFormExport).
		Set("commodity", code).
		Set("commodity_level", level).
		Set("commodity_description", strings.TrimSpace(m[2])).
		Set("country_kind", "country").
		Set("period", period).
		Set("observation_date", tm.Format("2006-01-02")).
		Set("year", tm.Year()).
		Set("value_unit", capability.TradeValueUnit(level)).
		SetCell("general_imports_usd", s.Col("Customs Value (Gen) ($US)"), value).
		Key(capability.TradeFormExport + ":" + code + ":" + country + ":" + period)
	f.months[code]++
	f.n++
}

// closeExport says what the export held: every commodity of the capability at a level the
// export holds must be in it.
func (t *trade) closeExport(fr *kit.FileRead) error {
	tb, name := fr.Book.State.(*tradeBuild), fr.Name
	f := &tb.file
	tb.read = append(tb.read, fmt.Sprintf("%s (USA Trade Online export): %d lines of the capability's commodities read, %d lines of other commodities not read", name, f.n, f.other))
	tb.complete = true
	for _, c := range t.commodities() {
		if !f.levels[capability.TradeLevel(c)] {
			continue
		}
		if f.months[c] == 0 {
			tb.missing = append(tb.missing, fmt.Sprintf("%s: no line of HS %s (the export holds other %s codes: is it cut short?)", name, c, capability.TradeLevel(c)))
		} else {
			tb.present = append(tb.present, fmt.Sprintf("HS %s %d months", c, f.months[c]))
		}
	}
	if f.dated {
		tb.document(f.exportAsOf)
	}
	fr.Source.Title = exportTitle + " (USA Trade Online): U.S. general imports by HS commodity, country and month, customs value in USD"
	fr.Source.Release = f.dateLine
	return nil
}
