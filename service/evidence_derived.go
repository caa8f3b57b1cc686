package service

import (
	"math"
	"strconv"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest/iso/queue"
	"github.com/citeq/citeq/snapshots"
)

// derivedCell recomputes, for the aggregate evidence, a field that ingest computes from other
// cells of the row rather than reading it from one (the queues' queue.DerivedFields: status,
// request_kind, state, ...): the row's cells of the fields it reads are read where the
// manifest says ingest read them, as ingest reads them (queue.Operator.ReadCell), and the
// field is computed from them by the very function ingest applied. It returns the value as
// text ("" for null) and the columns of the cells read; ok is false for a field read from one
// cell, or a file no such rule reads.
func derivedCell(c *capability.Capability, src snapshots.Source, sh *grid.Sheet, sheet string, row int, field string) (text string, inputs map[string]int, ok bool) {
	op := queue.ForFile(c.ID, src.File)
	if op == nil {
		return "", nil, false
	}
	var d *queue.Derived
	for i := range queue.DerivedFields {
		if queue.DerivedFields[i].Field == field && field != "status_raw" {
			d = &queue.DerivedFields[i]
		}
	}
	spec, found := op.SheetSpec(sheet)
	if d == nil || !found {
		return "", nil, false
	}
	inputs = map[string]int{}
	get := func(f string) any {
		col := src.Cells[sheet][f]
		if col == 0 {
			return nil
		}
		inputs[f] = col
		v, _, err := op.ReadCell(f, sh.Cell(row, col))
		if err != nil {
			return nil
		}
		return v
	}
	has := func(f string) bool { return src.Cells[sheet][f] > 0 }
	switch v := d.Value(op, queue.Published{Sheet: spec, Get: get, Has: has}).(type) {
	case nil:
		return "", inputs, true
	case string:
		return v, inputs, true
	case bool:
		return strconv.FormatBool(v), inputs, true
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), inputs, true
	}
	return "", inputs, true
}

// derivedNumber is the number a derived field's text spells (NaN for none).
func derivedNumber(text string) float64 {
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) {
		return math.NaN()
	}
	return f
}
