package xls

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"testing"
)

// testSheet is a substream to list in a test workbook.
type testSheet struct {
	name   string
	kind   byte // BOUNDSHEET8 dt: 0 worksheet, 2 chart
	hidden bool
	body   []byte // the whole substream, BOF to EOF
	// samePos lists the sheet at the previous sheet's offset.
	samePos bool
}

// buildWorkbook returns a BIFF8 workbook stream: the globals (BOF, CODEPAGE,
// one BOUNDSHEET8 per sheet, the extra records, EOF) and then the sheets.
func buildWorkbook(extra []byte, sheets ...testSheet) []byte {
	globals := func(offsets []uint32) []byte {
		var b biffWriter
		b.rec(recBOF, bofBody(bofGlobals))
		b.rec(recCodePage, le16(1200))
		for i, s := range sheets {
			var state byte
			if s.hidden {
				state = 1
			}
			name := shortName(s.name)
			b.rec(recBoundSheet8, le32(offsets[i]), []byte{state, s.kind}, name)
		}
		b.Write(extra)
		b.rec(recEOF)
		return b.Bytes()
	}
	offsets := make([]uint32, len(sheets))
	pos := uint32(len(globals(offsets)))
	for i, s := range sheets {
		if s.samePos && i > 0 {
			offsets[i] = offsets[i-1]
			continue
		}
		offsets[i] = pos
		pos += uint32(len(s.body))
	}
	out := globals(offsets)
	for _, s := range sheets {
		out = append(out, s.body...)
	}
	return out
}

// shortName is a ShortXLUnicodeString, compressed when the name is Latin-1.
func shortName(s string) []byte {
	long := utf16Str(s)
	if rs := []rune(s); len(rs) == len(s) {
		return append([]byte{byte(len(s)), 0}, s...)
	}
	return append([]byte{long[0]}, long[2:]...)
}

// sheetStream wraps cell records in a worksheet BOF and EOF.
func sheetStream(cells func(b *biffWriter)) []byte {
	var b biffWriter
	b.rec(recBOF, bofBody(bofWorksheet))
	cells(&b)
	b.rec(recEOF)
	return b.Bytes()
}

// sstRecords is an SST split over three CONTINUE records: a string whose
// characters switch from compressed to UTF-16 at a record boundary, rich
// text runs and phonetic data that cross a boundary (no flag byte there),
// and a string whose characters start in a new record (with a flag byte).
func sstRecords() []byte {
	var b biffWriter
	b.rec(recSST, le32(9), le32(8),
		latin1("Alpha"),
		latin1("Gr\xfc\xdfe"),
		le16(14), []byte{0}, []byte("ABCDEFGHIJ"))
	b.rec(recContinue, []byte{strHighByte}, utf16Str("ünï✓")[3:],
		le16(4), []byte{strRichSt | strExtSt}, le16(2), le32(10), []byte("Rich"),
		[]byte{0, 0, 1})
	b.rec(recContinue, []byte{0, 2, 0, 0, 0}, make([]byte, 10),
		latin1("After"),
		utf16Str("日本"),
		le16(2), []byte{0})
	b.rec(recContinue, []byte{0}, []byte("XY"), latin1(""))
	return b.Bytes()
}

// wantSST is the decoded table of sstRecords.
var wantSST = []string{"Alpha", "Grüße", "ABCDEFGHIJünï✓", "Rich", "After", "日本", "XY", ""}

// alphaSheet exercises every cell record the reader knows.
func alphaSheet() []byte {
	return sheetStream(func(b *biffWriter) {
		for i := range wantSST {
			b.rec(recLabelSST, cellRef(0, i), le32(uint32(i)))
		}
		b.rec(recNumber, cellRef(1, 0), f64(1.5))
		b.rec(recRK, cellRef(1, 1), rkInt(35437, false))
		b.rec(recRK, cellRef(1, 2), rkInt(-7, true))
		b.rec(recRK, cellRef(1, 3), rkFloat(2.5, false))
		b.rec(recRK, cellRef(1, 4), rkFloat(1234, true))
		b.rec(recMulRK, le16(1), le16(5),
			le16(15), rkInt(1, false), le16(15), rkInt(2, false), le16(15), rkInt(3, false), le16(7))
		b.rec(recMulBlank, le16(1), le16(8), le16(15), le16(15), le16(15), le16(10))
		b.rec(recBoolErr, cellRef(3, 0), []byte{1, 0})
		b.rec(recBoolErr, cellRef(3, 1), []byte{0x07, 1})
		b.rec(recFormula, cellRef(3, 2), f64(42), le16(0), le32(0), le16(0))
		b.rec(recFormula, cellRef(3, 3), formulaValue(fmlaString, 0), le16(0), le32(0), le16(0))
		b.rec(recString, latin1("formula text"))
		b.rec(recFormula, cellRef(3, 4), formulaValue(fmlaBool, 0), le16(0), le32(0), le16(0))
		b.rec(recFormula, cellRef(3, 5), formulaValue(fmlaError, 0x2A), le16(0), le32(0), le16(0))
		b.rec(recFormula, cellRef(3, 6), formulaValue(fmlaEmptyString, 0), le16(0), le32(0), le16(0))
		b.rec(recLabel, cellRef(3, 7), latin1("label \xfc"))
		b.rec(recLabel, cellRef(3, 8), utf16Str("Ωμέγα"))
		b.rec(recBlank, cellRef(3, 9))
		// An embedded chart: its records belong to the chart, not the sheet.
		b.rec(recBOF, bofBody(0x0020))
		b.rec(recNumber, cellRef(10, 0), f64(99))
		b.rec(recEOF)
		b.rec(recNumber, cellRef(5, 255), f64(-0.25))
	})
}

