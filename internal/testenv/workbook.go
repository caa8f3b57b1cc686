package testenv

import (
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// RebuildWorkbook writes to dst a copy of the workbook src with each sheet's rows passed
// through edit (for tests that need a damaged or re-dated copy of a real file, made at test
// time). Numbers stay numbers; text that only looks numeric ("01") stays text.
func RebuildWorkbook(t testing.TB, src, dst string, edit func(sheet string, rows [][]string) [][]string) {
	t.Helper()
	in, err := excelize.OpenFile(src, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out := excelize.NewFile()
	for i, sheet := range in.GetSheetList() {
		rows, err := in.GetRows(sheet, excelize.Options{RawCellValue: true})
		if err != nil {
			t.Fatal(err)
		}
		rows = edit(sheet, rows)
		if i == 0 {
			if err := out.SetSheetName("Sheet1", sheet); err != nil {
				t.Fatal(err)
			}
		} else if _, err := out.NewSheet(sheet); err != nil {
			t.Fatal(err)
		}
		sw, err := out.NewStreamWriter(sheet)
		if err != nil {
			t.Fatal(err)
		}
		for r, row := range rows {
			vals := make([]any, len(row))
			for c, v := range row {
				if f, err := strconv.ParseFloat(v, 64); err == nil && strconv.FormatFloat(f, 'f', -1, 64) == v {
					vals[c] = f
				} else {
					vals[c] = v
				}
			}
			cell, _ := excelize.CoordinatesToCellName(1, r+1)
			if err := sw.SetRow(cell, vals); err != nil {
				t.Fatal(err)
			}
		}
		if err := sw.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := out.SaveAs(dst); err != nil {
		t.Fatal(err)
	}
}

// Retitle returns an edit for RebuildWorkbook that re-dates the EIA-860M sheet titles.
func Retitle(from, to string) func(string, [][]string) [][]string {
	return func(_ string, rows [][]string) [][]string {
		if len(rows) > 0 && len(rows[0]) > 0 {
			rows[0][0] = strings.Replace(rows[0][0], from, to, 1)
		}
		return rows
	}
}
