package kit

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/grid/xls"
)

// Blank reports whether a cell stands for "no value": empty, white space, a lone period, or
// one of the publisher's own marks given in marks (compared after trimming, e.g. "(D)",
// "NA", "-").
func Blank(c grid.Cell, marks ...string) bool {
	if c.Kind == grid.Empty {
		return true
	}
	t := strings.TrimSpace(c.Value)
	if t == "" || t == "." {
		return true
	}
	for _, m := range marks {
		if t == m {
			return true
		}
	}
	return false
}

// Text returns a cell's trimmed text, nil when blank.
func Text(c grid.Cell, marks ...string) any {
	if Blank(c, marks...) {
		return nil
	}
	return strings.TrimSpace(c.Value)
}

// Number returns a numeric cell as float64, nil when blank (see Blank), an error when it is
// text that is not a number. Thousands separators and a trailing percent sign are not
// numbers here: an adapter whose publisher prints them strips them itself and says so.
func Number(c grid.Cell, marks ...string) (any, error) {
	if Blank(c, marks...) {
		return nil, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(c.Value), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%q is not a number", c.Value)
	}
	return f, nil
}

// thousandsGrouped is a number whose thousands are grouped with commas ("106,393,568").
var thousandsGrouped = regexp.MustCompile(`^-?\d{1,3}(,\d{3})+(\.\d+)?$`)

// ungroup is text s without the commas that group a number's thousands (s itself when it is
// not a number so written).
func ungroup(s string) string {
	if t := strings.TrimSpace(s); thousandsGrouped.MatchString(t) {
		return strings.ReplaceAll(t, ",", "")
	}
	return s
}

// Grouped returns a numeric cell as float64, its thousands grouped with commas ("12,345") or
// not, nil when blank (see Blank); a comma anywhere else is not a number.
func Grouped(c grid.Cell, marks ...string) (any, error) {
	if Blank(c, marks...) {
		return nil, nil
	}
	v, err := Number(grid.Cell{Kind: c.Kind, Value: ungroup(c.Value)})
	if err != nil {
		return nil, fmt.Errorf("%q is not a number", c.Value)
	}
	return v, nil
}

// Int returns a whole-number cell as int64, nil when blank.
func Int(c grid.Cell, marks ...string) (any, error) {
	v, err := Number(c, marks...)
	if v == nil || err != nil {
		return nil, err
	}
	f := v.(float64)
	if f != math.Trunc(f) || math.Abs(f) > 1e15 {
		return nil, fmt.Errorf("%q is not a whole number", c.Value)
	}
	return int64(f), nil
}

// UnknownMonths are the values EIA writes in a month column for a month it does not know.
var UnknownMonths = []int64{0, 88}

// Month returns a month cell (1-12) as int64 and whether it names a month: an unknown-month
// mark (UnknownMonths) is kept as published with known false; nil when blank.
func Month(c grid.Cell) (v any, known bool, err error) {
	v, err = Int(c)
	if v == nil || err != nil {
		return v, false, err
	}
	m := v.(int64)
	if m >= 1 && m <= 12 {
		return v, true, nil
	}
	for _, u := range UnknownMonths {
		if m == u {
			return v, false, nil
		}
	}
	return nil, false, fmt.Errorf("%q is not a month", c.Value)
}

