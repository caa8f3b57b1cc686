package columnar

import (
	"errors"
	"io"
	"sync"
)

// A table's Parquet file is read through a memory mapping of its own (mapping_unix.go): the
// decoders copy what they read out of it, so no decoded value points into the file, and
// after each read the pages it touched are given back (madvise DONTNEED): they stay in the
// kernel's page cache, shared and reclaimable, and leave the process's resident set, which
// would otherwise count every page of every file ever decoded. Where memory mapping is not
// available the file is read with pread (mapping_other.go), to the same effect.

// mapping is an open Parquet file. ReadAt may be called from several goroutines; close only
// once no read is under way (the table's file lock sees to it).
type mapping struct {
	src  fileSource
	size int64

	mu     sync.Mutex
	lo, hi int64 // the byte range read since the last giveBack (lo >= hi: none)
}

// fileSource is the platform's access to the file's bytes.
type fileSource interface {
	readAt(p []byte, off int64) int
	// dontNeed gives back the pages of bytes [lo, hi).
	dontNeed(lo, hi int64)
	close() error
}

// inMemory is a file held in memory (OpenBytes): nothing to give back or to close.
type inMemory []byte

func (m inMemory) readAt(p []byte, off int64) int { return copy(p, m[off:]) }
func (m inMemory) dontNeed(lo, hi int64)          {}
func (m inMemory) close() error                   { return nil }

// ReadAt copies bytes of the file into p.
func (m *mapping) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > m.size {
		return 0, errors.New("columnar: read outside the file")
	}
	n := m.src.readAt(p, off)
	m.mu.Lock()
	if m.lo >= m.hi {
		m.lo, m.hi = off, off+int64(n)
	} else {
		m.lo, m.hi = min(m.lo, off), max(m.hi, off+int64(n))
	}
	m.mu.Unlock()
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// giveBack gives back the pages read since the last call.
func (m *mapping) giveBack() {
	m.mu.Lock()
	lo, hi := m.lo, m.hi
	m.lo, m.hi = 0, 0
	m.mu.Unlock()
	if lo < hi {
		m.src.dontNeed(lo, hi)
	}
}

// cursor reads a mapping as the Parquet reader wants it: ReadAt, and Read and Seek at a
// position of its own (one per reader).
type cursor struct {
	m   *mapping
	pos int64
}

func (c *cursor) ReadAt(p []byte, off int64) (int, error) { return c.m.ReadAt(p, off) }

func (c *cursor) Read(p []byte) (int, error) {
	n, err := c.m.ReadAt(p, c.pos)
	c.pos += int64(n)
	return n, err
}

func (c *cursor) Seek(offset int64, whence int) (int64, error) {
	pos := offset
	switch whence {
	case io.SeekCurrent:
		pos += c.pos
	case io.SeekEnd:
		pos += c.m.size
	}
	if pos < 0 || pos > c.m.size {
		return 0, errors.New("columnar: seek outside the file")
	}
	c.pos = pos
	return pos, nil
}
