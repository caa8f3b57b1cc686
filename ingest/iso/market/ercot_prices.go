package market

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// ERCOTPrices ingests power.price_ercot from ERCOT's annual workbooks of report NP4-180-ER
// (Historical DAM Load Zone and Hub Prices, DAMLZHBSPP_<year>.xlsx): one sheet per month,
// one row per delivery hour and settlement point. Each workbook is its own snapshot: one
// document per delivery year, whose year-to-date copy (DAMLZHBSPP_<year>_partial.xlsx) is an
// earlier version of the year's workbook. The snapshots hold every year's newest version
// published by their date (ingest's document sets), so the order of the plans does not
// matter. ERCOT posts the workbook as a zip behind its report listing page, each posting
// under its own document id, so there is no stable address to download it from (no Known
// files); the listing is ercotURL.
var ERCOTPrices = kit.New(&kit.Spec{
	Cap:     capability.PowerPriceERCOT,
	Version: "ercot-dam-spp/2",
	Folders: []string{ercotFolder},
	Files: []*kit.File{{
		Match: ercotFile, SourceID: ercotSourceID, Publisher: PublisherERCOT,
		URL:      func(string, []string) string { return ercotURL },
		Hint:     func(_ string, m []string) string { return m[1] + "-12-31" },
		Document: func(m []string) string { return "DAMLZHBSPP_" + m[1] },
		Sheets:   ercotSheets(),
		Close:    ercotClose,
	}},
	State: func() any {
		return &ercotState{days: map[string]ercotDay{}, points: map[string]bool{}, hoursOf: map[string]map[string]deliveryHour{}}
	},
	Gates:    ercotGates,
	Ranges:   map[string]snapshots.Range{"price": {Min: -1000, Max: 10000}, "hour_of_day": {Min: 1, Max: 24}},
	Required: []string{"settlement_point", "settlement_point_type", "delivery_date", "hour_ending", "repeated_hour_flag", "interval_start_utc"},
})

const (
	ercotFolder   = "iso/ercot"
	ercotSourceID = "ercot_dam_spp_lzhb"
	ercotURL      = "https://www.ercot.com/misapp/GetReports.do?reportTypeId=13060"
)

// ercotFile matches the workbook as ERCOT names the zip member
// (rpt.00013060.0000000000000000.DAMLZHBSPP_2024.xlsx) and as the raw directory keeps it; a
// year-to-date copy is kept with the suffix _partial.
var ercotFile = regexp.MustCompile(`(?:^|\.)DAMLZHBSPP_(\d{4})(_partial)?\.xlsx$`)

// ercotLabels are the header labels of every month sheet.
var ercotLabels = []string{"Delivery Date", "Hour Ending", "Repeated Hour Flag", "Settlement Point", "Settlement Point Price"}

var ercotMonths = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// ercotSheets are the month sheets, each with its header among its first 5 rows, and the
// second reading of each: the rows below the header with a delivery date, and the prices
// summed straight from their cells.
func ercotSheets() []*kit.Sheet {
	var out []*kit.Sheet
	for _, month := range ercotMonths {
		out = append(out, &kit.Sheet{
			Name: month, Find: 5,
			Columns: []kit.Column{
				{Field: "delivery_date", Header: "Delivery Date", Kind: kit.AsDate},
				{Field: "hour_ending", Header: "Hour Ending"},
				{Field: "repeated_hour_flag", Header: "Repeated Hour Flag"},
				{Field: "settlement_point", Header: "Settlement Point"},
				{Field: "price", Header: "Settlement Point Price", Kind: kit.AsNumber},
			},
			IsRow: func(r *kit.Row) bool { return len(r.Sheet.Sheet.Row(r.N)) > 0 },
			Each:  ercotRow,
			Tally: &kit.Tally{Cells: 1, Skip: undated, Sum: []string{"Settlement Point Price"}, Field: "price", Unit: "USD/MWh"},
		})
	}
	return out
}

// undated leaves out of the second reading a row without a delivery date.
func undated(s *kit.SheetRead, r int) bool {
	return strings.TrimSpace(s.Cell(r, s.ColOf("Delivery Date")).Value) == ""
}

// ercotDay is what a workbook holds for one delivery date: rows per settlement point.
type ercotDay map[string]int

// ercotState is what one build read: the rows per delivery date and settlement point, the
// operating hours of each date, the last delivery date, and what is cut short.
type ercotState struct {
	days       map[string]ercotDay
	points     map[string]bool
	hoursOf    map[string]map[string]deliveryHour
	last       string
	incomplete []string
}

