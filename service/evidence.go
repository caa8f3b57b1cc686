package service

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/snapshots"
)

// Citation is a record-level citation: what the evidence endpoint verifies.
type Citation struct {
	SourceID  string `json:"source_id"`
	SourceURL string `json:"source_url"`
	File      string `json:"source_file"`
	Sheet     string `json:"sheet"`
	Row       int    `json:"source_row"`
	SHA256    string `json:"raw_file_sha256"`
	AsOf      string `json:"as_of"`
	// Derived and OriginalURL are present on citations of a derived file (see writeDerived),
	// and OriginalPage, with OriginalURL the document, on those of a transcription's row
	// that names the publisher's document and page it was copied from (writeOriginal).
	Derived      bool   `json:"derived,omitempty"`
	OriginalURL  string `json:"original_url,omitempty"`
	OriginalPage string `json:"original_page,omitempty"`
}

// Evidence verifies a citation posted as JSON (a record-level citation, or the verify
// member of an aggregate citation, or an aggregate citation as a whole). A request whose
// context has ended before its file is hashed is not verified.
func (s *Service) Evidence(ctx context.Context, body []byte) ([]byte, *apierror.Error) {
	if e := cancelled(ctx); e != nil {
		return nil, e
	}
	var probe map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimSpace(body)))
	if err := dec.Decode(&probe); err != nil || probe == nil {
		return nil, apierror.New(400, apierror.CodeInvalidRequest, "the body must be a citation object {source_id, source_url, source_file, sheet, source_row, raw_file_sha256, as_of}: take the verify member of an aggregate citation or a record's citation")
	}
	if v, ok := probe["verify"]; ok {
		body = v
	}
	body, e := rowAsNumber(body)
	if e != nil {
		return nil, e
	}
	var c Citation
	if err := json.Unmarshal(body, &c); err != nil {
		return nil, apierror.New(400, apierror.CodeEvidenceInvalid, "the citation does not parse (%v); source_row is an integer (22 or \"22\"), the other members strings", err)
	}
	ev, e := s.verify(c, true, s.newVerifyRun(nil))
	if e != nil {
		return nil, e
	}
	return mustJSON(ev), nil
}

// rowAsNumber reads a citation's source_row given as text ("22") as the integer it spells, by
// the rule every JSON body follows: a value is read by the type its member takes, from its
// JSON value or from its text.
func rowAsNumber(body []byte) ([]byte, *apierror.Error) {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return body, nil // the citation's own parse says what is wrong
	}
	var text string
	if v, ok := m["source_row"]; !ok || json.Unmarshal(v, &text) != nil {
		return body, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
	if err != nil {
		return nil, apierror.New(400, apierror.CodeEvidenceInvalid, "source_row must be an integer (22 or \"22\"), got %q", text)
	}
	m["source_row"] = json.RawMessage(strconv.FormatInt(n, 10))
	b, err := json.Marshal(m)
	if err != nil {
		return nil, apierror.New(500, apierror.CodeInternal, "the citation could not be re-encoded: %v", err)
	}
	return b, nil
}

// evidenceFor verifies the rendered record citation verify.
func (s *Service) evidenceFor(verify []byte) (Obj, *apierror.Error) {
	return s.evidenceWith(verify, s.newVerifyRun(nil))
}

// evidenceWith verifies the rendered record citation verify, hashing each raw file at most
// once per memo: a response with include_evidence hashes each file it cites once, however
// many of its citations quote that file.
func (s *Service) evidenceWith(verify []byte, memo *verifyRun) (Obj, *apierror.Error) {
	var c Citation
	if err := json.Unmarshal(verify, &c); err != nil {
		return nil, apierror.New(400, apierror.CodeEvidenceInvalid, "%v", err)
	}
	return s.verify(c, false, memo)
}

// verifyRun is what the verifications of one request share: the raw-file index of one
// catalog, and the hashes of the raw files already read, by path.
type verifyRun struct {
	index  *rawIndex
	hashes map[string]hashed
}

// newVerifyRun starts the verifications of one request against index, or against the
// catalog served now when index is nil.
func (s *Service) newVerifyRun(index *rawIndex) *verifyRun {
	if index == nil {
		index = s.rawIndexNow()
	}
	return &verifyRun{index: index, hashes: map[string]hashed{}}
}

type hashed struct {
	sha string
	err error
}

// hashFile hashes a raw file; tests count its calls.
var hashFile = func(path string) (string, error) {
	sha, _, err := snapshots.HashFile(path)
	return sha, err
}

// hash returns the sha256 of the file at path, reading it only when memo does not hold it.
func (m *verifyRun) hash(path string) (string, error) {
	if h, ok := m.hashes[path]; ok {
		return h.sha, h.err
	}
	sha, err := hashFile(path)
	m.hashes[path] = hashed{sha, err}
	return sha, err
}

