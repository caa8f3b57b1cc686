//go:build unix

package columnar

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// mmapped is a file mapped read-only into memory.
type mmapped struct{ data []byte }

// openMapping maps the file at path.
func openMapping(path string) (*mapping, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	if size == 0 {
		return &mapping{src: &mmapped{}, size: 0}, nil
	}
	if size != int64(int(size)) {
		return nil, fmt.Errorf("%s is too large to map", path)
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", path, err)
	}
	return &mapping{src: &mmapped{data: data}, size: size}, nil
}

func (m *mmapped) readAt(p []byte, off int64) int { return copy(p, m.data[off:]) }

// dontNeed drops the pages of [lo, hi) from the process's page tables; the kernel keeps
// them in its page cache, and a later read maps them again.
func (m *mmapped) dontNeed(lo, hi int64) {
	page := int64(os.Getpagesize())
	lo = lo / page * page
	hi = min((hi+page-1)/page*page, int64(len(m.data)))
	if lo < hi {
		_ = unix.Madvise(m.data[lo:hi], unix.MADV_DONTNEED) // advice: nothing to undo if refused
	}
}

func (m *mmapped) close() error {
	if m.data == nil {
		return nil
	}
	err := unix.Munmap(m.data)
	m.data = nil
	return err
}
