package queue

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest/kit"
)

// Published is one published row of an operator's sheet as the derived fields read it: the
// sheet, and the value of each field read from one of the row's cells, as ReadCell reads it
// (text, a number, a YYYY-MM-DD date; nil for a blank cell or a column the sheet lacks).
type Published struct {
	Sheet Sheet
	Get   func(field string) any
	// Has says whether the sheet has a column for the field (nil: every field has one).
	Has func(field string) bool
}

// text is a field's value as text ("" for null).
func (r Published) text(field string) string {
	switch v := r.Get(field).(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	default:
		return fmt.Sprint(v)
	}
}

// Derived is a field of the queue capabilities that ingest computes from other fields of the
// same row rather than reading it from one cell. Value is the one rule ingest applies: the
// aggregate evidence recomputes the field from the cells it re-reads (each input field's
// column is in the snapshot's manifest) by calling it on a Published built with ReadCell.
type Derived struct {
	Field string
	// Value computes the field for a row of op (nil: null).
	Value func(op *Operator, r Published) any
}

// DerivedFields are the derived fields of every queue capability (a capability that lacks
// one, such as moved_to_cycle outside PJM's serial queue, does not get it).
var DerivedFields = []Derived{
	{"status_raw", func(op *Operator, r Published) any { return nullable(op.statusRaw(r)) }},
	{"known_defect", func(op *Operator, r Published) any { return nullable(op.knownDefect(r)) }},
	{"status", func(op *Operator, r Published) any {
		st, ok, _ := op.status(r)
		if !ok {
			return nil
		}
		return st.Norm
	}},
	{"status_inferred", func(op *Operator, r Published) any {
		st, ok, _ := op.status(r)
		return ok && st.Inferred
	}},
	{"ia_progress", func(op *Operator, r Published) any { p, _ := op.progress(r); return nullable(p) }},
	{"generation_type", func(op *Operator, r Published) any { t, _ := op.generationType(r); return nullable(t) }},
	{"request_kind", func(op *Operator, r Published) any { k, _ := op.requestKind(r); return nullable(k) }},
	{"state", func(op *Operator, r Published) any { s, _ := op.state(r); return nullable(s) }},
	{"moved_to_cycle", func(op *Operator, r Published) any {
		if op.MovedTo == nil {
			return nil
		}
		return op.MovedTo.MatchString(r.text("queue_id"))
	}},
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// ForFile is the operator whose tables read file name of queue capability capID (its own
// files, a companion's or another form's), or nil.
func ForFile(capID, name string) *Operator {
	for _, op := range Operators {
		if op.Cap.ID == capID && op.AsOf != nil {
			if o := op.forFile(name); o != nil {
				return o
			}
		}
	}
	return nil
}

// SheetSpec is the operator's sheet called name.
func (op *Operator) SheetSpec(name string) (Sheet, bool) {
	for _, s := range op.Sheets {
		if s.Name == name {
			return s, true
		}
	}
	return Sheet{}, false
}

// ReadCell reads cell as field f of op's rows, as ingest does: text with the operator's
// blank marks as null, numbers, calendar dates (the publisher's unknown-date marks null, and
// the operator's text dates read by its fallback). fromCell says the value is the cell's own
// reading (a fallback date or a blank is not); a cell that is not of the field's type is an
// error.
func (op *Operator) ReadCell(f string, cell grid.Cell) (v any, fromCell bool, err error) {
	fd, _ := op.Cap.Field(f)
	switch fd.Type {
	case capability.Number:
		v, err := kit.Number(cell, op.Blank...)
		return v, true, err
	case capability.Date:
		if kit.Blank(cell, op.Blank...) {
			return nil, false, nil
		}
		if d, err := kit.Date(cell); err == nil {
			if d == "1900-01-01" || d == "1899-12-31" {
				return nil, true, nil // the publisher's mark for an unknown date
			}
			return d, true, nil
		}
		if d, ok := textDate(cell.Value, op.DateFallback); ok {
			return nullable(d), false, nil
		}
		return nil, false, fmt.Errorf("%q is not a date", cell.Value)
	}
	return kit.Text(cell, op.Blank...), true, nil
}

// statusRaw is the raw status: the status cell, or the sheet's status where the sheet
// publishes it by sheet only (or leaves the cell blank).
func (op *Operator) statusRaw(r Published) string {
	if raw := r.text("status_raw"); raw != "" {
		return raw
	}
	return r.Sheet.Status
}

// knownDefect is the row's known defect (capability.QueuePlaceholder, capability.QueueNoID)
// or "".
func (op *Operator) knownDefect(r Published) string {
	id := r.text("queue_id")
	if _, ok := op.Placeholders[id]; ok {
		return capability.QueuePlaceholder
	}
	if slices.Contains(op.NoID, id) {
		return capability.QueueNoID
	}
	return ""
}

// status is what the row's raw status means by the operator's tables (a key "<sheet>|<raw>"
// first, then "<raw> / <detail>", "<raw> / *" and the raw value; a blank status is
// BlankStatus), ok false when no table knows it or the row is a placeholder, and the key
// looked up (for the values_mapped gate).
func (op *Operator) status(r Published) (Status, bool, string) {
	if op.knownDefect(r) == capability.QueuePlaceholder {
		return Status{}, false, ""
	}
	key := op.statusRaw(r)
	if key == "" {
		if r.Has != nil && !r.Has("status_raw") {
			return Status{}, false, "" // no status column: headers_present says so
		}
		key = BlankStatus
	}
	st, ok := op.Statuses[r.Sheet.Name+"|"+key]
	if detail := r.Get(op.StatusDetail); !ok && op.StatusDetail != "" && detail != nil {
		if st, ok = op.Statuses[fmt.Sprintf("%s / %v", key, detail)]; !ok {
			st, ok = op.Statuses[key+" / *"]
		}
	}
	if !ok {
		st, ok = op.Statuses[key]
	}
	return st, ok, key
}

// progress is the normalized interconnection progress: the status's own, withdrawn for a
// withdrawn project, else the operator's progress column mapped; the unmapped progress
// value, if any.
func (op *Operator) progress(r Published) (string, string) {
	st, ok, _ := op.status(r)
	if !ok {
		return "", ""
	}
	if st.Norm == "withdrawn" {
		return "withdrawn", ""
	}
	if st.Progress != "" || op.ProgressField == "" {
		return st.Progress, ""
	}
	v := r.text(op.ProgressField)
	if v == "" {
		return "", ""
	}
	if p, ok := op.Progress[v]; ok {
		return p, ""
	}
	return "", fmt.Sprintf("%s %q", op.ProgressField, v)
}

// generationType is the normalized generation type: the first raw type mapped (refined by
// TypeDetail), hybrid when the row's types are several; the unmapped raw types.
func (op *Operator) generationType(r Published) (string, []string) {
	if op.knownDefect(r) == capability.QueuePlaceholder {
		return "", nil
	}
	first := ""
	types := map[string]bool{}
	var unmapped []string
	for i, f := range append([]string{"generation_type_raw"}, op.MoreTypes...) {
		t := r.text(f)
		if t == "" {
			continue
		}
		n, ok := op.Types[t]
		if d := r.text(op.TypeDetail); i == 0 && op.TypeDetail != "" && d != "" {
			if dn, dok := op.Types[t+" / "+d]; dok {
				n, ok = dn, true
			}
		}
		if !ok {
			unmapped = append(unmapped, fmt.Sprintf("generation type %q", t))
			continue
		}
		if n != "" {
			types[n] = true
			if i == 0 {
				first = n
			}
		}
	}
	if len(types) > 1 {
		return "hybrid", unmapped
	}
	return first, unmapped
}

// requestKind is what the request asks to connect (capability.QueueKinds): the operator's
// own mark in KindField, else transmission or load where the generation type says so, else
// DefaultKind (none for a row without a type where KindNeedsType); the unmapped mark, if any.
func (op *Operator) requestKind(r Published) (string, string) {
	if op.knownDefect(r) == capability.QueuePlaceholder {
		return "", ""
	}
	if op.KindField != "" {
		if v := r.text(op.KindField); v != "" {
			if k, ok := op.Kinds[v]; ok {
				return k, ""
			}
			return "", fmt.Sprintf("%s %q (request kind)", op.KindField, v)
		}
	}
	t, _ := op.generationType(r)
	switch {
	case t == "transmission" || t == "load":
		return t, ""
	case t == "" && op.KindNeedsType:
		return "", ""
	}
	return op.DefaultKind, ""
}

// state is the row's state as a two-letter code: the published text, a state's full name as
// its code, or the operator's correction for a code wrong for the row's county; and the
// reason when it differs from the published text.
func (op *Operator) state(r Published) (string, string) {
	pub := op.publishedState(r)
	if code, ok := stateCodes[strings.ToLower(pub)]; ok {
		return code, fmt.Sprintf("%s is the name of the state %s", pub, code)
	}
	for _, fx := range op.StateFixes {
		if pub == fx.Published && strings.EqualFold(r.text("county"), fx.County) {
			return fx.State, fx.Why
		}
	}
	return pub, ""
}

// publishedState is the state as published: the published column of the first header of
// the state field that the row fills.
func (op *Operator) publishedState(r Published) string {
	for _, h := range op.Fields["state"] {
		if pub := r.text(op.publishedField(h)); pub != "" {
			return pub
		}
	}
	return ""
}

// publishedField is the field of the published column with the given header.
func (op *Operator) publishedField(header string) string {
	for _, c := range capability.QueueColumns(op.Cap.ID) {
		if kit.Norm(c.Header) == kit.Norm(header) {
			return c.Name
		}
	}
	return ""
}

// StateFix corrects a state code an operator publishes that is wrong for the row's county.
type StateFix struct {
	County, Published, State string
	// Why says how the county shows the code wrong.
	Why string
}

// stateCodes maps the full names of the states, DC and the territories (lower case) to
// their two-letter codes.
var stateCodes = map[string]string{
	"alabama": "AL", "alaska": "AK", "arizona": "AZ", "arkansas": "AR", "california": "CA", "colorado": "CO",
	"connecticut": "CT", "delaware": "DE", "district of columbia": "DC", "florida": "FL", "georgia": "GA",
	"hawaii": "HI", "idaho": "ID", "illinois": "IL", "indiana": "IN", "iowa": "IA", "kansas": "KS",
	"kentucky": "KY", "louisiana": "LA", "maine": "ME", "maryland": "MD", "massachusetts": "MA",
	"michigan": "MI", "minnesota": "MN", "mississippi": "MS", "missouri": "MO", "montana": "MT",
	"nebraska": "NE", "nevada": "NV", "new hampshire": "NH", "new jersey": "NJ", "new mexico": "NM",
	"new york": "NY", "north carolina": "NC", "north dakota": "ND", "ohio": "OH", "oklahoma": "OK",
	"oregon": "OR", "pennsylvania": "PA", "rhode island": "RI", "south carolina": "SC", "south dakota": "SD",
	"tennessee": "TN", "texas": "TX", "utah": "UT", "vermont": "VT", "virginia": "VA", "washington": "WA",
	"west virginia": "WV", "wisconsin": "WI", "wyoming": "WY", "puerto rico": "PR", "guam": "GU",
	"american samoa": "AS", "northern mariana islands": "MP", "virgin islands": "VI",
}