// ercotRow is one delivery hour of one settlement point, its hour checked against the
// operating day's clock in Central Prevailing Time; a row whose keys do not read is a cell
// that does not parse, and no fact.
func ercotRow(r *kit.Row) {
	st := r.Book.State.(*ercotState)
	s := r.Sheet
	date, ok := r.Value("delivery_date").(string)
	if !ok {
		if r.Parsed("delivery_date") {
			r.Problem(s.Col("delivery_date"), "Delivery Date", "no delivery date")
		}
		return
	}
	d, _ := time.Parse("2006-01-02", date)
	year, _ := strconv.Atoi(r.File.Match[1])
	if d.Year() != year || d.Month().String()[:3] != s.Name {
		st.incomplete = append(st.incomplete, fmt.Sprintf("%s: delivery date %s on sheet %s of the %d workbook", s.Where(r.N, s.Col("delivery_date"), ""), date, s.Name, year))
	}
	heText := r.Text("hour_ending")
	he, ok := hourEnding(heText)
	if !ok {
		r.Problem(s.Col("hour_ending"), "Hour Ending", "%q is not HH:00", heText)
		return
	}
	flag := r.Text("repeated_hour_flag")
	if flag != "N" && flag != "Y" {
		r.Problem(s.Col("repeated_hour_flag"), "Repeated Hour Flag", "%q is not N or Y", flag)
		return
	}
	point := r.Text("settlement_point")
	typ := pointType(point)
	if typ == "" {
		r.Problem(s.Col("settlement_point"), "Settlement Point", "%q is neither a hub (HB_) nor a load zone (LZ_)", point)
		return
	}
	hours := st.hoursOf[date]
	if hours == nil {
		hours = map[string]deliveryHour{}
		for _, dh := range operatingDay(d) {
			hours[hourKey(dh.HourEnding, dh.Repeated)] = dh
		}
		st.hoursOf[date] = hours
	}
	dh, ok := hours[hourKey(he, flag == "Y")]
	if !ok {
		r.Problem(s.Col("hour_ending"), "Hour Ending", "hour ending %s flag %s does not exist on %s in Central Prevailing Time", heText, flag, date)
		return
	}
	block := timeBlock(d, he)
	peak := "off_peak"
	if block == "5x16" {
		peak = "on_peak"
	}
	r.Add().
		Set("settlement_point_type", typ).
		Set("hour_of_day", he).
		Set("interval_start_utc", dh.Start.Format(time.RFC3339)).
		Set("interval_end_utc", dh.End.Format(time.RFC3339)).
		Set("utc_offset", dh.Offset()).
		Set("year", d.Year()).
		Set("month", date[:7]).
		Set("day_of_week", d.Weekday().String()).
		Set("nerc_holiday", nercHoliday(d)).
		Set("peak_type", peak).
		Set("time_block", block).
		Key(strings.Join([]string{point, date, heText, flag}, "|"))
	day := st.days[date]
	if day == nil {
		day = ercotDay{}
		st.days[date] = day
	}
	day[point]++
	st.points[point] = true
	st.last = max(st.last, date)
}

// ercotClose dates the workbook by its last delivery date (the year's end its name implies
// when none is read), titles it, and finds what it lacks and what of its year it covers.
func ercotClose(fr *kit.FileRead) error {
	st, b := fr.Book.State.(*ercotState), fr.Book
	year, _ := strconv.Atoi(fr.Match[1])
	partial := fr.Match[2] != ""
	unread := map[time.Month]bool{} // months whose sheet could not be read (headers_present says why)
	for mi, month := range ercotMonths {
		if !slices.ContainsFunc(fr.Sheets, func(s *kit.SheetRead) bool { return s.Name == month && s.HeaderRow > 0 }) {
			unread[time.Month(mi+1)] = true
		}
	}
	b.Incomplete = append(st.incomplete, completeness(year, partial, st.last, st.days, st.points, unread)...)
	b.AsOf = st.last
	if b.AsOf == "" {
		b.AsOf = b.Plan.AsOfHint
	}
	fr.Source.Title = fmt.Sprintf("ERCOT NP4-180-ER Historical DAM Load Zone and Hub Prices %d", year)
	if partial {
		fr.Source.Title += fmt.Sprintf(" (year to date, through %s)", st.last)
	}
	fr.Source.Release = st.last
	b.Coverage = ercotCoverage(fr.Name, year, st.last)
	return nil
}

