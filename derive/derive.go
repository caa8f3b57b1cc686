// Package derive holds the joins of the derived capabilities (capability.Capability.Inputs):
// how each computes its fact table from the served snapshots of its inputs, what it refuses,
// and the notes its answers carry. The service serves the table it builds as a snapshot like
// any other (service/derived.go), through the Build registered here for the capability; the
// package sees the inputs only through Input and a query only through Query, so it imports
// nothing of the service.
package derive

import (
	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/jsonw"
	"github.com/citeq/citeq/snapshots"
)

// Query is what a join reads of a query: its filters (field → values) and its date ranges
// (range name → from and to, "" for an open bound), as the service validated them.
type Query struct {
	Filters map[string][]string
	Ranges  map[string][2]string
}

// Input is one served snapshot of an input capability.
type Input interface {
	// AsOf is the snapshot's as_of date.
	AsOf() string
	// Select reads the rows whose column values are among where's (all rows when where is
	// empty), in table order, and the named columns' cells at those rows as text, with
	// whether each is present.
	Select(where map[string][]string, names []string) (rows []int, cells [][]string, valid [][]bool, err error)
}

// Table is the fact table of a derived capability for one as_of.
type Table struct {
	// Rows are aligned with snapshots.Columns of the capability.
	Rows []snapshots.Row
	// Inputs are the input snapshots the rows come from (when no row is joined, the newest
	// of each input, so the schema still lists what each serves).
	Inputs []Input
	// FileAsOf is the as_of of the input snapshot each cited file belongs to: citations
	// state it, so the evidence endpoint verifies them against the input that serves the row.
	FileAsOf map[string]string
	// Join answers what the rows alone do not.
	Join Join
}

// Join is what a derived table says besides its rows.
type Join interface {
	// Check refuses a query the inputs cannot answer (a month or scope one side lacks).
	Check(q Query) *apierror.Error
	// Notes are the answer's notes on the join (rows one side has and the other lacks).
	Notes(q Query) []jsonw.Obj
	// Describe is, for the schema, what each input serves as of the derived date.
	Describe() []jsonw.Obj
}

// Build computes derived capability c as of asOf from inputs: by input capability ID, that
// input's served snapshots with as_of on or before asOf, oldest first.
type Build func(c *capability.Capability, asOf string, inputs map[string][]Input) (*Table, error)

// builds are the joins, by derived capability ID.
var builds = map[string]Build{}

// register declares the join of derived capability c.
func register(c *capability.Capability, b Build) *capability.Capability {
	builds[c.ID] = b
	return c
}

// For is the join of derived capability id; nil when it has none.
func For(id string) Build { return builds[id] }