// formulaValue is the 8-byte FormulaValue for a non-numeric result.
func formulaValue(kind, val byte) []byte {
	return []byte{kind, 0, val, 0, 0, 0, 0xFF, 0xFF}
}

// omegaSheet has a formula string result continued in a CONTINUE record
// that switches to UTF-16.
func omegaSheet() []byte {
	return sheetStream(func(b *biffWriter) {
		b.rec(recFormula, cellRef(0, 0), formulaValue(fmlaString, 0), le16(0), le32(0), le16(0))
		b.rec(recString, le16(6), []byte{0}, []byte("abc"))
		b.rec(recContinue, []byte{strHighByte}, utf16Str("déf")[3:])
	})
}

// chartSheet is a chart substream, which Read leaves out.
func chartSheet() []byte {
	var b biffWriter
	b.rec(recBOF, bofBody(0x0020))
	b.rec(recEOF)
	return b.Bytes()
}

// synthWorkbook is the feature-test workbook stream.
func synthWorkbook() []byte {
	return buildWorkbook(sstRecords(),
		testSheet{name: "Alpha", body: alphaSheet()},
		testSheet{name: "Chart1", kind: 2, body: chartSheet()},
		testSheet{name: "Beta", hidden: true, body: sheetStream(func(*biffWriter) {})},
		testSheet{name: "Ωmega", body: omegaSheet()},
	)
}

// synthFile is the feature-test workbook in a compound file, with the
// Workbook stream in the mini stream.
func synthFile() []byte {
	return buildCFB(
		testStream{name: "\x05SummaryInformation", data: make([]byte, 200)},
		testStream{name: "Workbook", data: synthWorkbook()},
	)
}

// wantSynth is what Read returns for synthFile.
func wantSynth() []Sheet {
	str := func(s string) Cell { return Cell{Kind: String, Text: s} }
	num := func(v float64) Cell { return Cell{Kind: Number, Number: v} }
	row0 := make([]Cell, len(wantSST))
	for i, s := range wantSST {
		row0[i] = str(s)
	}
	row5 := make([]Cell, 256)
	row5[255] = num(-0.25)
	return []Sheet{
		{Name: "Alpha", Rows: [][]Cell{
			row0,
			{num(1.5), num(35437), num(-0.07), num(2.5), num(12.34), num(1), num(2), num(3)},
			nil,
			{
				{Kind: Bool, Number: 1}, {Kind: Error, Number: 7}, num(42), str("formula text"),
				{Kind: Bool, Number: 0}, {Kind: Error, Number: 0x2A}, str(""), str("label ü"), str("Ωμέγα"),
			},
			nil,
			row5,
		}},
		{Name: "Beta"},
		{Name: "Ωmega", Rows: [][]Cell{{str("abcdéf")}}},
	}
}

