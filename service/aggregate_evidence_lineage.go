package service

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
)

// postedCitation is an aggregate citation as posted: every member it may carry (a member
// left out is not compared; an unknown one is refused).
type postedCitation struct {
	SourceID    *string         `json:"source_id"`
	Publisher   *string         `json:"publisher"`
	SourceURL   *string         `json:"source_url"`
	Derived     *bool           `json:"derived"`
	OriginalURL *string         `json:"original_url"`
	SourceFile  *string         `json:"source_file"`
	SHA256      *string         `json:"raw_file_sha256"`
	AsOf        string          `json:"as_of"`
	RowsCount   json.RawMessage `json:"source_rows_count"`
	Sample      json.RawMessage `json:"source_rows_sample"`
	Verify      json.RawMessage `json:"verify"`
	Lineage     json.RawMessage `json:"lineage_filter"`
	SourceView  json.RawMessage `json:"source_view"`
	// Evidence is what an answer with include_evidence adds: the row evidence of verify,
	// which the service computed itself; it is not part of the citation and not compared.
	Evidence json.RawMessage `json:"evidence"`
}

// citationOf returns the posted citation (nil when only a lineage_filter was posted), the
// lineage filter and the as_of of a request.
func citationOf(req aggregateRequest) (*postedCitation, json.RawMessage, string, *apierror.Error) {
	present := func(b json.RawMessage) bool { return len(b) > 0 && string(b) != "null" }
	hasCite, hasLF := present(req.Citation), present(req.LineageFilter)
	switch {
	case hasCite && hasLF:
		return nil, nil, "", apierror.New(400, apierror.CodeInvalidRequest, "give the aggregate citation or its lineage_filter, not both")
	case hasLF:
		if req.AsOf == "" {
			return nil, nil, "", apierror.New(400, apierror.CodeInvalidRequest, "with lineage_filter, give as_of too (the as_of of the answer it comes from), or send the whole aggregate citation as citation")
		}
		return nil, req.LineageFilter, req.AsOf, nil
	case hasCite:
		var cite postedCitation
		if err := decodeStrict(req.Citation, &cite); err != nil {
			return nil, nil, "", apierror.New(400, apierror.CodeEvidenceInvalid, "citation must be an aggregate citation as a query answer gives it (%v); take a member of the answer's citations as is", err)
		}
		if !present(cite.Lineage) || cite.AsOf == "" {
			return nil, nil, "", apierror.New(400, apierror.CodeEvidenceInvalid, "citation must be an aggregate citation of a query answer, with its as_of and lineage_filter (a member of the answer's citations)")
		}
		if req.AsOf != "" && req.AsOf != cite.AsOf {
			return nil, nil, "", apierror.New(400, apierror.CodeInvalidParameter, "as_of %q differs from the citation's as_of %q; omit as_of, the citation states it", req.AsOf, cite.AsOf)
		}
		return &cite, cite.Lineage, cite.AsOf, nil
	}
	return nil, nil, "", apierror.New(400, apierror.CodeInvalidRequest, "give the aggregate citation to verify as citation (a member of a query answer's citations), or its lineage_filter with as_of")
}

// lineageFilter is an aggregate citation's lineage_filter: the cited rows are the rows of
// SourceFile whose value of each filter is one of its list (null matches null), whose date
// columns lie within DateRanges, and that match no group of Excludes.
type lineageFilter struct {
	SourceFile string                       `json:"source_file"`
	SHA256     string                       `json:"raw_file_sha256"`
	Filters    map[string][]json.RawMessage `json:"filters"`
	DateRanges map[string]struct {
		From string `json:"from"`
		To   string `json:"to"`
	} `json:"date_ranges"`
	Excludes []map[string]json.RawMessage `json:"excludes"`
}

// parseLineageFilter reads a lineage filter strictly: its members only, one JSON value.
func parseLineageFilter(b json.RawMessage) (*lineageFilter, *apierror.Error) {
	var lf lineageFilter
	if err := decodeStrict(b, &lf); err != nil {
		return nil, apierror.New(400, apierror.CodeEvidenceLineage, "the lineage_filter does not parse (%v); pass it exactly as the aggregate citation gives it", err)
	}
	if lf.SourceFile == "" || lf.SHA256 == "" {
		return nil, apierror.New(400, apierror.CodeEvidenceLineage, "the lineage_filter names no source_file and raw_file_sha256; pass it exactly as the aggregate citation gives it")
	}
	return &lf, nil
}

