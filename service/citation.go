package service

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"sort"
	"strconv"
	"sync"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
	"github.com/citeq/citeq/snapshots"
)

// citeWriter renders the aggregate citations of one query, one after the other, into one
// buffer, and keeps each distinct one once, by id. An aggregate citation reads
//
//	{"source_id", "publisher", "source_url", "source_file", "raw_file_sha256", "as_of",
//	 "source_rows_count", "source_rows_sample": [{"sheet", "source_row"}…] or null,
//	 "verify": the record citation of the first sample row ({} without one),
//	 "lineage_filter": {"source_file", "raw_file_sha256", "filters": {the query's filters,
//	   then each group dimension: [its value]}, "date_ranges"?, "excludes"? (the (other) row:
//	   the groups listed before it, each {dimension: value…})},
//	 "source_view"?: {"title", "release", "sheets"}}
//
// and its id is c_ and the first 8 bytes of the SHA-256 of that rendering, in hex.
type citeWriter struct {
	c    *capability.Capability
	snap *Snapshot
	// filters are the members of the query's canonical filters, rendered without braces.
	filters []byte
	// ranges is the date_ranges member with its leading comma, or nothing.
	ranges []byte
	buf    []byte
	cites  map[string]citation
	// excludes is the rendered list of the groups the (other) row leaves out, each an object
	// of group_by dimension → value (setExcludes).
	excludes []byte
	// cache, when set, keeps citations across queries; key is the scratch of their keys,
	// whose first keyLen bytes (the snapshot, filters and date ranges) all share.
	cache  *citeCache
	key    []byte
	keyLen int
	// lin are the snapshot's lineage columns.
	lin lineageCols
}

// citation is one rendered citation: buf[start:end] of its writer.
type citation struct {
	start, end int
	// verifyRow is the table row the verify member cites, -1 for none.
	verifyRow int
}

func newCiteWriter(c *capability.Capability, snap *Snapshot, p *Params, filters Obj, buf []byte, cache *citeCache) *citeWriter {
	if cache != nil && cache.max <= 0 {
		cache = nil // off: no key is built, nothing is kept
	}
	w := &citeWriter{c: c, snap: snap, buf: buf[:0], cites: map[string]citation{}, cache: cache, lin: snap.lineage()}
	if len(filters) > 0 {
		f := appendObjOrPanic(nil, filters)
		w.filters = f[1 : len(f)-1]
	}
	var ranges Obj
	for _, r := range c.DateRanges {
		if b, ok := p.Ranges[r.Name]; ok {
			for _, rb := range rangeBounds(r, b) {
				ranges = append(ranges, KV{rb.column, Obj{{"from", rb.lo}, {"to", rb.hi}}})
			}
		}
	}
	if ranges != nil {
		w.ranges = appendObjOrPanic(append([]byte(nil), `,"date_ranges":`...), ranges)
	}
	if cache != nil {
		w.key = binary.AppendUvarint(w.key, snap.id)
		w.key = appendBytes(w.key, w.filters)
		w.key = appendBytes(w.key, w.ranges)
		w.keyLen = len(w.key)
	}
	return w
}

// setExcludes sets the groups the (other) row's citations leave out: the rows listed before
// it, each as {dimension: value…}. A row matching every value of one of them is not cited.
func (w *citeWriter) setExcludes(groups []Obj) {
	w.excludes = mustJSON(orEmpty(groups))
}

// appendBytes appends b with its length first.
func appendBytes(dst, b []byte) []byte {
	return append(binary.AppendUvarint(dst, uint64(len(b))), b...)
}

// cacheKey is the key of the citation of src for group: everything its rendering depends
// on besides what the writer's prefix holds.
func (w *citeWriter) cacheKey(src columnar.Source, group Obj) []byte {
	k := w.key[:w.keyLen]
	k = binary.AppendVarint(k, int64(src.File))
	k = binary.AppendVarint(k, src.Rows)
	k = binary.AppendUvarint(k, uint64(len(src.Sample)))
	for _, r := range src.Sample {
		k = binary.AppendVarint(k, int64(r))
	}
	k = binary.AppendUvarint(k, uint64(len(src.Sheets)))
	for _, sh := range src.Sheets {
		k = binary.AppendVarint(k, int64(sh))
	}
	k = binary.AppendUvarint(k, uint64(len(group)))
	for _, kv := range group {
		k = binary.AppendUvarint(k, uint64(len(kv.K)))
		k = append(k, kv.K...)
		if kv.V == OtherGroup {
			k = append(k, 1)
			k = appendBytes(k, w.excludes)
			continue
		}
		k = append(k, 0)
		var err error
		if k, err = appendValue(k, kv.V); err != nil {
			panic(err)
		}
		k = append(k, 0xff) // never within rendered JSON, which is valid UTF-8
	}
	w.key = k
	return k
}

