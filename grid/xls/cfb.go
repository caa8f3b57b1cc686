package xls

import (
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
)

// Compound File Binary (OLE2) constants.
const (
	cfbHeaderSize   = 512
	cfbHeaderDIFATs = 109
	dirEntrySize    = 128

	secMaxRegular = 0xFFFFFFFA // largest valid sector number
	secDIFAT      = 0xFFFFFFFC // sector holds DIFAT entries
	secFAT        = 0xFFFFFFFD // sector holds FAT entries
	secEnd        = 0xFFFFFFFE // end of a chain
	secFree       = 0xFFFFFFFF // unused sector

	noStream = 0xFFFFFFFF // no sibling or child in the directory tree

	objStorage = 1
	objStream  = 2
	objRoot    = 5
)

var cfbSignature = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// cfbFile is an opened compound file: its allocation tables and directory.
type cfbFile struct {
	r          io.ReaderAt
	size       int64
	sectorSize int64
	miniSize   int64
	miniCutoff uint64
	fat        []uint32
	miniFAT    []uint32
	dir        []dirEntry
	miniStream []byte // contents of the root entry's stream, loaded lazily
	miniLoaded bool
}

// dirEntry is one entry of the compound file directory.
type dirEntry struct {
	name        string
	objType     byte
	left, right uint32
	child       uint32
	start       uint32
	size        uint64
}

// cfbHeader holds the header fields the reader uses.
type cfbHeader struct {
	sectorShift  uint16
	miniShift    uint16
	numFAT       uint32
	firstDir     uint32
	miniCutoff   uint32
	firstMiniFAT uint32
	numMiniFAT   uint32
	firstDIFAT   uint32
	numDIFAT     uint32
	difat        [cfbHeaderDIFATs]uint32
}

// openCFB reads the header, the FAT, the mini FAT and the directory.
func openCFB(r io.ReaderAt, size int64) (*cfbFile, error) {
	h, err := readCFBHeader(r, size)
	if err != nil {
		return nil, err
	}
	f := &cfbFile{
		r:          r,
		size:       size,
		sectorSize: 1 << h.sectorShift,
		miniSize:   1 << h.miniShift,
		miniCutoff: uint64(h.miniCutoff),
	}
	if err := f.loadFAT(h); err != nil {
		return nil, err
	}
	if err := f.loadDirectory(h.firstDir); err != nil {
		return nil, err
	}
	if err := f.loadMiniFAT(h); err != nil {
		return nil, err
	}
	return f, nil
}

// readCFBHeader reads and checks the 512-byte header.
func readCFBHeader(r io.ReaderAt, size int64) (*cfbHeader, error) {
	if size < cfbHeaderSize {
		return nil, fmt.Errorf("file of %d bytes is too short for a compound file header: %w", size, ErrFormat)
	}
	buf := make([]byte, cfbHeaderSize)
	if err := readFull(r, buf, 0); err != nil {
		return nil, fmt.Errorf("reading compound file header: %w", err)
	}
	if string(buf[:8]) != string(cfbSignature) {
		return nil, fmt.Errorf("not an OLE2 compound file (bad signature): %w", ErrFormat)
	}
	le := binary.LittleEndian
	if bom := le.Uint16(buf[0x1C:]); bom != 0xFFFE {
		return nil, fmt.Errorf("compound file byte order mark %#04x: %w", bom, ErrFormat)
	}
	h := &cfbHeader{
		sectorShift:  le.Uint16(buf[0x1E:]),
		miniShift:    le.Uint16(buf[0x20:]),
		numFAT:       le.Uint32(buf[0x2C:]),
		firstDir:     le.Uint32(buf[0x30:]),
		miniCutoff:   le.Uint32(buf[0x38:]),
		firstMiniFAT: le.Uint32(buf[0x3C:]),
		numMiniFAT:   le.Uint32(buf[0x40:]),
		firstDIFAT:   le.Uint32(buf[0x44:]),
		numDIFAT:     le.Uint32(buf[0x48:]),
	}
	for i := range h.difat {
		h.difat[i] = le.Uint32(buf[0x4C+4*i:])
	}
	if h.sectorShift != 9 && h.sectorShift != 12 {
		return nil, fmt.Errorf("compound file sector shift %d: %w", h.sectorShift, ErrFormat)
	}
	if h.miniShift != 6 {
		return nil, fmt.Errorf("compound file mini sector shift %d: %w", h.miniShift, ErrFormat)
	}
	return h, nil
}

