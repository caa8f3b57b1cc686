package grid

import "testing"

func TestParseJSON(t *testing.T) {
	cases := []struct {
		name, doc, sheet string
		want             [][]string // rows as text, "" for empty
	}{
		{"census array of arrays", `[["NAME","B01001_001E","state"],["Alabama","5024279","01"],["Alaska",null,"02"]]`, "$",
			[][]string{{"NAME", "B01001_001E", "state"}, {"Alabama", "5024279", "01"}, {"Alaska", "", "02"}}},
		{"eia api objects under response.data", `{"response":{"warnings":[{"warning":"w"}],"data":[{"period":"2022-12","generation":"188961"},{"period":"2022-11","plantCode":6761,"generation":"1"}]}}`,
			"response.data", [][]string{{"period", "generation", "plantCode"}, {"2022-12", "188961"}, {"2022-11", "1", "6761"}}},
		{"fred observations", `{"realtime_start":"2026-01-01","observations":[{"date":"2017-01-01","value":"100.1"},{"date":"2017-02-01","value":"."}]}`,
			"observations", [][]string{{"date", "value"}, {"2017-01-01", "100.1"}, {"2017-02-01", "."}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wb, err := Parse([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			if wb.Format != "json" || len(wb.Sheets) != 1 || wb.Sheets[0].Name != tc.sheet {
				t.Fatalf("format %s, sheets %v", wb.Format, wb.SheetNames())
			}
			sh := wb.Sheets[0]
			if sh.NumRows() != len(tc.want) {
				t.Fatalf("%d rows, want %d", sh.NumRows(), len(tc.want))
			}
			for r, row := range tc.want {
				for c, v := range row {
					if got := sh.Cell(r+1, c+1).Value; got != v {
						t.Errorf("row %d col %d: %q, want %q", r+1, c+1, got, v)
					}
				}
			}
		})
	}
	for _, bad := range []string{`{"a":1}`, `[1,2,3]`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("%s: parsed, want an error", bad)
		}
	}
}
