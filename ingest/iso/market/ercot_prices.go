package market

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/grid"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// ERCOTPrices ingests power.price_ercot from ERCOT's annual workbooks of report NP4-180-ER
// (Historical DAM Load Zone and Hub Prices, DAMLZHBSPP_<year>.xlsx): one sheet per month,
// one row per delivery hour and settlement point. Each workbook is its own snapshot.
type ERCOTPrices struct{}

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

// Capability implements ingest.Adapter.
func (ERCOTPrices) Capability() *capability.Capability { return capability.PowerPriceERCOT }

// Version implements ingest.Adapter.
func (ERCOTPrices) Version() string { return "ercot-dam-spp/2" }

// Folders implements ingest.Adapter.
func (ERCOTPrices) Folders() []string { return []string{ercotFolder} }

// Known implements ingest.Adapter. ERCOT posts the workbook as a zip behind its report
// listing page, each posting under its own document id, so there is no stable address to
// download it from; the listing is ercotURL.
func (ERCOTPrices) Known() []fetch.Source { return nil }

// Plan implements ingest.Adapter: one document per delivery year, whose year-to-date copy
// (DAMLZHBSPP_<year>_partial.xlsx) is an earlier version of the year's workbook. The
// snapshots hold every year's newest version published by their date (ingest's document
// sets), so the order of the plans does not matter.
func (ERCOTPrices) Plan(finder *ingest.Finder) ([]ingest.Plan, error) {
	paths, err := finder.Find(func(n string) bool { return ercotFile.MatchString(n) })
	if err != nil {
		return nil, err
	}
	var plans []ingest.Plan
	for _, p := range paths {
		m := ercotFile.FindStringSubmatch(filepath.Base(p))
		plans = append(plans, ingest.Plan{AsOfHint: m[1] + "-12-31", Document: "DAMLZHBSPP_" + m[1], Files: []ingest.File{{
			Path: p, SourceID: ercotSourceID, Publisher: PublisherERCOT, URL: ercotURL, Role: ingest.RoleData,
		}}})
	}
	return plans, nil
}

// ercotDay is what a workbook holds for one delivery date: rows per settlement point.
type ercotDay map[string]int

