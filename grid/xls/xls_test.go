package xls

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The expected values below were read from the files with Gnumeric 1.12
// (ssconvert to Gnumeric XML and to text), not with this package.

// rawPath returns the path of a file under $CITEQ_RAW (default
// /work/shared/data/raw), skipping the test when the directory is absent.
func rawPath(t *testing.T, rel string) string {
	t.Helper()
	dir := os.Getenv("CITEQ_RAW")
	if dir == "" {
		dir = "/work/shared/data/raw"
	}
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CITEQ_REQUIRE_RAW") == "1" { // testenv.RequireRawEnv (testenv imports this package)
			t.Fatalf("raw data directory not available: %v (CITEQ_REQUIRE_RAW=1)", err)
		}
		t.Skipf("raw data directory not available: %v", err)
	}
	return filepath.Join(dir, filepath.FromSlash(rel))
}

const (
	henryHub   = "eia/ng_prices/RNGWHHDd.xls"
	usPrices   = "eia/ng_prices/NG_PRI_SUM_DCU_NUS_M.xls"
	statePrice = "eia/ng_prices/NG_PRI_SUM_A_EPG0_PEU_DMCF_M.xls"
)

// openRaw reads a raw workbook and returns its sheets by name.
func openRaw(t *testing.T, rel string) ([]Sheet, map[string]Sheet) {
	t.Helper()
	sheets, err := Open(rawPath(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	byName := make(map[string]Sheet)
	for _, s := range sheets {
		byName[s.Name] = s
	}
	return sheets, byName
}

func TestRealWorkbookShape(t *testing.T) {
	tests := []struct {
		file     string
		sheets   []string
		dataRows int // rows of "Data 1"
		cols     int // longest row of "Data 1"
	}{
		{henryHub, []string{"Contents", "Data 1"}, 6919, 2},
		{usPrices, []string{"Contents", "Data 1"}, 593, 16},
		{statePrice, []string{"Contents", "Data 1"}, 255, 53},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			sheets, byName := openRaw(t, tc.file)
			var names []string
			for _, s := range sheets {
				names = append(names, s.Name)
			}
			if !slices.Equal(names, tc.sheets) {
				t.Errorf("sheets = %q, want %q", names, tc.sheets)
			}
			data := byName["Data 1"]
			if len(data.Rows) != tc.dataRows {
				t.Errorf("Data 1 has %d rows, want %d", len(data.Rows), tc.dataRows)
			}
			if got := maxRowLen(data.Rows); got != tc.cols {
				t.Errorf("Data 1 has %d columns, want %d", got, tc.cols)
			}
			for r, row := range data.Rows {
				if len(row) > 0 && row[len(row)-1].Kind == Blank {
					t.Fatalf("Data 1 row %d ends in a blank cell", r+1)
				}
			}
		})
	}
}

// cellCase is one expected cell: Excel row number (1-based) and column
// letter(s).
type cellCase struct {
	file, sheet string
	row         int
	col         string
	want        Cell
}

func num(v float64) Cell   { return Cell{Kind: Number, Number: v} }
func text(s string) Cell   { return Cell{Kind: String, Text: s} }
func blank() Cell          { return Cell{} }
func serial(d string) Cell { return num(dateSerial(d)) }

// dateSerial is the 1900-system serial of a YYYY-MM-DD date after 1900-03-01.
func dateSerial(d string) float64 {
	t, err := time.Parse(time.DateOnly, d)
	if err != nil {
		panic(err)
	}
	return t.Sub(time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)).Hours() / 24
}

