package service

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
)

// comparison is the other side of a query with compare_as_of: the snapshot compared with and
// the query's params validated for it.
type comparison struct {
	snap   *Snapshot
	params *Params
}

// splitCompare takes compare_as_of out of raw (the other params are validated as usual) and
// returns its value, "" when absent.
func splitCompare(raw members) (members, string, *apierror.Error) {
	return splitString(raw, capability.ParamCompareAsOf, apierror.New(400, apierror.CodeInvalidParameter, "%s must be a snapshot date YYYY-MM-DD (or latest), as a string; GET the schema for the served dates", capability.ParamCompareAsOf))
}

// prepareCompare validates a query with compare_as_of (req.compare, the other snapshot): the query's snapshot (its
// as_of) and the other one are resolved, each named in its own error, and the params are
// validated for both, every filter value against the union of the two snapshots' values (a
// project that left or entered can be filtered to); a value one snapshot lacks matches none
// of its rows.
func (s *Service) prepareCompare(c *capability.Capability, req *Request, on bool) (*Prepared, *apierror.Error) {
	other := req.compare
	schemaURL := "/v1/" + c.Path + "/schema"
	if !capability.Compares(c) {
		return nil, apierror.New(400, apierror.CodeInvalidParameter, "%s is answered by the interconnection queue capabilities (projects keyed by queue_id); %s has no queue_id", capability.ParamCompareAsOf, c.ID)
	}
	_, dates := s.served(c.ID)
	if other != "latest" && !isoDay.MatchString(other) {
		return nil, apierror.New(400, apierror.CodeInvalidParameter, "%s must be latest or a snapshot date YYYY-MM-DD, got %q; the served dates of %s are: %s (see %s)", capability.ParamCompareAsOf, other, c.ID, join(dates), schemaURL)
	}
	asOf, e := req.asOfValue()
	if e != nil {
		return nil, e
	}
	snap, e := s.snapshot(c, asOf)
	if e != nil {
		return nil, e
	}
	otherSnap, e := s.snapshot(c, other)
	if e != nil {
		return nil, apierror.New(400, apierror.CodeInvalidParameter, "%s %q is not a served snapshot of %s; use latest or one of: %s", capability.ParamCompareAsOf, other, c.ID, join(dates))
	}
	reqQ, reqO, union, e := s.unionFilters(c, req, snap, otherSnap)
	if e != nil {
		return nil, e
	}
	p, _, e := s.Validate(c, reqQ)
	if e != nil {
		return nil, e
	}
	po, _, e := s.Validate(c, reqO)
	if e != nil {
		return nil, e
	}
	for name, vals := range union {
		p.Filters[name], po.Filters[name] = vals, vals
	}
	pinned := req.pinned() && other != "latest" && !on
	return &Prepared{c: c, snap: snap, params: p, pinned: pinned, cmp: &comparison{snap: otherSnap, params: po}}, nil
}

// unionFilters checks every filter value of req against snapshots a and b and returns a
// request for each (pinned to its as_of, each filter keeping the values its snapshot holds; a
// filter none of whose values it holds is left out) and the canonical values of each filter
// over both. A value neither holds is refused, naming both. What else is wrong with req is
// left to Validate.
func (s *Service) unionFilters(c *capability.Capability, req *Request, a, b *Snapshot) (*Request, *Request, map[string][]string, *apierror.Error) {
	schemaURL := "/v1/" + c.Path + "/schema"
	if req.filtersBad {
		return req, req, nil, nil
	}
	sides := [2]struct {
		snap *Snapshot
		req  *Request
	}{{snap: a}, {snap: b}}
	for i := range sides {
		sides[i].req = req.clone()
		sides[i].req.asOf = []asOfGiven{{value: sides[i].snap.Manifest.AsOf, str: true}}
		sides[i].req.kept = map[string]keptFilter{}
	}
	// Each filter, where it is given: inside filters, or at the top level.
	type given struct {
		name string
		top  bool
		v    json.RawMessage
	}
	var list []given
	for k, v := range req.filters {
		list = append(list, given{k, false, v})
	}
	for k, v := range req.top {
		// A top-level key that is not another parameter is a filter, as Validate reads it.
		if p, ok := c.Param(k); !ok || p.Kind == capability.KindFilter {
			list = append(list, given{k, true, v})
		}
	}
	sort.Slice(list, func(i, j int) bool {
		return list[i].name < list[j].name || list[i].name == list[j].name && !list[i].top
	})
	union := map[string][]string{}
	for _, g := range list {
		f, ok := c.Field(g.name)
		vals, err := filterValues(g.v)
		if !ok || !f.Filter || err != nil || len(vals) == 0 || union[g.name] != nil {
			continue // Validate says what is wrong
		}
		var held [2][]string
		var canon []string
		for _, v := range vals {
			var errs [2]*apierror.Error
			for i, side := range sides {
				cv, e := s.checkValue(c, side.snap, f, v, schemaURL)
				if errs[i] = e; e == nil {
					held[i] = append(held[i], v)
					canon = append(canon, cv...)
				}
			}
			if errs[0] != nil && errs[1] != nil {
				return nil, nil, nil, s.notInEither(c, f, v, a, b, errs[0])
			}
		}
		sort.Strings(canon)
		union[g.name] = dedupe(canon)
		for i := range sides {
			sides[i].req.kept[g.name] = keptFilter{top: g.top, vals: held[i]}
		}
	}
	return sides[0].req, sides[1].req, union, nil
}

