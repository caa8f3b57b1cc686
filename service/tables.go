package service

import (
	"errors"
	"fmt"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
	"github.com/citeq/citeq/snapshots"
)

// How the service holds its snapshots' tables: each promoted snapshot's fact table is opened
// at load (its footer read, nothing decoded, the file closed again) and its columns decoded
// when a query first needs them, under the process's memory budget
// (columnar.SetMemoryBudget), which drops the least recently used columns when it is
// exceeded: a server can serve years of snapshots, of which only those asked lately take
// heap.

// MemoryPlan is how a server's memory budget divides: what the tables may keep decoded
// (columns, their views, the indexes kept with them, open files' metadata), the decoded
// pages of record reads, the response cache (and the citation cache, an eighth of it), and
// the soft limit of the Go heap, which makes the garbage collector work harder as the heap
// nears it instead of letting it grow to twice what is live.
type MemoryPlan struct {
	Total, Tables, Pages, Responses, GoLimit int64
}

// DefaultMemoryBudget is the memory budget of citeq serve: 1 GiB (see README.md, Memory).
const DefaultMemoryBudget = 1 << 30

// programBytes is about what the server's own code keeps resident (the citeq binary's pages
// in use, outside the Go heap): 45 MiB measured after a warm-up.
const programBytes = 48 << 20

// PlanMemory divides a memory budget of total bytes (0: no budget, every cache at its
// default size and no limit on the heap). Half of it goes to the tables; the pages and
// responses get a sixteenth each, at most their default sizes; the Go heap's soft limit is
// what is left once an eighth and the program's own resident pages (programBytes) are set
// aside for what is not heap: the program, goroutine stacks and the pages of a Parquet file
// being read.
func PlanMemory(total int64) MemoryPlan {
	if total <= 0 {
		return MemoryPlan{Pages: columnar.DefaultPageCacheBytes, Responses: DefaultCacheBytes}
	}
	return MemoryPlan{Total: total, Tables: total / 2, Pages: min(total/16, columnar.DefaultPageCacheBytes),
		Responses: min(total/16, DefaultCacheBytes), GoLimit: max(total-total/8-programBytes, total/2+total/8)}
}

// ApplyMemory sets the tables' budget, the page cache and this service's response and
// citation caches as p says (the Go heap's limit is the caller's to set: it is the
// process's).
func (s *Service) ApplyMemory(p MemoryPlan) {
	columnar.SetMemoryBudget(p.Tables)
	columnar.SetPageCacheBytes(int(p.Pages))
	s.SetCacheBytes(int(p.Responses))
}

// Warm decodes, in the served snapshots of at most maxRows rows, each column a query can
// read (filters, dimensions, metric inputs and units, date ranges, lineage), so the first
// queries do not pay for it: every capability's latest snapshot first, then the one before
// each, and so on. Under a memory budget it stops once the tables fill three quarters of it,
// so warming never evicts what it warmed. Columns decode on first use anyway: Warm only
// moves that work ahead, and is meant to run in the background once the server is ready.
func (s *Service) Warm(maxRows int) error {
	var byCap [][]*Snapshot // each capability's snapshots, newest first
	for _, c := range s.Served() {
		m, dates := s.served(c.ID)
		if m == nil {
			continue
		}
		var snaps []*Snapshot
		for i := len(dates) - 1; i >= 0; i-- {
			snaps = append(snaps, m[dates[i]])
		}
		byCap = append(byCap, snaps)
	}
	var errs []error
	for round, more := 0, true; more; round++ {
		more = false
		for _, snaps := range byCap {
			if round >= len(snaps) {
				continue
			}
			more = true
			if mem := columnar.Memory(); mem.Limit > 0 && mem.Used >= mem.Limit/4*3 {
				return errors.Join(errs...)
			}
			snap := snaps[round]
			if snap.Table.Rows > maxRows {
				continue
			}
			if err := snap.Table.Need(HotColumns(snap.Cap)...); err != nil {
				errs = append(errs, fmt.Errorf("warm %s %s: %w", snap.Cap.ID, snap.Manifest.AsOf, err))
			}
		}
	}
	return errors.Join(errs...)
}

// HotColumns are the columns some query of c reads: every filter, dimension, metric input
// and unit, date range and lineage column.
func HotColumns(c *capability.Capability) []string {
	p := &Params{Filters: map[string][]string{}, Ranges: map[string][2]string{}}
	for _, f := range c.Fields {
		if f.Filter {
			p.Filters[f.Name] = nil
		}
		if f.GroupBy {
			p.GroupBy = append(p.GroupBy, f.Name)
		}
	}
	for _, r := range c.DateRanges {
		p.Ranges[r.Name] = [2]string{}
	}
	return QueryColumns(c, p)
}

// load opens the fact table of the snapshot m describes and reads what the schema needs of
// it (which fields no row publishes) from its footer, decoding no column.
func load(c *capability.Capability, m *snapshots.Manifest) (*Snapshot, error) {
	t, err := columnar.Open(m.FactsPath(), tableSpecs(c))
	if err != nil {
		return nil, fmt.Errorf("load %s %s: %w", c.ID, m.AsOf, err)
	}
	if t.Rows != m.Rows {
		return nil, fmt.Errorf("load %s %s: %d rows in the fact table, %d in the manifest", c.ID, m.AsOf, t.Rows, m.Rows)
	}
	cbs, err := snapshots.ReadCodebooks(m.Dir)
	if err != nil {
		return nil, err
	}
	return newSnapshot(c, m, t, cbs)
}

// tableSpecs are the columns of c's fact table as the engine holds them.
func tableSpecs(c *capability.Capability) []columnar.Spec {
	var specs []columnar.Spec
	for _, f := range snapshots.Columns(c) {
		specs = append(specs, columnar.Spec{Name: f.Name, Dict: dictField(c, f)})
	}
	return specs
}

// newSnapshot is the snapshot m describes, served from its fact table t and codebooks cbs.
func newSnapshot(c *capability.Capability, m *snapshots.Manifest, t *columnar.Table, cbs []snapshots.Codebook) (*Snapshot, error) {
	snap := &Snapshot{Cap: c, Manifest: m, Table: t, Codebooks: cbs, sources: map[string]snapshots.Source{}, unpublished: map[string]bool{},
		id: snapshotIDs.Add(1)}
	for _, f := range c.Fields {
		nulls, err := t.NullN(f.Name)
		if err != nil {
			return nil, fmt.Errorf("load %s %s: %w", c.ID, m.AsOf, err)
		}
		if t.Rows > 0 && nulls == t.Rows {
			snap.unpublished[f.Name] = true
		}
	}
	for _, src := range m.Sources {
		snap.sources[src.File] = src
	}
	return snap, nil
}

// dictField says which columns the engine holds as dictionary codes: every text, date and
// boolean column (the agencies' text repeats: sectors, statuses, names, hashes), and every
// column that filters, groups or is counted distinct; not the row keys, which are unique. An
// Integer or Number field held as codes still feeds sum, avg, min, max and ratio metrics: the
// engine reads its dictionary's numbers (columnar.Column.Numbers).
func dictField(c *capability.Capability, f capability.Field) bool {
	if f.Filter || f.GroupBy {
		return true
	}
	for _, m := range c.Metrics {
		if m.Column == f.Name && m.Agg == capability.CountDistinct || m.UnitColumn == f.Name {
			return true
		}
	}
	switch f.Type {
	case capability.String, capability.Date, capability.Boolean:
		return !f.Unique
	}
	return false
}
