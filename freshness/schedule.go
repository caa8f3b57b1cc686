package freshness

import (
	"fmt"
	"time"
)

// Schedule says when a source is checked: at the instants At past each multiple of Every
// since the Unix epoch, in UTC (Every 24h, At 15h: daily at 15:00 UTC; Every 7 days, At 6 days
// and 15 hours: Wednesdays at 15:00 UTC, the epoch being a Thursday).
type Schedule struct {
	Every time.Duration
	At    time.Duration
}

// Hourly checks every hour at minute m.
func Hourly(m int) Schedule { return Schedule{Every: time.Hour, At: time.Duration(m) * time.Minute} }

// Daily checks every day at hh:mm UTC.
func Daily(hh, mm int) Schedule {
	return Schedule{Every: 24 * time.Hour, At: time.Duration(hh)*time.Hour + time.Duration(mm)*time.Minute}
}

// Weekly checks every week on day at hh:mm UTC.
func Weekly(day time.Weekday, hh, mm int) Schedule {
	// The Unix epoch is a Thursday.
	days := (int(day) - int(time.Thursday) + 7) % 7
	return Schedule{Every: 7 * 24 * time.Hour, At: time.Duration(days)*24*time.Hour + time.Duration(hh)*time.Hour + time.Duration(mm)*time.Minute}
}

// Next is the first check strictly after t.
func (s Schedule) Next(t time.Time) time.Time {
	if s.Every <= 0 {
		return t
	}
	since := t.Sub(time.Unix(0, 0)) - s.At
	n := since / s.Every
	if since < 0 {
		n--
	}
	next := time.Unix(0, 0).Add(s.At + (n+1)*s.Every)
	for !next.After(t) {
		next = next.Add(s.Every)
	}
	return next.UTC()
}

// String says the schedule in words: "daily at 15:00 UTC".
func (s Schedule) String() string {
	hm := func(d time.Duration) string {
		return fmt.Sprintf("%02d:%02d UTC", int(d/time.Hour)%24, int(d/time.Minute)%60)
	}
	switch {
	case s.Every == time.Hour:
		return fmt.Sprintf("hourly at minute %d", int(s.At/time.Minute)%60)
	case s.Every == 24*time.Hour:
		return "daily at " + hm(s.At)
	case s.Every == 7*24*time.Hour:
		day := time.Weekday((int(time.Thursday) + int(s.At/(24*time.Hour))) % 7)
		return "weekly on " + day.String() + " at " + hm(s.At%(24*time.Hour))
	}
	return "every " + s.Every.String()
}