// notInEither is the error of a filter value neither compared snapshot holds: for a text
// field whose values are the snapshot's own, a message naming both snapshots and the values
// of both; otherwise the first snapshot's own error.
func (s *Service) notInEither(c *capability.Capability, f capability.Field, v string, a, b *Snapshot, first *apierror.Error) *apierror.Error {
	if f.Type != capability.String || len(f.Enum) > 0 || first.Code != apierror.CodeInvalidFilter {
		return first
	}
	var vals []string
	for _, snap := range []*Snapshot{a, b} {
		if col := snap.Table.Col(f.Name); col != nil {
			vals = append(vals, col.Values...)
		}
	}
	sort.Strings(vals)
	vals = dedupe(vals)
	valid := quoteList(vals)
	if len(vals) > 60 {
		valid = quoteList(vals[:60]) + fmt.Sprintf(", … (%d in all)", len(vals))
	}
	return apierror.New(400, apierror.CodeInvalidFilter, "%q is not a value of filter %s in %s as_of %s nor as_of %s, the two snapshots compared (values are case-sensitive, as published, and matched with surrounding white space trimmed); valid values include: %s (see /v1/%s/schema)",
		v, f.Name, c.ID, a.Manifest.AsOf, b.Manifest.AsOf, valid, c.Path)
}

// project is one row of one snapshot, as the comparison reads it.
type project struct {
	key, queueID, sheet, status, statusRaw, defect string
	mw                                             *float64
	// row is the project's row in snap's table; selected says the query's filters match it.
	snap     *Snapshot
	row      int
	selected bool
}

func (p project) obj() Obj {
	var mw any
	if p.mw != nil {
		mw = Num{V: *p.mw, Valid: true}
	}
	return Obj{{"queue_id", p.queueID}, {"sheet", p.sheet}, {"status", nilIfEmpty(p.status)}, {"status_raw", nilIfEmpty(p.statusRaw)},
		{"requested_mw", mw}, {"citation", rawJSON(appendRecordCitation(nil, p.snap, p.row))}}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// projects reads every row of snap, in row order, keyed by queue id (the n-th repeat of an id
// within a sheet is keyed id#n), each marked selected where p's filters match it.
func (s *Service) projects(c *capability.Capability, snap *Snapshot, p *Params) ([]project, *apierror.Error) {
	t := snap.Table
	names := []string{"queue_id", "sheet", "status", "status_raw", "requested_mw"}
	if t.Has("known_defect") { // absent from a snapshot written before it was a field
		names = append(names, "known_defect")
	}
	if err := t.Need(append(QueryColumns(c, p), names...)...); err != nil {
		return nil, unreadable(snap, err)
	}
	selected := make([]bool, t.Rows)
	sel := t.Filter(Predicates(c, t, p))
	for i, n := 0, sel.Len(); i < n; i++ {
		selected[sel.Row(i)] = true
	}
	sel.Release()
	rows := make([]int, t.Rows)
	for i := range rows {
		rows[i] = i
	}
	cells, valid, err := t.TextsOf(names, rows)
	if err != nil {
		return nil, unreadable(snap, err)
	}
	seen := map[string]int{}
	out := make([]project, 0, len(rows))
	for i, r := range rows {
		get := func(j int) string {
			if j >= len(names) || !valid[j][i] {
				return ""
			}
			return cells[j][i]
		}
		pr := project{queueID: get(0), sheet: get(1), status: get(2), statusRaw: get(3), defect: get(5), snap: snap, row: r, selected: selected[r]}
		if v := get(4); v != "" {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				pr.mw = &f
			}
		}
		base := pr.queueID
		seen[base+"\x00"+pr.sheet]++
		if n := seen[base+"\x00"+pr.sheet]; n > 1 {
			base += "#" + strconv.Itoa(n)
		}
		pr.key = base
		out = append(out, pr)
	}
	return out, nil
}

// compareNote says how the comparison classifies and selects projects.
const compareNote = "projects are identified by queue_id (the n-th repeat of an id on a sheet as id#n) over both whole snapshots first: entered are absent from the older snapshot, left absent from the newer (removed from the operator's file), and the others changed status (normalized or raw; withdrawn_since counts those whose status became withdrawn), changed requested MW, or are unchanged. The filters then select among them by their values in either snapshot: an entered project by its values in the newer, a left one by those in the older, the others when either matches. Rows without an identity (known_defect: a placeholder, a project without a queue id) are listed under not_compared"

