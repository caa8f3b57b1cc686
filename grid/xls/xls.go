// Package xls reads legacy Excel 97–2003 workbooks (.xls): BIFF8 records in
// the "Workbook" stream of an OLE2 Compound File Binary container.
//
// It returns the cell values as stored: numbers, strings, booleans and error
// codes, with formulas replaced by their cached results. Formatting is not
// read, so dates come back as serial numbers; ExcelSerialToDate converts
// them. The reader uses only the standard library and checks every length
// and index, so a damaged file yields an error rather than a panic.
package xls

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"
)

// ErrFormat is wrapped by the errors returned for files that are not valid
// compound files or BIFF8 workbooks, including truncated or damaged ones.
var ErrFormat = errors.New("malformed file")

// ErrUnsupported is wrapped by the errors returned for valid files the
// reader does not handle: encrypted workbooks and BIFF versions before 8.
var ErrUnsupported = errors.New("unsupported workbook")

// CellKind says what a cell holds.
type CellKind uint8

// The kinds of cell.
const (
	Blank  CellKind = iota // no value
	Number                 // a number (dates and times are numbers too)
	String                 // text
	Bool                   // a boolean: Number is 0 or 1
	Error                  // an error value: Number is the BIFF error code
)

// String returns the kind's name.
func (k CellKind) String() string {
	switch k {
	case Blank:
		return "Blank"
	case Number:
		return "Number"
	case String:
		return "String"
	case Bool:
		return "Bool"
	case Error:
		return "Error"
	}
	return fmt.Sprintf("CellKind(%d)", uint8(k))
}

// Cell is one cell as stored in the file. Number holds the value of Number
// cells, 0 or 1 for Bool cells and the error code (for example 0x07 for
// #DIV/0!) for Error cells; Text holds the value of String cells.
type Cell struct {
	Kind   CellKind
	Number float64
	Text   string
}

// Sheet is one worksheet: Rows[r][c] is the cell at 0-based row r, column c
// (so Excel row n is Rows[n-1]). Rows is dense up to the last non-blank row
// of the sheet; each row slice is trimmed after its last non-blank cell, so
// a row with no values is empty. A String cell holding "" (an empty text or
// a formula that yields "") is not blank.
type Sheet struct {
	Name string
	Rows [][]Cell
}

// Read parses a whole workbook of size bytes read from r. It returns the
// worksheets in workbook order; chart sheets and macro sheets are left out.
func Read(r io.ReaderAt, size int64) ([]Sheet, error) {
	sheets, err := readWorkbook(r, size)
	if err != nil {
		return nil, fmt.Errorf("xls: %w", err)
	}
	return sheets, nil
}

// Open reads the workbook at path.
func Open(path string) ([]Sheet, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("xls: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("xls: %w", err)
	}
	sheets, err := readWorkbook(f, info.Size())
	if err != nil {
		return nil, fmt.Errorf("xls: %s: %w", path, err)
	}
	return sheets, nil
}

// readWorkbook finds the Workbook stream and parses it.
func readWorkbook(r io.ReaderAt, size int64) ([]Sheet, error) {
	if r == nil {
		return nil, fmt.Errorf("nil reader: %w", ErrFormat)
	}
	cf, err := openCFB(r, size)
	if err != nil {
		return nil, err
	}
	i, ok := cf.findRootStream("Workbook", "Book")
	if !ok {
		return nil, fmt.Errorf("compound file has no Workbook stream: %w", ErrFormat)
	}
	stream, err := cf.readStream(i)
	if err != nil {
		return nil, fmt.Errorf("reading Workbook stream: %w", err)
	}
	return parseWorkbook(stream)
}

// Serial numbers of the 1900 date system.
const (
	fakeLeapDay = 60       // 1900-02-29, which Excel counts but never was
	maxSerial   = 2958466  // 10000-01-01, past Excel's last date
	msPerDay    = 86400000 // milliseconds in a day
)

// ExcelSerialToDate converts a serial date of the 1900 date system (the
// Windows Excel default) to a UTC time: serial 1 is 1900-01-01 and 35437 is
// 1997-01-07; a fractional part is the time of day, rounded to the
// millisecond. Excel counts a 29 February 1900 that never existed as serial
// 60, so from serial 61 (1900-03-01) on a serial is one more than the number
// of days since 1899-12-31; serial 60 itself is returned as 1900-02-28, like
// 59. Serial 0 is 1899-12-31.
// Serials that are not finite or lie outside 0 to 2958465 (9999-12-31)
// return the zero time.
func ExcelSerialToDate(serial float64) time.Time {
	if math.IsNaN(serial) || serial < 0 || serial >= maxSerial {
		return time.Time{}
	}
	days := math.Floor(serial)
	ms := int64(math.Round((serial - days) * msPerDay))
	epoch := time.Date(1899, time.December, 31, 0, 0, 0, 0, time.UTC)
	if days >= fakeLeapDay {
		days--
	}
	return epoch.AddDate(0, 0, int(days)).Add(time.Duration(ms) * time.Millisecond)
}