// maxSectors is the number of whole or partial sectors the file can hold.
func (f *cfbFile) maxSectors() int64 {
	return (f.size-cfbHeaderSize)/f.sectorSize + 1
}

// readSector reads sector n whole; a sector past the end of the file is an error.
func (f *cfbFile) readSector(n uint32, buf []byte) error {
	off, err := f.sectorOffset(n)
	if err != nil {
		return err
	}
	if off+int64(len(buf)) > f.size {
		return fmt.Errorf("sector %d lies past the end of the file: %w", n, ErrFormat)
	}
	if err := readFull(f.r, buf, off); err != nil {
		return fmt.Errorf("reading sector %d: %w", n, err)
	}
	return nil
}

// sectorOffset is the file offset of sector n.
func (f *cfbFile) sectorOffset(n uint32) (int64, error) {
	if n > secMaxRegular || int64(n) >= f.maxSectors() {
		return 0, fmt.Errorf("sector number %#x out of range: %w", n, ErrFormat)
	}
	return (int64(n) + 1) * f.sectorSize, nil
}

// loadFAT collects the FAT sector numbers from the DIFAT and reads the FAT.
func (f *cfbFile) loadFAT(h *cfbHeader) error {
	if int64(h.numFAT) > f.maxSectors() {
		return fmt.Errorf("header claims %d FAT sectors in a file of %d bytes: %w", h.numFAT, f.size, ErrFormat)
	}
	fatSectors, err := f.difatSectors(h)
	if err != nil {
		return err
	}
	perSector := int(f.sectorSize / 4)
	f.fat = make([]uint32, 0, len(fatSectors)*perSector)
	buf := make([]byte, f.sectorSize)
	for _, s := range fatSectors {
		if err := f.readSector(s, buf); err != nil {
			return fmt.Errorf("reading FAT: %w", err)
		}
		for i := 0; i < perSector; i++ {
			f.fat = append(f.fat, binary.LittleEndian.Uint32(buf[4*i:]))
		}
	}
	return nil
}

// difatSectors lists the sectors that hold the FAT, taken from the header's
// 109 DIFAT entries and then from the chain of DIFAT sectors.
func (f *cfbFile) difatSectors(h *cfbHeader) ([]uint32, error) {
	want := int(h.numFAT)
	list := make([]uint32, 0, want)
	for _, s := range h.difat {
		if len(list) == want {
			return list, nil
		}
		if s <= secMaxRegular {
			list = append(list, s)
		}
	}
	perSector := int(f.sectorSize/4) - 1
	buf := make([]byte, f.sectorSize)
	seen := make(map[uint32]bool)
	for next := h.firstDIFAT; len(list) < want; {
		if next == secEnd || next == secFree {
			return nil, fmt.Errorf("DIFAT lists %d of %d FAT sectors: %w", len(list), want, ErrFormat)
		}
		if seen[next] {
			return nil, fmt.Errorf("DIFAT chain loops at sector %d: %w", next, ErrFormat)
		}
		seen[next] = true
		if err := f.readSector(next, buf); err != nil {
			return nil, fmt.Errorf("reading DIFAT: %w", err)
		}
		for i := 0; i < perSector && len(list) < want; i++ {
			if s := binary.LittleEndian.Uint32(buf[4*i:]); s <= secMaxRegular {
				list = append(list, s)
			}
		}
		next = binary.LittleEndian.Uint32(buf[4*perSector:])
	}
	return list, nil
}

