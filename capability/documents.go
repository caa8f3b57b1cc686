package capability

import (
	"fmt"
	"regexp"
)

// Relation is how the documents a capability's publisher issues relate to each other, which
// decides what one snapshot holds.
type Relation string

// Relations of a capability's documents.
const (
	// Complement: each document holds a part of the data (a year, a region, a series), so
	// the snapshot at date D holds the newest version of every document published on or
	// before D. A document published again (same identity, later date) is replaced in the
	// snapshots from that date on, never added twice; earlier snapshots keep the earlier
	// version.
	Complement Relation = "complement"
	// Restate: each document restates the whole (a queue export, an inventory month), so a
	// snapshot is one document and a later one replaces it as the latest.
	Restate Relation = "restate"
	// Derived: the capability has no document of its own; it is computed from its inputs.
	Derived Relation = "derived"
)

// Documents declares how a capability's source documents make its snapshots.
type Documents struct {
	Relation Relation `json:"relation"`
	// Document says what one document is and what makes two files versions of the same
	// document (the same identity, published later).
	Document string `json:"document"`
	// Overlap, for complementing documents, says which rows two documents of different
	// identity may both publish (a series repeated in a later workbook): such a row is
	// served from the newest publication, and a value it revises keeps the earlier
	// release's citation beside it. Without it, a row published twice fails
	// natural_key_unique.
	Overlap string `json:"overlap,omitempty"`
	// Kinds, when the publisher's data comes in more than one form of document, lists them:
	// the schema says of each whether the snapshot holds one, and why not.
	Kinds []DocumentKind `json:"kinds,omitempty"`
}

// DocumentKind is one form of document a capability's snapshots may hold.
type DocumentKind struct {
	Name string `json:"kind"`
	// Files names its files as the publisher does.
	Files string `json:"files"`
	// Match is a regular expression matching the base name of its files.
	Match string `json:"-"`
	// Unserved says why a snapshot may hold none, and how to have one served.
	Unserved string `json:"-"`
}

// Holds reports whether a file named name is a document of the kind.
func (k DocumentKind) Holds(name string) bool {
	ok, err := regexp.MatchString(k.Match, name)
	return err == nil && ok
}

// Rule is the sentence the schema gives for the relation: what a snapshot holds.
func (d Documents) Rule() string {
	switch d.Relation {
	case Complement:
		return "the documents complement each other: the snapshot at as_of D holds the newest version of every document published on or before D, so one query answers across them (each row cites its own document); a document published again replaces its earlier version from its new date on, and earlier as_of dates keep the earlier version"
	case Restate:
		return "each document restates the whole: a snapshot is one document, and a newer document is a newer as_of that replaces it as the latest; earlier as_of dates stay served as they were"
	case Derived:
		return "no document of its own: computed at query time from its inputs' snapshots"
	}
	return ""
}

// validateDocuments checks the declaration: every capability says how its documents
// relate, a derived one (with Inputs) and only it says derived, and only complementing
// documents may overlap.
func (c *Capability) validateDocuments() error {
	d := c.Documents
	switch {
	case len(c.Inputs) > 0 && d.Relation != Derived:
		return fmt.Errorf("capability %s: documents: a capability with inputs is derived", c.ID)
	case len(c.Inputs) == 0 && d.Relation != Complement && d.Relation != Restate:
		return fmt.Errorf("capability %s: documents: relation %q must be %s or %s", c.ID, d.Relation, Complement, Restate)
	case d.Document == "":
		return fmt.Errorf("capability %s: documents: say what one document is", c.ID)
	case d.Overlap != "" && d.Relation != Complement:
		return fmt.Errorf("capability %s: documents: only complementing documents may overlap", c.ID)
	}
	for _, k := range d.Kinds {
		if _, err := regexp.Compile(k.Match); err != nil || k.Match == "" || k.Name == "" {
			return fmt.Errorf("capability %s: documents: kind %q needs a name and a valid Match (%v)", c.ID, k.Name, err)
		}
	}
	return nil
}

// queueDocuments is how an operator's queue exports relate: each restates the whole queue.
var queueDocuments = Documents{Relation: Restate, Document: "one queue export, every request the operator lists on the day it was made (a sheet per status where the operator splits them)"}