// compare answers a query with compare_as_of: the query's answer at both snapshots (every
// group's figures, each cited to its own rows) and the projects of either snapshot classified
// by identity (entered, left, status changed, MW changed, unchanged), then selected by the
// filters in either snapshot, each side cited to its own source row.
func (s *Service) compare(q *Prepared) ([]byte, *apierror.Error) {
	c := q.c
	oldSnap, oldP, newSnap, newP := q.cmp.snap, q.cmp.params, q.snap, q.params
	if oldSnap.Manifest.AsOf > newSnap.Manifest.AsOf {
		oldSnap, oldP, newSnap, newP = newSnap, newP, oldSnap, oldP
	}
	oldBody, e := s.run(c, oldSnap, oldP)
	if e != nil {
		return nil, e
	}
	newBody, e := s.run(c, newSnap, newP)
	if e != nil {
		return nil, e
	}
	before, e := s.projects(c, oldSnap, oldP)
	if e != nil {
		return nil, e
	}
	after, e := s.projects(c, newSnap, newP)
	if e != nil {
		return nil, e
	}
	entered, left, statusChanged, mwChanged, notCompared := []Obj{}, []Obj{}, []Obj{}, []Obj{}, []Obj{}
	unmatched := func(p project) {
		if p.selected {
			notCompared = append(notCompared, append(p.obj(), KV{"as_of", p.snap.Manifest.AsOf}, KV{"known_defect", p.defect}))
		}
	}
	byKey := map[string]project{}
	nBefore, nAfter := 0, 0
	for _, b := range before {
		if b.defect != "" {
			unmatched(b)
			continue
		}
		byKey[b.key] = b
		if b.selected {
			nBefore++
		}
	}
	now := map[string]bool{}
	withdrawn, unchanged := 0, 0
	for _, a := range after {
		if a.defect != "" {
			unmatched(a)
			continue
		}
		if a.selected {
			nAfter++
		}
		now[a.key] = true
		b, ok := byKey[a.key]
		switch {
		case !ok:
			if a.selected {
				entered = append(entered, a.obj())
			}
			continue
		case !a.selected && !b.selected:
			continue
		}
		change := Obj{{"queue_id", a.queueID}, {"before", b.obj()}, {"after", a.obj()}}
		statusMoved := b.status != a.status || b.statusRaw != a.statusRaw
		mwMoved := (a.mw == nil) != (b.mw == nil) || (a.mw != nil && *a.mw != *b.mw)
		if statusMoved {
			statusChanged = append(statusChanged, change)
			if a.status == "withdrawn" && b.status != "withdrawn" {
				withdrawn++
			}
		}
		if mwMoved {
			mwChanged = append(mwChanged, change)
		}
		if !statusMoved && !mwMoved {
			unchanged++
		}
	}
	for _, b := range before {
		if b.defect == "" && b.selected && !now[b.key] {
			left = append(left, b.obj())
		}
	}
	summary := Obj{
		{"projects_before", nBefore}, {"projects_after", nAfter},
		{"entered", len(entered)}, {"left", len(left)}, {"status_changed", len(statusChanged)},
		{"withdrawn_since", withdrawn}, {"mw_changed", len(mwChanged)}, {"unchanged", unchanged},
		{"not_compared", len(notCompared)},
		{"note", compareNote},
	}
	// The lists page (paging.go), the short ones first; the figures come with the first page.
	lists, from, next := pageLists(q.params.offset, entered, left, notCompared, mwChanged, statusChanged)
	if q.params.offset > 0 || next > 0 {
		summary = append(summary, KV{"page", Obj{{"entered_from", from[0]}, {"left_from", from[1]}, {"status_changed_from", from[4]},
			{"mw_changed_from", from[3]}, {"not_compared_from", from[2]}}})
	}
	summary = append(summary, pageSummary(q.params, next, next > 0)...)
	out := Obj{
		{"capability", c.ID},
		{"as_of", q.snap.Manifest.AsOf},
		{capability.ParamCompareAsOf, q.cmp.snap.Manifest.AsOf},
		{"from_as_of", oldSnap.Manifest.AsOf},
		{"to_as_of", newSnap.Manifest.AsOf},
		{"summary", summary},
	}
	if q.params.offset == 0 {
		out = append(out, KV{"figures", Obj{{oldSnap.Manifest.AsOf, rawJSON(oldBody)}, {newSnap.Manifest.AsOf, rawJSON(newBody)}}})
	}
	out = append(out, KV{"entered", lists[0]}, KV{"left", lists[1]}, KV{"status_changed", lists[4]}, KV{"mw_changed", lists[3]}, KV{"not_compared", lists[2]})
	return mustJSON(out), nil
}
