package service

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
	"github.com/citeq/citeq/snapshots"
)

// Codes of the notes on a snapshot's documents: what they cover, and what a later one
// revised.
const (
	// NotePartialPeriod: the matched rows lie in a period a document covers only in part (a
	// year to date, a day the download cut short).
	NotePartialPeriod = "partial_period"
	// NoteReleaseRevised: matched rows are published by two documents with different values;
	// each is served from the newest, and the earlier one is cited beside it.
	NoteReleaseRevised = "release_revised"
)

// revisionsListed is the most revised rows a release_revised note lists one by one.
const revisionsListed = 24

// documentNotes are the notes an answer over the selection sel of snap carries because of
// the snapshot's documents: a partial_period note per period a document covers only in part
// that the matched rows lie in, and a release_revised note when matched rows are values a
// newer document revised.
func documentNotes(snap *Snapshot, sel columnar.Selection) ([]Obj, error) {
	m := snap.Manifest
	if sel.Len() == 0 || len(m.Coverage) == 0 && len(m.Revisions) == 0 {
		return nil, nil
	}
	var out []Obj
	covered, err := snap.coverageRows()
	if err != nil {
		return nil, err
	}
	for i, cv := range m.Coverage {
		if !covered[i].meets(sel) {
			continue
		}
		out = append(out, Obj{{"code", NotePartialPeriod}, {"period", cv.Period}, {"where", sortedWhere(snap.Cap, cv.Where)},
			{"source_file", cv.File}, {"covered", cv.Covered}, {"complete", cv.Complete},
			{"message", fmt.Sprintf("the matched rows include %s, of which %s holds only %s, so a figure over it is not the whole period's. %s", cv.Period, cv.File, cv.Covered, cv.Complete)}})
	}
	if note, err := revisedNote(snap, sel); err != nil {
		return nil, err
	} else if note != nil {
		out = append(out, note)
	}
	return out, nil
}

// sortedWhere renders a coverage's period as {field: value} in the capability's field order,
// each value typed as its field.
func sortedWhere(c *capability.Capability, where map[string]string) Obj {
	var o Obj
	for _, f := range c.Fields {
		if v, ok := where[f.Name]; ok {
			o = append(o, KV{f.Name, typed(f.Type, v)})
		}
	}
	return o
}

// rowSet is a set of a table's rows, one bit per row.
type rowSet struct {
	bits []uint64
	// any is whether the set holds a row.
	any bool
}

// meets reports whether a row of sel is in the set.
func (rs rowSet) meets(sel columnar.Selection) bool {
	if !rs.any {
		return false
	}
	if sel.All {
		return sel.Len() > 0
	}
	for _, r := range sel.Idx {
		if rs.bits[r>>6]&(1<<(r&63)) != 0 {
			return true
		}
	}
	return false
}

// coverageRows are, for each coverage of the snapshot's manifest (a period a document covers
// only in part), the table rows that lie in it: found once per snapshot, and kept with its
// table under the memory budget, so that an answer asks only whether its selection meets them.
func (snap *Snapshot) coverageRows() ([]rowSet, error) {
	v, err := snap.Table.Memo("coverage", func() (any, int64, error) {
		t := snap.Table
		words := (t.Rows + 63) / 64
		out := make([]rowSet, len(snap.Manifest.Coverage))
		for i, cv := range snap.Manifest.Coverage {
			rs, err := rowsWhere(t, cv.Where)
			if err != nil {
				return nil, 0, fmt.Errorf("the rows of the period %s of %s: %w", cv.Period, cv.File, err)
			}
			out[i] = rs
		}
		return out, int64(len(out)) * int64(8*words+32), nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]rowSet), nil
}

// rowsWhere is the set of the rows of t that have every value of where.
func rowsWhere(t *columnar.Table, where map[string]string) (rowSet, error) {
	type cond struct {
		col  *columnar.Column
		code int32
		want string
	}
	rs := rowSet{bits: make([]uint64, (t.Rows+63)/64)}
	var conds []cond
	for name, v := range where {
		col, err := t.Column(name)
		if err != nil {
			return rs, err
		}
		c := cond{col: col, code: -1, want: v}
		if col.Kind == columnar.Dict {
			if c.code = col.Lookup(v); c.code < 0 {
				return rs, nil
			}
		}
		conds = append(conds, c)
	}
rows:
	for r := 0; r < t.Rows; r++ {
		for _, c := range conds {
			if c.col.Kind == columnar.Dict {
				if c.col.Codes[r] != c.code {
					continue rows
				}
			} else if s, ok := c.col.Text(r); !ok || s != c.want {
				continue rows
			}
		}
		rs.bits[r>>6] |= 1 << (r & 63)
		rs.any = true
	}
	return rs, nil
}

