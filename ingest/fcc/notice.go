package fcc

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest/kit"
)

// The text layout of the FCC's weekly satellite public notices (Report No. SAT-nnnnn):
//
//	PUBLIC NOTICE
//	...
//	Report No. SAT-01325                                   Friday June 29, 2018
//	Satellite Policy Branch Information
//	Space Station Applications Accepted for Filing          (or: Actions Taken)
//	<boilerplate paragraph>
//	SAT-AMD-20180102-00001   E   S2946   Spire Global, Inc.
//	Amendment                                               (the application's type, when printed)
//	Date Filed: 01/02/2018 03:26:50:64000                   (accepted for filing)
//	Withdrawn        Effective Date: 09/15/2008             (actions taken: the action and its date)
//	Nature of Service: Other                                (actions taken)
//	<narrative paragraph>
//	SAT-...                                                 (the next entry)
//
// An entry starts with its file number, a one-letter mark, the call sign and the applicant,
// and runs to the next entry. The parser reads the lines of the grid's notice sheet; it
// also reads a notice whose text was flattened to few lines (a line holding several
// entries), taking each entry's fields from the text between its file number and the next.

// Notice types.
const (
	AcceptedForFiling = "accepted_for_filing"
	ActionsTaken      = "actions_taken"
)

// Notice is one public notice as read from its text.
type Notice struct {
	ReportNumber string // SAT-01603
	Date         string // release date, YYYY-MM-DD
	DANumber     string // 08-2118, when printed
	Type         string // AcceptedForFiling or ActionsTaken
	ReportRow    int    // the line of the report number
	Entries      []NoticeEntry
	Problems     []string // fields that are printed but do not read
}

// NoticeEntry is one entry of a notice.
type NoticeEntry struct {
	Row             int // line on which the entry's file number is printed
	FileNumber      string
	Mark            string
	CallSign        string
	Applicant       string
	TypeDescription string // the application's type as printed ("Launch and Operating Authority")
	Action          string // actions taken: as printed ("Grant of Authority", "Withdrawn")
	EffectiveDate   string // YYYY-MM-DD
	DateFiled       string // YYYY-MM-DD
	NatureOfService string
	// Cells is true when the entry's line holds its first four fields as four cells (the
	// notice's column layout): file number, mark, call sign and applicant are then columns
	// 1 to 4 of row Row.
	Cells bool
}

var (
	reportLine   = regexp.MustCompile(`Report No\.\s*(SAT-\d{5})\b`)
	reportDate   = regexp.MustCompile(`^\s*(?:(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday),?\s+)?([A-Z][a-z]+\.?\s+\d{1,2},\s+\d{4})`)
	daNumber     = regexp.MustCompile(`\bDA(?:\s+No\.)?\s+(\d{2}-\d{1,5})\b`)
	entryHead    = regexp.MustCompile(`\b(SAT-[A-Z]{3}-\d{8}-\d{5})[ \t]+([A-Z])[ \t]+([A-Z0-9][A-Z0-9/-]*)[ \t]+(\S[^\n]*)`)
	dateFiled    = regexp.MustCompile(`Date Filed:\s*(\d{1,2}/\d{1,2}/\d{4})`)
	effective    = regexp.MustCompile(`(?m)^([^\n]*?)\s*Effective Date:\s*(\d{1,2}/\d{1,2}/\d{4})`)
	natureOfServ = regexp.MustCompile(`Nature of Service:\s*([^\n]+)`)
	acceptedType = regexp.MustCompile(`(?i)Accepted\s+for\s+Filing`)
	actionsType  = regexp.MustCompile(`(?i)Actions\s+Taken`)
)