var (
	usDate    = regexp.MustCompile(`^(\d{1,2})/(\d{1,2})/(\d{4})$`)
	isoDate   = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2})?)?$`)
	textDates = []string{"January 2, 2006", "Jan 2, 2006", "2-Jan-2006", "02-Jan-06", "Jan-2-2006"}
	// dbDate is a datetime as Sybase and SQL Server export it: "Jun 18 2025  4:50:24:023PM".
	dbDate = regexp.MustCompile(`^([A-Z][a-z]{2}) +(\d{1,2}) +(\d{4})(?: +\d{1,2}:\d{2}(?::\d{2}(?:[:.]\d{1,3})?)? *[AP]M)?$`)
)

// ParseDate reads a text date: YYYY-MM-DD (a time of day after it is ignored), M/D/YYYY,
// a month written out ("July 1, 2026", "1-Jul-2026"), or a database export's datetime
// ("Jun 18 2025  4:50:24:023PM", the time of day ignored).
func ParseDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if m := isoDate.FindStringSubmatch(s); m != nil {
		return ymd(s, m[1], m[2], m[3])
	}
	if m := usDate.FindStringSubmatch(s); m != nil {
		return ymd(s, m[3], m[1], m[2])
	}
	for _, l := range textDates {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	if m := dbDate.FindStringSubmatch(s); m != nil {
		if t, err := time.Parse("Jan 2 2006", m[1]+" "+m[2]+" "+m[3]); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date", s)
}

func ymd(s, y, m, d string) (time.Time, error) {
	yi, _ := strconv.Atoi(y)
	mi, _ := strconv.Atoi(m)
	di, _ := strconv.Atoi(d)
	t := time.Date(yi, time.Month(mi), di, 0, 0, 0, 0, time.UTC)
	if t.Year() != yi || t.Month() != time.Month(mi) || t.Day() != di {
		return time.Time{}, fmt.Errorf("%q is not a calendar date", s)
	}
	return t, nil
}

// Date returns a date cell as "YYYY-MM-DD", nil when blank: an Excel serial number (the
// 1900 date system) or a text date (ParseDate).
func Date(c grid.Cell, marks ...string) (any, error) {
	if Blank(c, marks...) {
		return nil, nil
	}
	if c.Kind == grid.Number {
		f, err := strconv.ParseFloat(c.Value, 64)
		if err == nil {
			if t := xls.ExcelSerialToDate(f); !t.IsZero() && f >= 1 {
				return t.Format("2006-01-02"), nil
			}
		}
		return nil, fmt.Errorf("%q is not an Excel date serial", c.Value)
	}
	t, err := ParseDate(c.Value)
	if err != nil {
		return nil, err
	}
	return t.Format("2006-01-02"), nil
}

// notePrefixes open the footer rows publishers put under a table.
var notePrefixes = []string{"note", "notes", "source", "sources", "footnote", "footnotes", "*", "†", "(d)", "(na)", "(s)", "(x)", "(z)", "released:", "release date"}

// IsNote reports whether a row is a footer or note rather than data: its first non-empty
// cell opens with a note word ("Note", "NOTES", "Source:", "Footnotes") or a footnote mark,
// or it has a single non-empty cell holding a sentence.
func IsNote(row []grid.Cell) bool {
	var first string
	n := 0
	for _, c := range row {
		if strings.TrimSpace(c.Value) != "" {
			if n == 0 {
				first = strings.TrimSpace(c.Value)
			}
			n++
		}
	}
	if n == 0 {
		return false
	}
	low := strings.ToLower(first)
	for _, p := range notePrefixes {
		if strings.HasPrefix(low, p) {
			rest := strings.TrimPrefix(low, p)
			if rest == "" || !isLetter(rest[0]) {
				return true
			}
		}
	}
	return n == 1 && len(strings.Fields(first)) >= 6
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' }

// FirstNote is the first row at or after from that IsNote, or sh.NumRows()+1 when none.
func FirstNote(sh *grid.Sheet, from int) int {
	for r := from; r <= sh.NumRows(); r++ {
		if IsNote(sh.Row(r)) {
			return r
		}
	}
	return sh.NumRows() + 1
}

// listCellPattern is a Python-list cell, "['<value>', '<flag>']".
var listCellPattern = regexp.MustCompile(`^\['([^']*)', '([^']*)'\]$`)

// ListBlankMark is what the NCSES tables' CSV conversion writes in an empty slot of a list cell.
const ListBlankMark = "&nbsp;"

// ListCell reads a cell in capability.FormatListCell, as the third-party CSV conversion of the
// NCSES tables writes one: a Python-list string "['<value>', '<flag>']" or a plain number. It
// returns the value (nil when withheld or blank), the suppression mark ("D" when withheld,
// else nil), the flag ("revised", "imputed", else nil) and whether the cell is blank. The
// adapter and the aggregate evidence both read such cells with it.
func ListCell(s string) (v any, suppression, flag any, blank bool, err error) {
	s = strings.TrimSpace(s)
	val, fl := s, ""
	if m := listCellPattern.FindStringSubmatch(s); m != nil {
		val, fl = strings.TrimSpace(m[1]), strings.TrimSpace(m[2])
	} else if strings.HasPrefix(s, "[") {
		return nil, nil, nil, false, fmt.Errorf("%q is not a ['value', 'flag'] cell", s)
	}
	switch fl {
	case "", ListBlankMark:
	case "r":
		flag = "revised"
	case "i":
		flag = "imputed"
	default:
		return nil, nil, nil, false, fmt.Errorf("%q: unknown flag %q", s, fl)
	}
	switch val {
	case "", ListBlankMark:
		return nil, nil, flag, true, nil
	case "D":
		return nil, "D", flag, false, nil
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(val, ",", ""), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, nil, nil, false, fmt.Errorf("%q is not a number", s)
	}
	return f, nil, flag, false, nil
}
