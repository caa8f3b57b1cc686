package xls

import (
	"encoding/binary"
	"fmt"
)

// sheetRef is a worksheet listed in the workbook globals.
type sheetRef struct {
	name   string
	offset uint32
}

// globals is what the workbook globals substream provides.
type globals struct {
	sheets []sheetRef
	sst    []string
}

// parseWorkbook decodes a BIFF8 workbook stream into its worksheets.
func parseWorkbook(stream []byte) ([]Sheet, error) {
	g, err := parseGlobals(stream)
	if err != nil {
		return nil, err
	}
	b := &budget{left: cellBudget(len(stream))}
	sheets := make([]Sheet, 0, len(g.sheets))
	for _, ref := range g.sheets {
		rows, err := parseSheet(stream, ref.offset, g.sst, b)
		if err != nil {
			return nil, fmt.Errorf("sheet %q: %w", ref.name, err)
		}
		sheets = append(sheets, Sheet{Name: ref.name, Rows: rows})
	}
	return sheets, nil
}

// parseGlobals reads the workbook globals substream at the start of the
// stream: the sheet list and the shared string table.
func parseGlobals(stream []byte) (*globals, error) {
	rr := &recordReader{buf: stream}
	if err := expectBOF(rr, bofGlobals); err != nil {
		return nil, fmt.Errorf("workbook globals: %w", err)
	}
	g := &globals{}
	offsets := make(map[uint32]bool)
	for !rr.done() {
		rec, err := rr.next()
		if err != nil {
			return nil, fmt.Errorf("workbook globals: %w", err)
		}
		switch rec.typ {
		case recEOF:
			return g, nil
		case recFilePass:
			return nil, fmt.Errorf("workbook is encrypted: %w", ErrUnsupported)
		case recBoundSheet8:
			ref, ok, err := parseBoundSheet(rec.data)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			if offsets[ref.offset] {
				return nil, fmt.Errorf("sheets share stream offset %d: %w", ref.offset, ErrFormat)
			}
			offsets[ref.offset] = true
			g.sheets = append(g.sheets, ref)
		case recSST:
			segs, err := rr.continued(rec)
			if err != nil {
				return nil, err
			}
			if g.sst, err = parseSST(segs); err != nil {
				return nil, err
			}
		}
	}
	return nil, fmt.Errorf("workbook globals have no EOF record: %w", ErrFormat)
}

// expectBOF reads a BOF record and checks that it opens a BIFF8 substream of
// the given type.
func expectBOF(rr *recordReader, kind uint16) error {
	rec, err := rr.next()
	if err != nil {
		return err
	}
	if rec.typ != recBOF || len(rec.data) < 4 {
		return fmt.Errorf("substream does not start with a BIFF8 BOF record (found %#04x): %w", rec.typ, ErrFormat)
	}
	if v := binary.LittleEndian.Uint16(rec.data); v != biff8Version {
		return fmt.Errorf("BIFF version %#04x, only BIFF8 (0x0600) is read: %w", v, ErrUnsupported)
	}
	if dt := binary.LittleEndian.Uint16(rec.data[2:]); dt != kind {
		return fmt.Errorf("substream type %#04x, want %#04x: %w", dt, kind, ErrFormat)
	}
	return nil
}

// parseBoundSheet decodes a BOUNDSHEET8 record. ok is false for sheets that
// are not worksheets (charts, macro sheets, VBA modules).
func parseBoundSheet(data []byte) (ref sheetRef, ok bool, err error) {
	if len(data) < 8 {
		return sheetRef{}, false, fmt.Errorf("BOUNDSHEET8 record of %d bytes: %w", len(data), ErrFormat)
	}
	if data[5] != 0 {
		return sheetRef{}, false, nil
	}
	s := &segReader{segs: [][]byte{data[6:]}}
	name, err := s.unicodeString(1)
	if err != nil {
		return sheetRef{}, false, fmt.Errorf("sheet name: %w", err)
	}
	return sheetRef{name: name, offset: binary.LittleEndian.Uint32(data)}, true, nil
}

// budget limits the cells (and empty rows) the reader allocates for a
// workbook, so that a small hostile file cannot demand huge dense grids.
type budget struct {
	left int
}

// cellBudget allows plenty for any real workbook: one million cells plus 16
// per byte of workbook stream (a cell record takes at least 6 bytes).
func cellBudget(streamLen int) int {
	return 1<<20 + 16*streamLen
}

// take spends n units of the budget.
func (b *budget) take(n int) error {
	if n > b.left {
		return fmt.Errorf("workbook needs more cells than its size allows: %w", ErrFormat)
	}
	b.left -= n
	return nil
}
