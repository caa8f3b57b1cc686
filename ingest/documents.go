package ingest

import (
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/snapshots"
)

// document is one plan of a capability whose documents complement each other: one version of
// one document.
type document struct {
	plan  Plan
	id    string
	fp    string // the fingerprint of a snapshot of this document alone
	asOf  string // the date it was published: its as_of alone ("" until known)
	order int    // its place among the plans
	build *Build
	err   error // why it could not be read
	read  bool  // build or err is set
}

// documentID is the identity of the document a plan reads: its Document, else the names of
// its data files.
func documentID(p Plan) string {
	if p.Document != "" {
		return p.Document
	}
	var names []string
	for _, f := range DataFiles(p.Files) {
		names = append(names, filepath.Base(f.Path))
	}
	sort.Strings(names)
	return strings.Join(names, " + ")
}

func (d *document) load(a Adapter) {
	if d.read {
		return
	}
	d.build, d.err = a.Build(d.plan)
	d.read = true
	if d.err == nil && d.build.AsOf != "" {
		d.asOf = d.build.AsOf
	}
}

// runDocuments makes the snapshots of a capability whose documents complement each other:
// one per date a document was published (its as_of alone), holding the newest version of
// every document published on or before that date. A version replaces the earlier versions
// of its document; documents of different identities are added together, and rows both
// publish are kept once only where the capability declares how they overlap. A document
// that cannot be read is a rejected snapshot of its own, and the others are composed
// without it.
func runDocuments(a Adapter, plans []Plan, rawDir string, store *snapshots.Store, log io.Writer) ([]Outcome, error) {
	capID := a.Capability().ID
	failed := func(asOf string, err error) Outcome {
		err = fmt.Errorf("ingest %s: %w", capID, err)
		return Outcome{Capability: capID, AsOf: asOf, Status: Failed, Err: err, Reasons: []string{err.Error()}}
	}
	known, err := documentDates(store, capID)
	if err != nil {
		return []Outcome{failed("", err)}, err
	}
	var docs []*document
	for i, p := range plans {
		if err := storeFiles(a, &p, rawDir, store, log); err != nil {
			return []Outcome{failed(p.AsOfHint, err)}, err
		}
		d := &document{plan: p, id: documentID(p), fp: fingerprint(a, p), order: i}
		if asOf, ok := known[d.fp]; ok {
			d.asOf = asOf
		} else {
			d.load(a)
		}
		docs = append(docs, d)
	}
	var out []Outcome
	var errs []string
	var readable []*document
	for _, d := range docs {
		if d.read && d.err != nil {
			o, err := buildSnapshot(a, d.plan, d.plan.AsOfHint, func() (*Build, error) { return nil, d.err }, store)
			if err != nil {
				o = failed(d.plan.AsOfHint, err)
				errs = append(errs, err.Error())
			}
			out = append(out, o)
			continue
		}
		readable = append(readable, d)
	}
	var dates []string
	for _, d := range readable {
		if !slices.Contains(dates, d.asOf) {
			dates = append(dates, d.asOf)
		}
	}
	sort.Strings(dates)
	for _, date := range dates {
		members, err := membersAt(readable, date)
		if err != nil {
			out = append(out, failed(date, err))
			errs = append(errs, err.Error())
			continue
		}
		p := members[0].plan
		if len(members) > 1 {
			p = Plan{AsOfHint: date}
			for _, m := range members {
				p.Files = append(p.Files, m.plan.Files...)
			}
		}
		o, err := buildSnapshot(a, p, date, func() (*Build, error) { return compose(a, members, date) }, store)
		if err != nil {
			o = failed(date, err)
			errs = append(errs, err.Error())
		}
		out = append(out, o)
	}
	if len(errs) > 0 {
		return out, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return out, nil
}

// membersAt is the newest version, dated on or before date, of every document, in date
// order (then plan order). Two versions of one document with the same date cannot be told
// apart.
func membersAt(docs []*document, date string) ([]*document, error) {
	newest := map[string]*document{}
	for _, d := range docs {
		if d.asOf > date {
			continue
		}
		cur := newest[d.id]
		switch {
		case cur == nil || d.asOf > cur.asOf:
			newest[d.id] = d
		case d.asOf == cur.asOf:
			return nil, fmt.Errorf("two versions of document %s are both dated %s (%s and %s): which one is newer cannot be told; keep one of them in the raw directory",
				d.id, d.asOf, fileNames(cur.plan), fileNames(d.plan))
		}
	}
	var out []*document
	for _, d := range newest {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].asOf != out[j].asOf {
			return out[i].asOf < out[j].asOf
		}
		return out[i].order < out[j].order
	})
	return out, nil
}

