package service

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
)

// flagNotes are the notes of the flagged rows an answer includes (capability.Flag): for each
// flag of c whose rows the matched set sel includes, unless p filters the flag's field to the
// flag's value alone, a note with the flag's code saying how many of the matched rows it
// marks, the sum of its Sum field over them and how many of them are dated before the as_of
// in its Before field, what they are and what to do. A snapshot written before the flag's
// field existed has no such rows to name.
func flagNotes(c *capability.Capability, snap *Snapshot, sel columnar.Selection, p *Params) ([]Obj, error) {
	t := snap.Table
	var out []Obj
	for _, fl := range c.Flags {
		if vals := p.Filters[fl.Field]; len(vals) == 1 && vals[0] == fl.Value || !t.Has(fl.Field) {
			continue
		}
		col, err := t.Column(fl.Field)
		if err != nil {
			return nil, fmt.Errorf("flag %s: %w", fl.Note, err)
		}
		code := col.Lookup(fl.Value)
		if code < 0 {
			continue
		}
		counts, _ := col.CountValues(sel)
		n := counts[code]
		if n == 0 {
			continue
		}
		f, _ := c.Field(fl.Field)
		note := Obj{{"code", fl.Note}, {"field", fl.Field}, {"value", typed(f.Type, fl.Value)}, {"count", n}}
		msg := fmt.Sprintf("%d of the %d matched rows %s", n, sel.Len(), fl.Rows)
		if fl.Sum != "" || fl.Before != "" {
			flagged := t.Filter(append(Predicates(c, t, p), columnar.Predicate{Column: fl.Field, Allow: col.AllowValues([]string{fl.Value})}))
			more, text, err := flaggedFigures(c, snap, flagged, fl)
			flagged.Release()
			if err != nil {
				return nil, fmt.Errorf("flag %s: %w", fl.Note, err)
			}
			note = append(note, more...)
			msg += text
		}
		out = append(out, append(note, KV{"message", msg + "; " + fl.Advice}))
	}
	return out, nil
}

// flaggedFigures are the members and the words of a flag's note about its rows flagged: the
// sum of fl.Sum over them and how many are dated before the as_of in fl.Before.
func flaggedFigures(c *capability.Capability, snap *Snapshot, flagged columnar.Selection, fl capability.Flag) (Obj, string, error) {
	t := snap.Table
	var more Obj
	text := ""
	if fl.Sum != "" {
		if err := t.Need(fl.Sum); err != nil {
			return nil, "", err
		}
		sum := num(t.Aggregate(flagged, t.Group(flagged, nil), columnar.AggSum, fl.Sum, ""), 0)
		more = append(more, KV{"sum_field", fl.Sum}, KV{"sum", sum})
		unit := ""
		for _, m := range c.Metrics {
			if m.Column == fl.Sum && m.Agg == capability.Sum {
				unit = " " + m.Unit
				break
			}
		}
		if sum.Valid {
			text += fmt.Sprintf("; their %s adds up to %s%s", fl.Sum, strconv.FormatFloat(sum.V, 'f', 1, 64), unit)
		} else {
			text += fmt.Sprintf("; none of them publishes %s", fl.Sum)
		}
	}
	if fl.Before != "" {
		dates, err := t.Column(fl.Before)
		if err != nil {
			return nil, "", err
		}
		asOf := snap.Manifest.AsOf
		k := 0
		for i, n := 0, flagged.Len(); i < n; i++ {
			if d, ok := dates.Text(flagged.Row(i)); ok && d < asOf {
				k++
			}
		}
		more = append(more, KV{"date_field", fl.Before}, KV{"dated_before_as_of", k})
		text += fmt.Sprintf("; %d of them are dated before the as_of (%s) in %s", k, asOf, fl.Before)
	}
	return more, text, nil
}

// FlagNoteCodes adds to codes the note codes of the flags of the capabilities cs.
func FlagNoteCodes(codes []string, cs []*capability.Capability) []string {
	for _, c := range cs {
		for _, fl := range c.Flags {
			if !slices.Contains(codes, fl.Note) {
				codes = append(codes, fl.Note)
			}
		}
	}
	return codes
}
