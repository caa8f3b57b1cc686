package archive

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/citeq/citeq/ingest/fetch"
)

// eia860mBase is where EIA keeps the EIA-860M workbooks: the current month under xls/, the
// earlier months under archive/xls/, each named <month>_generator<year>.xlsx.
const eia860mBase = "https://www.eia.gov/electricity/data/eia860m/"

var eia860mFile = regexp.MustCompile(`^(?i)(january|february|march|april|may|june|july|august|september|october|november|december)_generator(\d{4})\.xlsx$`)

// EIA860M is the EIA-860M monthly generator inventory: one workbook per report month,
// <month>_generator<year>.xlsx, from July 2015 on. The month EIA released last is at
// eia860m/xls/, the earlier ones at eia860m/archive/xls/; EIA answers an address that holds
// no workbook with its landing page (an HTML page), which is how a month not yet released
// shows. A recent month is asked at xls/ first, an older one at archive/xls/ first.
var EIA860M = Dated{
	Name:   "the EIA-860M inventory",
	Period: Monthly,
	First:  time.Date(2015, 7, 1, 0, 0, 0, 0, time.UTC),
	Folder: "eia/eia860m",
	Sources: func(p time.Time) []fetch.Source {
		name := strings.ToLower(p.Month().String()) + "_generator" + strconv.Itoa(p.Year()) + ".xlsx"
		dest := "eia/eia860m/" + name
		current := fetch.Source{URL: eia860mBase + "xls/" + name, Kind: fetch.XLSX, Dest: dest}
		archived := fetch.Source{URL: eia860mBase + "archive/xls/" + name, Kind: fetch.XLSX, Dest: dest}
		if time.Since(p) < 92*24*time.Hour {
			return []fetch.Source{current, archived}
		}
		return []fetch.Source{archived, current}
	},
	Held: func(name string) (time.Time, bool) {
		m := eia860mFile.FindStringSubmatch(name)
		if m == nil {
			return time.Time{}, false
		}
		t, err := time.Parse("January 2006", strings.ToUpper(m[1][:1])+strings.ToLower(m[1][1:])+" "+m[2])
		return t, err == nil
	},
}

// eia930Base is where EIA keeps the EIA-930 six-month files.
const eia930Base = "https://www.eia.gov/electricity/gridmonitor/sixMonthFiles/"

var eia930BalanceFile = regexp.MustCompile(`^EIA930_BALANCE_(\d{4})_(Jan_Jun|Jul_Dec)\.csv$`)

// EIA930Balance is EIA's six-month EIA-930 BALANCE file, every balancing authority's hours of
// one half-year in one CSV, EIA930_BALANCE_<year>_Jan_Jun.csv or _Jul_Dec.csv, all at one
// address from the second half of 2015 on (the first hours EIA-930 holds are of July 2015).
// EIA answers the name of a half-year it has not published with a 404 or an HTML page. The
// file of the half-year under way is published while it runs and grows; a later download
// replaces the one held.
var EIA930Balance = Dated{
	Name:   "the EIA-930 six-month BALANCE file",
	Period: HalfYearly,
	First:  time.Date(2015, 7, 1, 0, 0, 0, 0, time.UTC),
	Folder: "eia/eia930_balance",
	Sources: func(p time.Time) []fetch.Source {
		half := "Jan_Jun"
		if p.Month() >= time.July {
			half = "Jul_Dec"
		}
		name := "EIA930_BALANCE_" + strconv.Itoa(p.Year()) + "_" + half + ".csv"
		return []fetch.Source{{URL: eia930Base + name, Kind: fetch.CSV, Dest: "eia/eia930_balance/" + name}}
	},
	Held: func(name string) (time.Time, bool) {
		m := eia930BalanceFile.FindStringSubmatch(name)
		if m == nil {
			return time.Time{}, false
		}
		y, _ := strconv.Atoi(m[1])
		mo := time.January
		if m[2] == "Jul_Dec" {
			mo = time.July
		}
		return time.Date(y, mo, 1, 0, 0, 0, 0, time.UTC), true
	},
}
