package grid

import (
	"bytes"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/citeq/citeq/internal/pdfwrite"
)

// smallXLSX is a two-sheet workbook with text, numbers, a blank and a formula.
func smallXLSX(f *testing.F) []byte {
	x := excelize.NewFile()
	defer x.Close()
	x.SetCellValue("Sheet1", "A1", "Title, as of May 2016")
	x.SetCellValue("Sheet1", "A2", "Plant State")
	x.SetCellValue("Sheet1", "B2", "Nameplate Capacity (MW)")
	x.SetCellValue("Sheet1", "A3", "TX")
	x.SetCellValue("Sheet1", "B3", 12.5)
	x.SetCellValue("Sheet1", "B4", " ")
	x.SetCellFormula("Sheet1", "B5", "SUM(B3:B4)")
	x.NewSheet("Notes")
	x.SetCellValue("Notes", "A1", "NOTES")
	var b bytes.Buffer
	if err := x.Write(&b); err != nil {
		f.Fatal(err)
	}
	return b.Bytes()
}

// FuzzParse: no file, whatever its bytes, crashes the readers of the agencies' files (xlsx,
// xls, PDF, JSON, XBRL, the FCC text layouts and CSV, chosen by the content); a workbook that
// parses is consistent.
func FuzzParse(f *testing.F) {
	f.Add(smallXLSX(f))
	f.Add([]byte("Date,Henry Hub Natural Gas Spot Price Dollars per Million Btu\n01/07/1997,3.82\n01/08/1997,\n"))
	f.Add([]byte("a;b\n\"q\"\"x\",\"\n"))
	f.Add([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1, 0, 0, 0})
	f.Add([]byte("PK\x03\x04garbage"))
	f.Add(writePDF(f, []pdfwrite.Page{{Texts: []pdfwrite.Text{{X: 40, Y: 500, Size: 10, S: "Zone"}, {X: 120, Y: 500, Size: 10, S: "30.00"}}}}))
	f.Add([]byte("%PDF-1.7\n1 0 obj\n<<>>\nendobj\n"))
	f.Add([]byte("<html><body>not a file</body></html>"))
	f.Add([]byte("1|0|S2129|SATAMD2022010700003|SAT|note\r\nmore|^|\r\n2|\x93x\x94|^|\r\n"))
	f.Add([]byte("PUBLIC NOTICE\nReport No. SAT-01603    Friday January 21, 2022\nSAT-AMD-20220107-00003  E  S2129  Maxar License Inc.\n"))
	f.Add([]byte(smallXBRL))
	f.Fuzz(func(t *testing.T, data []byte) {
		wb, err := Parse(data)
		if err != nil {
			if wb != nil {
				t.Fatal("a workbook and an error")
			}
			return
		}
		for _, name := range wb.SheetNames() {
			sh := wb.Sheet(name)
			if sh == nil {
				t.Fatalf("sheet %q listed but absent", name)
			}
			for r := 1; r <= sh.NumRows(); r++ {
				for c := 1; c <= len(sh.Row(r))+1; c++ {
					_ = sh.Cell(r, c)
				}
			}
		}
	})
}