func fileNames(p Plan) string {
	var names []string
	for _, f := range p.Files {
		names = append(names, filepath.Base(f.Path))
	}
	return strings.Join(names, ", ")
}

// documentDates maps the fingerprint of each document a snapshot of the capability holds
// (or of the snapshot itself, when it records no documents: one document alone) to the
// document's date, so documents already read are not read again to learn it. Snapshots
// whose files did not parse are left out: their document is read again.
func documentDates(store *snapshots.Store, capID string) (map[string]string, error) {
	paths, err := filepath.Glob(filepath.Join(store.Dir, "snapshots", capID, "*", "*", snapshots.ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("documents of %s: %w", capID, err)
	}
	out := map[string]string{}
	for _, path := range paths {
		m, err := snapshots.ReadManifest(filepath.Dir(path))
		if err != nil {
			continue // a manifest that cannot be read only costs a second reading of its files
		}
		if slices.ContainsFunc(m.Gates, func(g snapshots.Gate) bool { return g.Name == "source_parses" && !g.Passed }) {
			continue
		}
		if len(m.Documents) == 0 {
			out[m.Fingerprint] = m.AsOf
		}
		for _, d := range m.Documents {
			out[d.Fingerprint] = d.AsOf
		}
	}
	return out, nil
}

// compose is the build of the snapshot at asOf from its documents (in date order): each
// document's build, read once, their rows together, each row keeping its own lineage.
func compose(a Adapter, members []*document, asOf string) (*Build, error) {
	c := a.Capability()
	for _, d := range members {
		d.load(a)
		if d.err != nil {
			return nil, fmt.Errorf("document %s: %w", d.id, d.err)
		}
	}
	docs := make([]snapshots.Document, len(members))
	for i, d := range members {
		var files []string
		for _, f := range d.plan.Files {
			files = append(files, filepath.Base(f.Path))
		}
		docs[i] = snapshots.Document{ID: d.id, AsOf: d.asOf, Fingerprint: d.fp, Files: files}
	}
	for i, d := range members {
		docs[i].Rows = len(d.build.Rows)
	}
	if len(members) == 1 {
		b := *members[0].build
		b.documents = docs
		return &b, nil
	}
	cols := snapshots.Columns(c)
	at := func(name string) int {
		return slices.IndexFunc(cols, func(f capability.Field) bool { return f.Name == name })
	}
	asOfCol := at(capability.FieldAsOf)
	out := &Build{AsOf: asOf, Ranges: map[string]snapshots.Range{}, Cells: map[CellKey]map[string]int{}, documents: docs}
	ov := newOverlaps(c, at)
	checks := map[string]*snapshots.Gate{}
	var checkOrder []string
	seenSource := map[string]bool{}
	books := map[string]*snapshots.Codebook{}
	var bookOrder []string
	var origin []*document // the document of each row kept
	for _, d := range members {
		b := d.build
		for _, r := range b.Rows {
			r[asOfCol] = asOf
			if j, dup := ov.seen(r, len(out.Rows)); dup {
				ov.revise(out.Rows[j], origin[j], r, d, asOf)
				out.Rows[j], origin[j] = r, d
				continue
			}
			out.Rows = append(out.Rows, r)
			origin = append(origin, d)
		}
		for _, s := range b.Sources {
			if k := s.Role + "\x00" + s.File + "\x00" + s.SHA256; !seenSource[k] {
				seenSource[k] = true
				out.Sources = append(out.Sources, s)
			}
		}
		for _, g := range b.Checks {
			cur := checks[g.Name]
			if cur == nil {
				cur = &snapshots.Gate{Name: g.Name, Passed: true}
				checks[g.Name] = cur
				checkOrder = append(checkOrder, g.Name)
			}
			cur.Passed = cur.Passed && g.Passed
			if cur.Detail != "" {
				cur.Detail += "; "
			}
			cur.Detail += d.id + ": " + g.Detail
		}
		for _, cb := range b.Codebooks {
			cur := books[cb.Name]
			if cur == nil {
				cur = &snapshots.Codebook{Name: cb.Name, Description: cb.Description}
				books[cb.Name] = cur
				bookOrder = append(bookOrder, cb.Name)
			}
			for _, code := range cb.Codes {
				// A later document's table states the code as it now stands.
				if i := slices.IndexFunc(cur.Codes, func(x snapshots.Code) bool { return x.Code == code.Code }); i >= 0 {
					cur.Codes[i] = code
				} else {
					cur.Codes = append(cur.Codes, code)
				}
			}
		}
		for k, v := range b.Cells {
			out.Cells[k] = v
		}
		for k, v := range b.Ranges {
			out.Ranges[k] = v
		}
		for _, f := range b.Required {
			if !slices.Contains(out.Required, f) {
				out.Required = append(out.Required, f)
			}
		}
	}
	together := newPeriodCounts(out.Rows, at)
	for _, d := range members {
		for _, cv := range d.build.Coverage {
			if !laterHas(cv.Where, d, ov.replaced[d], out.Rows, origin, at) && !together.complete(cv) {
				out.Coverage = append(out.Coverage, cv)
			}
		}
	}
	// A document whose every row a newer publication replaced is no source of the snapshot.
	cited := map[string]bool{}
	for _, r := range out.Rows {
		cited[fmt.Sprint(r[at(capability.ColRawSHA256)])] = true
	}
	out.Sources = slices.DeleteFunc(out.Sources, func(s snapshots.Source) bool { return s.Role == RoleData && !cited[s.SHA256] })
	for _, name := range checkOrder {
		out.Checks = append(out.Checks, *checks[name])
	}
	if g, ok := ov.gate(); ok {
		out.Checks = append(out.Checks, g)
	}
	out.revisions = ov.revisions
	if len(bookOrder) > 0 {
		var list []snapshots.Codebook
		for _, name := range bookOrder {
			list = append(list, *books[name])
		}
		out.Codebooks = CountCodes(c, list, out.Rows)
	}
	return out, nil
}

// overlaps keeps, for a capability whose documents may publish the same row
// (Documents.Overlap), the row of the newest publication, and records the rows whose values
// it revises.
type overlaps struct {
	c         *capability.Capability
	on        bool
	key       []int // natural key columns
	values    []int // the metrics' input columns, compared between publications
	names     []string
	lin       map[string]int
	byKey     map[string]int
	n, same   int
	tied      []string
	revisions []snapshots.Revision
	// replaced maps a document to the documents whose rows replaced some of its rows.
	replaced map[*document]map[*document]bool
}

func newOverlaps(c *capability.Capability, at func(string) int) *overlaps {
	o := &overlaps{c: c, on: c.Documents.Overlap != "", byKey: map[string]int{}, lin: map[string]int{}, replaced: map[*document]map[*document]bool{}}
	for _, k := range c.NaturalKey {
		o.key = append(o.key, at(k))
	}
	for _, m := range c.Metrics {
		if m.Column != "" && !slices.Contains(o.names, m.Column) {
			o.names = append(o.names, m.Column)
			o.values = append(o.values, at(m.Column))
		}
	}
	for _, name := range []string{capability.ColSourceID, capability.ColSourceFile, capability.ColSheet, capability.ColSourceRow,
		capability.ColRawSHA256, capability.FieldRecordKey} {
		o.lin[name] = at(name)
	}
	return o
}

// seen reports whether a row with r's natural key is already kept (and at which index);
// otherwise it records r as kept at index next. Rows are compared only where overlaps are
// declared; elsewhere a repeated key is left for the natural_key_unique gate. A null part of
// the key is a value here (an annual figure has no season): the same atom published again.
func (o *overlaps) seen(r snapshots.Row, next int) (int, bool) {
	if !o.on {
		return 0, false
	}
	var b strings.Builder
	for _, k := range o.key {
		fmt.Fprintf(&b, "%v\x1f", r[k])
	}
	if j, ok := o.byKey[b.String()]; ok {
		return j, true
	}
	o.byKey[b.String()] = next
	return 0, false
}

// revise records that row newer, of document nd, replaces row older, of document od (dated
// earlier, or on the same date: then which is newer cannot be told, and the gate says so).
func (o *overlaps) revise(older snapshots.Row, od *document, newer snapshots.Row, nd *document, asOf string) {
	o.n++
	if o.replaced[od] == nil {
		o.replaced[od] = map[*document]bool{}
	}
	o.replaced[od][nd] = true
	var vals []snapshots.RevisedValue
	for i, j := range o.values {
		if !reflect.DeepEqual(older[j], newer[j]) {
			vals = append(vals, snapshots.RevisedValue{Field: o.names[i], Served: newer[j], Earlier: older[j]})
		}
	}
	earlier, served := o.cite(older, od.build.Sources, od.asOf), o.cite(newer, nd.build.Sources, asOf)
	if od.asOf == nd.asOf {
		o.tied = append(o.tied, fmt.Sprintf("%v (%s and %s)", newer[o.lin[capability.FieldRecordKey]], earlier.File, served.File))
	}
	if len(vals) == 0 {
		o.same++
		return
	}
	o.revisions = append(o.revisions, snapshots.Revision{Key: fmt.Sprint(newer[o.lin[capability.FieldRecordKey]]), Values: vals, Earlier: earlier, Served: served})
}

// cite is the record-level citation, as of asOf, of row r, whose file is among srcs. An
// earlier row is cited as of its document's own date: the snapshot of what was published
// then holds it.
func (o *overlaps) cite(r snapshots.Row, srcs []snapshots.Source, asOf string) snapshots.RecordCitation {
	cit := snapshots.RecordCitation{
		SourceID: fmt.Sprint(r[o.lin[capability.ColSourceID]]), File: fmt.Sprint(r[o.lin[capability.ColSourceFile]]),
		Sheet: fmt.Sprint(r[o.lin[capability.ColSheet]]), SHA256: fmt.Sprint(r[o.lin[capability.ColRawSHA256]]), AsOf: asOf,
	}
	if n, ok := r[o.lin[capability.ColSourceRow]].(int64); ok {
		cit.Row = int(n)
	}
	for _, s := range srcs {
		if s.SHA256 == cit.SHA256 && s.File == cit.File {
			cit.SourceURL, cit.Release = s.URL, s.Release
		}
	}
	return cit
}

// gate reports the overlaps: how many rows more than one document published, how many the
// newest publication revises (the first of them), and fails when two publications of a row
// bear the same release date, so that which is newer cannot be told.
func (o *overlaps) gate() (snapshots.Gate, bool) {
	if !o.on {
		return snapshots.Gate{}, false
	}
	g := snapshots.Gate{Name: "document_overlap", Passed: len(o.tied) == 0}
	g.Detail = fmt.Sprintf("%d rows published by more than one document, each served from the newest publication: %d with the same values, %d revised",
		o.n, o.same, len(o.revisions))
	for i, r := range o.revisions {
		if i == 10 {
			g.Detail += fmt.Sprintf("; and %d more", len(o.revisions)-10)
			break
		}
		for _, v := range r.Values {
			g.Detail += fmt.Sprintf("; %s %s: %v in %s (release %s), %v in %s (release %s)", r.Key, v.Field, v.Served, r.Served.File, r.Served.Release, v.Earlier, r.Earlier.File, r.Earlier.Release)
		}
	}
	if len(o.tied) > 0 {
		g.Detail += "; published on the same date by two documents, so which is newer cannot be told: " + strings.Join(o.tied[:min(len(o.tied), 5)], ", ")
	}
	return g, true
}

// periodCounts counts the rows of a composed snapshot in the periods its documents cover in
// part, so that a period the documents complete together is not listed.
type periodCounts struct {
	rows   []snapshots.Row
	at     func(string) int
	counts map[string]map[string]int // by the period's fields and counted field, then by values
}

func newPeriodCounts(rows []snapshots.Row, at func(string) int) *periodCounts {
	return &periodCounts{rows: rows, at: at, counts: map[string]map[string]int{}}
}

// complete reports whether the rows hold every row of period cv that it declares
// (Coverage.Expected), each with a value in its counted field.
func (p *periodCounts) complete(cv snapshots.Coverage) bool {
	if cv.Expected <= 0 || cv.Counted == "" || p.at(cv.Counted) < 0 {
		return false
	}
	names := make([]string, 0, len(cv.Where))
	for name := range cv.Where {
		if p.at(name) < 0 {
			return false
		}
		names = append(names, name)
	}
	sort.Strings(names)
	key := func(value func(name string) string) string {
		var b strings.Builder
		for _, name := range names {
			b.WriteString(value(name))
			b.WriteByte('\x1f')
		}
		return b.String()
	}
	set := strings.Join(names, "\x1f") + "\x1e" + cv.Counted
	counts, ok := p.counts[set]
	if !ok {
		counts = map[string]int{}
		counted := p.at(cv.Counted)
		for _, r := range p.rows {
			if r[counted] == nil {
				continue
			}
			counts[key(func(name string) string {
				if v := r[p.at(name)]; v != nil {
					return fmt.Sprint(v)
				}
				return "\x00"
			})]++
		}
		p.counts[set] = counts
	}
	return counts[key(func(name string) string { return cv.Where[name] })] >= cv.Expected
}

// laterHas reports whether a row of a document that replaced rows of d (a later publication
// of the same rows, by) lies in the period where: that document covers the period, so d's
// partial coverage of it no longer holds (the later document states its own).
func laterHas(where map[string]string, d *document, by map[*document]bool, rows []snapshots.Row, origin []*document, at func(string) int) bool {
	if len(by) == 0 {
		return false
	}
	cols := map[int]string{}
	for name, v := range where {
		cols[at(name)] = v
	}
rows:
	for i, r := range rows {
		if !by[origin[i]] {
			continue
		}
		for j, v := range cols {
			if j < 0 || r[j] == nil || fmt.Sprint(r[j]) != v {
				continue rows
			}
		}
		return true
	}
	return false
}

// documentsCollapsed checks each document of a snapshot against the same document in the
// snapshot it is compared with: a document (a year's workbook, a region's file) that now gives
// fewer than half the rows it gave there is cut short, even where the other documents keep
// the snapshot's total up. It returns what it found ("" when none).
func documentsCollapsed(docs []snapshots.Document, prev *snapshots.Manifest) string {
	if prev == nil {
		return ""
	}
	before := map[string]int{}
	for _, d := range prev.Documents {
		before[d.ID] = d.Rows
	}
	var out []string
	for _, d := range docs {
		if n := before[d.ID]; n > 0 && d.Rows*2 < n {
			out = append(out, fmt.Sprintf("document %s gives %d rows against %d in the previous promoted snapshot", d.ID, d.Rows, n))
		}
	}
	return strings.Join(out, "; ")
}