// Build implements ingest.Adapter.
func (ERCOTPrices) Build(p ingest.Plan) (*ingest.Build, error) {
	f, _ := ingest.SplitRoles(p.Files)
	if f == nil {
		return nil, fmt.Errorf("ercot prices: the plan has no data file")
	}
	name := filepath.Base(f.Path)
	m := ercotFile.FindStringSubmatch(name)
	if m == nil {
		return nil, fmt.Errorf("ercot prices: %s is not a DAMLZHBSPP workbook", name)
	}
	year, _ := strconv.Atoi(m[1])
	partial := m[2] != ""
	wb, err := grid.Open(f.Path)
	if err != nil {
		return nil, fmt.Errorf("ercot prices: %w", err)
	}
	b := &ingest.Build{
		Ranges:   map[string]snapshots.Range{"price": {Min: -1000, Max: 10000}, "hour_of_day": {Min: 1, Max: 24}},
		Required: []string{"settlement_point", "settlement_point_type", "delivery_date", "hour_ending", "repeated_hour_flag", "interval_start_utc"},
	}
	rows := ingest.NewRows(capability.PowerPriceERCOT)
	var bad kit.Problems
	var missing, incomplete []string
	var rc kit.Reconcile
	headers := map[string]int{}
	days := map[string]ercotDay{}
	points := map[string]bool{}
	hoursOf := map[string]map[string]deliveryHour{}
	last := ""
	unread := map[time.Month]bool{} // months whose sheet could not be read (headers_present says why)
	for mi, month := range ercotMonths {
		sh := wb.Sheet(month)
		if sh == nil {
			missing = append(missing, fmt.Sprintf("no sheet %s", month))
			unread[time.Month(mi+1)] = true
			continue
		}
		h, err := kit.FindHeader(sh, 5, ercotLabels...)
		if err != nil {
			missing = append(missing, err.Error())
			unread[time.Month(mi+1)] = true
			continue
		}
		headers[month] = h.Row
		cDate, cHour, cFlag, cPoint, cPrice := h.Col("Delivery Date"), h.Col("Hour Ending"), h.Col("Repeated Hour Flag"), h.Col("Settlement Point"), h.Col("Settlement Point Price")
		parsed, sum := 0, 0.0
		for r := h.Row + 1; r <= sh.NumRows(); r++ {
			if len(sh.Row(r)) == 0 {
				continue
			}
			at := func(c int) string { return fmt.Sprintf("%s!%s%d", month, grid.ColumnName(c), r) }
			dv, err := kit.Date(sh.Cell(r, cDate))
			if err != nil || dv == nil {
				bad.Add("%s: delivery date %q: %v", at(cDate), sh.Cell(r, cDate).Value, err)
				continue
			}
			date := dv.(string)
			d, _ := time.Parse("2006-01-02", date)
			if d.Year() != year || int(d.Month()) != mi+1 {
				incomplete = append(incomplete, fmt.Sprintf("%s: delivery date %s on sheet %s of the %d workbook", at(cDate), date, month, year))
			}
			heText := strings.TrimSpace(sh.Cell(r, cHour).Value)
			he, ok := hourEnding(heText)
			if !ok {
				bad.Add("%s: hour ending %q is not HH:00", at(cHour), heText)
				continue
			}
			flag := strings.TrimSpace(sh.Cell(r, cFlag).Value)
			if flag != "N" && flag != "Y" {
				bad.Add("%s: repeated hour flag %q is not N or Y", at(cFlag), flag)
				continue
			}
			point := strings.TrimSpace(sh.Cell(r, cPoint).Value)
			typ := pointType(point)
			if typ == "" {
				bad.Add("%s: settlement point %q is neither a hub (HB_) nor a load zone (LZ_)", at(cPoint), point)
				continue
			}
			hours := hoursOf[date]
			if hours == nil {
				hours = map[string]deliveryHour{}
				for _, dh := range operatingDay(d) {
					hours[hourKey(dh.HourEnding, dh.Repeated)] = dh
				}
				hoursOf[date] = hours
			}
			dh, ok := hours[hourKey(he, flag == "Y")]
			if !ok {
				bad.Add("%s: hour ending %s flag %s does not exist on %s in Central Prevailing Time", at(cHour), heText, flag, date)
				continue
			}
			price, err := kit.Number(sh.Cell(r, cPrice))
			if err != nil {
				bad.Add("%s: %v", at(cPrice), err)
			}
			if price != nil {
				sum += price.(float64)
			}
			parsed++
			block := timeBlock(d, he)
			peak := "off_peak"
			if block == "5x16" {
				peak = "on_peak"
			}
			rows.Add(ingest.Lineage{SourceID: f.SourceID, File: name, Sheet: month, Row: r, SHA256: f.SHA256}).
				SetCell("settlement_point", cPoint, point).
				Set("settlement_point_type", typ).
				SetCell("delivery_date", cDate, date).
				SetCell("hour_ending", cHour, heText).
				Set("hour_of_day", he).
				SetCell("repeated_hour_flag", cFlag, flag).
				Set("interval_start_utc", dh.Start.Format(time.RFC3339)).
				Set("interval_end_utc", dh.End.Format(time.RFC3339)).
				Set("utc_offset", dh.Offset()).
				Set("year", d.Year()).
				Set("month", date[:7]).
				Set("day_of_week", d.Weekday().String()).
				Set("nerc_holiday", nercHoliday(d)).
				Set("peak_type", peak).
				Set("time_block", block).
				SetCell("price", cPrice, price).
				Key(strings.Join([]string{point, date, heText, flag}, "|"))
			day := days[date]
			if day == nil {
				day = ercotDay{}
				days[date] = day
			}
			day[point]++
			points[point] = true
			if date > last {
				last = date
			}
		}
		n, s := readSheetAgain(sh, h.Row, cDate, cPrice)
		rc.Sheet(month, parsed, sum, n, s, "USD/MWh")
	}
	incomplete = append(incomplete, completeness(year, partial, last, days, points, unread)...)
	asOf := last
	if asOf == "" {
		asOf = p.AsOfHint
	}
	facts, err := rows.Finish(asOf)
	if err != nil {
		return nil, err
	}
	src := f.Source()
	src.Title = fmt.Sprintf("ERCOT NP4-180-ER Historical DAM Load Zone and Hub Prices %d", year)
	if partial {
		src.Title += fmt.Sprintf(" (year to date, through %s)", last)
	}
	src.Release, src.HeaderRows = last, headers
	b.AsOf, b.Rows, b.Cells, b.Sources = asOf, facts, rows.Cells(), []snapshots.Source{src}
	b.Coverage = ercotCoverage(name, year, last)
	b.Checks = append(b.Checks,
		kit.Failures(kit.GateHeaders, missing, fmt.Sprintf("%d month sheets with the headers %s", len(headers), strings.Join(ercotLabels, ", "))),
		bad.Gate(kit.GateCells, fmt.Sprintf("%d rows read", len(facts))),
		rc.Gate(),
		kit.Failures(kit.GateComplete, incomplete, fmt.Sprintf("%d delivery days through %s, every settlement point (%d) with every hour of each day", len(days), last, len(points))))
	return b, nil
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

// readSheetAgain is the second reading of a month sheet for totals_reconcile: the rows below
// the header with a delivery date, and the prices summed straight from their cells.
func readSheetAgain(sh *grid.Sheet, header, cDate, cPrice int) (int, float64) {
	n, sum := 0, 0.0
	for r := header + 1; r <= sh.NumRows(); r++ {
		if strings.TrimSpace(sh.Cell(r, cDate).Value) == "" {
			continue
		}
		n++
		if v, err := strconv.ParseFloat(strings.TrimSpace(sh.Cell(r, cPrice).Value), 64); err == nil {
			sum += v
		}
	}
	return n, sum
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
