package columnar

import (
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// openFile is a table's Parquet file while it is open: its mapping and two readers over it,
// one that reads whole column chunks (decoding columns) and one, opened on first use with
// the same metadata, that streams a column chunk page by page (reading cells, pages.go).
type openFile struct {
	m        *mapping
	rdr      *file.Reader
	cellsMu  sync.Mutex
	cellsRdr *file.Reader
	// arrow decodes columns into Arrow arrays, made on first use (every decoding shares it:
	// it holds the schema's Arrow form, which takes as long to build as a small column).
	arrowMu  sync.Mutex
	arrowRdr *pqarrow.FileReader
	// bytes is what the open file is charged against the budget: an estimate of the heap its
	// parsed metadata takes (about ten times the footer's bytes, measured on the snapshots'
	// files).
	bytes int64
}

// openParquet maps the file at path and reads its footer.
func openParquet(path string) (*openFile, error) {
	m, err := openMapping(path)
	if err != nil {
		return nil, err
	}
	return readFooter(m)
}

// readFooter reads the footer of the Parquet file m (closed on an error).
func readFooter(m *mapping) (*openFile, error) {
	rdr, err := file.NewParquetReader(&cursor{m: m})
	if err != nil {
		m.src.close()
		return nil, err
	}
	return &openFile{m: m, rdr: rdr, bytes: 16<<10 + 10*int64(rdr.MetaData().Size())}, nil
}

// cells is the page-by-page reader.
func (f *openFile) cells() (*file.Reader, error) {
	f.cellsMu.Lock()
	defer f.cellsMu.Unlock()
	if f.cellsRdr == nil {
		props := parquet.NewReaderProperties(memory.DefaultAllocator)
		props.BufferedStreamEnabled = true
		r, err := file.NewParquetReader(&cursor{m: f.m}, file.WithReadProps(props), file.WithMetadata(f.rdr.MetaData()))
		if err != nil {
			return nil, fmt.Errorf("open its pages: %w", err)
		}
		f.cellsRdr = r
	}
	return f.cellsRdr, nil
}

// arrow is the Arrow reader of the file, which reads the leaf columns dict as dictionaries.
func (f *openFile) arrow(dict []int) (*pqarrow.FileReader, error) {
	f.arrowMu.Lock()
	defer f.arrowMu.Unlock()
	if f.arrowRdr == nil {
		props := pqarrow.ArrowReadProperties{BatchSize: 1 << 16}
		for _, i := range dict {
			props.SetReadDict(i, true)
		}
		fr, err := pqarrow.NewFileReader(f.rdr, props, memory.DefaultAllocator)
		if err != nil {
			return nil, err
		}
		f.arrowRdr = fr
	}
	return f.arrowRdr, nil
}

func (f *openFile) close() error { return f.m.src.close() }

// fileState is a table's file, open or closed. It is opened by the first reader, held open
// while read, and closed when the budget drops it (or the table is collected).
type fileState struct {
	path string
	// data, when set, is the file itself, held in memory (OpenBytes): path only names it.
	data []byte
	ent  *entry

	mu   sync.Mutex
	f    *openFile
	refs int
}

// use opens the file when it is closed and holds it open until done.
func (fs *fileState) use() (*openFile, error) {
	fs.mu.Lock()
	opened := false
	if fs.f == nil {
		f, err := fs.open()
		if err != nil {
			fs.mu.Unlock()
			return nil, err
		}
		fs.f, opened = f, true
		budget.admit(fs.ent, f.bytes)
	}
	fs.refs++
	f := fs.f
	fs.ent.use.Store(tick())
	fs.mu.Unlock()
	if opened {
		budget.shrink(fs.ent)
	}
	return f, nil
}

// open opens the file: the one in memory, else the one at path.
func (fs *fileState) open() (*openFile, error) {
	if fs.data != nil {
		return readFooter(&mapping{src: inMemory(fs.data), size: int64(len(fs.data))})
	}
	return openParquet(fs.path)
}

// done ends a use; the last one gives back the pages read (under the lock: the mapping
// must not be closed meanwhile).
func (fs *fileState) done() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.refs--
	fs.ent.use.Store(tick())
	if fs.refs == 0 {
		fs.f.m.giveBack()
	}
}

// drop closes the file unless it is being read.
func (fs *fileState) drop() bool {
	if !fs.mu.TryLock() {
		return false
	}
	defer fs.mu.Unlock()
	if fs.f == nil || fs.refs > 0 {
		return false
	}
	fs.f.close()
	fs.f = nil
	budget.release(fs.ent)
	return true
}

// closeNow closes the file of a table nobody holds any more.
func (fs *fileState) closeNow() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.f != nil {
		fs.f.close()
		fs.f = nil
		budget.release(fs.ent)
	}
}
