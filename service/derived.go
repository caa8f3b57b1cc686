package service

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
	"github.com/citeq/citeq/derive"
	"github.com/citeq/citeq/snapshots"
)

// A derived capability (capability.Capability.Inputs) has no snapshot of its own: the
// service computes its fact table at query time from the served snapshots of its inputs and
// serves it as a Snapshot like any other, so filters, groups, metrics, ranking, records,
// notes and citations are the ones every capability has. Its rows are input rows, each with
// its own lineage, so its citations are the inputs' own.

// NoteJoinUnmatched: a derived answer left out input rows the other input has no partner
// for (derive.NoteJoinUnmatched).
const NoteJoinUnmatched = derive.NoteJoinUnmatched

// derivedInfo is what a derived snapshot carries besides its table.
type derivedInfo struct {
	// fileAsOf is the as_of of the input snapshot each cited file belongs to: citations state
	// it, so the evidence endpoint verifies them against the input that serves the row.
	fileAsOf map[string]string
	join     derive.Join
}

// check refuses a query the inputs cannot answer (a month or scope one side lacks).
func (d *derivedInfo) check(p *Params) *apierror.Error { return d.join.Check(p.joinQuery()) }

// notes are the answer's notes on the join (rows one side has and the other lacks).
func (d *derivedInfo) notes(p *Params) []Obj { return d.join.Notes(p.joinQuery()) }

// inputs describes, for the schema, what each input serves as of the derived date.
func (d *derivedInfo) inputs() []Obj { return d.join.Describe() }

// joinQuery is what a derived capability's join reads of p.
func (p *Params) joinQuery() derive.Query { return derive.Query{Filters: p.Filters, Ranges: p.Ranges} }

// derivedInput is a served snapshot as a join reads it.
type derivedInput struct{ snap *Snapshot }

// AsOf implements derive.Input.
func (in *derivedInput) AsOf() string { return in.snap.Manifest.AsOf }

// Select implements derive.Input.
func (in *derivedInput) Select(where map[string][]string, names []string) ([]int, [][]string, [][]bool, error) {
	return selectTexts(in.snap, where, names)
}

// derivedDates are the as_of dates of derived capability c: every as_of of an input on
// which each input has a snapshot (its own, or an earlier one).
func (s *Service) derivedDates(c *capability.Capability) []string {
	first := ""
	var all []string
	for _, in := range c.Inputs {
		_, dates := s.served(in)
		if len(dates) == 0 {
			return nil
		}
		first = max(first, dates[0])
		all = append(all, dates...)
	}
	sort.Strings(all)
	var out []string
	for i, d := range all {
		if d >= first && (i == 0 || d != all[i-1]) {
			out = append(out, d)
		}
	}
	return out
}

// derivedSnapshot is the snapshot of derived capability c as of date asOf (one of its
// dates): built from the inputs' snapshots with as_of on or before it, and kept.
func (s *Service) derivedSnapshot(c *capability.Capability, asOf string) (*Snapshot, *apierror.Error) {
	inputs := map[string][]derive.Input{}
	key := c.ID + "\x00" + asOf
	for _, in := range c.Inputs {
		m, dates := s.served(in)
		for _, d := range dates {
			if d <= asOf {
				inputs[in] = append(inputs[in], &derivedInput{m[d]})
				key += "\x00" + m[d].Manifest.Fingerprint
			}
		}
	}
	snap, err := s.derived.get(key, func() (*Snapshot, error) {
		build := derive.For(c.ID)
		if build == nil {
			return nil, apierror.New(500, apierror.CodeInternal, "%s has inputs but no join; report it", c.ID)
		}
		b, err := build(c, asOf, inputs)
		if err == nil {
			var snap *Snapshot
			if snap, err = loadDerived(c, asOf, key, b); err == nil {
				return snap, nil
			}
		}
		return nil, apierror.New(500, apierror.CodeInternal, "%s as_of %s cannot be computed from its inputs (%v); retry, and report it if it persists", c.ID, asOf, err)
	}, derivedLost)
	if err != nil {
		return nil, err.(*apierror.Error) // the build's, or derivedLost: every error of s.derived is one
	}
	return snap, nil
}

// derivedLost is what the queries waiting on a derived snapshot's build get should it panic.
var derivedLost = apierror.New(500, apierror.CodeInternal, "the derived table was not computed; retry, and report it if it persists")

// loadDerived makes the derived rows a fact table in memory (a Parquet file written to a
// buffer, as ingest writes a snapshot's) and decodes every column of it.
func loadDerived(c *capability.Capability, asOf, key string, b *derive.Table) (*Snapshot, error) {
	var file bytes.Buffer
	if err := snapshots.EncodeFacts(&file, snapshots.Columns(c), b.Rows); err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(key))
	m := &snapshots.Manifest{Capability: c.ID, AsOf: asOf, Fingerprint: "derived-" + hex.EncodeToString(sum[:8]), Status: "derived", Rows: len(b.Rows)}
	seen := map[string]bool{}
	for _, in := range b.Inputs {
		for _, src := range in.(*derivedInput).snap.Manifest.Sources {
			if !seen[src.File] {
				seen[src.File] = true
				m.Sources = append(m.Sources, src)
			}
		}
	}
	specs := tableSpecs(c)
	t, err := columnar.OpenBytes(fmt.Sprintf("%s as_of %s (derived, in memory)", c.ID, asOf), file.Bytes(), specs)
	if err != nil {
		return nil, fmt.Errorf("load %s %s: %w", c.ID, asOf, err)
	}
	snap, err := newSnapshot(c, m, t, nil)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(specs))
	for i, sp := range specs {
		names[i] = sp.Name
	}
	// Decoded once and kept: the table is small and every query of it reads its columns.
	snap.Table.Pin()
	if err := snap.Table.Need(names...); err != nil {
		return nil, err
	}
	snap.derived = &derivedInfo{fileAsOf: b.FileAsOf, join: b.Join}
	return snap, nil
}

// selectTexts reads, from snap's table, the rows whose column values are among where's (all
// rows when where is empty), in table order, and the named columns' cells at those rows.
func selectTexts(snap *Snapshot, where map[string][]string, names []string) ([]int, [][]string, [][]bool, error) {
	t := snap.Table
	var preds []columnar.Predicate
	keys := make([]string, 0, len(where))
	for k := range where {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		col, err := t.Column(k)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s %s: %w", snap.Cap.ID, snap.Manifest.AsOf, err)
		}
		preds = append(preds, columnar.Predicate{Column: k, Allow: col.AllowValues(where[k])})
	}
	sel := t.Filter(preds)
	rows := make([]int, sel.Len())
	for i := range rows {
		rows[i] = sel.Row(i)
	}
	sel.Release()
	cells, valid, err := t.TextsOf(names, rows)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s %s: %w", snap.Cap.ID, snap.Manifest.AsOf, err)
	}
	return rows, cells, valid, nil
}
