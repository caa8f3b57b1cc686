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