func TestRealWorkbookCells(t *testing.T) {
	const (
		hhTitle = "Henry Hub Natural Gas Spot Price (Dollars per Million Btu)"
		usEP    = "U.S. Natural Gas Electric Power Price (Dollars per Thousand Cubic Feet)"
	)
	tests := []cellCase{
		{henryHub, "Contents", 2, "B", text("Workbook Contents")},
		{henryHub, "Contents", 7, "D", num(1)},
		{henryHub, "Contents", 9, "C", text("7/10/2024")}, // release date is text, not a date serial
		{henryHub, "Contents", 12, "C", text("http://www.eia.gov/dnav/ng/hist/rngwhhdd.htm")},
		{henryHub, "Data 1", 1, "A", text("Back to Contents")},
		{henryHub, "Data 1", 1, "B", text("Data 1: " + hhTitle)},
		{henryHub, "Data 1", 2, "A", text("Sourcekey")},
		{henryHub, "Data 1", 2, "B", text("RNGWHHD")},
		{henryHub, "Data 1", 3, "A", text("Date")},
		{henryHub, "Data 1", 3, "B", text(hhTitle)},
		{henryHub, "Data 1", 4, "A", num(35437)},
		{henryHub, "Data 1", 4, "B", num(3.82)},
		{henryHub, "Data 1", 5, "A", serial("1997-01-08")},
		{henryHub, "Data 1", 5, "B", num(3.8)},
		{henryHub, "Data 1", 5287, "B", num(4.65)},
		{henryHub, "Data 1", 5288, "A", serial("2018-01-05")},
		{henryHub, "Data 1", 5288, "B", blank()},
		{henryHub, "Data 1", 5289, "A", serial("2018-01-08")},
		{henryHub, "Data 1", 5289, "B", num(2.89)},
		{henryHub, "Data 1", 6918, "A", serial("2024-07-08")},
		{henryHub, "Data 1", 6918, "B", num(2.1)},
		{henryHub, "Data 1", 6919, "A", serial("2024-07-09")},
		{henryHub, "Data 1", 6919, "B", num(2.42)},

		{usPrices, "Contents", 9, "C", text("4/29/2022")},
		{usPrices, "Data 1", 1, "B", text("Data 1: U.S. Natural Gas Prices")},
		{usPrices, "Data 1", 2, "B", text("N9190US3")},
		{usPrices, "Data 1", 2, "K", text("NA1504_NUS_4")},
		{usPrices, "Data 1", 2, "P", text("N3045US3")},
		{usPrices, "Data 1", 3, "P", text(usEP)},
		{usPrices, "Data 1", 4, "A", serial("1973-01-15")},
		{usPrices, "Data 1", 4, "B", blank()},
		{usPrices, "Data 1", 593, "A", serial("2022-02-15")},
		{usPrices, "Data 1", 593, "B", blank()},
		{usPrices, "Data 1", 593, "C", num(5.62)},
		{usPrices, "Data 1", 593, "L", num(10.03)},
		{usPrices, "Data 1", 593, "M", num(70.1)},
		{usPrices, "Data 1", 593, "P", num(6.26)},

		{statePrice, "Contents", 3, "B", text("Natural Gas Electric Power Price ")}, // trailing space as stored
		{statePrice, "Data 1", 1, "B", text("Data 1: Natural Gas Electric Power Price ")},
		{statePrice, "Data 1", 2, "B", text("N3045US3")},
		{statePrice, "Data 1", 2, "C", text("N3045AL3")},
		{statePrice, "Data 1", 2, "N", text("N3045HI3")},
		{statePrice, "Data 1", 2, "BA", text("N3045WY3")},
		{statePrice, "Data 1", 3, "B", text(usEP)},
		{statePrice, "Data 1", 3, "BA", text("Wyoming Natural Gas Price Sold to Electric Power Consumers (Dollars per Thousand Cubic Feet)")},
		{statePrice, "Data 1", 4, "A", num(37271)},
		{statePrice, "Data 1", 4, "B", num(3.1)},
		{statePrice, "Data 1", 4, "C", blank()},
		{statePrice, "Data 1", 4, "E", num(2.62)},
		{statePrice, "Data 1", 4, "BA", num(7.21)},
		{statePrice, "Data 1", 255, "A", serial("2022-12-15")},
		{statePrice, "Data 1", 255, "B", num(9.53)},
		{statePrice, "Data 1", 255, "D", num(5.95)},
		{statePrice, "Data 1", 255, "BA", num(13.3)},
	}
	books := make(map[string]map[string]Sheet)
	for _, tc := range tests {
		if books[tc.file] == nil {
			_, books[tc.file] = openRaw(t, tc.file)
		}
		s, ok := books[tc.file][tc.sheet]
		if !ok {
			t.Errorf("%s: no sheet %q", tc.file, tc.sheet)
			continue
		}
		if got := cellAt(s, tc.row, colIndex(tc.col)); got != tc.want {
			t.Errorf("%s %s!%s%d = %+v, want %+v", filepath.Base(tc.file), tc.sheet, tc.col, tc.row, got, tc.want)
		}
	}
}

