package xls

import (
	"encoding/binary"
	"fmt"
	"unicode/utf16"
)

// BIFF8 record types used by the reader.
const (
	recFormula     = 0x0006
	recEOF         = 0x000A
	recFilePass    = 0x002F
	recContinue    = 0x003C
	recCodePage    = 0x0042
	recBoundSheet8 = 0x0085
	recMulRK       = 0x00BD
	recMulBlank    = 0x00BE
	recRString     = 0x00D6
	recSST         = 0x00FC
	recLabelSST    = 0x00FD
	recBlank       = 0x0201
	recNumber      = 0x0203
	recLabel       = 0x0204
	recBoolErr     = 0x0205
	recString      = 0x0207
	recRK          = 0x027E
	recBOF         = 0x0809
)

// BOF record fields.
const (
	biff8Version    = 0x0600
	bofGlobals      = 0x0005
	bofWorksheet    = 0x0010
	recHeaderLength = 4
)

// record is one BIFF record: its type and body.
type record struct {
	typ  uint16
	data []byte
}

// recordReader walks the records of a workbook stream.
type recordReader struct {
	buf []byte
	pos int
}

// done reports whether the whole stream has been read.
func (rr *recordReader) done() bool {
	return rr.pos >= len(rr.buf)
}

// next returns the record at the current position and moves past it.
func (rr *recordReader) next() (record, error) {
	if len(rr.buf)-rr.pos < recHeaderLength {
		return record{}, fmt.Errorf("record header at offset %d runs past the end of the stream: %w", rr.pos, ErrFormat)
	}
	typ := binary.LittleEndian.Uint16(rr.buf[rr.pos:])
	n := int(binary.LittleEndian.Uint16(rr.buf[rr.pos+2:]))
	start := rr.pos + recHeaderLength
	if n > len(rr.buf)-start {
		return record{}, fmt.Errorf("record %#04x at offset %d runs past the end of the stream: %w", typ, rr.pos, ErrFormat)
	}
	rr.pos = start + n
	return record{typ: typ, data: rr.buf[start:rr.pos]}, nil
}

// continued returns the body of rec followed by the bodies of the CONTINUE
// records that come straight after it, as separate segments.
func (rr *recordReader) continued(rec record) ([][]byte, error) {
	segs := [][]byte{rec.data}
	for len(rr.buf)-rr.pos >= recHeaderLength && binary.LittleEndian.Uint16(rr.buf[rr.pos:]) == recContinue {
		c, err := rr.next()
		if err != nil {
			return nil, err
		}
		segs = append(segs, c.data)
	}
	return segs, nil
}

// segReader reads a record body that may go on in CONTINUE records. Plain
// reads cross segment boundaries freely; character data re-reads the
// compression flag byte at the start of each new segment, as BIFF8 requires.
type segReader struct {
	segs [][]byte
	seg  int
	pos  int
}

// remaining is the number of unread bytes in all segments.
func (s *segReader) remaining() int {
	n := 0
	for i := s.seg; i < len(s.segs); i++ {
		n += len(s.segs[i])
	}
	return n - s.pos
}

// skipEmpty moves past exhausted segments; it reports whether data is left.
func (s *segReader) skipEmpty() bool {
	for s.seg < len(s.segs) && s.pos >= len(s.segs[s.seg]) {
		s.seg++
		s.pos = 0
	}
	return s.seg < len(s.segs)
}

// u8 reads one byte.
func (s *segReader) u8() (byte, error) {
	if !s.skipEmpty() {
		return 0, fmt.Errorf("record data ends early: %w", ErrFormat)
	}
	b := s.segs[s.seg][s.pos]
	s.pos++
	return b, nil
}

// uintN reads an n-byte little-endian unsigned integer.
func (s *segReader) uintN(n int) (uint32, error) {
	var v uint32
	for i := 0; i < n; i++ {
		b, err := s.u8()
		if err != nil {
			return 0, err
		}
		v |= uint32(b) << (8 * i)
	}
	return v, nil
}

// skip moves n bytes ahead without reading flag bytes.
func (s *segReader) skip(n int) error {
	for n > 0 {
		if !s.skipEmpty() {
			return fmt.Errorf("record data ends early: %w", ErrFormat)
		}
		step := min(n, len(s.segs[s.seg])-s.pos)
		s.pos += step
		n -= step
	}
	return nil
}

