package capability

import (
	"fmt"
	"strings"
)

// CellRule says how ingest reads a field that is not simply the literal cell of the one
// column recorded for it on its sheet, so that the aggregate evidence re-reads the field from
// the raw cells by the very same rule. A field without one is read as its cell: a number as
// the number the cell spells, text trimmed, a blank (empty, a lone period, or one of the
// publisher's marks ingest recorded) as null. At most one of ColumnBy, CopyOf, Join, Product
// and PerFile is set; Format goes with ColumnBy or with no other member.
type CellRule struct {
	// ColumnBy names the field whose value on a row selects the field's column: a wide sheet
	// holds one column per line, per series or per table column, so one sheet row holds
	// several fact rows, each read from its own column. Ingest records, per sheet, the column
	// of each value of ColumnBy (Source.CellsBy); a value read from two columns fails the
	// build.
	ColumnBy string `json:"column_by,omitempty"`
	// Format names how the cell spells the value when it is not a plain number or text (one
	// of Formats).
	Format string `json:"format,omitempty"`
	// CopyOf names the field whose cell this field copies on the rows where no field of
	// Unless holds one of its values; on the others this field is null (EIA-861's sales
	// counted in totals: the published sales, null on Part C lines).
	CopyOf string `json:"copy_of,omitempty"`
	// Unless maps a field to the values (its cell's trimmed text) that make CopyOf null.
	Unless Unless `json:"unless,omitempty"`
	// Join names the fields whose values, joined by Sep (a null as the empty text), make the
	// field's value (a generator as plant id and generator id).
	Join []string `json:"join,omitempty"`
	Sep  string   `json:"sep,omitempty"`
	// Product names the numeric fields whose values, multiplied in that order and divided by
	// Divide when it is set, make the field's value (EIA-923's heat: quantity × heat content;
	// its cost: quantity × heat content × cents per MMBtu / 100), null when one of them is;
	// Present names fields that must hold a value too, else the field is null.
	Product []string `json:"product,omitempty"`
	Divide  float64  `json:"divide,omitempty"`
	Present []string `json:"present,omitempty"`
	// PerFile, when set, says the field is not read from a cell at all: it holds one value per
	// source file (the file's vintage), and says what that value is.
	PerFile string `json:"per_file,omitempty"`
}

// Cell formats.
const (
	// FormatListCell is a Python list "['<value>', '<flag>']" or a plain number, as the
	// third-party CSV conversion of the NCSES tables writes a cell: the value is the number
	// the first element spells; empty, "&nbsp;" or "D" (withheld) is null; thousands
	// separators are dropped.
	FormatListCell = "list_cell"
	// FormatListCellWithheld reads the same cell as 1 when its value is withheld ("D") and as
	// 0 when a value is published.
	FormatListCellWithheld = "list_cell_withheld"
)

// Formats lists the cell formats a CellRule may name.
var Formats = []string{FormatListCell, FormatListCellWithheld}

// Unless maps fields to values: a row whose field holds one of its values (trimmed text) does
// not keep the value a CopyOf rule copies.
type Unless map[string][]string

// Keeps reports whether a row keeps the copied value: text returns the text of a field on the
// row ("" when null).
func (u Unless) Keeps(text func(field string) string) bool {
	for field, values := range u {
		v := strings.TrimSpace(text(field))
		for _, u := range values {
			if v == u {
				return false
			}
		}
	}
	return true
}

// Multiply is the value of a Product rule given its fields' values, in the rule's order:
// ingest and the aggregate evidence both compute it so.
func (r *CellRule) Multiply(vals ...float64) float64 {
	v := vals[0]
	for _, x := range vals[1:] {
		v *= x
	}
	if r.Divide != 0 {
		v /= r.Divide
	}
	return v
}

// NotRecomputed is why a metric cannot be recomputed from the cells its citations cite, or
// "" when it can: the metric's own declaration, else its input field's (a field holding one
// value per file can only be counted).
func (c *Capability) NotRecomputed(m Metric) string {
	if m.NotRecomputable != "" {
		return m.NotRecomputable
	}
	for _, name := range []string{m.Column, m.Denominator} {
		f, ok := c.Field(name)
		if !ok || f.Cell == nil || f.Cell.PerFile == "" {
			continue
		}
		if m.Agg != CountDistinct && m.Agg != CountNonNull {
			return fmt.Sprintf("%s is not read from a cell: it is %s", name, f.Cell.PerFile)
		}
	}
	return ""
}

// validateCells checks the cell rules of c's fields against its fields.
func (c *Capability) validateCells(fields map[string]Field, bad func(format string, args ...any)) {
	for _, f := range c.Fields {
		r := f.Cell
		if r == nil {
			continue
		}
		what := "field " + f.Name + " cell rule"
		set := 0
		for _, on := range []bool{r.ColumnBy != "", r.CopyOf != "", len(r.Join) > 0, len(r.Product) > 0, r.PerFile != ""} {
			if on {
				set++
			}
		}
		if set > 1 {
			bad("%s sets more than one of column_by, copy_of, join, product and per_file", what)
		}
		known := func(name string) {
			if _, ok := fields[name]; !ok || name == f.Name {
				bad("%s names %q, which is not another field", what, name)
			}
		}
		if r.ColumnBy != "" {
			known(r.ColumnBy)
		}
		if r.Format != "" {
			ok := false
			for _, x := range Formats {
				ok = ok || x == r.Format
			}
			if !ok {
				bad("%s has unknown format %q (known: %s)", what, r.Format, strings.Join(Formats, ", "))
			}
			if r.CopyOf != "" || len(r.Join) > 0 || len(r.Product) > 0 || r.PerFile != "" {
				bad("%s has a format, which only a cell read as it is (or by column_by) takes", what)
			}
		}
		if r.CopyOf != "" {
			known(r.CopyOf)
			if len(r.Unless) == 0 {
				bad("%s copies %s but names no field that makes it null (unless)", what, r.CopyOf)
			}
			for name, values := range r.Unless {
				known(name)
				if len(values) == 0 {
					bad("%s: unless %s lists no value", what, name)
				}
			}
		} else if len(r.Unless) > 0 {
			bad("%s has unless without copy_of", what)
		}
		if len(r.Join) > 0 {
			if len(r.Join) < 2 || r.Sep == "" {
				bad("%s joins fewer than two fields or has no separator", what)
			}
			for _, name := range r.Join {
				known(name)
			}
		} else if r.Sep != "" {
			bad("%s has a separator without join", what)
		}
		if len(r.Product) > 0 {
			if len(r.Product) < 2 {
				bad("%s multiplies fewer than two fields", what)
			}
			for _, name := range append(append([]string{}, r.Product...), r.Present...) {
				known(name)
				if t := fields[name].Type; t != Number && t != Integer {
					bad("%s multiplies or needs field %s, which is not numeric", what, name)
				}
			}
		} else if r.Divide != 0 || len(r.Present) > 0 {
			bad("%s has divide or present without product", what)
		}
		if set == 0 && r.Format == "" {
			bad("%s is empty", what)
		}
	}
	for _, m := range c.Metrics {
		if m.NotRecomputable != "" && strings.TrimSpace(m.NotRecomputable) != m.NotRecomputable {
			bad("metric %s: not_recomputable has leading or trailing space", m.Name)
		}
	}
}
