// Package queue ingests the grid operators' interconnection queues into one shared model:
// every operator is a declarative table (which published header feeds which normalized
// field, which raw status means which normalized status and interconnection progress, which
// raw generation type means which normalized type), and one reader, each file kind's Open
// hook of the kit.Spec that New declares from the tables, reads them all. Every
// published column of every sheet is also kept under its own header name; a raw status,
// type or progress value that no table knows fails the values_mapped gate, naming it.
package queue

import (
	"path/filepath"
	"regexp"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/kit"
)

// Status is what one raw status value means.
type Status struct {
	// Norm is the normalized status (capability.QueueStatuses).
	Norm string
	// Progress is the normalized interconnection progress it implies ("" when it implies
	// none and the operator's progress column, if any, says).
	Progress string
	// Inferred marks a status the operator does not publish but that is inferred (ISO-NE's
	// blank status without a withdrawal date): the row's status_inferred is true.
	Inferred bool
}

// Sheet is one sheet an operator publishes.
type Sheet struct {
	// Name is the sheet name as published (a CSV file's single table is grid.CSVSheetName).
	Name string
	// Header is the 1-based header row; data starts on the row after it (or after
	// HeaderRows continuation rows).
	Header int
	// HeaderRows is how many rows the header spans (1 when zero); labels of the rows are
	// joined with a space, column by column.
	HeaderRows int
	// Status is the raw status of the sheet's rows when the sheet has no status column
	// (the status is then the sheet's meaning, e.g. "Withdrawn").
	Status string
	// Optional marks a sheet that not every vintage of the file has.
	Optional bool
}

// Operator is one operator's queue: where its files are, how its as_of is read, and its
// tables.
type Operator struct {
	Cap       *capability.Capability
	Version   string
	SourceID  string
	Publisher string
	URL       string
	// Folder is the raw directory folder of the files; File matches their names.
	Folder string
	File   *regexp.Regexp
	// Derived marks files that are a third party's re-save; OriginalURL is then the
	// operator's own address of the data.
	Derived     bool
	OriginalURL string
	// AsOf reads a file's as_of (YYYY-MM-DD) from the workbook (and its name).
	AsOf func(wb *grid.Workbook, name string) (string, error)
	// Sheets are the sheets of each file, every one of them ingested.
	Sheets []Sheet
	// Key is the header of the queue id column: a row is a project when its key cell is
	// not blank (and matches KeyPattern, when set).
	Key        string
	KeyPattern *regexp.Regexp
	// Fields maps normalized fields to the published headers they are read from, first
	// present wins (headers compared as kit.Norm folds them).
	Fields map[string][]string
	// Required lists normalized fields whose header every sheet must have.
	Required []string
	// Statuses maps a raw status to its meaning; a key "<sheet>|<raw>" applies to one sheet
	// only and wins over the plain raw key.
	Statuses map[string]Status
	// StatusDetail names a field whose value refines the status: a key "<raw> / <detail>"
	// wins over "<raw> / *" (any value of the field), which wins over the plain raw key
	// (MISO's "Done" projects by their post-GIA status; ISO-NE's blank status by the
	// presence of a withdrawal date). A blank status cell is the raw key BlankStatus.
	StatusDetail string
	// TypeDetail names a field refining the raw type: a key "<raw> / <detail>" wins over
	// the raw key (SPP's Thermal projects by their Fuel Type).
	TypeDetail string
	// MoreTypes names published-column fields holding a project's further fuels: each is
	// mapped too, and a project with several distinct types is hybrid.
	MoreTypes []string
	// Types maps a raw generation type to a normalized one ("": the operator says the type
	// is not specified, and generation_type is null).
	Types map[string]string
	// Progress maps the raw value of ProgressField (a normalized field, e.g. study_phase
	// or ia_status_raw) to the normalized progress of an active project.
	ProgressField string
	Progress      map[string]string
	// Blank lists the publisher's marks for "no value" (e.g. "N/A").
	Blank []string
	// Companions are other files of the operator, read with their own tables, that join
	// the snapshot of the operator's latest file (CAISO's Cluster 15 list joins the latest
	// Public Queue Report).
	Companions []*Operator
	// Hint is the as_of a file name implies (nil: a YYYY-MM[-DD] date in the name); it
	// orders the files and names a snapshot whose file cannot be parsed.
	Hint func(name string) string
	// RepeatedIDs marks an operator whose queue ids repeat within a sheet; the repeats are
	// named in the known_defects gate (the natural key then includes the row).
	RepeatedIDs bool
	// Skip lists queue ids of rows that are not projects (known defects), with the reason;
	// they are dropped and named in the known_defects gate.
	Skip map[string]string
	// Placeholders lists queue ids of rows the operator publishes as placeholders, not
	// projects, with the reason: they are kept as published, with known_defect placeholder
	// and no normalized status, kind or type (so not counted), and named in the
	// known_defects gate, which fails if such a row holds a date, place, fuel or MW.
	Placeholders map[string]string
	// NoID lists the operator's marks for a project published without a queue id (N/A):
	// such rows are counted, with known_defect no_queue_id, and never matched between
	// snapshots.
	NoID []string
	// StateFixes correct state codes the operator publishes wrongly for a county; a state's
	// full name is its code for every operator. Each is named in the known_defects gate.
	StateFixes []StateFix
	// KindField names a field holding the operator's own mark of what a request is, mapped
	// by Kinds to capability.QueueKinds (a mark Kinds does not know fails values_mapped).
	// Without a mark, a generation type transmission or load is that kind, and any other
	// row DefaultKind ("": none), or none where KindNeedsType and the row has no type.
	KindField     string
	Kinds         map[string]string
	DefaultKind   string
	KindNeedsType bool
	// MovedTo matches a queue id the operator marks as moved to another queue (PJM's
	// "AE1-070 - moved to TC1"): the row's moved_to_cycle is true.
	MovedTo *regexp.Regexp
	// DateFallback reads a text date kit.Date does not (e.g. "03-2026"): a date, or "" with
	// true for text the operator writes where no date is known ("I/S", "TBD"); nil: none.
	DateFallback func(s string) (string, bool)
	// Download is the official address of the operator's current file, which ingest --fetch
	// downloads to DownloadName in Folder as a file of kind DownloadKind ("": the operator
	// publishes no address a plain request gets the file from). The name carries no date:
	// the file is the operator's current one, and its as_of is read from its content.
	Download, DownloadName string
	DownloadKind           fetch.Kind
	// Forms are other forms of the operator's file (SPP's own CSV beside a re-saved
	// workbook), each read with its own tables; each file is its own snapshot.
	Forms []*Operator
}