// verify re-opens the cited raw file from the raw store, re-hashes it, and returns the
// literal cells of the cited row with their header names. A citation from outside (outside
// true) must also be one a served snapshot makes, member for member; one the service rendered
// itself from a snapshot row is that by construction.
func (s *Service) verify(c Citation, outside bool, memo *verifyRun) (Obj, *apierror.Error) {
	if c.SHA256 == "" || c.File == "" || c.Sheet == "" || c.Row == 0 {
		return nil, apierror.New(400, apierror.CodeEvidenceInvalid, "a citation needs raw_file_sha256, source_file, sheet and source_row; take them from a record's citation or an aggregate citation's verify member")
	}
	path := s.store.Raw().Find(c.SHA256)
	if path == "" {
		return nil, apierror.New(400, apierror.CodeEvidenceUnknownFile, "no raw file with sha256 %q is in this service's raw store; the hash must be exactly as a citation gives it (64 lowercase hex digits)", c.SHA256)
	}
	if filepath.Base(path) != c.File {
		return nil, apierror.New(400, apierror.CodeEvidenceFileName, "the raw file with this sha256 is %q, not %q; cite it by its published file name", filepath.Base(path), c.File)
	}
	got, err := memo.hash(path)
	if err != nil {
		return nil, apierror.New(400, apierror.CodeEvidenceUnreadable, "the raw file %s cannot be read (%v); it cannot be verified", c.File, err)
	}
	if got != c.SHA256 {
		return nil, s.changedOnDisk(c.File, got, c.SHA256, c.SourceURL)
	}
	wb, err := s.workbook(got, path)
	if err != nil {
		return nil, apierror.New(400, apierror.CodeEvidenceUnreadable, "the raw file %s does not parse (%v)", c.File, err)
	}
	sh := wb.Sheet(c.Sheet)
	if sh == nil {
		return nil, apierror.New(400, apierror.CodeEvidenceSheet, "%s has no sheet %q; its sheets are: %s", c.File, c.Sheet, join(wb.SheetNames()))
	}
	if c.Row < 1 || c.Row > sh.NumRows() {
		return nil, apierror.New(400, apierror.CodeEvidenceRow, "row %d is outside sheet %s of %s, which has rows 1 to %d", c.Row, c.Sheet, c.File, sh.NumRows())
	}
	if outside {
		want, e := s.checkCited(c)
		if e != nil {
			return nil, e
		}
		c.Derived, c.OriginalURL, c.OriginalPage = want.Derived, want.OriginalURL, want.OriginalPage
	}
	headerRow := memo.index.headers[got][c.Sheet]
	citedBy := memo.index.citedBy[got]
	row := sh.Row(c.Row)
	width := len(row)
	if headerRow > 0 {
		width = max(width, len(sh.Row(headerRow)))
	}
	cells := make([]Obj, 0, width)
	for i := 1; i <= width; i++ {
		cell := sh.Cell(c.Row, i)
		o := Obj{{"column", grid.ColumnName(i)}}
		if headerRow > 0 {
			o = append(o, KV{"header", normSpace(sh.Cell(headerRow, i).Value)})
		}
		o = append(o, KV{"value", cell.Value}, KV{"type", kindName(cell.Kind)})
		cells = append(cells, o)
	}
	cit := Obj{{"source_id", c.SourceID}, {"source_url", c.SourceURL}, {"source_file", c.File}, {"sheet", c.Sheet},
		{"source_row", c.Row}, {"raw_file_sha256", c.SHA256}, {"as_of", c.AsOf}}
	if c.Derived {
		cit = append(cit, KV{"derived", true}, KV{"original_url", c.OriginalURL})
		if c.OriginalPage != "" {
			cit = append(cit, KV{"original_page", c.OriginalPage})
		}
	}
	out := Obj{
		{"verified", true},
		{"citation", cit},
		{"raw_file_sha256", c.SHA256},
		{"computed_sha256", got},
		{"source_file", c.File},
		{"sheet", c.Sheet},
		{"source_row", c.Row},
	}
	if headerRow > 0 {
		out = append(out, KV{"header_row", headerRow})
	} else {
		out = append(out, KV{"header_row", nil})
	}
	out = append(out, KV{"cells", cells}, KV{"cited_by", orEmpty(citedBy)})
	return out, nil
}

// changedOnDisk is the refusal of a raw file whose stored copy no longer hashes as cited: the
// client learns that its figures cannot be verified here now, the operator (in the log) what
// to do about it.
func (s *Service) changedOnDisk(file, got, cited, url string) *apierror.Error {
	return apierror.New(400, apierror.CodeEvidenceHash, "this service's stored copy of %s no longer hashes to the cited %s (it hashes to %s), so nothing cited from it can be verified here now; the operator has been told. The publisher's file is at %s: its sha256 must be the cited one", file, cited, got, orDash(url)).Becausef(
		"the raw file %s with sha256 %s has changed on disk since ingest (it now hashes to %s): fetch it again from %s into the raw store and run citeq ingest", file, cited, got, orDash(url))
}

func orDash(s string) string {
	if s == "" {
		return "the publisher"
	}
	return s
}

func normSpace(s string) string {
	var b bytes.Buffer
	space := false
	for _, r := range s {
		if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

func kindName(k grid.Kind) string {
	switch k {
	case grid.Text:
		return "text"
	case grid.Number:
		return "number"
	case grid.Bool:
		return "boolean"
	case grid.Error:
		return "error"
	}
	return "empty"
}

// parseWorkbook parses a raw file; tests count its calls.
var parseWorkbook = grid.Parse

// workbook is the raw file at path, verified to hash as sha, parsed: once however many
// requests ask for it at the same time (parsing a large workbook takes far more memory than
// the file's size), and kept among the few parsed last.
func (s *Service) workbook(sha, path string) (*grid.Workbook, error) {
	return s.evidence.get(sha, func() (*grid.Workbook, error) {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		return parseWorkbook(data)
	}, errParseLost)
}

// errParseLost is what the requests waiting on a raw file's parse get should it panic.
var errParseLost = errors.New("its parse failed; retry, and report it if it persists")
