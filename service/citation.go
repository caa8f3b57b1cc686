package service

import (
	"cmp"
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"slices"
	"strconv"
	"sync"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
	"github.com/citeq/citeq/jsonw"
	"github.com/citeq/citeq/snapshots"
)

// citeWriter renders the aggregate citations of one query, one after the other, into one
// buffer, and keeps each distinct one once, by id. An aggregate citation reads
//
//	{"source_id", "publisher", "source_url", "source_file", "raw_file_sha256", "as_of",
//	 "source_rows_count", "source_rows_sample": [{"sheet", "source_row", "original_url"?,
//	   "original_page"?}…] or null (the row's original: see lineageCols.writeOriginal),
//	 "verify": the record citation of the first sample row ({} without one),
//	 "lineage_filter": {"source_file", "raw_file_sha256", "filters": {the query's filters,
//	   then each group dimension: [its value]}, "date_ranges"?, "excludes"? (the (other) row:
//	   the groups listed before it, each {dimension: value…})},
//	 "source_view"?: {"title", "release", "sheets"}}
//
// and its id is c_ and the first 8 bytes of the SHA-256 of that rendering, in hex. The
// members up to source_rows_count are the same for every citation of a source file of a
// snapshot: they are rendered, and hashed, once per snapshot (citeHead).
type citeWriter struct {
	c    *capability.Capability
	snap *Snapshot
	// filters are the members of the query's canonical filters, rendered without braces.
	filters []byte
	// ranges is the date_ranges member, or nothing.
	ranges []byte
	buf    []byte
	// cites are the citations rendered, in the order rendered, an id repeated when its
	// citation is (sorted sorts them and drops the repeats).
	cites []citation
	// merged is the buffer of the writer merged into this one (merge), which the citations
	// marked merged are read from.
	merged []byte
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
	// digest hashes each citation, from the state its file's head leaves (citeHead.state).
	digest hashState
	sum    [sha256.Size]byte
}

// hashState is a SHA-256 digest whose state can be set to one saved before.
type hashState interface {
	hash.Hash
	encoding.BinaryUnmarshaler
}

// citeID is a citation's id as a number: the first 8 bytes of its SHA-256, big-endian, so
// that ids sort as their hex renderings do.
type citeID uint64

// quoted is id as the JSON string "c_<16 hex digits>", in q.
func (id citeID) quoted(q *[20]byte) []byte {
	var raw [8]byte
	binary.BigEndian.PutUint64(raw[:], uint64(id))
	copy(q[:], `"c_`)
	hex.Encode(q[3:19], raw[:])
	q[19] = '"'
	return q[:]
}

// writeRef writes id as the JSON string "c_<16 hex digits>".
func writeRef(w jsonw.Buf, id citeID) jsonw.Buf {
	var q [20]byte
	return w.Raw(id.quoted(&q))
}

// String is id as the responses write it, c_<16 hex digits>.
func (id citeID) String() string {
	var q [20]byte
	return string(id.quoted(&q)[1:19])
}

// citation is one rendered citation: buf[start:end] of its writer, or of the writer merged
// into it.
type citation struct {
	id         citeID
	start, end int
	// verifyRow is the table row the verify member cites, -1 for none.
	verifyRow int
	merged    bool
}