// ParseNotice reads a notice from the grid's notice sheet.
func ParseNotice(sh *grid.Sheet) (*Notice, error) {
	if sh == nil {
		return nil, fmt.Errorf("no notice text to read")
	}
	// The text, each row a line, and where each line starts in it.
	var b strings.Builder
	starts := make([]int, sh.NumRows()+1)
	for r := 1; r <= sh.NumRows(); r++ {
		starts[r] = b.Len()
		var parts []string
		for _, c := range sh.Row(r) {
			parts = append(parts, c.Value)
		}
		b.WriteString(strings.Join(parts, " "))
		b.WriteByte('\n')
	}
	text := b.String()
	rowAt := func(off int) int {
		r := 1
		for r < sh.NumRows() && starts[r+1] <= off {
			r++
		}
		return r
	}

	n := &Notice{}
	loc := reportLine.FindStringSubmatchIndex(text)
	if loc == nil {
		return nil, fmt.Errorf("no report number (Report No. SAT-nnnnn) in the notice")
	}
	n.ReportNumber = text[loc[2]:loc[3]]
	n.ReportRow = rowAt(loc[0])
	if m := reportDate.FindStringSubmatch(text[loc[1]:]); m != nil {
		t, err := kit.ParseDate(strings.Replace(m[1], ".", "", 1))
		if err != nil {
			return nil, fmt.Errorf("report %s: release date %q: %w", n.ReportNumber, m[1], err)
		}
		n.Date = t.Format("2006-01-02")
	} else {
		return nil, fmt.Errorf("report %s: no release date after the report number", n.ReportNumber)
	}
	if m := daNumber.FindStringSubmatch(text[:min(len(text), loc[1]+400)]); m != nil {
		n.DANumber = m[1]
	}
	body := text[loc[1]:]
	acc, act := acceptedType.FindStringIndex(body), actionsType.FindStringIndex(body)
	switch {
	case acc != nil && (act == nil || acc[0] < act[0]):
		n.Type = AcceptedForFiling
	case act != nil:
		n.Type = ActionsTaken
	default:
		return nil, fmt.Errorf("report %s: neither \"Accepted for Filing\" nor \"Actions Taken\" follows the report number", n.ReportNumber)
	}

	heads := entryHead.FindAllStringSubmatchIndex(body, -1)
	for i, h := range heads {
		end := len(body)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		e := NoticeEntry{
			Row:        rowAt(loc[1] + h[0]),
			FileNumber: body[h[2]:h[3]],
			Mark:       body[h[4]:h[5]],
			CallSign:   body[h[6]:h[7]],
			Applicant:  strings.TrimSpace(body[h[8]:h[9]]),
		}
		rest := body[h[9]:end] // after the head line's last field
		// A flattened text runs on after the applicant: the first marker ends it.
		for _, mark := range []string{"Date Filed:", "Effective Date:", "Nature of Service:"} {
			if j := strings.Index(e.Applicant, mark); j > 0 {
				rest = e.Applicant[j:] + rest
				e.Applicant = strings.TrimSpace(e.Applicant[:j])
			}
		}
		n.readEntryBody(&e, rest)
		row := sh.Row(e.Row)
		e.Cells = len(row) >= 4 && row[0].Value == e.FileNumber && row[1].Value == e.Mark && row[2].Value == e.CallSign && row[3].Value == e.Applicant
		n.Entries = append(n.Entries, e)
	}
	return n, nil
}

// readEntryBody reads the fields printed after an entry's first line.
func (n *Notice) readEntryBody(e *NoticeEntry, rest string) {
	date := func(what, s string) string {
		t, err := kit.ParseDate(s)
		if err != nil {
			n.Problems = append(n.Problems, fmt.Sprintf("%s %s: %s %q is not a date", n.ReportNumber, e.FileNumber, what, s))
			return ""
		}
		return t.Format("2006-01-02")
	}
	if m := dateFiled.FindStringSubmatch(rest); m != nil {
		e.DateFiled = date("Date Filed", m[1])
	}
	if m := effective.FindStringSubmatch(rest); m != nil {
		e.Action = strings.TrimSpace(m[1])
		e.EffectiveDate = date("Effective Date", m[2])
	}
	if m := natureOfServ.FindStringSubmatch(rest); m != nil {
		e.NatureOfService = strings.TrimSpace(m[1])
	}
	// The application's type is a short line of its own before the narrative: a few words,
	// no sentence, none of the labelled fields.
	for _, line := range strings.Split(rest, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.Contains(line, "Date Filed:") || strings.Contains(line, "Effective Date:") || strings.Contains(line, "Nature of Service:") {
			continue
		}
		if words := strings.Fields(line); len(words) <= 6 && !strings.HasSuffix(line, ".") && !strings.HasSuffix(line, ",") {
			e.TypeDescription = line
		}
		break
	}
}
