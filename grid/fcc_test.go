package grid

import (
	"reflect"
	"testing"
)

func values(sh *Sheet) [][]string {
	var out [][]string
	for r := 1; r <= sh.NumRows(); r++ {
		var row []string
		for _, c := range sh.Row(r) {
			row = append(row, c.Value)
		}
		out = append(out, row)
	}
	return out
}

func TestFCCDelimited(t *testing.T) {
	for _, tc := range []struct {
		name string
		data string
		want [][]string
	}{
		{"one record a line", "1|0|S2129|SATAMD2022010700003|SAT|^|\r\n2||E000326|SESMOD2004060800805|SES|^|\r\n",
			[][]string{{"1", "0", "S2129", "SATAMD2022010700003", "SAT"}, {"2", "", "E000326", "SESMOD2004060800805", "SES"}}},
		{"a line break inside a field", "7|first line\r\nsecond line|x|^|\r\n8|y|^|\r\n",
			[][]string{{"7", "first line\r\nsecond line", "x"}, {"8", "y"}}},
		{"trailing empty fields and LF only", "9|a|||^|\n", [][]string{{"9", "a", "", ""}}},
		{"no line break after the last record", "10|b|^|", [][]string{{"10", "b"}}},
		{"Windows-1252 text", "11|Caf\xe9 \x93Sat\x94 \x96 97.5\xb0|^|\r\n", [][]string{{"11", "Café “Sat” – 97.5°"}}},
		{"UTF-8 text kept", "12|Café|^|\r\n", [][]string{{"12", "Café"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Sniff([]byte(tc.data)); got != "fcc-delimited" {
				t.Fatalf("sniffed %q", got)
			}
			wb, err := Parse([]byte(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			if wb.Sheets[0].Name != DelimitedSheetName {
				t.Errorf("sheet %q", wb.Sheets[0].Name)
			}
			if got := values(wb.Sheets[0]); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	if got := Sniff([]byte("a|b|c\r\n1|2|3\r\n")); got != "csv" {
		t.Errorf("a pipe-separated file without terminators sniffed as %q", got)
	}
}

func TestNotice(t *testing.T) {
	data := "PUBLIC NOTICE\r\n\r\nReport No. SAT-01900      Friday June 20, 2025\r\n" +
		"SAT-LOA-20250404-00071     E     S3201      Example Orbital, LLC\r\n" +
		"Grant of Authority\tEffective Date: 06/17/2025\r\n" +
		"   Nature of Service: Earth Exploration Satellite Service   \r\n"
	if got := Sniff([]byte(data)); got != "fcc-notice" {
		t.Fatalf("sniffed %q", got)
	}
	wb, err := Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"PUBLIC NOTICE"}, nil,
		{"Report No. SAT-01900", "Friday June 20, 2025"},
		{"SAT-LOA-20250404-00071", "E", "S3201", "Example Orbital, LLC"},
		{"Grant of Authority", "Effective Date: 06/17/2025"},
		{"Nature of Service: Earth Exploration Satellite Service"},
	}
	if got := values(wb.Sheets[0]); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, other := range []string{"Report No. SAT-01900 without the heading", "<html><body>PUBLIC NOTICE Report No. SAT-01900</body></html>"} {
		if Sniff([]byte(other)) == "fcc-notice" {
			t.Errorf("%q sniffed as a notice", other)
		}
	}
}