// merge adds the citations of o that w does not have.
func (w *citeWriter) merge(o *citeWriter) {
	for id, cit := range o.cites {
		if _, dup := w.cites[id]; dup {
			continue
		}
		start := len(w.buf)
		w.buf = append(w.buf, o.buf[cit.start:cit.end]...)
		w.cites[id] = citation{start: start, end: len(w.buf), verifyRow: cit.verifyRow}
	}
}

// add keeps citation id, rendered in w.buf[start:], unless it is there already.
func (w *citeWriter) add(id string, start, verifyRow int) {
	if _, dup := w.cites[id]; dup {
		w.buf = w.buf[:start]
		return
	}
	w.cites[id] = citation{start: start, end: len(w.buf), verifyRow: verifyRow}
}

func appendObjOrPanic(b []byte, o Obj) []byte {
	b, err := appendObj(b, o)
	if err != nil {
		panic(err)
	}
	return b
}

// cite renders the citation of the rows of one group (its dimension values in group, the
// (other) row's being OtherGroup) from one source file, and returns its id.
func (w *citeWriter) cite(src columnar.Source, group Obj) string {
	var key []byte
	if w.cache != nil {
		key = w.cacheKey(src, group)
		if hit, ok := w.cache.get(key); ok {
			start := len(w.buf)
			w.buf = append(w.buf, hit.json...)
			w.add(hit.id, start, hit.verifyRow)
			return hit.id
		}
	}
	file := w.lin.file.Values[src.File]
	ms := w.snap.sources[file]
	start := len(w.buf)
	b := append(w.buf, `{"source_id":`...)
	b = appendString(b, ms.SourceID, false)
	b = append(b, `,"publisher":`...)
	b = appendString(b, ms.Publisher, false)
	b = append(b, `,"source_url":`...)
	b = appendString(b, ms.URL, false)
	b = appendDerived(b, ms)
	b = append(b, `,"source_file":`...)
	b = appendString(b, file, false)
	b = append(b, `,"raw_file_sha256":`...)
	b = appendString(b, ms.SHA256, false)
	b = append(b, `,"as_of":`...)
	b = appendString(b, w.snap.fileAsOf(file), false)
	b = append(b, `,"source_rows_count":`...)
	b = strconv.AppendInt(b, src.Rows, 10)
	b = append(b, `,"source_rows_sample":`...)
	if len(src.Sample) == 0 {
		b = append(b, "null"...)
	} else {
		for i, r := range src.Sample {
			if i == 0 {
				b = append(b, '[')
			} else {
				b = append(b, ',')
			}
			b = append(b, `{"sheet":`...)
			b = appendQuoted(b, w.lin.sheet, w.lin.lineageText.sheet, int(r))
			b = append(b, `,"source_row":`...)
			b = strconv.AppendInt(b, intAt(w.lin.row, int(r)), 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"verify":`...)
	verifyRow := -1
	if len(src.Sample) > 0 {
		verifyRow = int(src.Sample[0])
		b = w.lin.appendRecordCitation(b, w.snap, verifyRow)
	} else {
		b = append(b, "{}"...)
	}
	b = append(b, `,"lineage_filter":{"source_file":`...)
	b = appendString(b, file, false)
	b = append(b, `,"raw_file_sha256":`...)
	b = appendString(b, ms.SHA256, false)
	b = append(b, `,"filters":{`...)
	b = append(b, w.filters...)
	first := len(w.filters) == 0
	other := false
	for _, kv := range group {
		if kv.V == OtherGroup {
			other = true
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, kv.K, true)
		b = append(b, ":["...)
		var err error
		if b, err = appendValue(b, kv.V); err != nil {
			panic(err)
		}
		b = append(b, ']')
	}
	b = append(b, '}')
	b = append(b, w.ranges...)
	if other {
		b = append(b, `,"excludes":`...)
		b = append(b, w.excludes...)
	}
	b = append(b, '}')
	if w.c.SourceView {
		b = append(b, `,"source_view":{"title":`...)
		b = appendString(b, ms.Title, false)
		b = append(b, `,"release":`...)
		b = appendString(b, ms.Release, false)
		b = append(b, `,"sheets":`...)
		if len(src.Sheets) == 0 {
			b = append(b, "null"...)
		} else {
			sheets := w.lin.sheet.Values
			for i, sh := range src.Sheets {
				if i == 0 {
					b = append(b, '[')
				} else {
					b = append(b, ',')
				}
				b = appendString(b, sheets[sh], false)
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	b = append(b, '}')
	sum := sha256.Sum256(b[start:])
	var ref [2 + 16]byte
	ref[0], ref[1] = 'c', '_'
	hex.Encode(ref[2:], sum[:8])
	id := string(ref[:])
	w.buf = b
	if key != nil {
		w.cache.put(key, cachedCite{id: id, json: append([]byte(nil), b[start:]...), verifyRow: verifyRow})
	}
	w.add(id, start, verifyRow)
	return id
}

// refs cites each source of a group and returns the ids in source order.
func (w *citeWriter) refs(srcs []columnar.Source, group Obj) []string {
	if len(srcs) == 0 {
		return nil
	}
	refs := make([]string, len(srcs))
	for i, src := range srcs {
		refs[i] = w.cite(src, group)
	}
	return refs
}

// object is the citations member of the response: every citation by id, ids ascending.
// With evidence, each citation gets the verification of its verify member as a last
// member, evidence (its id stays the hash of the citation without it).
func (w *citeWriter) object(s *Service, evidence bool) Obj {
	ids := make([]string, 0, len(w.cites))
	for id := range w.cites {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make(Obj, len(ids))
	memo := hashMemo{}
	for i, id := range ids {
		cit := w.cites[id]
		body := w.buf[cit.start:cit.end]
		if evidence {
			verify := []byte("{}")
			if cit.verifyRow >= 0 {
				verify = appendRecordCitation(nil, w.snap, cit.verifyRow)
			}
			ev, e := s.evidenceWith(verify, memo)
			if e != nil {
				ev = Obj{{"verified", false}, {"error", Obj{{"code", e.Code}, {"message", e.Message}}}}
			}
			withEv := append(append([]byte(nil), body[:len(body)-1]...), `,"evidence":`...)
			withEv = append(appendObjOrPanic(withEv, ev), '}')
			body = withEv
		}
		out[i] = KV{id, rawJSON(body)}
	}
	return out
}

// appendRecordCitation renders the row-level citation of table row r: what the evidence
// endpoint takes, {"source_id", "source_url", "source_file", "sheet", "source_row",
// "raw_file_sha256", "as_of"}.
func appendRecordCitation(b []byte, snap *Snapshot, r int) []byte {
	return snap.lineage().appendRecordCitation(b, snap, r)
}

// lineageCols are the lineage columns of a snapshot's table, which every query decodes, with
// their values rendered as JSON strings once per snapshot (lineageText).
type lineageCols struct {
	file, id, sheet, row, sha *columnar.Column
	*lineageText
}

// lineageText holds, by dictionary code, a snapshot's lineage values rendered as JSON
// strings, and for each source file the members a record citation takes from the manifest.
type lineageText struct {
	once            sync.Once
	file, id, sheet [][]byte
	sha             [][]byte
	url, derived    [][]byte // by file code: the quoted source_url, the derived members
	asOf            []byte
}

func (snap *Snapshot) lineage() lineageCols {
	t := snap.Table
	l := lineageCols{file: t.Col(capability.ColSourceFile), id: t.Col(capability.ColSourceID), sheet: t.Col(capability.ColSheet),
		row: t.Col(capability.ColSourceRow), sha: t.Col(capability.ColRawSHA256), lineageText: &snap.lintext}
	l.once.Do(func() {
		l.lineageText.file, l.lineageText.id, l.lineageText.sheet, l.lineageText.sha = quotedValues(l.file), quotedValues(l.id), quotedValues(l.sheet), quotedValues(l.sha)
		l.asOf = appendString(nil, snap.Manifest.AsOf, false)
		if l.file.Kind == columnar.Dict {
			for _, f := range l.file.Values {
				src := snap.sources[f]
				l.url = append(l.url, appendString(nil, src.URL, false))
				l.derived = append(l.derived, appendDerived(nil, src))
			}
		}
	})
	return l
}

// quotedValues are the values of a Dict column rendered as JSON strings (nil for another
// kind of column).
func quotedValues(c *columnar.Column) [][]byte {
	if c == nil || c.Kind != columnar.Dict {
		return nil
	}
	out := make([][]byte, len(c.Values))
	for i, v := range c.Values {
		out[i] = appendString(nil, v, false)
	}
	return out
}

// appendQuoted writes row r of lineage column c as a JSON string (its text, "" when null),
// from q, its values rendered once, when it has them.
func appendQuoted(b []byte, c *columnar.Column, q [][]byte, r int) []byte {
	if q != nil {
		if code := c.Codes[r]; code >= 0 {
			return append(b, q[code]...)
		}
		return append(b, `""`...)
	}
	v, _ := c.Text(r)
	return appendString(b, v, false)
}

// appendRecordCitation is the package function, with the columns looked up once.
func (l lineageCols) appendRecordCitation(b []byte, snap *Snapshot, r int) []byte {
	b = append(b, `{"source_id":`...)
	b = appendQuoted(b, l.id, l.lineageText.id, r)
	b = append(b, `,"source_url":`...)
	var derived []byte
	if code := l.file.Codes[r]; l.url != nil && code >= 0 {
		b = append(b, l.url[code]...)
		derived = l.derived[code]
	} else {
		file, _ := l.file.Text(r)
		src := snap.sources[file]
		b = appendString(b, src.URL, false)
		derived = appendDerived(nil, src)
	}
	b = append(b, `,"source_file":`...)
	b = appendQuoted(b, l.file, l.lineageText.file, r)
	b = append(b, `,"sheet":`...)
	b = appendQuoted(b, l.sheet, l.lineageText.sheet, r)
	b = append(b, `,"source_row":`...)
	b = strconv.AppendInt(b, intAt(l.row, r), 10)
	b = append(b, `,"raw_file_sha256":`...)
	b = appendQuoted(b, l.sha, l.lineageText.sha, r)
	b = append(b, `,"as_of":`...)
	if snap.derived != nil {
		file, _ := l.file.Text(r)
		b = appendString(b, snap.fileAsOf(file), false)
	} else {
		b = append(b, l.asOf...)
	}
	b = append(b, derived...)
	return append(b, '}')
}

// fileAsOf is the as_of the snapshot cites file with: its own, or, for a derived snapshot,
// that of the input snapshot the file belongs to.
func (snap *Snapshot) fileAsOf(file string) string {
	if snap.derived != nil {
		if d, ok := snap.derived.fileAsOf[file]; ok {
			return d
		}
	}
	return snap.Manifest.AsOf
}

// intAt is row r of an integer column (0 when null or not an integer).
func intAt(c *columnar.Column, r int) int64 {
	if c.Kind == columnar.Int {
		if c.Ints.IsNull(r) {
			return 0
		}
		return c.Ints.Value(r)
	}
	v, _ := c.Text(r)
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}

// appendDerived marks a citation of a derived file (a third party's extract or re-save of
// the publisher's data): "derived":true and the publisher's own address of the original.
// The file named, hashed and re-opened is the derived copy itself.
func appendDerived(b []byte, src snapshots.Source) []byte {
	if !src.Derived {
		return b
	}
	b = append(b, `,"derived":true,"original_url":`...)
	return appendString(b, src.OriginalURL, false)
}

// bufPool recycles the scratch buffers responses and citations are rendered in.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// maxPooledBuf is the largest buffer put back in bufPool, so that one huge response does
// not stay pinned.
const maxPooledBuf = 4 << 20

func getBuf() *[]byte { return bufPool.Get().(*[]byte) }

func putBuf(b *[]byte, used []byte) {
	if cap(used) > maxPooledBuf {
		return
	}
	*b = used[:0]
	bufPool.Put(b)
}