// revisedNote lists the matched rows a newer document revised: each served from the newest
// publication (the answer's citations) with the earlier publication's value and record-level
// citation, which the evidence endpoint verifies as of the earlier document's own date.
func revisedNote(snap *Snapshot, sel columnar.Selection) (Obj, error) {
	revs := snap.Manifest.Revisions
	if len(revs) == 0 {
		return nil, nil
	}
	revised, err := snap.revisedRows()
	if err != nil {
		return nil, err
	}
	var hit []int
	if sel.All {
		for _, j := range revised.rev {
			hit = append(hit, j)
		}
	} else if revised.set.any {
		for _, r := range sel.Idx {
			if revised.set.bits[r>>6]&(1<<(r&63)) != 0 {
				hit = append(hit, revised.rev[r])
			}
		}
	}
	if len(hit) == 0 {
		return nil, nil
	}
	sort.Ints(hit)
	var list []Obj
	for _, j := range hit[:min(len(hit), revisionsListed)] {
		r := revs[j]
		var vals []Obj
		for _, v := range r.Values {
			vals = append(vals, Obj{{"field", v.Field}, {"served", v.Served}, {"earlier", v.Earlier}})
		}
		list = append(list, Obj{{"source_record_key", r.Key}, {"values", vals},
			{"served_release", r.Served.Release}, {"served_file", r.Served.File},
			{"earlier_release", r.Earlier.Release}, {"earlier", recordCitationObj(r.Earlier)}})
	}
	first := revs[hit[0]]
	msg := fmt.Sprintf("%d matched rows are published by two documents with different values: each is served from the newest publication (the answer's citations: %s, release %s), and the earlier one is cited in revisions (%s, release %s, as of %s, the snapshot of what was published then; POST it to /v1/evidence/source-row)",
		len(hit), first.Served.File, first.Served.Release, first.Earlier.File, first.Earlier.Release, first.Earlier.AsOf)
	if len(hit) > revisionsListed {
		msg += fmt.Sprintf("; the first %d are listed", revisionsListed)
	}
	return Obj{{"code", NoteReleaseRevised}, {"count", len(hit)}, {"revisions", list}, {"message", msg}}, nil
}

// revisions are the table rows holding a value a newer document revised: the set of them, and
// each one's revision (its index in the manifest's Revisions).
type revisions struct {
	set rowSet
	rev map[int32]int
}