// BlankStatus is the raw status key of a blank status cell.
const BlankStatus = "(blank)"

// New is the adapter of op's queue, declared on kit.Spec from op's tables: each file (the
// operator's own or another form's) is its own snapshot, in date order (a file whose name has
// no date, the operator's current file as ingest --fetch names it, the newest), and companion
// files join the latest one.
func New(op *Operator) kit.Adapter {
	s := &kit.Spec{Cap: op.Cap, Version: op.Version, Folders: []string{op.Folder}, Known: op.known(),
		ByHint: true, State: func() any { return &build{unmapped: map[string]int{}} }, Gates: gates, Ranges: queueRanges}
	s.Files = append(s.Files, op.kind(false))
	for _, o := range op.Forms {
		s.Files = append(s.Files, o.kind(false))
	}
	for _, c := range op.Companions {
		s.Files = append(s.Files, c.kind(true))
	}
	return kit.New(s)
}

// kind is the kind of file of op's tables.
func (op *Operator) kind(companion bool) *kit.File {
	return &kit.File{Match: op.File, SourceID: op.SourceID, Publisher: op.Publisher,
		URL:     func(string, []string) string { return op.URL },
		Derived: op.Derived, OriginalURL: op.OriginalURL, Companion: companion, Open: op.open,
		Hint: func(path string, _ []string) string { return op.hint(filepath.Base(path)) }}
}

// known is the operator's current file (and its other forms') from the address it is
// published at, under a name without date. The dated files of earlier snapshots are no
// longer published; they stay in the raw store.
func (op *Operator) known() []fetch.Source {
	var out []fetch.Source
	for _, o := range append([]*Operator{op}, op.Forms...) {
		if o.Download != "" {
			out = append(out, fetch.Source{URL: o.Download, Kind: o.DownloadKind, Dest: o.Folder + "/" + o.DownloadName})
		}
	}
	return out
}

func (op *Operator) hint(name string) string {
	if op.Hint != nil {
		return op.Hint(name)
	}
	return hintFromName(name)
}

var nameDate = regexp.MustCompile(`(\d{4})-?(\d{2})-?(\d{2})?`)

// hintFromName is the as_of a file name implies, for a file that cannot be parsed.
func hintFromName(name string) string {
	m := nameDate.FindStringSubmatch(name)
	if m == nil {
		return ""
	}
	d := m[3]
	if d == "" {
		d = "01"
	}
	return m[1] + "-" + m[2] + "-" + d
}

// Operators lists every operator's queue, in ingest order.
var Operators = []*Operator{MISO, PJM, PJMCycle, CAISOCluster15, CAISO, NYISO, ISONE, ERCOT, SPP}
