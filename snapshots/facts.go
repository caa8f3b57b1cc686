package snapshots

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/parquet-go/parquet-go"

	"github.com/citeq/citeq/capability"
)

// Row is one fact row: values aligned with Columns(cap), each nil (null), string, int64,
// float64 or bool according to the field's type (dates are "YYYY-MM-DD" strings).
type Row []any

// Columns lists a capability's fact-table columns: its fields, then the lineage columns.
func Columns(c *capability.Capability) []capability.Field {
	out := append([]capability.Field{}, c.Fields...)
	return append(out, capability.LineageFields...)
}

// rowGroupRows bounds a Parquet row group, so a large table is read in chunks.
const rowGroupRows = 1 << 20

// pageBytes bounds the values a data page holds before encoding (SchemaVersion 2): small
// pages let a record's cells be read by decompressing the one page that holds them, found
// through the offset index, rather than the column chunk's first 256 KiB.
const pageBytes = 32 << 10

// WriteFacts writes rows as a Parquet file at path (EncodeFacts), through a temporary file
// renamed into place.
func WriteFacts(path string, cols []capability.Field, rows []Row) (err error) {
	defer func() { err = explainFull(err) }()
	tmp, err := os.CreateTemp(filepath.Dir(path), ".facts-*")
	if err != nil {
		return fmt.Errorf("write facts: %w", err)
	}
	defer os.Remove(tmp.Name())
	Failpoint(StepFactsWrite)
	if err := EncodeFacts(tmp, cols, rows); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write facts: %w", err)
	}
	return os.Rename(tmp.Name(), path)
}

// EncodeFacts writes rows to w as a Parquet file. Every column is optional (null where a
// vintage does not publish it) and Snappy compressed, in data pages of at most 32 KiB of
// values with a page index. String-like columns are dictionary encoded, except a column
// whose values are nearly all distinct in the first row group (PlainColumns): there a
// dictionary is as large as the column, and reading any cell of the row group would decode
// all of it.
func EncodeFacts(out io.Writer, cols []capability.Field, rows []Row) error {
	plain := PlainColumns(cols, rows[:min(len(rows), rowGroupRows)])
	group := parquet.Group{}
	for i, f := range cols {
		node := leaf(f.Type)
		if plain[i] {
			node = parquet.String()
		}
		group[f.Name] = parquet.Optional(parquet.Compressed(node, &parquet.Snappy))
	}
	schema := parquet.NewSchema("facts", group)
	// parquet.Group orders its columns by name: map each field to its leaf index.
	order := make([]int, len(cols))
	names := make([]string, len(cols))
	for i, f := range cols {
		names[i] = f.Name
	}
	sorted := append([]string{}, names...)
	sort.Strings(sorted)
	pos := map[string]int{}
	for i, n := range sorted {
		pos[n] = i
	}
	for i, n := range names {
		order[pos[n]] = i
	}

	w := parquet.NewWriter(out, schema, parquet.MaxRowsPerRowGroup(rowGroupRows), parquet.PageBufferSize(pageBytes))
	buf := make([]parquet.Row, 0, 1024)
	flush := func() error {
		if _, err := w.WriteRows(buf); err != nil {
			return fmt.Errorf("write facts: %w", err)
		}
		buf = buf[:0]
		return nil
	}
	for ri, r := range rows {
		if len(r) != len(cols) {
			return fmt.Errorf("write facts: row %d has %d values, want %d", ri, len(r), len(cols))
		}
		pr := make(parquet.Row, len(cols))
		for leafIdx, fi := range order {
			v, err := value(cols[fi], r[fi])
			if err != nil {
				return fmt.Errorf("write facts: row %d: %w", ri, err)
			}
			pr[leafIdx] = v.Level(0, def(r[fi]), leafIdx)
		}
		buf = append(buf, pr)
		if len(buf) == cap(buf) {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("write facts: %w", err)
	}
	return nil
}

// PlainColumns says which of cols WriteFacts writes without a dictionary, by index: the
// text columns (String and Date) of which more than half the non-null values of rows are
// distinct (a record key, a name suffixed per row). A function of the rows alone, so the
// same rows always give the same file.
func PlainColumns(cols []capability.Field, rows []Row) []bool {
	plain := make([]bool, len(cols))
	for i, f := range cols {
		switch f.Type {
		case capability.Integer, capability.Number, capability.Boolean:
			continue
		}
		seen := map[string]struct{}{}
		nonNull := 0
		for _, r := range rows {
			if len(r) != len(cols) {
				continue // WriteFacts refuses the row
			}
			if s, ok := r[i].(string); ok {
				nonNull++
				seen[s] = struct{}{}
			}
		}
		plain[i] = nonNull > 0 && 2*len(seen) > nonNull
	}
	return plain
}

func leaf(t capability.Type) parquet.Node {
	switch t {
	case capability.Integer:
		return parquet.Int(64)
	case capability.Number:
		return parquet.Leaf(parquet.DoubleType)
	case capability.Boolean:
		return parquet.Leaf(parquet.BooleanType)
	}
	return parquet.Encoded(parquet.String(), &parquet.RLEDictionary)
}

func def(v any) int {
	if v == nil {
		return 0
	}
	return 1
}

func value(f capability.Field, v any) (parquet.Value, error) {
	if v == nil {
		return parquet.NullValue(), nil
	}
	switch f.Type {
	case capability.Integer:
		if x, ok := v.(int64); ok {
			return parquet.Int64Value(x), nil
		}
	case capability.Number:
		if x, ok := v.(float64); ok {
			return parquet.DoubleValue(x), nil
		}
	case capability.Boolean:
		if x, ok := v.(bool); ok {
			return parquet.BooleanValue(x), nil
		}
	default:
		if x, ok := v.(string); ok {
			return parquet.ByteArrayValue([]byte(x)), nil
		}
	}
	return parquet.Value{}, fmt.Errorf("column %s: value %v (%T) is not of type %s", f.Name, v, v, f.Type)
}