// revisedRows finds the rows a newer document revised once per snapshot, by their record key,
// and keeps them with its table under the memory budget.
func (snap *Snapshot) revisedRows() (*revisions, error) {
	v, err := snap.Table.Memo("revised", func() (any, int64, error) {
		t := snap.Table
		revs := snap.Manifest.Revisions
		byKey := make(map[string]int, len(revs))
		for i, r := range revs {
			byKey[r.Key] = i
		}
		col, err := t.Column(capability.FieldRecordKey)
		if err != nil {
			return nil, 0, err
		}
		out := &revisions{set: rowSet{bits: make([]uint64, (t.Rows+63)/64)}, rev: map[int32]int{}}
		for r := 0; r < t.Rows; r++ {
			k, ok := col.Text(r)
			if j, rev := byKey[k]; ok && rev {
				out.set.bits[r>>6] |= 1 << (r & 63)
				out.set.any = true
				out.rev[int32(r)] = j
			}
		}
		return out, int64(8*len(out.set.bits) + 48*len(out.rev) + 64), nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*revisions), nil
}

func recordCitationObj(c snapshots.RecordCitation) Obj {
	return Obj{{"source_id", c.SourceID}, {"source_url", c.SourceURL}, {"source_file", c.File}, {"sheet", c.Sheet},
		{"source_row", c.Row}, {"raw_file_sha256", c.SHA256}, {"as_of", c.AsOf}}
}

// noRowsWhy says, for a query that matches no row of snap, what is true instead of "widen the
// filters": which earlier as_of holds rows that match (each as_of is what was published by
// its date), or that no snapshot served up to this one has any, and what this one covers of
// the rows that match the filters other than the period asked. Only snapshots dated on or
// before snap's are consulted, so a pinned answer stays what it is when later ones arrive.
func (s *Service) noRowsWhy(c *capability.Capability, snap *Snapshot, p *Params) (string, Obj) {
	asOf := snap.Manifest.AsOf
	if snap.derived != nil {
		return fmt.Sprintf("no row of as_of %s matches the filters and date ranges", asOf), nil
	}
	m, dates := s.served(c.ID)
	var held []Obj
	var heldText []string
	for i := len(dates) - 1; i >= 0; i-- {
		d := dates[i]
		if d >= asOf {
			continue
		}
		n, err := matching(c, m[d].Table, p, true)
		if err != nil || n == 0 {
			continue
		}
		held = append(held, Obj{{"as_of", d}, {"rows", n}})
		heldText = append(heldText, fmt.Sprintf("as_of %s holds %d", d, n))
	}
	extra := Obj{}
	var msg string
	if len(held) > 0 {
		msg = fmt.Sprintf("no row of as_of %s matches the filters and date ranges, but an earlier as_of does (%s matching rows): each as_of is what was published by its date, so ask with as_of=%s",
			asOf, strings.Join(heldText, "; "), held[0][0].V)
		extra = append(extra, KV{"held_by", held})
		return msg, extra
	}
	msg = fmt.Sprintf("no row of as_of %s matches the filters and date ranges, nor of any earlier as_of: no file published by %s that is served here has such rows (a later as_of, once there is one, holds what was published after it)", asOf, asOf)
	if cov, text := coverageOf(c, snap, p); cov != nil {
		msg += "; " + text
		extra = append(extra, KV{"covers", cov})
	}
	return msg, extra
}

// matching counts the rows of t that match p's filters and date ranges (all of them, or
// without the period filters).
func matching(c *capability.Capability, t *columnar.Table, p *Params, period bool) (int, error) {
	var cols []string
	for name := range p.Filters {
		if period || !periodFilter(c, name) {
			cols = append(cols, name)
		}
	}
	if period {
		for _, r := range c.DateRanges {
			if _, ok := p.Ranges[r.Name]; ok {
				cols = append(cols, r.Column)
				if r.Instants != nil {
					cols = append(cols, r.Instants.From, r.Instants.To)
				}
			}
		}
	}
	if err := t.Need(cols...); err != nil {
		return 0, err
	}
	sel := t.Filter(predicates(c, t, p, period))
	defer sel.Release()
	return sel.Len(), nil
}

// predicates are the engine predicates of p's filters and date ranges, or of its filters
// other than the period ones (period false).
func predicates(c *capability.Capability, t *columnar.Table, p *Params, period bool) []columnar.Predicate {
	if period {
		return Predicates(c, t, p)
	}
	var preds []columnar.Predicate
	for _, name := range c.FilterNames()[1:] {
		if vals, ok := p.Filters[name]; ok && !periodFilter(c, name) {
			preds = append(preds, columnar.Predicate{Column: name, Allow: t.Col(name).AllowValues(vals)})
		}
	}
	return preds
}

// periodFilter reports whether filter name selects a period rather than what is measured:
// the column of a date range, a date, or a field named year, month or period, or ending in
// _year, _month or _date.
func periodFilter(c *capability.Capability, name string) bool {
	for _, r := range c.DateRanges {
		if r.Column == name {
			return true
		}
	}
	if f, ok := c.Field(name); ok && f.Type == capability.Date {
		return true
	}
	switch name {
	case "year", "month", "period":
		return true
	}
	return strings.HasSuffix(name, "_year") || strings.HasSuffix(name, "_month") || strings.HasSuffix(name, "_date")
}

// coverageOf is what snap holds of the rows that match p's filters other than the period: the
// first and last date of each of the capability's date ranges' columns. It is nil when the
// capability has no date range or no row matches.
func coverageOf(c *capability.Capability, snap *Snapshot, p *Params) (Obj, string) {
	if len(c.DateRanges) == 0 {
		return nil, ""
	}
	t := snap.Table
	var cols []string
	for name := range p.Filters {
		if !periodFilter(c, name) {
			cols = append(cols, name)
		}
	}
	for _, r := range c.DateRanges {
		cols = append(cols, r.Column)
	}
	if err := t.Need(cols...); err != nil {
		return nil, ""
	}
	sel := t.Filter(predicates(c, t, p, false))
	defer sel.Release()
	var others []string
	for _, name := range c.FilterNames()[1:] {
		if vals, ok := p.Filters[name]; ok && !periodFilter(c, name) {
			others = append(others, name+"="+strings.Join(vals, ","))
		}
	}
	scope := "the rows"
	if len(others) > 0 {
		scope = "the rows with " + strings.Join(others, " and ")
	}
	if sel.Len() == 0 {
		return nil, ""
	}
	var ranges Obj
	var texts, done []string
	for _, r := range c.DateRanges {
		col := t.Col(r.Column)
		if col == nil || col.Kind != columnar.Dict || slices.Contains(done, r.Column) {
			continue
		}
		done = append(done, r.Column)
		lo, hi := int32(-1), int32(-1)
		for i := 0; i < sel.Len(); i++ {
			code := col.Codes[sel.Row(i)]
			if code < 0 {
				continue
			}
			if lo < 0 || code < lo {
				lo = code
			}
			if code > hi {
				hi = code
			}
		}
		if lo < 0 {
			continue
		}
		ranges = append(ranges, KV{r.Column, Obj{{"from", col.Values[lo]}, {"to", col.Values[hi]}}})
		texts = append(texts, fmt.Sprintf("%s %s to %s", r.Column, col.Values[lo], col.Values[hi]))
	}
	if len(ranges) == 0 {
		return nil, ""
	}
	return Obj{{"rows", sel.Len()}, {"ranges", ranges}},
		fmt.Sprintf("in as_of %s %s (%d) run over %s", snap.Manifest.AsOf, scope, sel.Len(), strings.Join(texts, "; "))
}
