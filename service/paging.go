package service

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
)

// PageBytes is the size budget of one page: the detail records of an answer with
// include_records, and the project lists of a comparison (compare_as_of), stop at the first
// item that takes them past it (a page holds at least one item). An answer is the same
// document over REST and MCP, so it pages alike over both.
const PageBytes = 128 << 10

// nextPageHow says how to fetch the next page.
const nextPageHow = "more follow: send the same params with cursor set to next_cursor (over MCP: the same tool arguments plus cursor); pin as_of to the answer's as_of so that the pages stay of one snapshot"

// splitCursor takes cursor out of raw and returns its value, "" when absent.
func splitCursor(raw members) (members, string, *apierror.Error) {
	return splitString(raw, capability.ParamCursor, apierror.New(400, apierror.CodeInvalidParameter, "%s must be the summary.next_cursor string of the page before; leave it out for the first page", capability.ParamCursor))
}

// splitString takes the string parameter name out of raw (the other params are validated as
// usual) and returns its value, "" when absent; a value that is not a non-empty string is bad.
func splitString(raw members, name string, bad *apierror.Error) (members, string, *apierror.Error) {
	v, ok := raw[name]
	if !ok {
		return raw, "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil || s == "" {
		return nil, "", bad
	}
	out := make(members, len(raw))
	for k, x := range raw {
		if k != name {
			out[k] = x
		}
	}
	return out, s, nil
}

// pageKey identifies the answer a cursor pages: the capability, the snapshots and the
// canonical params, so that a cursor is refused for any other query or a later snapshot.
func pageKey(c *capability.Capability, snap *Snapshot, p *Params, compare string) string {
	sum := sha256.Sum256(append([]byte(c.ID+"\x00"+snap.Manifest.AsOf+"\x00"+snap.Manifest.Fingerprint+"\x00"+compare+"\x00"), mustJSON(p.canonical(c))...))
	return hex.EncodeToString(sum[:6])
}

// cursorAt is the cursor of the page that starts at item offset of the answer with key.
func cursorAt(key string, offset int) string { return strconv.Itoa(offset) + "." + key }

// setPage reads cursor into p: the offset of the page it names, checked against the query.
func setPage(c *capability.Capability, snap *Snapshot, p *Params, compare, cursor string) *apierror.Error {
	p.pageKey = pageKey(c, snap, p, compare)
	if cursor == "" {
		return nil
	}
	if !p.IncludeRecords && compare == "" {
		return apierror.New(400, apierror.CodeInvalidParameter, "this answer has no pages: %s pages the records of include_records and the lists of %s; leave it out", capability.ParamCursor, capability.ParamCompareAsOf)
	}
	off, k, ok := strings.Cut(cursor, ".")
	n, err := strconv.Atoi(off)
	if !ok || err != nil || n < 1 || k != p.pageKey {
		return apierror.New(400, apierror.CodeInvalidParameter, "cursor %q is not a page of this query at as_of %s: send exactly the params of the first page (as_of pinned to its as_of) with the next_cursor its summary gave", cursor, snap.Manifest.AsOf)
	}
	p.offset, p.cursor = n, cursor
	return nil
}

// pageSummary is what a paged summary adds: the cursor of this page, and the next one's
// with how to fetch it when more follow.
func pageSummary(p *Params, end int, more bool) Obj {
	var o Obj
	if p.cursor != "" {
		o = append(o, KV{"cursor", p.cursor})
	}
	if more {
		o = append(o, KV{"next_cursor", cursorAt(p.pageKey, end)}, KV{"next_page", nextPageHow})
	}
	return o
}

// pageLists cuts the lists of a comparison, taken one after the other, to the page that
// starts at item offset and ends at the first item past PageBytes; it returns the cut lists,
// where each starts in its whole list, and the offset after the page (0 when none follows).
func pageLists(offset int, lists ...[]Obj) ([][]Obj, []int, int) {
	out := make([][]Obj, len(lists))
	from := make([]int, len(lists))
	for li := range lists {
		out[li] = []Obj{}
	}
	pos, size, taken := 0, 0, 0
	for li, l := range lists {
		from[li] = max(0, min(len(l), offset-pos))
		for i := from[li]; i < len(l); i++ {
			if taken > 0 && size >= PageBytes {
				return out, from, pos + i
			}
			size += len(mustJSON(l[i]))
			out[li] = append(out[li], l[i])
			taken++
		}
		pos += len(l)
	}
	return out, from, 0
}
