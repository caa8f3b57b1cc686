package service

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/jsonw"
	"github.com/citeq/citeq/snapshots"
)

// checkPosted compares every member of a posted aggregate citation with what the service
// cites for the rows its lineage filter selects (sel, of source src): a member that differs
// is a 400 with that member's code, saying what the service cites. A member left out is not
// compared.
func (s *Service) checkPosted(c *capability.Capability, snap *Snapshot, src snapshots.Source, p *postedCitation, lf *lineageFilter, sel *selection) *apierror.Error {
	differs := func(code, member string, posted, cited any) *apierror.Error {
		return apierror.New(400, code, "the citation's %s is %s, but the rows its lineage_filter selects are cited with %s %s: a citation is verified only as the service gives it; take it unchanged from the answer's citations", member, quote(posted), member, quote(cited))
	}
	if p.SourceFile != nil && *p.SourceFile != lf.SourceFile {
		return differs(apierror.CodeEvidenceSourceFile, "source_file", *p.SourceFile, lf.SourceFile+" (its lineage_filter's)")
	}
	if p.SHA256 != nil && *p.SHA256 != lf.SHA256 {
		return differs(apierror.CodeEvidenceSHA256, "raw_file_sha256", *p.SHA256, lf.SHA256+" (its lineage_filter's)")
	}
	if p.SourceID != nil && *p.SourceID != src.SourceID {
		return differs(apierror.CodeEvidenceSourceID, "source_id", *p.SourceID, src.SourceID)
	}
	if p.Publisher != nil && *p.Publisher != src.Publisher {
		return differs(apierror.CodeEvidencePublisher, "publisher", *p.Publisher, src.Publisher)
	}
	if p.SourceURL != nil && *p.SourceURL != src.URL {
		return differs(apierror.CodeEvidenceSourceURL, "source_url", *p.SourceURL, src.URL)
	}
	if p.Derived != nil && *p.Derived != src.Derived {
		return differs(apierror.CodeEvidenceDerived, "derived", *p.Derived, src.Derived)
	}
	if src.Derived && p.Derived == nil && (p.SourceID != nil || p.SourceURL != nil) {
		return differs(apierror.CodeEvidenceDerived, "derived", "left out", "true (the file is a third party's copy of "+src.OriginalURL+")")
	}
	if p.OriginalURL != nil && *p.OriginalURL != src.OriginalURL {
		return differs(apierror.CodeEvidenceDerived, "original_url", *p.OriginalURL, src.OriginalURL)
	}
	if len(p.RowsCount) > 0 {
		n, ok := jsonInt(p.RowsCount)
		if !ok || n != int64(len(sel.rows)) {
			return differs(apierror.CodeEvidenceRowsCount, "source_rows_count", string(p.RowsCount), len(sel.rows))
		}
	}
	t := snap.Table
	if err := t.Need(citationColumns(c)...); err != nil {
		return unreadable(snap, err)
	}
	lin := snap.lineage()
	sample := sel.rows[:min(sampleRows, len(sel.rows))]
	if len(p.Sample) > 0 {
		want := lin.writeSample(jsonw.Buf{}, sample, src.Derived).Bytes()
		if !sameJSON(p.Sample, want) {
			return differs(apierror.CodeEvidenceRowsSample, "source_rows_sample", string(p.Sample), string(want)+" (the first five cited rows in source order)")
		}
	}
	if len(p.Verify) > 0 {
		want := appendRecordCitation(nil, snap, int(sample[0]))
		if !sameJSON(p.Verify, want) {
			return differs(apierror.CodeEvidenceVerify, "verify", string(p.Verify), string(want)+" (the record citation of the first cited row)")
		}
	}
	if len(p.SourceView) > 0 {
		if !c.SourceView {
			return differs(apierror.CodeEvidenceSourceView, "source_view", string(p.SourceView), "none ("+c.ID+" citations carry no source_view)")
		}
		sheets := map[string]bool{}
		for _, r := range sel.rows {
			sheet, _ := lin.sheet.Text(int(r))
			sheets[sheet] = true
		}
		var names []string
		// In the order of the sheet dictionary, as the answers list them.
		for _, v := range lin.sheet.Values {
			if sheets[v] {
				names = append(names, v)
			}
		}
		want := mustJSON(Obj{{"title", src.Title}, {"release", src.Release}, {"sheets", names}})
		if !sameJSON(p.SourceView, want) {
			return differs(apierror.CodeEvidenceSourceView, "source_view", string(p.SourceView), string(want))
		}
	}
	return nil
}

// quote renders a member's value in a message: text quoted, other values as they are.
func quote(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}

// jsonInt reads an integer given as a JSON number or as its text (the rule of every body).
func jsonInt(b json.RawMessage) (int64, bool) {
	var text string
	if json.Unmarshal(b, &text) == nil {
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		return n, err == nil
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	return n, err == nil
}

// sameJSON reports whether two JSON documents hold the same value (members in any order;
// a number and its text as the same value, by the rule of every body).
func sameJSON(a, b []byte) bool {
	var x, y any
	dx, dy := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	dx.UseNumber()
	dy.UseNumber()
	if dx.Decode(&x) != nil || dy.Decode(&y) != nil {
		return false
	}
	return sameValue(x, y)
}

func sameValue(x, y any) bool {
	switch a := x.(type) {
	case map[string]any:
		b, ok := y.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			w, ok := b[k]
			if !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	case []any:
		b, ok := y.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !sameValue(a[i], b[i]) {
				return false
			}
		}
		return true
	case json.Number:
		return numberText(a.String()) == numberText(fmt.Sprint(y))
	case string:
		if n, ok := y.(json.Number); ok {
			return numberText(a) == numberText(n.String())
		}
		return x == y
	}
	return x == y
}

// numberText is the canonical text of a number (the text itself when it is none).
func numberText(s string) string {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return s
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