// filterValue is the canonical text of one value of a lineage filter (as the snapshot's
// dictionary writes it), or null.
func filterValue(f capability.Field, v json.RawMessage) (text string, null bool, err error) {
	// The common forms without a decoder (an (other) citation may list thousands of groups):
	// null, and a string without escapes.
	if b := bytes.TrimSpace(v); string(b) == "null" {
		return "", true, nil
	} else if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' && bytes.IndexByte(b, '\\') < 0 && utf8.Valid(b) {
		inner := b[1 : len(b)-1]
		if bytes.IndexByte(inner, '"') < 0 && bytes.IndexFunc(inner, func(r rune) bool { return r < 0x20 }) < 0 {
			return string(inner), false, nil
		}
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return "", false, err
	}
	switch t := x.(type) {
	case nil:
		return "", true, nil
	case string:
		return t, false, nil
	case bool:
		return strconv.FormatBool(t), false, nil
	case json.Number:
		if f.Type == capability.Integer {
			n, err := strconv.ParseInt(t.String(), 10, 64)
			if err != nil {
				return "", false, fmt.Errorf("%s takes integers, got %s", f.Name, t)
			}
			return strconv.FormatInt(n, 10), false, nil
		}
		return t.String(), false, nil
	}
	return "", false, fmt.Errorf("a value of %s must be a string, number, boolean or null, got %s", f.Name, v)
}

// lineageColumn is the Dict column of a lineage filter member, which must be a filter or a
// group_by dimension of c.
func lineageColumn(c *capability.Capability, snap *Snapshot, name string) (capability.Field, *columnar.Column, *apierror.Error) {
	f, ok := c.Field(name)
	if !ok || !(f.Filter || f.GroupBy) {
		return f, nil, apierror.New(400, apierror.CodeEvidenceLineage, "%q is not a filter or group_by dimension of %s; pass the lineage_filter exactly as the citation gives it", name, c.ID)
	}
	col, err := snap.Table.Column(name)
	if err != nil {
		return f, nil, unreadable(snap, err)
	}
	if col.Kind != columnar.Dict {
		return f, nil, apierror.New(500, apierror.CodeInternal, "column %s of %s is not held as a dictionary; report it", name, c.ID)
	}
	return f, col, nil
}

// allow is the set of values of one Dict column a filter allows: codes, and null.
type allow struct {
	col   *columnar.Column
	codes []bool
	null  bool
}

func (a allow) has(row int) bool {
	code := a.col.Codes[row]
	if code < 0 {
		return a.null
	}
	return a.codes[code]
}

// exclusion is the excluded groups that name one set of dimensions: their columns, and the
// groups by their key, each with its position in the posted list. A group's key is the
// number its codes (null as one more code) make in mixed radix, one digit a dimension.
type exclusion struct {
	cols   []*columnar.Column
	radix  []uint64
	groups map[uint64]int
}

// newExclusion is the exclusion over cols, or nil when their codes do not fit one key.
func newExclusion(cols []*columnar.Column) *exclusion {
	x := &exclusion{cols: cols, groups: map[uint64]int{}}
	span := uint64(1)
	for _, col := range cols {
		n := uint64(len(col.Values)) + 1
		if span > math.MaxUint64/n {
			return nil
		}
		x.radix = append(x.radix, n)
		span *= n
	}
	return x
}

// key is the key of the group of codes (-1 for null).
func (x *exclusion) key(codes func(i int) int32) uint64 {
	k := uint64(0)
	for i, n := range x.radix {
		k = k*n + uint64(codes(i)+1)
	}
	return k
}

// keyOf is the key of row r's group.
func (x *exclusion) keyOf(r int) uint64 {
	k := uint64(0)
	for i, col := range x.cols {
		k = k*x.radix[i] + uint64(col.Codes[r]+1)
	}
	return k
}

// selection is what a lineage filter selects: the cited rows, in table order.
type selection struct {
	rows []int32
}

