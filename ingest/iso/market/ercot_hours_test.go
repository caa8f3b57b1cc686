package market

import (
	"testing"
	"time"
)

func TestOperatingDay(t *testing.T) {
	tests := []struct {
		date  string
		hours int
		// labels of the third hour of the day
		third    int
		repeated bool
	}{
		{"2024-03-10", 23, 4, false},
		{"2024-11-03", 25, 2, true},
		{"2024-07-01", 24, 3, false},
		{"2025-11-02", 25, 2, true},
	}
	for _, tc := range tests {
		d, _ := time.Parse("2006-01-02", tc.date)
		hs := operatingDay(d)
		if len(hs) != tc.hours || hs[2].HourEnding != tc.third || hs[2].Repeated != tc.repeated {
			t.Errorf("%s: %d hours, third %+v", tc.date, len(hs), hs[2])
		}
	}
}

func TestPeakBlocks(t *testing.T) {
	tests := []struct {
		date    string
		he      int
		holiday bool
		block   string
	}{
		{"2024-07-03", 7, false, "5x16"},  // Wednesday
		{"2024-07-03", 6, false, "7x8"},   // before the block
		{"2024-07-03", 23, false, "7x8"},  // after it
		{"2024-07-04", 12, true, "2x16"},  // Independence Day, Thursday
		{"2024-07-06", 12, false, "2x16"}, // Saturday
		{"2024-05-27", 15, true, "2x16"},  // Memorial Day
		{"2024-09-02", 15, true, "2x16"},  // Labor Day
		{"2024-11-28", 15, true, "2x16"},  // Thanksgiving
		{"2024-11-21", 15, false, "5x16"}, // third Thursday
		{"2022-12-26", 15, true, "2x16"},  // Christmas on a Sunday, observed Monday
		{"2021-12-24", 15, false, "5x16"}, // Christmas on a Saturday is not moved to Friday
		{"2023-01-02", 15, true, "2x16"},  // New Year's Day on a Sunday, observed Monday
		{"2025-05-26", 22, true, "2x16"},  // Memorial Day 2025
	}
	for _, tc := range tests {
		d, _ := time.Parse("2006-01-02", tc.date)
		if got := nercHoliday(d); got != tc.holiday {
			t.Errorf("nercHoliday(%s) = %v", tc.date, got)
		}
		if got := timeBlock(d, tc.he); got != tc.block {
			t.Errorf("timeBlock(%s, %d) = %s, want %s", tc.date, tc.he, got, tc.block)
		}
	}
}

func TestHourEnding(t *testing.T) {
	tests := []struct {
		in string
		he int
		ok bool
	}{{"01:00", 1, true}, {"24:00", 24, true}, {"00:00", 0, false}, {"25:00", 0, false}, {"1:00", 0, false}, {"02:30", 0, false}, {"", 0, false}}
	for _, tc := range tests {
		if he, ok := hourEnding(tc.in); he != tc.he || ok != tc.ok {
			t.Errorf("hourEnding(%q) = %d, %v", tc.in, he, ok)
		}
	}
}
