package service

import (
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
	rows   map[rowKey]string // → source_id
	sheets map[[2]string]bool
}

// citedRowBytes is about what one row of the index takes in memory (its key and value
// share their text with the decoded columns).
const citedRowBytes = 112

// cited returns the rows snap cites, indexed on first use and kept with its table under the
// memory budget.
func (snap *Snapshot) cited() (*citedRows, error) {
	v, err := snap.Table.Memo("cited", func() (any, int64, error) {
		c := &citedRows{rows: map[rowKey]string{}, sheets: map[[2]string]bool{}}
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
			c.rows[rowKey{sha, sheet, n}] = id
			c.sheets[[2]string{sha, sheet}] = true
		}
		bySHA := map[string]string{}
		for _, src := range snap.Manifest.Sources {
			bySHA[src.SHA256] = src.SourceID
		}
		for _, cb := range snap.Codebooks {
			for _, code := range cb.Codes {
				if s := code.Source; s != nil {
					c.rows[rowKey{s.SHA256, s.Sheet, int64(s.SourceRow)}] = bySHA[s.SHA256]
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
}

// checkCited refuses a citation unless a served snapshot cites exactly that row of that file,
// with the very source_id, source_url and as_of the citation states (a member left out is not
// compared). Each disagreeing member has its own code.
func (s *Service) checkCited(c Citation) *apierror.Error {
	var sheetCited bool
	var cites []citing
	for _, snap := range s.SnapshotsServed() {
		src, ok := snap.sourceBySHA(c.SHA256)
		if !ok {
			continue
		}
		idx, err := snap.cited()
		if err != nil {
			return unreadable(snap, err)
		}
		if idx.sheets[[2]string{c.SHA256, c.Sheet}] {
			sheetCited = true
		}
		if id, ok := idx.rows[rowKey{c.SHA256, c.Sheet, int64(c.Row)}]; ok && src.File == c.File {
			cites = append(cites, citing{snap: snap, sourceID: id})
		}
	}
	if !sheetCited {
		return apierror.New(400, apierror.CodeEvidenceSheetNotCited, "no served snapshot cites any row of sheet %q of %s; cite a row a query response cites (a record's citation or an aggregate citation's verify member)", c.Sheet, c.File)
	}
	if len(cites) == 0 {
		return apierror.New(400, apierror.CodeEvidenceRowNotCited, "no served snapshot cites row %d of sheet %s of %s (a title, header or note row is not a fact); verify a row a query response cites (a record's citation or an aggregate citation's verify member)", c.Row, c.Sheet, c.File)
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
			return apierror.New(400, apierror.CodeEvidenceAsOf, "as_of %q is not a snapshot that cites this row; it is cited as of %s: take as_of from the citation as a query response gives it", c.AsOf, join(dates))
		}
		cites = kept
	}
	if c.SourceID != "" {
		ok := false
		for _, ct := range cites {
			ok = ok || ct.sourceID == c.SourceID
		}
		if !ok {
			return apierror.New(400, apierror.CodeEvidenceSourceID, "source_id %q is not the source this row is cited from (%s); take source_id from the citation as a query response gives it", c.SourceID, cites[0].sourceID)
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
			return apierror.New(400, apierror.CodeEvidenceSourceURL, "source_url %q is not where this file is cited from (%s); take source_url from the citation as a query response gives it", c.SourceURL, src.URL)
		}
	}
	return nil
}