func TestRealWorkbookColumns(t *testing.T) {
	// Non-blank cells in the data rows (row 4 on) of a column of Data 1.
	tests := []struct {
		file  string
		col   string
		count int
	}{
		{henryHub, "A", 6916},
		{henryHub, "B", 6915},
		{usPrices, "A", 590},
		{usPrices, "B", 444},
		{usPrices, "P", 242},
		{statePrice, "A", 252},
		{statePrice, "B", 252}, // U.S.
		{statePrice, "N", 0},   // Hawaii: column present, all blank
		{statePrice, "J", 4},   // Delaware
		{statePrice, "AT", 251},
	}
	for _, tc := range tests {
		_, byName := openRaw(t, tc.file)
		rows := byName["Data 1"].Rows
		n := 0
		for r := 3; r < len(rows); r++ {
			if cellAt(byName["Data 1"], r+1, colIndex(tc.col)).Kind != Blank {
				n++
			}
		}
		if n != tc.count {
			t.Errorf("%s column %s has %d values, want %d", filepath.Base(tc.file), tc.col, n, tc.count)
		}
	}
}

func TestRealWorkbookDates(t *testing.T) {
	tests := []struct {
		file        string
		first, last string
		monthly     bool
	}{
		{henryHub, "1997-01-07", "2024-07-09", false},
		{usPrices, "1973-01-15", "2022-02-15", true},
		{statePrice, "2002-01-15", "2022-12-15", true},
	}
	for _, tc := range tests {
		_, byName := openRaw(t, tc.file)
		rows := byName["Data 1"].Rows[3:]
		var prev time.Time
		for i, row := range rows {
			if len(row) == 0 || row[0].Kind != Number {
				t.Fatalf("%s data row %d has no date", tc.file, i+4)
			}
			d := ExcelSerialToDate(row[0].Number)
			if !d.After(prev) || (tc.monthly && d.Day() != 15) {
				t.Fatalf("%s row %d: date %s out of order or not mid-month", tc.file, i+4, d.Format(time.DateOnly))
			}
			prev = d
		}
		first := ExcelSerialToDate(rows[0][0].Number).Format(time.DateOnly)
		last := prev.Format(time.DateOnly)
		if first != tc.first || last != tc.last {
			t.Errorf("%s dates %s..%s, want %s..%s", tc.file, first, last, tc.first, tc.last)
		}
	}
}

func TestExcelSerialToDate(t *testing.T) {
	tests := []struct {
		serial float64
		want   string
	}{
		{0, "1899-12-31 00:00:00"},
		{1, "1900-01-01 00:00:00"},
		{59, "1900-02-28 00:00:00"},
		{60, "1900-02-28 00:00:00"}, // Excel's 1900-02-29 never existed
		{61, "1900-03-01 00:00:00"},
		{35437, "1997-01-07 00:00:00"},
		{36526, "2000-01-01 00:00:00"},
		{43105, "2018-01-05 00:00:00"},
		{45482, "2024-07-09 00:00:00"},
		{45482.75, "2024-07-09 18:00:00"},
		{45482.5 + 1.0/86400, "2024-07-09 12:00:01"},
		{2958465, "9999-12-31 00:00:00"},
	}
	for _, tc := range tests {
		if got := ExcelSerialToDate(tc.serial).Format(time.DateTime); got != tc.want {
			t.Errorf("ExcelSerialToDate(%v) = %s, want %s", tc.serial, got, tc.want)
		}
	}
	for _, bad := range []float64{-1, 2958466, math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got := ExcelSerialToDate(bad); !got.IsZero() {
			t.Errorf("ExcelSerialToDate(%v) = %v, want zero time", bad, got)
		}
	}
}

