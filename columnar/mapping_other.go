//go:build !unix

package columnar

import "os"

// fileRead reads the file with pread where memory mapping is not available.
type fileRead struct{ f *os.File }

// openMapping opens the file at path.
func openMapping(path string) (*mapping, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &mapping{src: &fileRead{f: f}, size: st.Size()}, nil
}

func (r *fileRead) readAt(p []byte, off int64) int {
	n, _ := r.f.ReadAt(p, off)
	return n
}

func (r *fileRead) dontNeed(lo, hi int64) {}

func (r *fileRead) close() error { return r.f.Close() }
