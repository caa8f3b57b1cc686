package xls

import (
	"bytes"
	"encoding/binary"
	"math"
	"unicode/utf16"
)

// This file builds small compound files and BIFF8 streams for tests, written
// directly from the format specifications ([MS-CFB], [MS-XLS]).

// testStream is a named stream to put in a test compound file.
type testStream struct {
	name string
	data []byte
}

// cfbWriter lays out a compound file: version 3 with 512-byte sectors or
// version 4 with 4096-byte sectors.
type cfbWriter struct {
	ss      int // sector size
	sectors [][]byte
	fat     []uint32
}

// addChain stores data in consecutive new sectors linked in the FAT and
// returns the first sector (secEnd for no data).
func (w *cfbWriter) addChain(data []byte) uint32 {
	if len(data) == 0 {
		return secEnd
	}
	first := uint32(len(w.sectors))
	for off := 0; off < len(data); off += w.ss {
		sec := make([]byte, w.ss)
		copy(sec, data[off:])
		w.sectors = append(w.sectors, sec)
		w.fat = append(w.fat, uint32(len(w.sectors)))
	}
	w.fat[len(w.fat)-1] = secEnd
	return first
}

// buildCFB returns a version 3 compound file holding the streams.
func buildCFB(streams ...testStream) []byte {
	return buildCFBSectors(512, streams...)
}

// buildCFBSectors returns a compound file with sectors of ss bytes holding
// the streams. Streams smaller than 4096 bytes go to the mini stream, as the
// format requires.
func buildCFBSectors(ss int, streams ...testStream) []byte {
	w := &cfbWriter{ss: ss}
	var mini []byte
	var miniFAT []uint32
	starts := make([]uint32, len(streams))
	for i, s := range streams {
		if len(s.data) >= 4096 {
			starts[i] = w.addChain(s.data)
			continue
		}
		if len(s.data) == 0 {
			starts[i] = secEnd
			continue
		}
		starts[i] = uint32(len(mini) / 64)
		n := (len(s.data) + 63) / 64
		for j := 0; j < n; j++ {
			miniFAT = append(miniFAT, uint32(len(miniFAT)+1))
		}
		miniFAT[len(miniFAT)-1] = secEnd
		padded := make([]byte, n*64)
		copy(padded, s.data)
		mini = append(mini, padded...)
	}
	miniStart := w.addChain(mini)
	miniFATStart := w.addChain(u32s(miniFAT))
	dir := dirBytes(streams, starts, miniStart, len(mini))
	dirStart := w.addChain(dir)
	return w.finish(dirStart, miniFATStart, (len(miniFAT)*4+ss-1)/ss)
}

// finish adds the FAT and DIFAT sectors and the header.
func (w *cfbWriter) finish(dirStart, miniFATStart uint32, numMiniFAT int) []byte {
	data := len(w.sectors)
	per := w.ss / 4 // entries per FAT sector
	numFAT, numDIFAT := 1, 0
	for {
		numDIFAT = max(0, (numFAT-cfbHeaderDIFATs+per-2)/(per-1))
		if numFAT*per >= data+numFAT+numDIFAT {
			break
		}
		numFAT++
	}
	fatSecs := make([]uint32, numFAT)
	for i := range fatSecs {
		fatSecs[i] = uint32(data + i)
		w.fat = append(w.fat, secFAT)
	}
	difatStart := uint32(secEnd)
	if numDIFAT > 0 {
		difatStart = uint32(data + numFAT)
	}
	for i := 0; i < numDIFAT; i++ {
		w.fat = append(w.fat, secDIFAT)
	}
	for len(w.fat) < numFAT*per {
		w.fat = append(w.fat, secFree)
	}
	fat := u32s(w.fat)
	for i := 0; i < numFAT; i++ {
		w.sectors = append(w.sectors, fat[i*w.ss:(i+1)*w.ss])
	}
	w.addDIFAT(fatSecs, difatStart, numDIFAT)
	var out bytes.Buffer
	h := header(fatSecs, dirStart, miniFATStart, numMiniFAT, difatStart, numDIFAT)
	if w.ss == 4096 {
		binary.LittleEndian.PutUint16(h[0x1A:], 4)
		binary.LittleEndian.PutUint16(h[0x1E:], 12)
		h = append(h, make([]byte, w.ss-len(h))...)
	}
	out.Write(h)
	for _, s := range w.sectors {
		out.Write(s)
	}
	return out.Bytes()
}

// addDIFAT writes the DIFAT sectors for the FAT sectors past the first 109.
func (w *cfbWriter) addDIFAT(fatSecs []uint32, start uint32, n int) {
	rest := fatSecs[min(len(fatSecs), cfbHeaderDIFATs):]
	for i := 0; i < n; i++ {
		per := w.ss / 4
		entries := make([]uint32, per)
		for j := range entries {
			entries[j] = secFree
		}
		for j := 0; j < per-1 && len(rest) > 0; j++ {
			entries[j], rest = rest[0], rest[1:]
		}
		entries[per-1] = secEnd
		if i+1 < n {
			entries[per-1] = start + uint32(i) + 1
		}
		w.sectors = append(w.sectors, u32s(entries))
	}
}