func TestSynthWorkbook(t *testing.T) {
	tests := []struct {
		name string
		file []byte
	}{
		{"mini stream", synthFile()},
		{"Book stream name", buildCFB(testStream{name: "Book", data: synthWorkbook()})},
		{"regular sectors", buildCFB(testStream{name: "Workbook", data: padStream(synthWorkbook(), 5000)})},
		{"4096-byte sectors", buildCFBSectors(4096,
			testStream{name: "\x05SummaryInformation", data: make([]byte, 200)},
			testStream{name: "Workbook", data: padStream(synthWorkbook(), 9000)})},
		{"4096-byte sectors, mini stream", buildCFBSectors(4096, testStream{name: "Workbook", data: synthWorkbook()})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Read(bytes.NewReader(tc.file), int64(len(tc.file)))
			if err != nil {
				t.Fatal(err)
			}
			if want := wantSynth(); !reflect.DeepEqual(got, want) {
				t.Errorf("Read:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// padStream appends zero bytes up to n bytes; readers ignore what follows
// the sheets' EOF records.
func padStream(b []byte, n int) []byte {
	return append(b, make([]byte, max(0, n-len(b)))...)
}

func TestParseSST(t *testing.T) {
	rr := &recordReader{buf: sstRecords()}
	rec, err := rr.next()
	if err != nil {
		t.Fatal(err)
	}
	segs, err := rr.continued(rec)
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseSST(segs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, wantSST) {
		t.Errorf("parseSST = %q, want %q", got, wantSST)
	}
}

func TestDecodeRK(t *testing.T) {
	tests := []struct {
		rk   []byte
		want float64
	}{
		{rkInt(0, false), 0},
		{rkInt(35437, false), 35437},
		{rkInt(-1, false), -1},
		{rkInt(-536870912, false), -536870912},
		{rkInt(536870911, false), 536870911},
		{rkInt(382, true), 3.82},
		{rkInt(-7, true), -0.07},
		{rkFloat(2.5, false), 2.5},
		{rkFloat(-1024, false), -1024},
		{rkFloat(1234, true), 12.34},
		{le32(0x3FF00000), 1},    // 1.0 as the top of a double
		{le32(0x405EC001), 1.23}, // 123.0 / 100
		{le32(0x02F1853A), 12345678},
		{le32(0x02F1853B), 123456.78},
	}
	for _, tc := range tests {
		if got := decodeRK(binary.LittleEndian.Uint32(tc.rk)); got != tc.want {
			t.Errorf("decodeRK(% x) = %v, want %v", tc.rk, got, tc.want)
		}
	}
}

func TestDIFATBeyondHeader(t *testing.T) {
	// 14,000 filler sectors need more FAT sectors than the header's 109
	// DIFAT slots can list, so the Workbook's FAT entries sit in FAT
	// sectors that only a DIFAT sector names.
	wb := padStream(synthWorkbook(), 6000)
	file := buildCFB(
		testStream{name: "Filler", data: make([]byte, 14000*512)},
		testStream{name: "Workbook", data: wb},
	)
	if n := binary.LittleEndian.Uint32(file[0x48:]); n == 0 {
		t.Fatalf("test file has no DIFAT sectors")
	}
	got, err := Read(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	if want := wantSynth(); !reflect.DeepEqual(got, want) {
		t.Errorf("Read:\n got %+v\nwant %+v", got, want)
	}

	// A DIFAT chain that points back to itself must be reported, not followed.
	loop := bytes.Clone(file)
	first := binary.LittleEndian.Uint32(loop[0x44:])
	binary.LittleEndian.PutUint32(loop[0x2C:], binary.LittleEndian.Uint32(loop[0x2C:])+200)
	binary.LittleEndian.PutUint32(loop[512*(int(first)+1)+4*127:], first)
	if _, err := Read(bytes.NewReader(loop), int64(len(loop))); !errors.Is(err, ErrFormat) {
		t.Errorf("DIFAT loop: err = %v, want ErrFormat", err)
	}
}

func TestMalformedWorkbooks(t *testing.T) {
	ok := sheetStream(func(b *biffWriter) { b.rec(recNumber, cellRef(0, 0), f64(1)) })
	withGlobals := func(extra []byte) []byte {
		return buildWorkbook(extra, testSheet{name: "S", body: ok})
	}
	var filePass, oldBOF biffWriter
	filePass.rec(recFilePass, le16(0))
	oldBOF.rec(recBOF, le16(0x0500), le16(bofGlobals), le16(0), le16(0))
	oldBOF.rec(recEOF)
	farCells := make([]testSheet, 100)
	for i := range farCells {
		farCells[i] = testSheet{name: string(rune('a'+i%26)) + string(rune('a'+i/26)), body: sheetStream(func(b *biffWriter) {
			b.rec(recNumber, cellRef(65535, 255), f64(1))
		})}
	}
	tests := []struct {
		name   string
		stream []byte
		want   error
	}{
		{"encrypted", withGlobals(filePass.Bytes()), ErrUnsupported},
		{"BIFF5", oldBOF.Bytes(), ErrUnsupported},
		{"empty stream", nil, ErrFormat},
		{"no globals EOF", synthWorkbook()[:40], ErrFormat},
		{"string index out of range", buildWorkbook(nil, testSheet{name: "S", body: sheetStream(func(b *biffWriter) {
			b.rec(recLabelSST, cellRef(0, 0), le32(0))
		})}), ErrFormat},
		{"column past IV", buildWorkbook(nil, testSheet{name: "S", body: sheetStream(func(b *biffWriter) {
			b.rec(recNumber, cellRef(0, 256), f64(1))
		})}), ErrFormat},
		{"short NUMBER", buildWorkbook(nil, testSheet{name: "S", body: sheetStream(func(b *biffWriter) {
			b.rec(recNumber, cellRef(0, 0))
		})}), ErrFormat},
		{"ragged MULRK", buildWorkbook(nil, testSheet{name: "S", body: sheetStream(func(b *biffWriter) {
			b.rec(recMulRK, le16(0), le16(0), le16(15), rkInt(1, false), le16(15), le16(1))
		})}), ErrFormat},
		{"sheet without EOF", buildWorkbook(nil, testSheet{name: "S", body: ok[:len(ok)-4]}), ErrFormat},
		{"sheet is not a worksheet", buildWorkbook(nil, testSheet{name: "S", body: chartSheet()}), ErrFormat},
		{"sheets share an offset", buildWorkbook(nil, testSheet{name: "S", body: ok}, testSheet{name: "T", samePos: true}), ErrFormat},
		{"sheet offset past the stream", buildWorkbook(nil, testSheet{name: "S", body: ok}, testSheet{name: "T"}), ErrFormat},
		{"SST string past its data", func() []byte {
			var b biffWriter
			b.rec(recSST, le32(1), le32(1), le16(20), []byte{0}, []byte("short"))
			return withGlobals(b.Bytes())
		}(), ErrFormat},
		{"UTF-16 character split", func() []byte {
			var b biffWriter
			b.rec(recSST, le32(1), le32(1), le16(2), []byte{strHighByte}, []byte{'a', 0, 'b'})
			b.rec(recContinue, []byte{strHighByte, 0, 'c', 0})
			return withGlobals(b.Bytes())
		}(), ErrFormat},
		{"far cells in many sheets", buildWorkbook(nil, farCells...), ErrFormat},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := buildCFB(testStream{name: "Workbook", data: tc.stream})
			sheets, err := Read(bytes.NewReader(file), int64(len(file)))
			if !errors.Is(err, tc.want) {
				t.Fatalf("Read = %d sheets, err %v; want error %v", len(sheets), err, tc.want)
			}
			if testing.Verbose() {
				t.Log(err)
			}
		})
	}
}

func TestMalformedContainers(t *testing.T) {
	good := synthFile()
	edit := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	tests := []struct {
		name string
		file []byte
	}{
		{"empty", nil},
		{"not OLE2", []byte("PK\x03\x04 this is a zip file, not an xls workbook at all")},
		{"header only", good[:512]},
		{"no Workbook stream", buildCFB(testStream{name: "Worksheet", data: synthWorkbook()})},
		{"bad sector shift", edit(func(b []byte) []byte { b[0x1E] = 30; return b })},
		{"bad mini sector shift", edit(func(b []byte) []byte { b[0x20] = 12; return b })},
		{"huge FAT count", edit(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[0x2C:], 1<<30); return b })},
		{"directory past end", edit(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[0x30:], 5000); return b })},
		{"mini FAT past end", edit(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[0x3C:], 0xFFFFFFF0); return b })},
		{"FAT self loop", edit(func(b []byte) []byte {
			fat := 512 * (int(binary.LittleEndian.Uint32(b[0x4C:])) + 1)
			binary.LittleEndian.PutUint32(b[fat:], 0) // sector 0 (mini stream) -> sector 0
			return b
		})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sheets, err := Read(bytes.NewReader(tc.file), int64(len(tc.file)))
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("Read = %d sheets, err %v; want ErrFormat", len(sheets), err)
			}
		})
	}
	if _, err := Read(nil, 0); err == nil {
		t.Error("Read(nil) succeeded")
	}
}

func FuzzRead(f *testing.F) {
	f.Add(synthFile())
	f.Add(buildCFB(testStream{name: "Workbook", data: buildWorkbook(nil)}))
	f.Add(buildCFB(testStream{name: "Book", data: []byte{0x09, 0x08, 0x04, 0x00, 0x00, 0x06, 0x05, 0x00}}))
	f.Add(cfbSignature)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		sheets, err := Read(bytes.NewReader(data), int64(len(data)))
		if err != nil && sheets != nil {
			t.Errorf("Read returned sheets with error %v", err)
		}
	})
}

// FuzzWorkbookStream feeds the BIFF8 parser directly, past the container.
func FuzzWorkbookStream(f *testing.F) {
	f.Add(synthWorkbook())
	f.Add(buildWorkbook(sstRecords()))
	f.Add(buildWorkbook(nil, testSheet{name: "S", body: omegaSheet()}))
	f.Fuzz(func(t *testing.T, stream []byte) {
		sheets, err := parseWorkbook(stream)
		if err != nil && sheets != nil {
			t.Errorf("parseWorkbook returned sheets with error %v", err)
		}
	})
}