// ercotGates are the headers, cells, totals and completeness gates.
func ercotGates(b *kit.Book) []snapshots.Gate {
	st := b.State.(*ercotState)
	sheets := 0
	for _, fr := range b.Files {
		for _, s := range fr.Sheets {
			if s.HeaderRow > 0 {
				sheets++
			}
		}
	}
	return []snapshots.Gate{
		b.HeadersGate(fmt.Sprintf("%d month sheets with the headers %s", sheets, strings.Join(ercotLabels, ", "))),
		b.CellsGate(fmt.Sprintf("%d rows read", len(b.Facts))),
		b.Rec.Gate(),
		b.CompleteGate(fmt.Sprintf("%d delivery days through %s, every settlement point (%d) with every hour of each day", len(st.days), st.last, len(st.points))),
	}
}

func hourKey(he int, repeated bool) string { return fmt.Sprint(he, repeated) }

// hourEnding reads "01:00" ... "24:00".
func hourEnding(s string) (int, bool) {
	hh, mm, ok := strings.Cut(s, ":")
	if !ok || mm != "00" || len(hh) != 2 {
		return 0, false
	}
	h, err := strconv.Atoi(hh)
	if err != nil || h < 1 || h > 24 {
		return 0, false
	}
	return h, true
}

// pointType is hub or load_zone by the settlement point's prefix ("" for neither).
func pointType(p string) string {
	switch {
	case strings.HasPrefix(p, "HB_"):
		return "hub"
	case strings.HasPrefix(p, "LZ_"):
		return "load_zone"
	}
	return ""
}

// completeness lists what the workbook lacks: every day from 1 January to its last delivery
// date (31 December unless the workbook is a year-to-date copy) must be there, with every
// settlement point the workbook names and, for each, every hour of that day on the clock.
// Months whose sheet could not be read at all are left to the headers_present gate.
func completeness(year int, partial bool, last string, days map[string]ercotDay, points map[string]bool, unread map[time.Month]bool) []string {
	var out []string
	if last == "" {
		return []string{"no delivery date read"}
	}
	end, _ := time.Parse("2006-01-02", last)
	if !partial && last != fmt.Sprintf("%d-12-31", year) {
		out = append(out, fmt.Sprintf("the %d workbook ends on %s, not on 31 December", year, last))
	}
	var names []string
	for p := range points {
		names = append(names, p)
	}
	sort.Strings(names)
	for d := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC); !d.After(end); d = d.AddDate(0, 0, 1) {
		if unread[d.Month()] {
			continue
		}
		key := d.Format("2006-01-02")
		day, ok := days[key]
		if !ok {
			out = append(out, fmt.Sprintf("no rows for %s", key))
			continue
		}
		want := len(operatingDay(d))
		for _, p := range names {
			if day[p] != want {
				out = append(out, fmt.Sprintf("%s %s: %d hours, the day has %d", key, p, day[p], want))
			}
		}
	}
	return out
}

// ercotCoverage is what a workbook that ends before 31 December covers of its year, and of
// the month its last delivery date falls in: every day from 1 January (or the 1st of the
// month) to that date.
func ercotCoverage(name string, year int, last string) []snapshots.Coverage {
	end, err := time.Parse("2006-01-02", last)
	if err != nil || last == fmt.Sprintf("%d-12-31", year) {
		return nil
	}
	complete := fmt.Sprintf("No published file here has the rest of it: ERCOT posts the complete %d workbook (DAMLZHBSPP_%d.xlsx, report NP4-180-ER) after the year ends; once it is ingested, the as_of of its last delivery date answers for the whole year.", year, year)
	first := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC)
	days := int(end.Sub(first).Hours()/24) + 1
	inYear := int(time.Date(year+1, 1, 1, 0, 0, 0, 0, time.UTC).Sub(first).Hours() / 24)
	out := []snapshots.Coverage{{
		Where: map[string]string{"year": fmt.Sprint(year)}, Period: fmt.Sprintf("the year %d", year), File: name,
		Covered:  fmt.Sprintf("delivery dates %d-01-01 to %s, %d of its %d days (ERCOT's year-to-date workbook)", year, last, days, inYear),
		Complete: complete,
	}}
	if end.AddDate(0, 0, 1).Month() == end.Month() {
		month := end.Format("2006-01")
		out = append(out, snapshots.Coverage{
			Where: map[string]string{"month": month}, Period: "the month " + month, File: name,
			Covered:  fmt.Sprintf("delivery dates %s-01 to %s, %d of its %d days", month, last, end.Day(), time.Date(year, end.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day()),
			Complete: complete,
		})
	}
	return out
}