// chain follows a FAT (or mini FAT) chain from start, detecting cycles and
// stopping after limit sectors.
func chain(table []uint32, start uint32, limit int) ([]uint32, error) {
	var out []uint32
	seen := make(map[uint32]bool)
	for s := start; s != secEnd; s = table[s] {
		if s > secMaxRegular || uint64(s) >= uint64(len(table)) {
			return nil, fmt.Errorf("sector chain reaches invalid sector %#x: %w", s, ErrFormat)
		}
		if seen[s] {
			return nil, fmt.Errorf("sector chain loops at sector %d: %w", s, ErrFormat)
		}
		if len(out) >= limit {
			return nil, fmt.Errorf("sector chain longer than %d sectors: %w", limit, ErrFormat)
		}
		seen[s] = true
		out = append(out, s)
	}
	return out, nil
}

// readChain reads the first n bytes of the regular-sector chain that starts
// at start. n < 0 reads the whole chain.
func (f *cfbFile) readChain(start uint32, n int64) ([]byte, error) {
	if n == 0 {
		return []byte{}, nil
	}
	sectors, err := chain(f.fat, start, int(f.maxSectors()))
	if err != nil {
		return nil, err
	}
	total := int64(len(sectors)) * f.sectorSize
	if n < 0 {
		n = total
	}
	if n > total {
		return nil, fmt.Errorf("stream of %d bytes has only %d sectors: %w", n, len(sectors), ErrFormat)
	}
	out := make([]byte, n)
	for i, s := range sectors {
		lo := int64(i) * f.sectorSize
		if lo >= n {
			break
		}
		hi := min(lo+f.sectorSize, n)
		if err := f.readSector(s, out[lo:hi]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// loadDirectory reads the directory stream and decodes its entries.
func (f *cfbFile) loadDirectory(first uint32) error {
	data, err := f.readChain(first, -1)
	if err != nil {
		return fmt.Errorf("reading directory: %w", err)
	}
	if len(data) < dirEntrySize {
		return fmt.Errorf("empty directory: %w", ErrFormat)
	}
	f.dir = make([]dirEntry, len(data)/dirEntrySize)
	for i := range f.dir {
		f.dir[i] = parseDirEntry(data[i*dirEntrySize : (i+1)*dirEntrySize])
	}
	if f.dir[0].objType != objRoot {
		return fmt.Errorf("first directory entry is not the root: %w", ErrFormat)
	}
	return nil
}

// parseDirEntry decodes one 128-byte directory entry.
func parseDirEntry(b []byte) dirEntry {
	le := binary.LittleEndian
	nameLen := int(le.Uint16(b[0x40:]))
	if nameLen > 64 {
		nameLen = 64
	}
	units := make([]uint16, 0, nameLen/2)
	for i := 0; i+1 < nameLen; i += 2 {
		u := le.Uint16(b[i:])
		if u == 0 {
			break
		}
		units = append(units, u)
	}
	return dirEntry{
		name:    string(utf16.Decode(units)),
		objType: b[0x42],
		left:    le.Uint32(b[0x44:]),
		right:   le.Uint32(b[0x48:]),
		child:   le.Uint32(b[0x4C:]),
		start:   le.Uint32(b[0x74:]),
		size:    le.Uint64(b[0x78:]),
	}
}

// loadMiniFAT reads the mini FAT chain.
func (f *cfbFile) loadMiniFAT(h *cfbHeader) error {
	if h.numMiniFAT == 0 || h.firstMiniFAT == secEnd || h.firstMiniFAT == secFree {
		return nil
	}
	data, err := f.readChain(h.firstMiniFAT, -1)
	if err != nil {
		return fmt.Errorf("reading mini FAT: %w", err)
	}
	f.miniFAT = make([]uint32, len(data)/4)
	for i := range f.miniFAT {
		f.miniFAT[i] = binary.LittleEndian.Uint32(data[4*i:])
	}
	return nil
}

// findRootStream looks for a stream with one of the given names (compared
// case-insensitively, in order of preference) among the root storage's
// children and returns its directory index.
func (f *cfbFile) findRootStream(names ...string) (int, bool) {
	children := f.children(f.dir[0].child)
	for _, name := range names {
		for _, i := range children {
			e := f.dir[i]
			if e.objType == objStream && strings.EqualFold(e.name, name) {
				return i, true
			}
		}
	}
	return 0, false
}

// children lists the entries of the red-black tree rooted at top, guarding
// against bad indexes and cycles.
func (f *cfbFile) children(top uint32) []int {
	var out []int
	seen := make(map[uint32]bool)
	stack := []uint32{top}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == noStream || int64(n) >= int64(len(f.dir)) || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, int(n))
		stack = append(stack, f.dir[n].left, f.dir[n].right)
	}
	return out
}

// readStream returns the contents of the stream at directory index i.
func (f *cfbFile) readStream(i int) ([]byte, error) {
	e := f.dir[i]
	size := f.entrySize(e)
	if size > uint64(f.size) {
		return nil, fmt.Errorf("stream %q claims %d bytes in a file of %d: %w", e.name, size, f.size, ErrFormat)
	}
	if size < f.miniCutoff {
		return f.readMiniStream(e.start, int64(size))
	}
	return f.readChain(e.start, int64(size))
}

// readMiniStream reads n bytes of a stream stored in the mini stream.
func (f *cfbFile) readMiniStream(start uint32, n int64) ([]byte, error) {
	if n == 0 {
		return []byte{}, nil
	}
	if err := f.loadMiniStream(); err != nil {
		return nil, err
	}
	sectors, err := chain(f.miniFAT, start, len(f.miniFAT))
	if err != nil {
		return nil, fmt.Errorf("mini FAT: %w", err)
	}
	if int64(len(sectors))*f.miniSize < n {
		return nil, fmt.Errorf("small stream of %d bytes has only %d mini sectors: %w", n, len(sectors), ErrFormat)
	}
	out := make([]byte, n)
	for i, s := range sectors {
		lo := int64(i) * f.miniSize
		if lo >= n {
			break
		}
		src := int64(s) * f.miniSize
		if src+f.miniSize > int64(len(f.miniStream)) {
			return nil, fmt.Errorf("mini sector %d lies past the end of the mini stream: %w", s, ErrFormat)
		}
		copy(out[lo:min(lo+f.miniSize, n)], f.miniStream[src:])
	}
	return out, nil
}

// loadMiniStream reads the root entry's stream, which holds the mini sectors.
func (f *cfbFile) loadMiniStream() error {
	if f.miniLoaded {
		return nil
	}
	root := f.dir[0]
	size := f.entrySize(root)
	if size > uint64(f.size) {
		return fmt.Errorf("mini stream claims %d bytes in a file of %d: %w", size, f.size, ErrFormat)
	}
	data, err := f.readChain(root.start, int64(size))
	if err != nil {
		return fmt.Errorf("reading mini stream: %w", err)
	}
	f.miniStream = data
	f.miniLoaded = true
	return nil
}

// entrySize is the stream size of a directory entry. Version 3 files (512-byte
// sectors) use only the low 32 bits; some writers leave garbage in the rest.
func (f *cfbFile) entrySize(e dirEntry) uint64 {
	if f.sectorSize == 512 {
		return e.size & 0xFFFFFFFF
	}
	return e.size
}

// readFull fills buf from r at off. A reader may report io.EOF together with
// a full buffer; that is not an error here.
func readFull(r io.ReaderAt, buf []byte, off int64) error {
	n, err := r.ReadAt(buf, off)
	if n == len(buf) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}