func TestDamagedRealFile(t *testing.T) {
	orig, err := os.ReadFile(rawPath(t, henryHub))
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	// Layout facts of this file, checked here so the damage lands where meant.
	dirOff := 512 * (int(le.Uint32(orig[0x30:])) + 1)
	fatOff := 512 * (int(le.Uint32(orig[0x4C:])) + 1)
	if string(orig[512:516]) != "\x09\x08\x10\x00" || string(orig[dirOff+128:dirOff+130]) != "W\x00" || le.Uint32(orig[fatOff:]) != 1 {
		t.Fatal("RNGWHHDd.xls layout is not as expected (Workbook stream first, in sector 0 then 1)")
	}
	sst := bytes.Index(orig, []byte{0xFC, 0x00, 0x6D, 0x02})
	sheet := bytes.Index(orig, []byte("\x85\x00\x0e\x00"))
	if sst < 0 || sheet < 0 {
		t.Fatal("SST or BOUNDSHEET8 record not found")
	}
	flip := func(off int, bit uint) func([]byte) { return func(b []byte) { b[off] ^= 1 << bit } }
	tests := []struct {
		name   string
		damage func([]byte)
	}{
		{"signature", flip(0, 0)},
		{"byte order mark", flip(0x1C, 1)},
		{"sector shift", flip(0x1E, 1)},
		{"FAT sector count", flip(0x2F, 7)},
		{"first directory sector", flip(0x33, 7)},
		{"first FAT sector", flip(0x4F, 6)},
		{"FAT entry of the Workbook's first sector", flip(fatOff+3, 7)},
		{"FAT cycle", func(b []byte) { le.PutUint32(b[fatOff+4:], 0) }},
		{"Workbook stream name", flip(dirOff+128, 0)},
		{"Workbook stream size", flip(dirOff+128+0x7A, 7)},
		{"first BOF record type", flip(512, 0)},
		{"SST string length", func(b []byte) { le.PutUint16(b[sst+12:], 0xFFFF) }},
		{"sheet offset", flip(sheet+7, 7)},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := bytes.Clone(orig)
			tc.damage(b)
			if _, err := openCopy(t, dir, b); !errors.Is(err, ErrFormat) {
				t.Errorf("err = %v, want ErrFormat", err)
			} else if testing.Verbose() {
				t.Log(err)
			}
		})
	}
	t.Run("truncated", func(t *testing.T) {
		// The FAT sectors sit at the end of this file, so every cut loses
		// part of the FAT.
		for _, n := range truncations(len(orig)) {
			if _, err := openCopy(t, dir, orig[:n]); !errors.Is(err, ErrFormat) {
				t.Errorf("cut to %d bytes: err = %v, want ErrFormat", n, err)
			}
		}
	})
	t.Run("random bit flips", func(t *testing.T) {
		rng := rand.New(rand.NewSource(1))
		for i := 0; i < 200; i++ {
			b := bytes.Clone(orig)
			for j := 0; j < 1+i%8; j++ {
				b[rng.Intn(len(b))] ^= 1 << rng.Intn(8)
			}
			if _, err := openCopy(t, dir, b); err != nil && !errors.Is(err, ErrFormat) && !errors.Is(err, ErrUnsupported) {
				t.Errorf("flip set %d: unexpected error %v", i, err)
			}
		}
	})
}

// truncations lists lengths to cut a file of size bytes to.
func truncations(size int) []int {
	cuts := []int{0, 1, 8, 511, 512, 513, 1024, 4096, size / 2, size - 512, size - 1}
	for n := 777; n < size; n += 9973 {
		cuts = append(cuts, n)
	}
	return cuts
}

// openCopy writes b to a file in dir and opens it with Open.
func openCopy(t *testing.T, dir string, b []byte) ([]Sheet, error) {
	t.Helper()
	path := filepath.Join(dir, "damaged.xls")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return Open(path)
}

// cellAt returns the cell at Excel row (1-based) and 0-based column, blank
// when outside the stored rows.
func cellAt(s Sheet, row, col int) Cell {
	if row < 1 || row > len(s.Rows) || col >= len(s.Rows[row-1]) {
		return Cell{}
	}
	return s.Rows[row-1][col]
}

// colIndex turns a column name ("A", "P", "BA") into a 0-based index.
func colIndex(name string) int {
	n := 0
	for _, c := range name {
		n = n*26 + int(c-'A'+1)
	}
	return n - 1
}

// maxRowLen is the length of the longest row.
func maxRowLen(rows [][]Cell) int {
	n := 0
	for _, r := range rows {
		n = max(n, len(r))
	}
	return n
}