// chars reads cch characters, compressed (Latin-1, one byte each) or UTF-16.
// When the characters go on in a new segment, that segment starts with a
// fresh flag byte that says how the rest is stored.
func (s *segReader) chars(cch int, high bool) (string, error) {
	units := make([]uint16, 0, cch)
	for len(units) < cch {
		if s.seg >= len(s.segs) {
			return "", fmt.Errorf("string data ends early: %w", ErrFormat)
		}
		seg := s.segs[s.seg]
		avail := len(seg) - s.pos
		if high && avail == 1 {
			return "", fmt.Errorf("UTF-16 character split across records: %w", ErrFormat)
		}
		if avail == 0 {
			if err := s.nextCharSegment(&high); err != nil {
				return "", err
			}
			continue
		}
		var used int
		units, used = appendUnits(units, seg[s.pos:], cch-len(units), high)
		s.pos += used
	}
	return string(utf16.Decode(units)), nil
}

// nextCharSegment moves to the next segment and reads its flag byte.
func (s *segReader) nextCharSegment(high *bool) error {
	s.seg++
	s.pos = 0
	if s.seg >= len(s.segs) {
		return fmt.Errorf("string data ends early: %w", ErrFormat)
	}
	if len(s.segs[s.seg]) == 0 {
		return nil
	}
	*high = s.segs[s.seg][0]&0x01 != 0
	s.pos = 1
	return nil
}

// appendUnits appends up to want characters from b to units and reports
// how many bytes of b they took.
func appendUnits(units []uint16, b []byte, want int, high bool) ([]uint16, int) {
	if high {
		n := min(want, len(b)/2)
		for i := 0; i < n; i++ {
			units = append(units, binary.LittleEndian.Uint16(b[2*i:]))
		}
		return units, 2 * n
	}
	n := min(want, len(b))
	for i := 0; i < n; i++ {
		units = append(units, uint16(b[i]))
	}
	return units, n
}

// String option flags.
const (
	strHighByte = 0x01 // characters are UTF-16, not compressed
	strExtSt    = 0x04 // phonetic (extended) data follows
	strRichSt   = 0x08 // formatting runs follow
)

// richString reads an XLUnicodeRichExtendedString (SST entries) and skips its
// formatting runs and phonetic data.
func (s *segReader) richString() (string, error) {
	cch, err := s.uintN(2)
	if err != nil {
		return "", err
	}
	flags, err := s.u8()
	if err != nil {
		return "", err
	}
	var runs, ext uint32
	if flags&strRichSt != 0 {
		if runs, err = s.uintN(2); err != nil {
			return "", err
		}
	}
	if flags&strExtSt != 0 {
		if ext, err = s.uintN(4); err != nil {
			return "", err
		}
		if int32(ext) < 0 {
			return "", fmt.Errorf("negative phonetic data size: %w", ErrFormat)
		}
	}
	text, err := s.chars(int(cch), flags&strHighByte != 0)
	if err != nil {
		return "", err
	}
	if err := s.skip(4*int(runs) + int(ext)); err != nil {
		return "", err
	}
	return text, nil
}

// unicodeString reads an XLUnicodeString (LABEL, STRING) or, with lenBytes 1,
// a ShortXLUnicodeString (BOUNDSHEET8). Trailing formatting data is ignored.
func (s *segReader) unicodeString(lenBytes int) (string, error) {
	cch, err := s.uintN(lenBytes)
	if err != nil {
		return "", err
	}
	flags, err := s.u8()
	if err != nil {
		return "", err
	}
	return s.chars(int(cch), flags&strHighByte != 0)
}

// parseSST decodes the shared string table from the SST record and its
// CONTINUE records.
func parseSST(segs [][]byte) ([]string, error) {
	s := &segReader{segs: segs}
	if _, err := s.uintN(4); err != nil { // total references, not needed
		return nil, fmt.Errorf("SST header: %w", err)
	}
	unique, err := s.uintN(4)
	if err != nil {
		return nil, fmt.Errorf("SST header: %w", err)
	}
	// Each string takes at least 3 bytes, which bounds the preallocation.
	table := make([]string, 0, min(int(unique), s.remaining()/3))
	for uint32(len(table)) < unique && s.skipEmpty() {
		str, err := s.richString()
		if err != nil {
			return nil, fmt.Errorf("SST string %d: %w", len(table), err)
		}
		table = append(table, str)
	}
	return table, nil
}
