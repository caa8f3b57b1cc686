// Package grid reads the agencies' spreadsheet, CSV and PDF files into a plain grid of literal
// cells, numbered the way the publisher's file numbers them (1-based rows and columns).
// Ingest adapters parse from it and the evidence endpoint re-reads cited rows through it,
// so a citation and its evidence always agree on what "row n of sheet s" means.
package grid

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/citeq/citeq/grid/xls"
)

// Kind is the storage type of a cell as the file records it.
type Kind uint8

// Cell kinds.
const (
	Empty Kind = iota
	Text
	Number
	Bool
	Error
)

// Cell is one cell's literal content: Value is the text as stored in the file (for a number,
// its shortest decimal form), never reformatted for display.
type Cell struct {
	Kind  Kind
	Value string
}

// Sheet is one worksheet (or the single table of a CSV file).
type Sheet struct {
	Name string
	rows [][]Cell
}

// Workbook is every sheet of one file, in the file's order.
type Workbook struct {
	Format string // "xlsx", "xls", "json", "pdf", "xbrl", "fcc-delimited", "fcc-notice" or "csv"
	Sheets []*Sheet
}

// CSVSheetName is the sheet name given to the single table of a CSV file.
const CSVSheetName = "csv"

// NumRows is the number of the last row that holds anything.
func (s *Sheet) NumRows() int { return len(s.rows) }

// Row returns the cells of 1-based row n (nil when out of range or empty).
func (s *Sheet) Row(n int) []Cell {
	if n < 1 || n > len(s.rows) {
		return nil
	}
	return s.rows[n-1]
}

// Cell returns the cell at 1-based row n and column c (Empty when absent).
func (s *Sheet) Cell(n, c int) Cell {
	r := s.Row(n)
	if c < 1 || c > len(r) {
		return Cell{}
	}
	return r[c-1]
}

// Sheet returns the sheet with the given name, or nil.
func (w *Workbook) Sheet(name string) *Sheet {
	for _, s := range w.Sheets {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// SheetNames lists the sheets in file order.
func (w *Workbook) SheetNames() []string {
	out := make([]string, len(w.Sheets))
	for i, s := range w.Sheets {
		out[i] = s.Name
	}
	return out
}

// Open reads the file at path, choosing the reader by the file's leading bytes, not its name.
func Open(path string) (*Workbook, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("grid: read %s: %w", path, err)
	}
	wb, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("grid: %s: %w", path, err)
	}
	return wb, nil
}

// Sniff names the format of a file from its content: "xlsx", "xls", "pdf", "json", "xbrl"
// (an XBRL instance document), "fcc-delimited" (an FCC database export, records ended by
// "|^|"), "fcc-notice" (the text of an FCC public notice), "csv" (any other text) or "".
func Sniff(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		return "xlsx"
	case bytes.HasPrefix(data, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}):
		return "xls"
	case bytes.HasPrefix(data, []byte("%PDF-")):
		return "pdf"
	case looksJSON(data):
		return "json"
	case looksXBRL(data):
		return "xbrl"
	case looksFCCDelimited(data):
		return "fcc-delimited"
	case looksNotice(data):
		return "fcc-notice"
	case len(data) > 0 && !bytes.ContainsRune(data, 0) && !looksHTML(data):
		return "csv"
	}
	return ""
}

func looksHTML(data []byte) bool {
	head := strings.ToLower(strings.TrimSpace(string(data[:min(len(data), 512)])))
	return strings.HasPrefix(head, "<!doctype html") || strings.HasPrefix(head, "<html")
}

// Parse reads a whole file held in memory.
func Parse(data []byte) (*Workbook, error) {
	switch Sniff(data) {
	case "xlsx":
		return parseXLSX(data)
	case "xls":
		return parseXLS(data)
	case "pdf":
		return parsePDF(data)
	case "json":
		return parseJSON(bytes.TrimLeft(data, "\xef\xbb\xbf"))
	case "xbrl":
		return parseXBRL(data)
	case "fcc-delimited":
		return parseFCCDelimited(data), nil
	case "fcc-notice":
		return parseNotice(data), nil
	case "csv":
		return parseCSV(data)
	}
	return nil, errors.New("not an xlsx, xls, PDF, JSON, XBRL instance, FCC text or CSV file")
}

