package snapshots

import (
	"fmt"
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

// WriteFacts writes rows as a Parquet file at path. String-like columns are dictionary
// encoded, every column is optional (null where a vintage does not publish it) and Snappy
// compressed.
func WriteFacts(path string, cols []capability.Field, rows []Row) (err error) {
	defer func() { err = explainFull(err) }()
	group := parquet.Group{}
	for _, f := range cols {
		group[f.Name] = parquet.Optional(parquet.Compressed(leaf(f.Type), &parquet.Snappy))
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

	tmp, err := os.CreateTemp(filepath.Dir(path), ".facts-*")
	if err != nil {
		return fmt.Errorf("write facts: %w", err)
	}
	defer os.Remove(tmp.Name())
	Failpoint(StepFactsWrite)
	w := parquet.NewWriter(tmp, schema, parquet.MaxRowsPerRowGroup(rowGroupRows))
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
			tmp.Close()
			return fmt.Errorf("write facts: row %d has %d values, want %d", ri, len(r), len(cols))
		}
		pr := make(parquet.Row, len(cols))
		for leafIdx, fi := range order {
			v, err := value(cols[fi], r[fi])
			if err != nil {
				tmp.Close()
				return fmt.Errorf("write facts: row %d: %w", ri, err)
			}
			pr[leafIdx] = v.Level(0, def(r[fi]), leafIdx)
		}
		buf = append(buf, pr)
		if len(buf) == cap(buf) {
			if err := flush(); err != nil {
				tmp.Close()
				return err
			}
		}
	}
	if err := flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := w.Close(); err != nil {
		tmp.Close()
		return fmt.Errorf("write facts: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write facts: %w", err)
	}
	return os.Rename(tmp.Name(), path)
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
