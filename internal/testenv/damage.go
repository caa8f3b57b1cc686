package testenv

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/citeq/citeq/grid"
)

// Cells is a workbook as editable text: per sheet, in the file's order, its rows of literal
// cell values (row n at index n-1, as the file numbers it).
type Cells struct {
	Format string
	Sheets []string
	Rows   map[string][][]string
	kinds  map[string][][]grid.Kind
}

// ReadCells reads a raw file of any format grid reads into editable text.
func ReadCells(t testing.TB, path string) *Cells {
	t.Helper()
	wb, err := grid.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	c := &Cells{Format: wb.Format, Rows: map[string][][]string{}, kinds: map[string][][]grid.Kind{}}
	for _, sh := range wb.Sheets {
		c.Sheets = append(c.Sheets, sh.Name)
		rows := make([][]string, sh.NumRows())
		kinds := make([][]grid.Kind, sh.NumRows())
		for r := range rows {
			for _, cell := range sh.Row(r + 1) {
				rows[r] = append(rows[r], cell.Value)
				kinds[r] = append(kinds[r], cell.Kind)
			}
		}
		c.Rows[sh.Name], c.kinds[sh.Name] = rows, kinds
	}
	return c
}

// Set writes text into row r, column col (both 1-based) of sheet, widening the row.
func (c *Cells) Set(sheet string, r, col int, v string) {
	rows := c.Rows[sheet]
	for len(rows[r-1]) < col {
		rows[r-1] = append(rows[r-1], "")
	}
	rows[r-1][col-1] = v
	if k := c.kinds[sheet]; r-1 < len(k) && col-1 < len(k[r-1]) {
		k[r-1][col-1] = grid.Text
	}
}

// Truncate keeps the first n rows of sheet.
func (c *Cells) Truncate(sheet string, n int) {
	c.Rows[sheet] = c.Rows[sheet][:n]
}

// Write writes the cells to dst in the file's own format: xlsx for spreadsheets (an xls
// file is written as xlsx under its own name; readers tell formats by content), CSV, JSON
// and the FCC text layouts as such.
func (c *Cells) Write(t testing.TB, dst string) {
	t.Helper()
	var err error
	switch c.Format {
	case "csv":
		err = c.writeCSV(dst)
	case "json":
		err = c.writeJSON(dst)
	case "fcc-delimited", "fcc-notice":
		err = c.writeFCC(dst)
	default:
		err = c.writeXLSX(dst)
	}
	if err != nil {
		t.Fatalf("write %s: %v", dst, err)
	}
}

func (c *Cells) writeCSV(dst string) error {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	for _, row := range c.Rows[c.Sheets[0]] {
		if err := w.Write(row); err != nil {
			return err
		}
	}
	w.Flush()
	return os.WriteFile(dst, b.Bytes(), 0o644)
}

// writeFCC writes an FCC text layout back: a delimited export as records of "|"-separated
// fields each ended by "|^|" and CRLF, a notice as lines whose cells are parted by two blanks.
func (c *Cells) writeFCC(dst string) error {
	var b strings.Builder
	for _, row := range c.Rows[c.Sheets[0]] {
		if c.Format == "fcc-delimited" {
			b.WriteString(strings.Join(row, "|") + "|^|\r\n")
		} else {
			b.WriteString(strings.Join(row, "  ") + "\r\n")
		}
	}
	return os.WriteFile(dst, []byte(b.String()), 0o644)
}

// writeJSON writes the table as an array of objects under the sheet's path when row 1 is a
// header of member names, else as an array of arrays.
func (c *Cells) writeJSON(dst string) error {
	sheet := c.Sheets[0]
	rows := c.Rows[sheet]
	value := func(r, col int) any {
		v := ""
		if col < len(rows[r]) {
			v = rows[r][col]
		}
		if k := c.kinds[sheet]; r < len(k) && col < len(k[r]) && k[r][col] == grid.Number {
			return json.Number(v)
		}
		if v == "" {
			return nil
		}
		return v
	}
	var table any
	if sheet == "$" {
		var arr [][]any
		for r := range rows {
			var row []any
			for col := range rows[r] {
				row = append(row, value(r, col))
			}
			arr = append(arr, row)
		}
		table = arr
	} else {
		var objs []json.RawMessage
		for r := 1; r < len(rows); r++ {
			var b bytes.Buffer
			b.WriteByte('{')
			for col, key := range rows[0] {
				if col > 0 {
					b.WriteByte(',')
				}
				kb, _ := json.Marshal(key)
				vb, _ := json.Marshal(value(r, col))
				b.Write(kb)
				b.WriteByte(':')
				b.Write(vb)
			}
			b.WriteByte('}')
			objs = append(objs, b.Bytes())
		}
		table = objs
		parts := strings.Split(sheet, ".")
		for i := len(parts) - 1; i >= 0; i-- {
			table = map[string]any{parts[i]: table}
		}
	}
	b, err := json.Marshal(table)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

func (c *Cells) writeXLSX(dst string) error {
	out := excelize.NewFile()
	defer out.Close()
	for i, sheet := range c.Sheets {
		if i == 0 {
			if err := out.SetSheetName("Sheet1", sheet); err != nil {
				return err
			}
		} else if _, err := out.NewSheet(sheet); err != nil {
			return err
		}
		sw, err := out.NewStreamWriter(sheet)
		if err != nil {
			return err
		}
		for r, row := range c.Rows[sheet] {
			vals := make([]any, len(row))
			for col, v := range row {
				num := false
				if k := c.kinds[sheet]; r < len(k) && col < len(k[r]) {
					num = k[r][col] == grid.Number
				}
				// A number is written as one only where its text is the number's own form, so
				// "0001" stays the text it was.
				if f, err := strconv.ParseFloat(v, 64); err == nil && num && strconv.FormatFloat(f, 'f', -1, 64) == v {
					vals[col] = f
				} else if v != "" {
					vals[col] = v
				}
			}
			cell, _ := excelize.CoordinatesToCellName(1, r+1)
			if err := sw.SetRow(cell, vals); err != nil {
				return err
			}
		}
		if err := sw.Flush(); err != nil {
			return err
		}
	}
	// excelize names the format by the extension: save as .xlsx, then take the file's name.
	tmp := dst + ".xlsx"
	if err := out.SaveAs(tmp); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}