// header builds the 512-byte header of a version 3 compound file.
func header(fatSecs []uint32, dirStart, miniFATStart uint32, numMiniFAT int, difatStart uint32, numDIFAT int) []byte {
	h := make([]byte, 512)
	copy(h, cfbSignature)
	le := binary.LittleEndian
	le.PutUint16(h[0x18:], 0x3E)
	le.PutUint16(h[0x1A:], 3)
	le.PutUint16(h[0x1C:], 0xFFFE)
	le.PutUint16(h[0x1E:], 9)
	le.PutUint16(h[0x20:], 6)
	le.PutUint32(h[0x2C:], uint32(len(fatSecs)))
	le.PutUint32(h[0x30:], dirStart)
	le.PutUint32(h[0x38:], 4096)
	le.PutUint32(h[0x3C:], miniFATStart)
	le.PutUint32(h[0x40:], uint32(numMiniFAT))
	le.PutUint32(h[0x44:], difatStart)
	le.PutUint32(h[0x48:], uint32(numDIFAT))
	for i := 0; i < cfbHeaderDIFATs; i++ {
		v := uint32(secFree)
		if i < len(fatSecs) {
			v = fatSecs[i]
		}
		le.PutUint32(h[0x4C+4*i:], v)
	}
	return h
}

// dirBytes builds the directory: the root entry, then one entry per stream,
// chained as right siblings under the root.
func dirBytes(streams []testStream, starts []uint32, miniStart uint32, miniLen int) []byte {
	n := len(streams) + 1
	n = (n + 3) / 4 * 4
	out := make([]byte, n*dirEntrySize)
	for i := range n {
		e := out[i*dirEntrySize:]
		le := binary.LittleEndian
		le.PutUint32(e[0x44:], noStream)
		le.PutUint32(e[0x48:], noStream)
		le.PutUint32(e[0x4C:], noStream)
	}
	putEntry(out, 0, "Root Entry", objRoot, miniStart, miniLen)
	if len(streams) > 0 {
		binary.LittleEndian.PutUint32(out[0x4C:], 1)
	}
	for i, s := range streams {
		putEntry(out, i+1, s.name, objStream, starts[i], len(s.data))
		if i+1 < len(streams) {
			binary.LittleEndian.PutUint32(out[(i+1)*dirEntrySize+0x48:], uint32(i+2))
		}
	}
	return out
}

// putEntry fills the name, type, start and size of directory entry i.
func putEntry(dir []byte, i int, name string, typ byte, start uint32, size int) {
	e := dir[i*dirEntrySize:]
	units := utf16.Encode([]rune(name))
	for j, u := range units {
		binary.LittleEndian.PutUint16(e[2*j:], u)
	}
	binary.LittleEndian.PutUint16(e[0x40:], uint16(2*len(units)+2))
	e[0x42] = typ
	e[0x43] = 1 // black
	binary.LittleEndian.PutUint32(e[0x74:], start)
	binary.LittleEndian.PutUint64(e[0x78:], uint64(size))
}

// u32s encodes little-endian 32-bit values.
func u32s(v []uint32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], x)
	}
	return out
}

// biffWriter builds a BIFF8 record stream.
type biffWriter struct {
	bytes.Buffer
}

// rec appends one record made of the concatenated parts.
func (b *biffWriter) rec(typ uint16, parts ...[]byte) {
	body := bytes.Join(parts, nil)
	b.Write(le16(int(typ)))
	b.Write(le16(len(body)))
	b.Write(body)
}

// le16 encodes a 16-bit little-endian value.
func le16(v int) []byte { return binary.LittleEndian.AppendUint16(nil, uint16(v)) }

// le32 encodes a 32-bit little-endian value.
func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

// f64 encodes a little-endian IEEE double.
func f64(v float64) []byte { return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)) }

// bofBody is a BIFF8 BOF record body for a substream of type dt.
func bofBody(dt int) []byte {
	return bytes.Join([][]byte{le16(biff8Version), le16(dt), le16(0x2086), le16(1997), le32(0xC0C9), le32(0x0306)}, nil)
}

// cellRef is the row, column and XF index that start a cell record.
func cellRef(row, col int) []byte {
	return bytes.Join([][]byte{le16(row), le16(col), le16(15)}, nil)
}

// latin1 is an XLUnicodeString (16-bit length) with compressed characters.
func latin1(s string) []byte {
	return append(append(le16(len(s)), 0), s...)
}

// utf16Str is an XLUnicodeString (16-bit length) with UTF-16 characters.
func utf16Str(s string) []byte {
	units := utf16.Encode([]rune(s))
	out := append(le16(len(units)), strHighByte)
	for _, u := range units {
		out = append(out, le16(int(u))...)
	}
	return out
}

// rkInt encodes an integer as an RK value, optionally divided by 100.
func rkInt(v int32, div100 bool) []byte {
	rk := uint32(v)<<2 | 0x02
	if div100 {
		rk |= 0x01
	}
	return le32(rk)
}

// rkFloat encodes the top 30 bits of a double as an RK value.
func rkFloat(v float64, div100 bool) []byte {
	rk := uint32(math.Float64bits(v)>>32) &^ 0x03
	if div100 {
		rk |= 0x01
	}
	return le32(rk)
}
