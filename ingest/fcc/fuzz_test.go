package fcc

import (
	"testing"

	"github.com/citeq/citeq/grid"
)

// FuzzParseNotice: no text, whatever its bytes, crashes the notice parser; every entry it
// reads has a file number and a line of the text.
func FuzzParseNotice(f *testing.F) {
	f.Add([]byte("PUBLIC NOTICE\nReport No. SAT-01903    Wednesday June 25, 2025\nActions Taken\n" +
		"SAT-LOA-20240812-00120  E  S3240  Meridian Relay Company\nGrant of Authority   Effective Date: 06/23/2025\nNature of Service: Fixed-Satellite Service\n"))
	f.Add([]byte("PUBLIC NOTICE Report No. SAT-01603 Friday January 21, 2022 Space Station Applications Accepted for Filing " +
		"SAT-AMD-20220107-00003 E S2129 Maxar License Inc. Date Filed: 01/07/2022 16:49:02:39000 Amendment"))
	f.Add([]byte("PUBLIC NOTICE\nReport No. SAT-00001 Friday February 30, 2025\nActions Taken\nSAT-LOA-20250101-00001 E S1 X Effective Date: 13/45/2025\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		wb, err := grid.Parse(data)
		if err != nil || wb.Sheet(grid.NoticeSheetName) == nil {
			return
		}
		sh := wb.Sheet(grid.NoticeSheetName)
		n, err := ParseNotice(sh)
		if err != nil {
			return
		}
		for _, e := range n.Entries {
			if e.FileNumber == "" || e.Row < 1 || e.Row > sh.NumRows() {
				t.Fatalf("entry %+v of a %d-line text", e, sh.NumRows())
			}
		}
	})
}
