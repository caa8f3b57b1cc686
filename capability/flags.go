package capability

import (
	"fmt"
	"slices"
	"strconv"
)

// Flag declares rows that an answer names whenever its matched set includes them: rows that
// are counted, or kept, yet are not what a reader would take them for (a status the publisher
// does not state but that is inferred, a project another capability counts too, a published
// row that is not a project). summary.notes then carries a note with the code Note: how many
// of the matched rows hold Value in Field, the sum of Sum over them and the number of them
// dated before the snapshot's as_of in Before (when declared), what they are and what to do.
// A query that filters Field to Value alone asked for those rows, and gets no note.
type Flag struct {
	// Field is the filter field that marks the rows; Value is its value on them ("true" for
	// a boolean field).
	Field string `json:"field"`
	Value string `json:"value"`
	// Note is the code of the note.
	Note string `json:"note"`
	// Rows says what the rows are: the rest of a sentence whose subject is "n of the m
	// matched rows" ("have no published status: ...").
	Rows string `json:"rows"`
	// Sum, when set, is a numeric field summed over the flagged rows.
	Sum string `json:"sum,omitempty"`
	// Before, when set, is a date field: the note counts the flagged rows whose date in it
	// is before the snapshot's as_of.
	Before string `json:"before,omitempty"`
	// Advice says how to leave the rows out of an answer, or to see only them.
	Advice string `json:"advice"`
}

// flagProblems lists what is wrong with c's flags, given its fields by name.
func (c *Capability) flagProblems(fields map[string]Field) []string {
	var out []string
	codes := map[string]bool{}
	for _, fl := range c.Flags {
		f, ok := fields[fl.Field]
		switch {
		case !ok || !f.Filter:
			out = append(out, fmt.Sprintf("flag %s marks its rows by %q, which is not a filter field", fl.Note, fl.Field))
		case f.Type == Boolean:
			if _, err := strconv.ParseBool(fl.Value); err != nil {
				out = append(out, fmt.Sprintf("flag %s: %q is not a value of the boolean field %s", fl.Note, fl.Value, fl.Field))
			}
		case f.Type != String:
			out = append(out, fmt.Sprintf("flag %s marks its rows by %s, of type %s: a flag field is a string or a boolean", fl.Note, fl.Field, f.Type))
		case len(f.Enum) > 0 && !slices.Contains(f.Enum, fl.Value):
			out = append(out, fmt.Sprintf("flag %s: %q is not a value of %s (%v)", fl.Note, fl.Value, fl.Field, f.Enum))
		}
		if fl.Note == "" || fl.Rows == "" || fl.Advice == "" || fl.Value == "" {
			out = append(out, fmt.Sprintf("flag on %s needs its value, note code, what the rows are and what to do", fl.Field))
		}
		if codes[fl.Note+"\x00"+fl.Value] {
			out = append(out, fmt.Sprintf("flag %s on %s=%s is declared twice", fl.Note, fl.Field, fl.Value))
		}
		codes[fl.Note+"\x00"+fl.Value] = true
		if s, ok := fields[fl.Sum]; fl.Sum != "" && (!ok || (s.Type != Number && s.Type != Integer)) {
			out = append(out, fmt.Sprintf("flag %s sums %q, which is not a numeric field", fl.Note, fl.Sum))
		}
		if d, ok := fields[fl.Before]; fl.Before != "" && (!ok || d.Type != Date) {
			out = append(out, fmt.Sprintf("flag %s dates its rows by %q, which is not a date field", fl.Note, fl.Before))
		}
	}
	return out
}