func parseXLSX(data []byte) (wb *Workbook, err error) {
	defer func() {
		if r := recover(); r != nil {
			wb, err = nil, fmt.Errorf("xlsx: damaged workbook: %v", r)
		}
	}()
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{RawCellValue: true})
	if err != nil {
		return nil, fmt.Errorf("xlsx: %w", err)
	}
	defer f.Close()
	wb = &Workbook{Format: "xlsx"}
	for _, name := range f.GetSheetList() {
		rows, err := f.GetRows(name, excelize.Options{RawCellValue: true})
		if err != nil {
			return nil, fmt.Errorf("xlsx: sheet %q: %w", name, err)
		}
		sh := &Sheet{Name: name, rows: make([][]Cell, len(rows))}
		for i, r := range rows {
			cells := make([]Cell, len(r))
			for j, v := range r {
				cells[j] = xlsxCell(v)
			}
			sh.rows[i] = trimRow(cells)
		}
		sh.rows = trimRows(sh.rows)
		wb.Sheets = append(wb.Sheets, sh)
	}
	return wb, nil
}

// xlsxCell classifies a raw xlsx value. excelize hands back the stored text, so a numeric
// cell arrives as its stored decimal form and is kept exactly as written.
func xlsxCell(v string) Cell {
	if v == "" {
		return Cell{}
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return Cell{Kind: Number, Value: v}
	}
	return Cell{Kind: Text, Value: v}
}

func parseXLS(data []byte) (*Workbook, error) {
	sheets, err := xls.Read(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	wb := &Workbook{Format: "xls"}
	for _, s := range sheets {
		sh := &Sheet{Name: s.Name, rows: make([][]Cell, len(s.Rows))}
		for i, r := range s.Rows {
			cells := make([]Cell, len(r))
			for j, c := range r {
				cells[j] = xlsCell(c)
			}
			sh.rows[i] = trimRow(cells)
		}
		sh.rows = trimRows(sh.rows)
		wb.Sheets = append(wb.Sheets, sh)
	}
	return wb, nil
}

func xlsCell(c xls.Cell) Cell {
	switch c.Kind {
	case xls.Number:
		return Cell{Kind: Number, Value: strconv.FormatFloat(c.Number, 'f', -1, 64)}
	case xls.String:
		if c.Text == "" {
			return Cell{}
		}
		return Cell{Kind: Text, Value: c.Text}
	case xls.Bool:
		if c.Number != 0 {
			return Cell{Kind: Bool, Value: "TRUE"}
		}
		return Cell{Kind: Bool, Value: "FALSE"}
	case xls.Error:
		return Cell{Kind: Error, Value: "#ERR" + strconv.Itoa(int(c.Number))}
	}
	return Cell{}
}

func parseCSV(data []byte) (*Workbook, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	sh := &Sheet{Name: CSVSheetName}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("csv: %w", err)
		}
		// A CSV line is its own row number; csv.Reader skips blank lines, so pad to the line.
		line, _ := r.FieldPos(0)
		for len(sh.rows) < line-1 {
			sh.rows = append(sh.rows, nil)
		}
		cells := make([]Cell, len(rec))
		for j, v := range rec {
			if v != "" {
				cells[j] = Cell{Kind: Text, Value: v}
			}
		}
		sh.rows = append(sh.rows, trimRow(cells))
	}
	return &Workbook{Format: "csv", Sheets: []*Sheet{sh}}, nil
}

func trimRow(r []Cell) []Cell {
	n := len(r)
	for n > 0 && r[n-1].Kind == Empty {
		n--
	}
	if n == 0 {
		return nil
	}
	return r[:n]
}

func trimRows(rows [][]Cell) [][]Cell {
	n := len(rows)
	for n > 0 && len(rows[n-1]) == 0 {
		n--
	}
	return rows[:n]
}

// ColumnName returns the spreadsheet letter name of 1-based column c (1 → A, 27 → AA).
func ColumnName(c int) string {
	name := ""
	for c > 0 {
		c--
		name = string(rune('A'+c%26)) + name
		c /= 26
	}
	return name
}