// selectCited validates lf against the snapshot and returns the rows it cites. A filter that
// lists no value, a value the query would refuse, a null the snapshot does not hold, a date
// bound that is not a date (or instant) or a range whose bounds are reversed, an excluded
// group that is repeated or that no row under the filters holds, and a selection of no row
// are each refused with invalid_lineage_filter. One pass reads every row; excluded groups
// are looked up in a hash set, so many of them cost no more than a few.
func (s *Service) selectCited(ctx context.Context, c *capability.Capability, snap *Snapshot, lf *lineageFilter) (*selection, *apierror.Error) {
	t := snap.Table
	fileCol, err := t.Column(capability.ColSourceFile)
	if err != nil {
		return nil, unreadable(snap, err)
	}
	schemaURL := "/v1/" + c.Path + "/schema"
	var allows []allow
	names := make([]string, 0, len(lf.Filters))
	for name := range lf.Filters {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f, col, e := lineageColumn(c, snap, name)
		if e != nil {
			return nil, e
		}
		values := lf.Filters[name]
		if len(values) == 0 {
			return nil, apierror.New(400, apierror.CodeEvidenceLineage, "filter %s lists no value, so it selects no row; a citation's filter lists the values it selects: pass the lineage_filter exactly as the citation gives it", name)
		}
		a := allow{col: col, codes: make([]bool, len(col.Values))}
		for _, v := range values {
			text, null, err := filterValue(f, v)
			if err != nil {
				return nil, apierror.New(400, apierror.CodeEvidenceLineage, "filter %s: %v", name, err)
			}
			if null {
				if col.NullN() == 0 {
					return nil, apierror.New(400, apierror.CodeEvidenceLineage, "filter %s lists null, but no row of %s as_of %s has a null %s; pass the lineage_filter exactly as the citation gives it", name, c.ID, snap.Manifest.AsOf, name)
				}
				a.null = true
				continue
			}
			// A citation lists the exact values it selects (the query's filter values as the
			// snapshot spells them); a value it does not hold must be one the query accepts
			// (a number in another spelling, a code of the agency's codebook no row carries).
			if code := col.Lookup(text); code >= 0 {
				a.codes[code] = true
				continue
			}
			canon, e := s.checkValue(c, snap, f, text, schemaURL)
			if e != nil {
				return nil, apierror.New(400, apierror.CodeEvidenceLineage, "filter %s of the lineage_filter: %s", name, e.Message)
			}
			if f.Type == capability.Integer || f.Type == capability.Number || f.Type == capability.Boolean {
				if code := col.Lookup(canon[0]); code >= 0 {
					a.codes[code] = true
				}
			}
		}
		allows = append(allows, a)
	}
	ranges := make([]string, 0, len(lf.DateRanges))
	for column := range lf.DateRanges {
		ranges = append(ranges, column)
	}
	sort.Strings(ranges)
	for _, column := range ranges {
		b := lf.DateRanges[column]
		instant := false
		found := false
		for i := range c.DateRanges {
			r := c.DateRanges[i]
			if r.Column == column {
				found = true
			}
			if in := r.Instants; in != nil && (in.From == column || in.To == column) {
				found, instant = true, true
			}
		}
		if !found {
			return nil, apierror.New(400, apierror.CodeEvidenceLineage, "%q is not the date column (or instant field) of a date range of %s", column, c.ID)
		}
		if e := checkBounds(column, b.From, b.To, instant); e != nil {
			return nil, e
		}
		col, err := t.Column(column)
		if err != nil {
			return nil, unreadable(snap, err)
		}
		if col.Kind != columnar.Dict {
			return nil, apierror.New(500, apierror.CodeInternal, "column %s of %s is not held as a dictionary; report it", column, c.ID)
		}
		allows = append(allows, allow{col: col, codes: col.AllowRange(b.From, b.To)})
	}
	// The excluded groups, by the set of dimensions each names.
	bySet := map[string]*exclusion{}
	var sets []*exclusion
	for i, ex := range lf.Excludes {
		if len(ex) == 0 {
			return nil, apierror.New(400, apierror.CodeEvidenceLineage, "excludes[%d] names no dimension; each excluded group is {dimension: value} as the citation gives it", i)
		}
		keys := make([]string, 0, len(ex))
		for k := range ex {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		setKey := strings.Join(keys, "\x00")
		x := bySet[setKey]
		if x == nil {
			var cols []*columnar.Column
			for _, name := range keys {
				_, col, e := lineageColumn(c, snap, name)
				if e != nil {
					return nil, e
				}
				cols = append(cols, col)
			}
			if x = newExclusion(cols); x == nil {
				return nil, apierror.New(400, apierror.CodeEvidenceLineage, "excludes[%d] names %d dimensions, more than a group of %s has; pass the lineage_filter exactly as the citation gives it", i, len(keys), c.ID)
			}
			bySet[setKey] = x
			sets = append(sets, x)
		}
		codes := make([]int32, len(keys))
		for j, name := range keys {
			f, _ := c.Field(name)
			text, null, err := filterValue(f, ex[name])
			if err != nil {
				return nil, apierror.New(400, apierror.CodeEvidenceLineage, "excludes[%d] %s: %v", i, name, err)
			}
			codes[j] = -1
			if !null {
				if codes[j] = x.cols[j].Lookup(text); codes[j] < 0 {
					return nil, apierror.New(400, apierror.CodeEvidenceLineage, "excludes[%d]: %s %q is not a value of %s as_of %s, so it is no group the answer listed; pass the lineage_filter exactly as the citation gives it", i, name, text, c.ID, snap.Manifest.AsOf)
				}
			}
		}
		key := x.key(func(j int) int32 { return codes[j] })
		if j, dup := x.groups[key]; dup {
			return nil, apierror.New(400, apierror.CodeEvidenceLineage, "excludes[%d] repeats excludes[%d]; an (other) row's citation lists each group before it once", i, j)
		}
		x.groups[key] = i
	}
	hit := make([]bool, len(lf.Excludes))
	fileCode := fileCol.Lookup(lf.SourceFile)
	// The file's rows bound the selection: its slice is made once, at most that long.
	inFile := 0
	for _, code := range fileCol.Codes {
		if code == fileCode && fileCode >= 0 {
			inFile++
		}
	}
	sel := &selection{rows: make([]int32, 0, inFile)}
	check := s.aggregate.checkRows
rows:
	for r := 0; r < t.Rows; r++ {
		if r%check == check-1 {
			if e := cancelled(ctx); e != nil {
				return nil, e
			}
		}
		for _, a := range allows {
			if !a.has(r) {
				continue rows
			}
		}
		for _, x := range sets {
			if i, ok := x.groups[x.keyOf(r)]; ok {
				hit[i] = true
				continue rows
			}
		}
		if fileCol.Codes[r] == fileCode && fileCode >= 0 {
			sel.rows = append(sel.rows, int32(r))
		}
	}
	for i, h := range hit {
		if !h {
			return nil, apierror.New(400, apierror.CodeEvidenceLineage, "excludes[%d] is a group no row under the lineage filter's filters holds, so no answer listed it before its (other) row; pass the lineage_filter exactly as the citation gives it", i)
		}
	}
	if len(sel.rows) == 0 {
		return nil, apierror.New(400, apierror.CodeEvidenceLineage, "the lineage_filter selects no row of %s in %s as_of %s, so it cites nothing: a citation of an answer always cites at least one row; pass the lineage_filter exactly as the citation gives it", lf.SourceFile, c.ID, snap.Manifest.AsOf)
	}
	return sel, nil
}

// checkBounds checks a date range of a lineage filter: each bound empty (open) or a date
// (YYYY-MM-DD; on an instant field, an instant YYYY-MM-DDTHH:MM:SSZ), not both empty, and
// the lower not after the upper.
func checkBounds(column, from, to string, instant bool) *apierror.Error {
	layout, what := "2006-01-02", "a date YYYY-MM-DD"
	if instant {
		layout, what = "2006-01-02T15:04:05Z", "an instant YYYY-MM-DDTHH:MM:SSZ"
	}
	for _, b := range []string{from, to} {
		if b == "" {
			continue
		}
		if t, err := time.Parse(layout, b); err != nil || t.Format(layout) != b {
			return apierror.New(400, apierror.CodeEvidenceLineage, "date_ranges %s: %q is not %s; pass the lineage_filter exactly as the citation gives it", column, b, what)
		}
	}
	switch {
	case from == "" && to == "":
		return apierror.New(400, apierror.CodeEvidenceLineage, "date_ranges %s has neither bound; a citation's date range has at least one", column)
	case from != "" && to != "" && from > to:
		return apierror.New(400, apierror.CodeEvidenceLineage, "date_ranges %s runs from %s to %s: the bounds are reversed, so it selects no row", column, from, to)
	}
	return nil
}
