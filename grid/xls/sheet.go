package xls

import (
	"encoding/binary"
	"fmt"
	"math"
)

// maxColumn is the last column a BIFF8 worksheet can have (IV).
const maxColumn = 0xFF

// grid collects the cells of one worksheet as dense rows.
type grid struct {
	rows   [][]Cell
	budget *budget
}

// set stores c at (row, col). Blank cells are not stored: rows hold only
// what lies up to their last non-blank cell.
func (g *grid) set(row, col int, c Cell) error {
	if col > maxColumn {
		return fmt.Errorf("cell column %d beyond the BIFF8 limit: %w", col, ErrFormat)
	}
	if c.Kind == Blank {
		return nil
	}
	if grow := row + 1 - len(g.rows); grow > 0 {
		if err := g.budget.take(grow); err != nil {
			return err
		}
		g.rows = append(g.rows, make([][]Cell, grow)...)
	}
	r := g.rows[row]
	if grow := col + 1 - len(r); grow > 0 {
		if err := g.budget.take(grow); err != nil {
			return err
		}
		r = append(r, make([]Cell, grow)...)
		g.rows[row] = r
	}
	r[col] = c
	return nil
}

// sheetParser holds the state of one worksheet substream walk.
type sheetParser struct {
	rr  *recordReader
	sst []string
	g   grid
	// pendingString is the cell whose FORMULA record announced a string
	// result; the STRING record that follows carries the text.
	pendingString *[2]int
}

// parseSheet reads the worksheet substream that starts at offset.
func parseSheet(stream []byte, offset uint32, sst []string, b *budget) ([][]Cell, error) {
	if uint64(offset) >= uint64(len(stream)) {
		return nil, fmt.Errorf("sheet offset %d beyond the workbook stream of %d bytes: %w", offset, len(stream), ErrFormat)
	}
	p := &sheetParser{
		rr:  &recordReader{buf: stream, pos: int(offset)},
		sst: sst,
		g:   grid{budget: b},
	}
	if err := expectBOF(p.rr, bofWorksheet); err != nil {
		return nil, err
	}
	if err := p.walk(); err != nil {
		return nil, err
	}
	return p.g.rows, nil
}

// walk handles records up to the worksheet's EOF. Substreams nested in the
// sheet (embedded charts) are skipped.
func (p *sheetParser) walk() error {
	depth := 0
	for !p.rr.done() {
		rec, err := p.rr.next()
		if err != nil {
			return err
		}
		switch {
		case rec.typ == recBOF:
			depth++
		case rec.typ == recEOF && depth == 0:
			return nil
		case rec.typ == recEOF:
			depth--
		case depth == 0:
			if err := p.record(rec); err != nil {
				return err
			}
		}
	}
	return fmt.Errorf("worksheet has no EOF record: %w", ErrFormat)
}

// record dispatches one cell record.
func (p *sheetParser) record(rec record) error {
	switch rec.typ {
	case recNumber:
		return p.number(rec.data)
	case recRK:
		return p.rk(rec.data)
	case recMulRK:
		return p.mulRK(rec.data)
	case recLabelSST:
		return p.labelSST(rec.data)
	case recLabel, recRString:
		return p.label(rec)
	case recBoolErr:
		return p.boolErr(rec.data)
	case recFormula:
		return p.formula(rec.data)
	case recString:
		return p.formulaString(rec)
	}
	// BLANK, MULBLANK and formatting records add nothing.
	return nil
}

// cellHeader reads the row and column that start every cell record, after
// checking that the record has at least n bytes.
func cellHeader(data []byte, n int, name string) (row, col int, err error) {
	if len(data) < n {
		return 0, 0, fmt.Errorf("%s record of %d bytes, want %d: %w", name, len(data), n, ErrFormat)
	}
	le := binary.LittleEndian
	return int(le.Uint16(data)), int(le.Uint16(data[2:])), nil
}

// number handles NUMBER: an IEEE double.
func (p *sheetParser) number(data []byte) error {
	row, col, err := cellHeader(data, 14, "NUMBER")
	if err != nil {
		return err
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(data[6:]))
	return p.g.set(row, col, Cell{Kind: Number, Number: v})
}

// rk handles RK: a number in the compact RK form.
func (p *sheetParser) rk(data []byte) error {
	row, col, err := cellHeader(data, 10, "RK")
	if err != nil {
		return err
	}
	v := decodeRK(binary.LittleEndian.Uint32(data[6:]))
	return p.g.set(row, col, Cell{Kind: Number, Number: v})
}

