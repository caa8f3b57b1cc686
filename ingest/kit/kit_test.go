package kit

import (
	"testing"

	"github.com/citeq/citeq/grid"
)

func TestNorm(t *testing.T) {
	for in, want := range map[string]string{
		"Nameplate Capacity (MW)":     "nameplate capacity (mw)",
		"Nameplate Capacity\n(MW)":    "nameplate capacity (mw)",
		"  Nameplate  Capacity (MW)1": "nameplate capacity (mw)",
		"Status*":                     "status",
		"Status2":                     "status",
		"Plant State:":                "plant state",
		"Q1":                          "q1",
		"Zone 1":                      "zone 1",
		"2024":                        "2024",
		"Capacity 2024":               "capacity 2024",
		"Data center¹":                "data center",
	} {
		if got := Norm(in); got != want {
			t.Errorf("Norm(%q) = %q, want %q", in, got, want)
		}
	}
}

func text(vals ...string) []grid.Cell {
	out := make([]grid.Cell, len(vals))
	for i, v := range vals {
		if v != "" {
			out[i] = grid.Cell{Kind: grid.Text, Value: v}
		}
	}
	return out
}

func TestCells(t *testing.T) {
	num := func(v string) grid.Cell { return grid.Cell{Kind: grid.Number, Value: v} }
	txt := func(v string) grid.Cell { return grid.Cell{Kind: grid.Text, Value: v} }
	cases := []struct {
		name string
		got  func() (any, error)
		want any
		err  bool
	}{
		{"number", func() (any, error) { return Number(num("12.5")) }, 12.5, false},
		{"number blank", func() (any, error) { return Number(txt(" . ")) }, nil, false},
		{"number mark", func() (any, error) { return Number(txt("(D)"), "(D)") }, nil, false},
		{"number text", func() (any, error) { return Number(txt("n/a MW")) }, nil, true},
		{"int", func() (any, error) { return Int(num("2016")) }, int64(2016), false},
		{"int fraction", func() (any, error) { return Int(num("2016.5")) }, nil, true},
		{"excel serial date", func() (any, error) { return Date(num("35437")) }, "1997-01-07", false},
		{"iso date", func() (any, error) { return Date(txt("2025-01-23")) }, "2025-01-23", false},
		{"iso date time", func() (any, error) { return Date(txt("2025-01-23 00:00:00")) }, "2025-01-23", false},
		{"us date", func() (any, error) { return Date(txt("7/10/2024")) }, "2024-07-10", false},
		{"written date", func() (any, error) { return Date(txt("July 1, 2026")) }, "2026-07-01", false},
		{"not a date", func() (any, error) { return Date(txt("2/30/2024")) }, nil, true},
		{"database datetime", func() (any, error) { return Date(txt("Jun 18 2025  4:50:24:023PM")) }, "2025-06-18", false},
		{"database date at midnight", func() (any, error) { return Date(txt("Feb 28 1996 12:00:00:000AM")) }, "1996-02-28", false},
		{"database date no time", func() (any, error) { return Date(txt("Jan  1 1900")) }, "1900-01-01", false},
		{"database date not a day", func() (any, error) { return Date(txt("Feb 30 1996 12:00:00:000AM")) }, nil, true},
		{"month", func() (any, error) { v, _, err := Month(num("7")); return v, err }, int64(7), false},
		{"unknown month", func() (any, error) { v, known, err := Month(num("88")); _ = known; return v, err }, int64(88), false},
		{"bad month", func() (any, error) { v, _, err := Month(num("13")); return v, err }, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.got()
			if (err != nil) != tc.err || got != tc.want {
				t.Fatalf("got %v (%T), %v; want %v, error %v", got, got, err, tc.want, tc.err)
			}
		})
	}
}

func TestFindHeaderAndNotes(t *testing.T) {
	wb, err := grid.Parse([]byte("Title of the table,,\n,,\nPlant ID,\"Nameplate Capacity\n(MW)1\",Status*\n1,2.5,OP\n2,3,OP\nNOTES: the agency's footnote,,\n"))
	if err != nil {
		t.Fatal(err)
	}
	sh := wb.Sheets[0]
	h, err := FindHeader(sh, 10, "plant id", "Nameplate Capacity (MW)", "Status")
	if err != nil {
		t.Fatal(err)
	}
	if h.Row != 3 || h.Col("status") != 3 {
		t.Fatalf("header row %d, status column %d", h.Row, h.Col("status"))
	}
	if _, err := FindHeader(sh, 10, "Plant ID", "Technology"); err == nil {
		t.Fatal("found a header row without Technology")
	}
	if got := FirstNote(sh, h.Row+1); got != 7 {
		t.Fatalf("first note row %d, want 7", got)
	}
	for _, row := range [][]grid.Cell{text("1", "2.5"), text("Texas", "", "3"), text("Q1 2024")} {
		if IsNote(row) {
			t.Errorf("%v taken for a note", row)
		}
	}
	for _, row := range [][]grid.Cell{text("Source: U.S. Census Bureau"), text("", "Note: values are preliminary"), text("* Less than 500 employees")} {
		if !IsNote(row) {
			t.Errorf("%v not taken for a note", row)
		}
	}
}
