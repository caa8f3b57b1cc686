package service

import (
	"encoding/json"
	"strconv"

	"github.com/citeq/citeq/capability"
)

// CompareParam is the query parameter that asks what changed between the query's snapshot
// and another snapshot of the same capability (interconnection queues: projects keyed by
// queue_id).
const CompareParam = "compare_as_of"

// splitCompare takes compare_as_of out of raw (the other params are validated as usual) and
// returns its value, "" when absent.
func splitCompare(raw RawParams) (RawParams, string, *Error) {
	return splitString(raw, CompareParam, errf(400, CodeInvalidParameter, "%s must be a snapshot date YYYY-MM-DD (or latest); GET the schema for the served dates", CompareParam))
}

// project is one queued project of one snapshot, as the comparison reads it.
type project struct {
	key, queueID, sheet, status, statusRaw string
	mw                                     *float64
	citation                               rawJSON
}

func (p project) obj() Obj {
	var mw any
	if p.mw != nil {
		mw = Num{V: *p.mw, Valid: true}
	}
	return Obj{{"queue_id", p.queueID}, {"sheet", p.sheet}, {"status", nilIfEmpty(p.status)}, {"status_raw", nilIfEmpty(p.statusRaw)},
		{"requested_mw", mw}, {"citation", p.citation}}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// projects reads the projects of snap that match p, keyed by queue id (the n-th repeat of an
// id within a sheet is keyed id#n), in row order.
func (s *Service) projects(c *capability.Capability, snap *Snapshot, p *Params) ([]project, *Error) {
	t := snap.Table
	names := []string{"queue_id", "sheet", "status", "status_raw", "requested_mw"}
	if err := t.Need(append(QueryColumns(c, p), names...)...); err != nil {
		return nil, unreadable(snap, err)
	}
	sel := t.Filter(Predicates(c, t, p))
	rows := make([]int, sel.Len())
	for i := range rows {
		rows[i] = sel.Row(i)
	}
	cells, valid, err := t.TextsOf(names, rows)
	if err != nil {
		return nil, unreadable(snap, err)
	}
	seen := map[string]int{}
	out := make([]project, 0, len(rows))
	for i, r := range rows {
		get := func(j int) string {
			if !valid[j][i] {
				return ""
			}
			return cells[j][i]
		}
		pr := project{queueID: get(0), sheet: get(1), status: get(2), statusRaw: get(3),
			citation: rawJSON(appendRecordCitation(nil, snap, r))}
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

// compare answers a query with compare_as_of: the query's answer at both snapshots (every
// group's figures, each cited to its own rows) and the projects that entered, left, changed
// status or changed requested MW from the older snapshot to the newer, each side cited to
// its own source row.
func (s *Service) compare(q *Prepared) ([]byte, *Error) {
	c := q.c
	if !Compares(c) {
		return nil, errf(400, CodeInvalidParameter, "%s is answered by the interconnection queue capabilities (projects keyed by queue_id); %s has no queue_id", CompareParam, c.ID)
	}
	other := make(RawParams, len(q.raw))
	for k, v := range q.raw {
		other[k] = v
	}
	other["as_of"] = json.RawMessage(strconv.Quote(q.compare))
	if f, ok := other["filters"]; ok {
		var obj map[string]json.RawMessage
		if json.Unmarshal(f, &obj) == nil {
			delete(obj, "as_of")
			if b, err := json.Marshal(obj); err == nil {
				other["filters"] = b
			}
		}
	}
	p2, snap2, e := s.Validate(c, other)
	if e != nil {
		return nil, e
	}
	oldSnap, oldP, newSnap, newP := snap2, p2, q.snap, q.params
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
	byKey := map[string]project{}
	for _, p := range before {
		byKey[p.key] = p
	}
	now := map[string]bool{}
	entered, left, statusChanged, mwChanged := []Obj{}, []Obj{}, []Obj{}, []Obj{}
	withdrawn := 0
	for _, a := range after {
		now[a.key] = true
		b, ok := byKey[a.key]
		if !ok {
			entered = append(entered, a.obj())
			continue
		}
		change := Obj{{"queue_id", a.queueID}, {"before", b.obj()}, {"after", a.obj()}}
		if b.status != a.status || b.statusRaw != a.statusRaw {
			statusChanged = append(statusChanged, change)
			if a.status == "withdrawn" && b.status != "withdrawn" {
				withdrawn++
			}
		}
		if (a.mw == nil) != (b.mw == nil) || (a.mw != nil && *a.mw != *b.mw) {
			mwChanged = append(mwChanged, change)
		}
	}
	for _, b := range before {
		if !now[b.key] {
			left = append(left, b.obj())
		}
	}
	summary := Obj{
		{"projects_before", len(before)}, {"projects_after", len(after)},
		{"entered", len(entered)}, {"left", len(left)}, {"status_changed", len(statusChanged)},
		{"withdrawn_since", withdrawn}, {"mw_changed", len(mwChanged)},
		{"note", "projects are matched by queue_id (the n-th repeat of an id on a sheet as id#n); left means absent from the newer snapshot (removed from the operator's file), withdrawn_since counts projects whose status became withdrawn"},
	}
	// The lists page (paging.go); the figures come with the first page.
	lists, from, next := pageLists(q.params.offset, entered, left, statusChanged, mwChanged)
	if q.params.offset > 0 || next > 0 {
		summary = append(summary, KV{"page", Obj{{"entered_from", from[0]}, {"left_from", from[1]}, {"status_changed_from", from[2]}, {"mw_changed_from", from[3]}}})
	}
	summary = append(summary, pageSummary(q.params, next, next > 0)...)
	out := Obj{
		{"capability", c.ID},
		{"as_of", q.snap.Manifest.AsOf},
		{CompareParam, snap2.Manifest.AsOf},
		{"from_as_of", oldSnap.Manifest.AsOf},
		{"to_as_of", newSnap.Manifest.AsOf},
		{"summary", summary},
	}
	if q.params.offset == 0 {
		out = append(out, KV{"figures", Obj{{oldSnap.Manifest.AsOf, rawJSON(oldBody)}, {newSnap.Manifest.AsOf, rawJSON(newBody)}}})
	}
	out = append(out, KV{"entered", lists[0]}, KV{"left", lists[1]}, KV{"status_changed", lists[2]}, KV{"mw_changed", lists[3]})
	return mustJSON(out), nil
}