// mulRK handles MULRK: RK numbers in consecutive columns of one row.
func (p *sheetParser) mulRK(data []byte) error {
	row, first, err := cellHeader(data, 6, "MULRK")
	if err != nil {
		return err
	}
	body := data[4 : len(data)-2] // (ixfe, rk) pairs, then colLast
	if len(body)%6 != 0 {
		return fmt.Errorf("MULRK record of %d bytes: %w", len(data), ErrFormat)
	}
	for i := 0; i < len(body)/6; i++ {
		v := decodeRK(binary.LittleEndian.Uint32(body[6*i+2:]))
		if err := p.g.set(row, first+i, Cell{Kind: Number, Number: v}); err != nil {
			return err
		}
	}
	return nil
}

// labelSST handles LABELSST: an index into the shared string table.
func (p *sheetParser) labelSST(data []byte) error {
	row, col, err := cellHeader(data, 10, "LABELSST")
	if err != nil {
		return err
	}
	i := binary.LittleEndian.Uint32(data[6:])
	if uint64(i) >= uint64(len(p.sst)) {
		return fmt.Errorf("string index %d beyond the %d shared strings: %w", i, len(p.sst), ErrFormat)
	}
	return p.g.set(row, col, Cell{Kind: String, Text: p.sst[i]})
}

// label handles LABEL and RSTRING: a string stored in the cell record.
func (p *sheetParser) label(rec record) error {
	row, col, err := cellHeader(rec.data, 6, "LABEL")
	if err != nil {
		return err
	}
	segs, err := p.rr.continued(record{typ: rec.typ, data: rec.data[6:]})
	if err != nil {
		return err
	}
	text, err := (&segReader{segs: segs}).unicodeString(2)
	if err != nil {
		return fmt.Errorf("LABEL text: %w", err)
	}
	return p.g.set(row, col, Cell{Kind: String, Text: text})
}

// boolErr handles BOOLERR: a boolean or an error code.
func (p *sheetParser) boolErr(data []byte) error {
	row, col, err := cellHeader(data, 8, "BOOLERR")
	if err != nil {
		return err
	}
	c := Cell{Kind: Bool, Number: float64(data[6])}
	if data[7] != 0 {
		c.Kind = Error
	}
	return p.g.set(row, col, c)
}

// Cached formula result types, used when the top two bytes are 0xFFFF.
const (
	fmlaString      = 0
	fmlaBool        = 1
	fmlaError       = 2
	fmlaEmptyString = 3
)

// formula handles FORMULA: only the cached result is kept.
func (p *sheetParser) formula(data []byte) error {
	row, col, err := cellHeader(data, 14, "FORMULA")
	if err != nil {
		return err
	}
	p.pendingString = nil
	val := data[6:14]
	if binary.LittleEndian.Uint16(val[6:]) != 0xFFFF {
		v := math.Float64frombits(binary.LittleEndian.Uint64(val))
		return p.g.set(row, col, Cell{Kind: Number, Number: v})
	}
	switch val[0] {
	case fmlaString:
		p.pendingString = &[2]int{row, col}
		return p.g.set(row, col, Cell{Kind: String})
	case fmlaBool:
		return p.g.set(row, col, Cell{Kind: Bool, Number: float64(val[2])})
	case fmlaError:
		return p.g.set(row, col, Cell{Kind: Error, Number: float64(val[2])})
	case fmlaEmptyString:
		return p.g.set(row, col, Cell{Kind: String})
	}
	return p.g.set(row, col, Cell{Kind: Blank})
}

// formulaString handles STRING: the text result of the preceding FORMULA.
func (p *sheetParser) formulaString(rec record) error {
	segs, err := p.rr.continued(rec)
	if err != nil {
		return err
	}
	text, err := (&segReader{segs: segs}).unicodeString(2)
	if err != nil {
		return fmt.Errorf("STRING record: %w", err)
	}
	if p.pendingString == nil {
		return nil
	}
	at := *p.pendingString
	p.pendingString = nil
	return p.g.set(at[0], at[1], Cell{Kind: String, Text: text})
}

// decodeRK decodes an RK number: bit 0 asks for division by 100, bit 1 says
// the upper 30 bits are a signed integer rather than the top of a double.
func decodeRK(rk uint32) float64 {
	var v float64
	if rk&0x02 != 0 {
		v = float64(int32(rk) >> 2)
	} else {
		v = math.Float64frombits(uint64(rk&0xFFFFFFFC) << 32)
	}
	if rk&0x01 != 0 {
		v /= 100
	}
	return v
}
