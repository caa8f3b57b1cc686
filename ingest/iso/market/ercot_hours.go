package market

import (
	"fmt"
	"time"
)

// ercotZone is ERCOT's local time: Central Prevailing Time.
var ercotZone = mustZone("America/Chicago")

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(fmt.Errorf("market: time zone %s: %w", name, err))
	}
	return loc
}

// deliveryHour is one published delivery hour of an operating day: its hour ending (1-24) and
// repeated-hour flag as ERCOT labels it, and its UTC interval.
type deliveryHour struct {
	HourEnding int
	Repeated   bool
	Start, End time.Time // UTC
}

// Offset is the hour's offset from UTC in local time, "-06:00" or "-05:00".
func (h deliveryHour) Offset() string { return h.Start.In(ercotZone).Format("-07:00") }

// operatingDay lists the delivery hours of day d (a calendar date) in ERCOT's convention,
// derived from the time zone's rules: the hours are the elapsed hours from local midnight to
// the next local midnight (23 on the spring-forward day, 25 on the fall-back day), each
// labelled by the local clock hour it ends at; a label that recurs (the fall-back day's
// second 01:00-02:00) is the repeated hour.
func operatingDay(d time.Time) []deliveryHour {
	start := time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, ercotZone).UTC()
	next := time.Date(d.Year(), d.Month(), d.Day()+1, 0, 0, 0, 0, ercotZone).UTC()
	var out []deliveryHour
	seen := map[int]bool{}
	for s := start; s.Before(next); s = s.Add(time.Hour) {
		he := s.In(ercotZone).Hour() + 1
		out = append(out, deliveryHour{HourEnding: he, Repeated: seen[he], Start: s, End: s.Add(time.Hour)})
		seen[he] = true
	}
	return out
}

// nercHoliday reports whether d is a NERC holiday: New Year's Day, Memorial Day (last Monday
// of May), Independence Day, Labor Day (first Monday of September), Thanksgiving (fourth
// Thursday of November) and Christmas Day; a fixed-date holiday on a Sunday is observed on
// the Monday after it (one on a Saturday is not moved).
func nercHoliday(d time.Time) bool {
	y, m, day := d.Date()
	fixed := func(fm time.Month, fd int) bool {
		h := time.Date(y, fm, fd, 0, 0, 0, 0, time.UTC)
		if h.Weekday() == time.Sunday {
			h = h.AddDate(0, 0, 1)
		}
		return m == h.Month() && day == h.Day()
	}
	if fixed(time.January, 1) || fixed(time.July, 4) || fixed(time.December, 25) {
		return true
	}
	wd := d.Weekday()
	switch m {
	case time.May:
		return wd == time.Monday && day+7 > 31
	case time.September:
		return wd == time.Monday && day <= 7
	case time.November:
		return wd == time.Thursday && day > 21 && day <= 28
	}
	return false
}

// timeBlock is ERCOT's trading block of hour ending he on day d: 5x16 (hours ending 7-22,
// Monday to Friday except NERC holidays: on-peak), 2x16 (the same hours on weekends and NERC
// holidays) or 7x8 (hours ending 1-6 and 23-24, every day).
func timeBlock(d time.Time, he int) string {
	if he < 7 || he > 22 {
		return "7x8"
	}
	if wd := d.Weekday(); wd == time.Saturday || wd == time.Sunday || nercHoliday(d) {
		return "2x16"
	}
	return "5x16"
}