func newCiteWriter(c *capability.Capability, snap *Snapshot, p *Params, filters Obj, buf []byte, cache *citeCache) *citeWriter {
	if cache != nil && cache.max <= 0 {
		cache = nil // off: no key is built, nothing is kept
	}
	w := &citeWriter{c: c, snap: snap, buf: buf[:0], cache: cache, lin: snap.lineage(),
		digest: sha256.New().(hashState)}
	if len(filters) > 0 {
		fw, err := jsonw.Buf{}.Members(filters)
		if err != nil {
			panic(err)
		}
		w.filters = fw.Bytes()
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
		rw, err := jsonw.Buf{}.Key("date_ranges").Obj(ranges)
		if err != nil {
			panic(err)
		}
		w.ranges = rw.Bytes()
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

// cacheKey is the key of the citation of src for a group (its lineage filter members gf,
// other for the (other) row): everything its rendering depends on besides what the
// writer's prefix holds.
func (w *citeWriter) cacheKey(src columnar.Source, gf []byte, other bool) []byte {
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
	k = appendBytes(k, gf)
	if other {
		k = append(k, 1)
		k = appendBytes(k, w.excludes)
	} else {
		k = append(k, 0)
	}
	w.key = k
	return k
}

// merge adds the citations of o; they stay in o's buffer, which must not be reused until
// w's citations are written.
func (w *citeWriter) merge(o *citeWriter) {
	w.merged = o.buf
	for _, cit := range o.cites {
		cit.merged = true
		w.cites = append(w.cites, cit)
	}
}

// add keeps citation id, rendered in w.buf[start:].
func (w *citeWriter) add(id citeID, start, verifyRow int) {
	w.cites = append(w.cites, citation{id: id, start: start, end: len(w.buf), verifyRow: verifyRow})
}

// sorted sorts the citations by id and drops the repeats of an id.
func (w *citeWriter) sorted() []citation {
	w.cites = slices.CompactFunc(sortCitations(w.cites), func(a, b citation) bool { return a.id == b.id })
	return w.cites
}

// sortCitations sorts c by id: distributed by the top byte of the id (ids are hashes, so
// the 256 runs are short), then each run sorted on its own.
func sortCitations(c []citation) []citation {
	byID := func(a, b citation) int { return cmp.Compare(a.id, b.id) }
	if len(c) < 256 {
		slices.SortFunc(c, byID)
		return c
	}
	var at [257]int
	for _, x := range c {
		at[x.id>>56+1]++
	}
	for i := 1; i < len(at); i++ {
		at[i] += at[i-1]
	}
	out := make([]citation, len(c))
	next := at
	for _, x := range c {
		out[next[x.id>>56]] = x
		next[x.id>>56]++
	}
	for i := range 256 {
		run := out[at[i]:at[i+1]]
		if len(run) > 32 {
			slices.SortFunc(run, byID)
			continue
		}
		for j := 1; j < len(run); j++ { // insertion sort: a run holds a few ids
			for k := j; k > 0 && run[k].id < run[k-1].id; k-- {
				run[k], run[k-1] = run[k-1], run[k]
			}
		}
	}
	return out
}

// body is the rendering of cit.
func (w *citeWriter) body(cit citation) []byte {
	if cit.merged {
		return w.merged[cit.start:cit.end]
	}
	return w.buf[cit.start:cit.end]
}

// cite renders the citation of the rows of one group from one source file, and returns its
// id. gf are the group's members of the lineage filter's filters, rendered without braces
// (each dimension: [its value]; none for the (other) row and for the totals); other marks
// the (other) row, whose lineage filter has the excludes.
func (w *citeWriter) cite(src columnar.Source, gf []byte, other bool) citeID {
	var key []byte
	if w.cache != nil {
		key = w.cacheKey(src, gf, other)
		if hit, ok := w.cache.get(key); ok {
			start := len(w.buf)
			w.buf = append(w.buf, hit.json...)
			w.add(hit.id, start, hit.verifyRow)
			return hit.id
		}
	}
	head := &w.lin.heads[src.File]
	start := len(w.buf)
	b := jsonw.NewBuf(w.buf).Append(head.head).Int(src.Rows).Name(nSourceRowsSample)
	b = w.lin.writeSample(b, src.Sample, len(w.lin.derived[src.File]) > 0).Name(nVerify)
	verifyRow := -1
	if len(src.Sample) > 0 {
		verifyRow = int(src.Sample[0])
		b = w.lin.writeRecordCitation(b, w.snap, verifyRow)
	} else {
		b = b.OpenObj().CloseObj()
	}
	b = b.Raw(head.filter).Raw(w.filters).Raw(gf).CloseObj().Raw(w.ranges)
	if other {
		b = b.Name(nExcludes).Append(w.excludes)
	}
	b = b.CloseObj()
	if w.c.SourceView {
		b = b.Raw(head.view)
		if len(src.Sheets) == 0 {
			b = b.Null()
		} else {
			sheets := w.lin.lineageText.sheet
			b = b.OpenArr()
			for _, sh := range src.Sheets {
				b = b.Raw(sheets[sh])
			}
			b = b.CloseArr()
		}
		b = b.CloseObj()
	}
	b = b.CloseObj()
	if err := w.digest.UnmarshalBinary(head.state); err != nil {
		panic(err) // a state the same digest saved
	}
	w.buf = b.Bytes()
	w.digest.Write(w.buf[start+len(head.head):])
	id := citeID(binary.BigEndian.Uint64(w.digest.Sum(w.sum[:0])))
	if key != nil {
		w.cache.put(key, cachedCite{id: id, json: append([]byte(nil), w.buf[start:]...), verifyRow: verifyRow})
	}
	w.add(id, start, verifyRow)
	return id
}

// refs cites each source of a group (its dimension values in group, the (other) row's
// being OtherGroup) and returns the ids in source order.
func (w *citeWriter) refs(srcs []columnar.Source, group Obj) []string {
	if len(srcs) == 0 {
		return nil
	}
	var gf jsonw.Buf
	other := false
	for _, kv := range group {
		if kv.V == OtherGroup {
			other = true
			continue
		}
		var err error
		if gf, err = gf.Key(kv.K).OpenArr().Value(kv.V); err != nil {
			panic(err)
		}
		gf = gf.CloseArr()
	}
	refs := make([]string, len(srcs))
	for i, src := range srcs {
		refs[i] = w.cite(src, gf.Bytes(), other).String()
	}
	return refs
}

// citationPieces appends to pieces those of the citations member of the response: every
// citation by id, ids ascending, each its id and colon, then its rendering. With evidence
// (run not nil), each citation gets the verification of its verify member as a last member,
// evidence (its id stays the hash of the citation without it).
func (w *citeWriter) citationPieces(pieces [][]byte, s *Service, run *verifyRun) [][]byte {
	cites := w.sorted()
	if len(cites) == 0 {
		return append(pieces, []byte("{}"))
	}
	// Each ref is a piece of its own, the citation written after it: the comma before the
	// next is written, not read from the ref.
	refs := jsonw.NewBuf(make([]byte, 0, len(cites)*len(`,"c_0123456789abcdef":`)))
	for i, cit := range cites {
		start := refs.Len()
		if i == 0 {
			refs = refs.OpenObj()
		} else {
			refs = refs.Comma()
		}
		var q [20]byte
		refs = refs.KeyJSON(cit.id.quoted(&q))
		rb := refs.Bytes()
		ref, body := rb[start:len(rb):len(rb)], w.body(cit)
		if run == nil {
			pieces = append(pieces, ref, body)
			continue
		}
		verify := []byte("{}")
		if cit.verifyRow >= 0 {
			verify = appendRecordCitation(nil, w.snap, cit.verifyRow)
		}
		ev, e := s.evidenceWith(verify, run)
		if e != nil {
			ev = Obj{{"verified", false}, {"error", Obj{{"code", e.Code}, {"message", e.Message}}}}
		}
		evw, err := jsonw.NewBuf(append([]byte(nil), evidenceMember...)).Obj(ev)
		if err != nil {
			panic(err)
		}
		pieces = append(pieces, ref, body[:len(body)-1], evw.CloseObj().Bytes())
	}
	return append(pieces, []byte("}"))
}

// appendRecordCitation renders the row-level citation of table row r: what the evidence
// endpoint takes, {"source_id", "source_url", "source_file", "sheet", "source_row",
// "raw_file_sha256", "as_of", "derived"?, "original_url"?, "original_page"?}.
func appendRecordCitation(b []byte, snap *Snapshot, r int) []byte {
	return snap.lineage().writeRecordCitation(jsonw.NewBuf(b), snap, r).Bytes()
}

// evidenceMember opens the evidence member of a citation rendered with its verification.
var evidenceMember = jsonw.Member("evidence")

// lineageCols are the lineage columns of a snapshot's table, which every query decodes, with
// their values rendered as JSON strings once per snapshot (lineageText).
type lineageCols struct {
	file, id, sheet, row, sha *columnar.Column
	// doc and page are the columns naming the publisher's document and page each row of a
	// transcription was copied from (capability.Originals), nil when the capability has none.
	doc, page *columnar.Column
	*lineageText
}

// lineageText holds, by dictionary code, a snapshot's lineage values rendered as JSON
// strings, and for each source file the members a record citation takes from the manifest.
type lineageText struct {
	once            sync.Once
	file, id, sheet [][]byte
	sha             [][]byte
	url, derived    [][]byte // by file code: the quoted source_url, the derived members (derivedMembers)
	asOf            []byte
	heads           []citeHead // by file code
}

// citeHead holds the parts of the aggregate citations of one source file of a snapshot that
// are the same for all of them, rendered once.
type citeHead struct {
	// head is every member up to source_rows_count, and its name: {"source_id", "publisher",
	// "source_url", "derived"?, "original_url"?, "source_file", "raw_file_sha256", "as_of",
	// "source_rows_count":
	head []byte
	// state is the SHA-256 state after hashing head.
	state []byte
	// filter opens the lineage_filter member, up to the brace of its filters member.
	filter []byte
	// view opens the source_view member, up to the name of its sheets member.
	view []byte
}

// newCiteHead renders the constant parts of the citations of file.
func newCiteHead(snap *Snapshot, file string) citeHead {
	ms := snap.sources[file]
	b := jsonw.Buf{}.OpenObj().KeyString("source_id", ms.SourceID).KeyString("publisher", ms.Publisher).KeyString("source_url", ms.URL)
	b = writeDerived(b, ms).KeyString("source_file", file).KeyString("raw_file_sha256", ms.SHA256).
		KeyString("as_of", snap.fileAsOf(file)).Key("source_rows_count")
	d := sha256.New()
	d.Write(b.Bytes())
	state, err := d.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		panic(err)
	}
	f := jsonw.Buf{}.Key("lineage_filter").OpenObj().KeyString("source_file", file).KeyString("raw_file_sha256", ms.SHA256).
		Key("filters").OpenObj()
	v := jsonw.Buf{}.Key("source_view").OpenObj().KeyString("title", ms.Title).KeyString("release", ms.Release).Key("sheets")
	return citeHead{head: b.Bytes(), state: state, filter: f.Bytes(), view: v.Bytes()}
}

func (snap *Snapshot) lineage() lineageCols {
	t := snap.Table
	l := lineageCols{file: t.Col(capability.ColSourceFile), id: t.Col(capability.ColSourceID), sheet: t.Col(capability.ColSheet),
		row: t.Col(capability.ColSourceRow), sha: t.Col(capability.ColRawSHA256), lineageText: &snap.lintext}
	if o := snap.Cap.Originals; o != nil {
		l.doc, l.page = t.Col(o.Document), t.Col(o.Page)
	}
	l.once.Do(func() {
		l.lineageText.file, l.lineageText.id, l.lineageText.sheet, l.lineageText.sha = quotedValues(l.file), quotedValues(l.id), quotedValues(l.sheet), quotedValues(l.sha)
		l.asOf = jsonw.AppendString(nil, snap.Manifest.AsOf, false)
		if l.file.Kind == columnar.Dict {
			for _, f := range l.file.Values {
				src := snap.sources[f]
				l.url = append(l.url, jsonw.AppendString(nil, src.URL, false))
				l.derived = append(l.derived, derivedMembers(src))
				l.heads = append(l.heads, newCiteHead(snap, f))
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
		out[i] = jsonw.AppendString(nil, v, false)
	}
	return out
}

// writeQuoted writes row r of lineage column c as a JSON string (its text, "" when null),
// from q, its values rendered once, when it has them: the value of the member just named,
// which takes no comma before it.
func writeQuoted(w jsonw.Buf, c *columnar.Column, q [][]byte, r int) jsonw.Buf {
	if q != nil {
		if code := c.Codes[r]; code >= 0 {
			return w.Append(q[code])
		}
		return w.String("")
	}
	v, _ := c.Text(r)
	return w.String(v)
}

// writeRecordCitation is appendRecordCitation, with the columns looked up once.
func (l lineageCols) writeRecordCitation(w jsonw.Buf, snap *Snapshot, r int) jsonw.Buf {
	w = writeQuoted(w.OpenObj().Name(nSourceID), l.id, l.lineageText.id, r).Name(nSourceURL)
	var derived []byte
	if code := l.file.Codes[r]; l.url != nil && code >= 0 {
		w = w.Append(l.url[code]) // the value of source_url
		derived = l.derived[code]
	} else {
		file, _ := l.file.Text(r)
		src := snap.sources[file]
		w = w.String(src.URL)
		derived = derivedMembers(src)
	}
	w = writeQuoted(w.Name(nSourceFile), l.file, l.lineageText.file, r)
	w = writeQuoted(w.Name(nSheet), l.sheet, l.lineageText.sheet, r)
	w = w.Name(nSourceRow).Int(intAt(l.row, r))
	w = writeQuoted(w.Name(nRawFileSHA256), l.sha, l.lineageText.sha, r).Name(nAsOf)
	if snap.derived != nil {
		file, _ := l.file.Text(r)
		w = w.String(snap.fileAsOf(file))
	} else {
		w = w.Append(l.asOf) // the value of as_of
	}
	if len(derived) > 0 && l.hasOriginal(r) {
		w = l.writeOriginal(w.Name(nDerived).Bool(true), r)
	} else {
		w = w.Raw(derived)
	}
	return w.CloseObj()
}

// writeSample writes the source_rows_sample of an aggregate citation: each of the table rows
// rows as {"sheet", "source_row"}, with the row's original (writeOriginal) when the file is
// derived; null for none.
func (l lineageCols) writeSample(w jsonw.Buf, rows []int32, derived bool) jsonw.Buf {
	if len(rows) == 0 {
		return w.Null()
	}
	w = w.OpenArr()
	for _, r := range rows {
		w = writeQuoted(w.OpenObj().Name(nSheet), l.sheet, l.lineageText.sheet, int(r))
		w = w.Name(nSourceRow).Int(intAt(l.row, int(r)))
		if derived {
			w = l.writeOriginal(w, int(r))
		}
		w = w.CloseObj()
	}
	return w.CloseArr()
}

// citationColumns are the columns the record citations of c read: the lineage columns, and
// the original document and page of its transcriptions' rows (capability.Originals).
func citationColumns(c *capability.Capability) []string {
	cols := []string{capability.ColSourceFile, capability.ColSheet, capability.ColSourceID, capability.ColSourceRow, capability.ColRawSHA256}
	if o := c.Originals; o != nil {
		cols = append(cols, o.Document, o.Page)
	}
	return cols
}

// hasOriginal reports whether row r names the publisher's document it was copied from.
func (l lineageCols) hasOriginal(r int) bool {
	if l.doc == nil {
		return false
	}
	doc, ok := l.doc.Text(r)
	return ok && doc != ""
}

// writeOriginal writes the original of row r of a derived file whose rows each name the
// publisher's document and page they were copied from (a transcription):
// ,"original_url":<the document>,"original_page":<its page> (the page left out when the row
// names none). A row that names no document, or a capability whose rows do not, writes
// nothing: its citation's original is the file's.
func (l lineageCols) writeOriginal(w jsonw.Buf, r int) jsonw.Buf {
	if !l.hasOriginal(r) {
		return w
	}
	doc, _ := l.doc.Text(r)
	w = w.Name(nOriginalURL).String(doc)
	if l.page != nil {
		if page, ok := l.page.Text(r); ok && page != "" {
			w = w.Name(nOriginalPage).String(page)
		}
	}
	return w
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

// writeDerived marks a citation of a derived file (a third party's extract or re-save of
// the publisher's data): "derived":true and the publisher's own address of the original.
// The file named, hashed and re-opened is the derived copy itself.
func writeDerived(w jsonw.Buf, src snapshots.Source) jsonw.Buf {
	if src.Derived {
		w = w.Key("derived").Bool(true).KeyString("original_url", src.OriginalURL)
	}
	return w
}

// derivedMembers are the members writeDerived writes for src, rendered (none for a file that
// is not derived).
func derivedMembers(src snapshots.Source) []byte {
	return writeDerived(jsonw.Buf{}, src).Bytes()
}

// The names of the members written on every row, note and citation of an answer, rendered:
// constants, so that writing one is a few stores, with no call (TestNameConstants checks
// each is what jsonw.NameOf renders).
const (
	nAsOf             jsonw.Name = `"as_of":`
	nCitation         jsonw.Name = `"citation":`
	nCitationRef      jsonw.Name = `"citation_ref":`
	nCitationRefs     jsonw.Name = `"citation_refs":`
	nCode             jsonw.Name = `"code":`
	nCount            jsonw.Name = `"count":`
	nDerived          jsonw.Name = `"derived":`
	nExcludes         jsonw.Name = `"excludes":`
	nGroup            jsonw.Name = `"group":`
	nLineage          jsonw.Name = `"lineage":`
	nMessage          jsonw.Name = `"message":`
	nMetric           jsonw.Name = `"metric":`
	nMetrics          jsonw.Name = `"metrics":`
	nNotes            jsonw.Name = `"notes":`
	nOriginalPage     jsonw.Name = `"original_page":`
	nOriginalURL      jsonw.Name = `"original_url":`
	nRawFileSHA256    jsonw.Name = `"raw_file_sha256":`
	nSheet            jsonw.Name = `"sheet":`
	nSourceFile       jsonw.Name = `"source_file":`
	nSourceID         jsonw.Name = `"source_id":`
	nSourceRow        jsonw.Name = `"source_row":`
	nSourceRowsCount  jsonw.Name = `"source_rows_count":`
	nSourceRowsSample jsonw.Name = `"source_rows_sample":`
	nSourceURL        jsonw.Name = `"source_url":`
	nVerify           jsonw.Name = `"verify":`
)

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
