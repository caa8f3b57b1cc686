package service

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
)

// rowKey names one row of one sheet of one raw file.
type rowKey struct {
	sha, sheet string
	row        int64
}

// citedRows is what one snapshot cites: every source row of its fact table (with the
// source_id the row carries) and every row of an agency code table its codebooks quote.
type citedRows struct {
	rows   map[rowKey]rowCiter
	sheets map[[2]string]bool
}

// rowCiter is who cites a row: the source_id it is cited with and the fact table's row that
// cites it (-1 for a row of a code table a codebook quotes).
type rowCiter struct {
	sourceID string
	row      int32
}

// citedRowBytes is about what one row of the index takes in memory (its key and value
// share their text with the decoded columns).
const citedRowBytes = 112

// cited returns the rows snap cites, indexed on first use and kept with its table under the
// memory budget.
func (snap *Snapshot) cited() (*citedRows, error) {
	v, err := snap.Table.Memo("cited", func() (any, int64, error) {
		c := &citedRows{rows: map[rowKey]rowCiter{}, sheets: map[[2]string]bool{}}
		t := snap.Table
		if err := t.Need(capability.ColSourceID, capability.ColSheet, capability.ColSourceRow, capability.ColRawSHA256); err != nil {
			return nil, 0, fmt.Errorf("index the citations of %s %s: %w", snap.Cap.ID, snap.Manifest.AsOf, err)
		}
		ids, sheets, rows, shas := t.Col(capability.ColSourceID), t.Col(capability.ColSheet), t.Col(capability.ColSourceRow), t.Col(capability.ColRawSHA256)
		for r := 0; r < t.Rows; r++ {
			sha, _ := shas.Text(r)
			sheet, _ := sheets.Text(r)
			id, _ := ids.Text(r)
			rowText, _ := rows.Text(r)
			n, err := strconv.ParseInt(rowText, 10, 64)
			if err != nil {
				continue
			}
			c.rows[rowKey{sha, sheet, n}] = rowCiter{id, int32(r)}
			c.sheets[[2]string{sha, sheet}] = true
		}
		bySHA := map[string]string{}
		for _, src := range snap.Manifest.Sources {
			bySHA[src.SHA256] = src.SourceID
		}
		for _, cb := range snap.Codebooks {
			for _, code := range cb.Codes {
				if s := code.Source; s != nil {
					c.rows[rowKey{s.SHA256, s.Sheet, int64(s.SourceRow)}] = rowCiter{bySHA[s.SHA256], -1}
					c.sheets[[2]string{s.SHA256, s.Sheet}] = true
				}
			}
		}
		return c, citedRowBytes * int64(len(c.rows)+len(c.sheets)), nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*citedRows), nil
}

// citing is one served snapshot's citation of a row.
type citing struct {
	snap     *Snapshot
	sourceID string
	// row is the fact table's row that cites it, -1 for a codebook's code table row.
	row int32
}

// checkCited refuses a citation unless a served snapshot cites exactly that row of that file,
// with the very source_id, source_url, as_of, derived, original_url and original_page the
// citation states (a member left out is not compared, but a derived file's citation that
// names its source leaves out derived only to be refused). Each disagreeing member has its
// own code. It returns the citation the service gives the row.
func (s *Service) checkCited(c Citation) (Citation, *apierror.Error) {
	var sheetCited bool
	var cites []citing
	for _, snap := range s.SnapshotsServed() {
		src, ok := snap.sourceBySHA(c.SHA256)
		if !ok {
			continue
		}
		idx, err := snap.cited()
		if err != nil {
			return Citation{}, unreadable(snap, err)
		}
		if idx.sheets[[2]string{c.SHA256, c.Sheet}] {
			sheetCited = true
		}
		if cr, ok := idx.rows[rowKey{c.SHA256, c.Sheet, int64(c.Row)}]; ok && src.File == c.File {
			cites = append(cites, citing{snap: snap, sourceID: cr.sourceID, row: cr.row})
		}
	}
	if !sheetCited {
		return Citation{}, apierror.New(400, apierror.CodeEvidenceSheetNotCited, "no served snapshot cites any row of sheet %q of %s; cite a row a query response cites (a record's citation or an aggregate citation's verify member)", c.Sheet, c.File)
	}
	if len(cites) == 0 {
		return Citation{}, apierror.New(400, apierror.CodeEvidenceRowNotCited, "no served snapshot cites row %d of sheet %s of %s (a title, header or note row is not a fact); verify a row a query response cites (a record's citation or an aggregate citation's verify member)", c.Row, c.Sheet, c.File)
	}
	if c.AsOf != "" {
		var dates []string
		kept := cites[:0:0]
		for _, ct := range cites {
			if ct.snap.Manifest.AsOf == c.AsOf {
				kept = append(kept, ct)
			}
			dates = append(dates, ct.snap.Manifest.AsOf)
		}
		if len(kept) == 0 {
			sort.Strings(dates)
			return Citation{}, apierror.New(400, apierror.CodeEvidenceAsOf, "as_of %q is not a snapshot that cites this row; it is cited as of %s: take as_of from the citation as a query response gives it", c.AsOf, join(dates))
		}
		cites = kept
	}
	if c.SourceID != "" {
		ok := false
		for _, ct := range cites {
			ok = ok || ct.sourceID == c.SourceID
		}
		if !ok {
			return Citation{}, apierror.New(400, apierror.CodeEvidenceSourceID, "source_id %q is not the source this row is cited from (%s); take source_id from the citation as a query response gives it", c.SourceID, cites[0].sourceID)
		}
	}
	if c.SourceURL != "" {
		ok := false
		src, _ := cites[0].snap.sourceBySHA(c.SHA256)
		for _, ct := range cites {
			u, _ := ct.snap.sourceBySHA(c.SHA256)
			ok = ok || u.URL == c.SourceURL
		}
		if !ok {
			return Citation{}, apierror.New(400, apierror.CodeEvidenceSourceURL, "source_url %q is not where this file is cited from (%s); take source_url from the citation as a query response gives it", c.SourceURL, src.URL)
		}
	}
	want, e := citedAs(cites[0], c)
	if e != nil {
		return Citation{}, e
	}
	differs := func(member string, posted, cited any) *apierror.Error {
		return apierror.New(400, apierror.CodeEvidenceDerived, "the citation's %s is %s, but this row is cited with %s %s; take the citation unchanged from a query response (a record's citation or an aggregate citation's verify member)", member, quote(posted), member, quote(cited))
	}
	switch {
	case c.Derived && !want.Derived:
		return Citation{}, differs("derived", true, "left out (the file is the publisher's own)")
	case want.Derived && !c.Derived && (c.SourceID != "" || c.SourceURL != ""):
		return Citation{}, differs("derived", "left out", "true (the file is a third party's copy of "+want.OriginalURL+")")
	case c.OriginalURL != "" && c.OriginalURL != want.OriginalURL:
		return Citation{}, differs("original_url", c.OriginalURL, orLeftOut(want.OriginalURL))
	case c.OriginalPage != "" && c.OriginalPage != want.OriginalPage:
		return Citation{}, differs("original_page", c.OriginalPage, orLeftOut(want.OriginalPage))
	}
	return want, nil
}

// citedAs is the record citation the service gives the row ct cites (posted names it): the
// rendering of its fact table row, or for a code table row a codebook quotes, the posted
// citation with the file's derivation.
func citedAs(ct citing, posted Citation) (Citation, *apierror.Error) {
	if ct.row < 0 {
		src, _ := ct.snap.sourceBySHA(posted.SHA256)
		want := posted
		want.Derived, want.OriginalURL, want.OriginalPage = src.Derived, "", ""
		if src.Derived {
			want.OriginalURL = src.OriginalURL
		}
		return want, nil
	}
	if err := ct.snap.Table.Need(citationColumns(ct.snap.Cap)...); err != nil {
		return Citation{}, unreadable(ct.snap, err)
	}
	var want Citation
	if err := json.Unmarshal(appendRecordCitation(nil, ct.snap, int(ct.row)), &want); err != nil {
		return Citation{}, apierror.New(500, apierror.CodeInternal, "the citation of row %d of %s does not read back (%v); report it", posted.Row, posted.File, err)
	}
	return want, nil
}

// orLeftOut is a member's value in a message, or "left out" when the citation has none.
func orLeftOut(v string) string {
	if v == "" {
		return "left out"
	}
	return v
}
