package kit

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/snapshots"
)

// A Spec declares a sheet or CSV adapter: the capability it ingests, the files it reads
// (each kind of file with its sheets, each sheet with its header row and its columns), how
// the files group into snapshots, and hooks only where a publisher needs code: fields derived
// from a row's cells, a file's as_of and title, and the gates beyond the generic ones. Spec
// implements ingest.Adapter once for every such adapter: one row reader reads each declared
// column's cell as its kind, records a cell that does not parse at its cell address and sets
// the field with the cell's column (ingest.Row.SetCell), and a second reading of each sheet,
// independent of the row selection, reconciles the rows and a column's total.
type Spec struct {
	Cap     *capability.Capability
	Version string
	// Name tells apart two adapters of one capability (the forms a publisher's data comes
	// in); "" for a capability's only adapter.
	Name string
	// Folders are the folders of the raw directory the adapter reads (ingest.Adapter.Folders).
	Folders []string
	// Known are the files ingest --fetch downloads from their official addresses.
	Known []fetch.Source
	// Files are the kinds of data file, in the order they are planned and read.
	Files []*File
	// Refs are reference files (codebooks) each plan gets beside its data files.
	Refs []*Ref
	// Together makes every data file found, of every kind, one snapshot.
	Together bool
	// ByHint orders the plans by the as_of their names imply, those without one last (the
	// publisher's current file, whose name carries no date); otherwise plans keep the order
	// of Files and of the paths found.
	ByHint bool
	// Sort, when set, orders the plans once planned instead (a form whose as_of is known
	// only once read last, say).
	Sort func(plans []ingest.Plan)

	// State makes the adapter's own state for one build (counts, codes met), which its hooks
	// reach through Book.State; nil: none.
	State func() any
	// Codebooks reads the codebooks of the plan's reference files (Book.Refs) into
	// Book.Codebooks, and says how in Book.CodebookGate; nil: no codebook.
	Codebooks func(b *Book) error
	// AsOf is the snapshot's as_of, once every file is read; nil: Book.AsOf as the hooks set it.
	AsOf func(b *Book) (string, error)
	// Gates are the snapshot's gates, generic ones (Book.HeadersGate, Book.CellsGate,
	// Book.Rec) and the adapter's own, in the order the manifest lists them; it may still
	// complete the files' sources (FileRead.Source) and the codebooks.
	Gates func(b *Book) []snapshots.Gate
	// Ranges and Required feed the generic range and required-column gates.
	Ranges   map[string]snapshots.Range
	Required []string
}

// A File is one kind of data file: its name, who publishes it, where it is published, and
// the sheets read from it.
type File struct {
	// Match matches the file's base name; its submatches reach the hooks (FileRead.Match).
	Match *regexp.Regexp
	// Names, when set, are the only names of the kind, planned in this order (Match is then
	// not needed).
	Names []string
	// SourceID and Publisher name the file in citations; URL is where it is published (a
	// copy's address, for a derived file), from its name and Match's submatches.
	SourceID  string
	Publisher string
	URL       func(name string, m []string) string
	// Derived marks a third party's copy of the publisher's data; OriginalURL is then the
	// publisher's own address of it.
	Derived     bool
	OriginalURL string
	// OriginalOf, when set, is OriginalURL from the file's name and Match's submatches (a
	// copy of one of several of the publisher's requests).
	OriginalOf func(name string, m []string) string
	// Source, when set, gives a file's source id, publisher and URL instead (a kind whose
	// files name their source each).
	Source func(name string, m []string) (id, publisher, url string)
	// Together makes every file of the kind found one snapshot; otherwise each file is its
	// own. Group, when set, makes one snapshot of the files with the same group key.
	Together bool
	Group    func(m []string) string
	// Document, when set, is the identity of the document a plan of the kind reads
	// (ingest.Plan.Document), from its first file's submatches; nil: its files' names.
	Document func(m []string) string
	// Hint is the as_of a file's name implies (used when the file cannot be parsed, and to
	// order plans with Spec.ByHint); nil: none.
	Hint func(path string, m []string) string
	// Accept, when set, leaves out a file it returns false for (a copy the publisher's own
	// file supersedes, an export of another level).
	Accept func(finder *ingest.Finder, path string, m []string) (bool, error)
	// Companion files join the snapshot planned last (a list published beside the main file).
	Companion bool
	// Role is the role of the kind's files in a plan ("": ingest.RoleData). Files of another
	// role are not read as data: a check file (ingest.RoleCheck) reaches the hooks through
	// Book.Plan and is listed among the sources after the data files.
	Role string

	// Open reads what the file states before its sheets are read (its as_of, its title); an
	// error fails the build. Close runs after its sheets. nil: nothing.
	Open  func(fr *FileRead) error
	Close func(fr *FileRead) error
	// Sheets are the sheets read, in order.
	Sheets []*Sheet
}

// A Ref is a kind of reference file: the newest file its Match finds (by its first
// submatch, a year), or with SameYear the one of the data file's year when there is one.
type Ref struct {
	Match     *regexp.Regexp
	SourceID  string
	Publisher string
	URL       func(name string, m []string) string
	// SameYear takes the reference file of the year the data file's Year gives, else the
	// newest.
	SameYear bool
	// Name is the name of the reference file of a year (with SameYear).
	Name func(year string) string
	// Year is the year of a data file, from its kind's Match submatches (with SameYear).
	Year func(m []string) string
}

// A Sheet is one sheet of a file: where to find it and its header row, the columns read
// from it, which of its rows are data, and how a second reading reconciles them.
type Sheet struct {
	// Name is the sheet's name; with Prefix or Suffix set, the first sheet whose name starts
	// or ends with it (Name then names it in errors). All three empty: the file's first sheet
	// (a CSV file's only table).
	Name, Prefix, Suffix string
	// Optional marks a sheet not every vintage has.
	Optional bool
	// Header is the 1-based header row. HeaderAt finds it instead; Find, instead, is the
	// first row among the first Find rows holding the label of every column that is not
	// Optional (FindLabels, when set, instead), else Header (reported).
	Header     int
	HeaderAt   func(sh *grid.Sheet) int
	Find       int
	FindLabels []string
	// Fold folds a header label for matching (nil: Norm).
	Fold func(string) string
	// First is the first data row (0: the row after the header).
	First int
	// Columns are read on every data row, in order.
	Columns []Column
	// IsRow tells a data row from a title, blank, total or note row (nil: a row with a
	// published cell that is not a note). Stop, when set, ends the data at the first row it
	// is true for (SheetRead.End).
	IsRow func(r *Row) bool
	Stop  func(r *Row) bool
	// Set are fields set alike on every row of the sheet.
	Set map[string]any
	// Begin checks the sheet before its rows are read (a footer the publisher closes it
	// with); false: the sheet is not read (Begin reports why). nil: nothing.
	Begin func(s *SheetRead) bool
	// Row completes each data row once its columns are read: derived fields and the
	// source_record_key. Each, instead, adds the row's facts itself (Row.Add), for a sheet
	// whose row holds several (a column per month) or that validates a row before keeping
	// it.
	Row  func(r *Row)
	Each func(r *Row)
	// Tally is the sheet's second reading (nil: none).
	Tally *Tally
}

// A Column is one column read into one field.
type Column struct {
	// Field is the field the column is read into ("": a column the sheet must have, not read).
	Field string
	// Header is the column's label (Alt further spellings, first found wins), matched as
	// the sheet's Fold folds them.
	Header string
	Alt    []string
	Kind   Kind
	// Marks are the publisher's marks for "no value" (see Blank).
	Marks []string
	// At is the column's position in the publisher's layout: a header row that lacks the
	// label is reported and the column read there. 0: a sheet without the label is reported
	// and not read.
	At int
	// Optional marks a column not every vintage has: without its label the column is read
	// at At, without complaint, or the field is null.
	Optional bool
	// Uncited reads the field without recording its column (set with Set): a value whose
	// column varies by row.
	Uncited bool
	// Find, when set, finds the column instead of Header (a label spread over several header
	// rows); 0: absent. Header then names it in reports.
	Find func(s *SheetRead) int
}

// Kind is how a column's cells are read.
type Kind uint8

// The kinds of cell.
const (
	// AsText is the trimmed text, null when blank (Text).
	AsText Kind = iota
	// AsNumber is a number, null when blank (Number).
	AsNumber
	// AsInt is a whole number (Int).
	AsInt
	// AsDate is a date, YYYY-MM-DD (Date).
	AsDate
	// AsSquashed is the text with its white space folded, "" when blank (Squash).
	AsSquashed
	// AsGrouped is a number that may group its thousands with commas ("12,345"), as some
	// publishers print values; null when blank (Grouped).
	AsGrouped
)

// Read reads cell c as kind k.
func (k Kind) Read(c grid.Cell, marks ...string) (any, error) {
	switch k {
	case AsNumber:
		return Number(c, marks...)
	case AsInt:
		return Int(c, marks...)
	case AsDate:
		return Date(c, marks...)
	case AsSquashed:
		return Squash(c.Value), nil
	case AsGrouped:
		return Grouped(c, marks...)
	}
	return Text(c, marks...), nil
}

// A Tally is the second reading of a sheet, independent of the row selection of the typed
// build: it counts the sheet's rows below the header by a test of its own and sums columns
// straight from the cells' text, and the totals_reconcile gate compares that with the rows
// the build added and the total of Field over them.
type Tally struct {
	// Mark is the header of the column whose cell, a whole number, marks a counted row;
	// without it a row counts when at least Cells of its cells are published (a note, a
	// legend or a total fills one or two; a data row many).
	Mark  string
	Cells int
	// Skip, when set, leaves out counted rows the publisher's file holds but the adapter
	// declares not data (a test row), by the text of the Mark column... or of SkipCol.
	Skip func(s *SheetRead, r int) bool
	// Sum are the headers of the columns summed; with several, each of their cells is a
	// value counted (a column per month).
	Sum []string
	// SumCols, when set, gives the summed columns instead.
	SumCols func(s *SheetRead) []int
	// Field is the fact field the build's rows are totalled by; Unit its unit.
	Field string
	Unit  string
	// Grouped sums cells that group their thousands with commas ("12,345") as the numbers
	// they spell.
	Grouped bool
	// Label names the sheet in the gate (nil: its name).
	Label func(s *SheetRead) string
}

// FileLabel names a tally by the file's name.
func FileLabel(s *SheetRead) string { return s.File.Name }

// FileSheetLabel names a tally by the file's and the sheet's names.
func FileSheetLabel(s *SheetRead) string { return s.File.Name + " " + s.Spec.Name }

// Book is what one build reads: the rows, the cells that do not parse, the headers found and
// missing, what is incomplete, the reconciliation, and the adapter's own State.
type Book struct {
	Spec  *Spec
	Plan  ingest.Plan
	Rows  *ingest.Rows
	Refs  []ingest.File
	Files []*FileRead
	// AsOf is the snapshot's as_of, as the hooks read it.
	AsOf string
	// Bad are the cells that do not parse (cells_parse); Missing the header faults
	// (headers_present); Found what the headers held; Incomplete what is cut short
	// (sheets_complete); Rec the second readings (totals_reconcile).
	Bad        Problems
	Missing    []string
	Found      []string
	Incomplete []string
	Rec        Reconcile
	// Codebooks and CodebookGate are set by Spec.Codebooks.
	Codebooks    []snapshots.Codebook
	CodebookGate snapshots.Gate
	// Coverage lists the periods the files cover only in part (ingest.Build.Coverage), as the
	// hooks find them.
	Coverage []snapshots.Coverage
	// Facts are the rows once finished (for the gates).
	Facts []snapshots.Row
	State any
}

// FileRead is one data file being read.
type FileRead struct {
	*ingest.File
	Book *Book
	Kind *File
	// Name is the file's base name, Match its kind's submatches of it.
	Name  string
	Match []string
	WB    *grid.Workbook
	// Source is the file's manifest entry; hooks set its title and release. Omit leaves it
	// out of the manifest (a file whose layout is not the adapter's, reported by the gates).
	Source snapshots.Source
	Omit   bool
	Sheets []*SheetRead
	// Added are the facts read from the file, in order.
	Added []*ingest.Row
}

// SheetRead is one sheet being read.
type SheetRead struct {
	*grid.Sheet
	File   *FileRead
	Spec   *Sheet
	Header *Header
	// HeaderRow is the header row (0: a positional layout).
	HeaderRow int
	cols      []int
	fold      func(string) string
	// End is the row after the data (where Stop ended it, else past the last row).
	End int
	// Facts is the number of fact rows added from the sheet (or rows counted, Row.Count);
	// Total the sum of the tally's Field over them.
	Facts int
	Total float64
}

// Col is the 1-based column of the declared column of field, or of the declared column
// headed name that is read into no field (0: the sheet lacks it).
func (s *SheetRead) Col(name string) int {
	for i, c := range s.Spec.Columns {
		if c.Field == name || c.Field == "" && c.Header == name {
			return s.cols[i]
		}
	}
	return 0
}

// ColOf is the 1-based column of header label h (0: absent), as the sheet folds labels.
func (s *SheetRead) ColOf(h string) int {
	if s.Header == nil {
		return 0
	}
	return s.Header.Col(h)
}

// Row is one data row of a sheet: its declared columns read, and the fact it becomes (nil in
// a sheet read with Each until Add).
type Row struct {
	*ingest.Row
	Sheet *SheetRead
	File  *FileRead
	Book  *Book
	// N is the row's 1-based number in the sheet.
	N     int
	vals  []any
	bad   []bool
	added []*ingest.Row
}

// Value is the value read from field's declared column (nil when null or absent).
func (r *Row) Value(field string) any {
	for i, c := range r.Sheet.Spec.Columns {
		if c.Field == field {
			return r.vals[i]
		}
	}
	return nil
}

// Text is field's value as text ("" when null).
func (r *Row) Text(field string) string {
	s, _ := r.Value(field).(string)
	return s
}

// Parsed reports whether field's cell was read without a problem.
func (r *Row) Parsed(field string) bool {
	for i, c := range r.Sheet.Spec.Columns {
		if c.Field == field {
			return !r.bad[i]
		}
	}
	return false
}

// Cell is the cell of field's declared column on the row.
func (r *Row) Cell(field string) grid.Cell { return r.Sheet.Cell(r.N, r.Sheet.Col(field)) }

// CellAt is the cell of 1-based column c on the row.
func (r *Row) CellAt(c int) grid.Cell { return r.Sheet.Cell(r.N, c) }

// Read reads the cell of column c as kind k, recording a cell that does not parse under
// what (a header or field) at its address.
func (r *Row) Read(k Kind, c int, what string, marks ...string) any {
	v, err := k.Read(r.Sheet.Cell(r.N, c), marks...)
	if err != nil {
		r.Problem(c, what, "%v", err)
	}
	return v
}

// Problem records a problem of the cell in column c (what names it) at its address.
func (r *Row) Problem(c int, what, format string, args ...any) {
	r.Book.Bad.Add("%s", r.Sheet.Where(r.N, c, what)+": "+fmt.Sprintf(format, args...))
}

// Where is the address of the cell of row n and column c, with what it holds:
// "file sheet!B12 (what)".
func (s *SheetRead) Where(n, c int, what string) string {
	w := fmt.Sprintf("%s %s!%s%d", s.File.Name, s.Name, grid.ColumnName(c), n)
	if what != "" {
		w += " (" + what + ")"
	}
	return w
}

// Add adds a fact for the row: cited to the file's row, with the sheet's Set fields and the
// declared columns set (each with its column).
func (r *Row) Add() *ingest.Row {
	f := r.File
	row := r.Book.Rows.Add(ingest.Lineage{SourceID: f.SourceID, File: f.Name, Sheet: r.Sheet.Name, Row: r.N, SHA256: f.SHA256})
	keys := make([]string, 0, len(r.Sheet.Spec.Set))
	for k := range r.Sheet.Spec.Set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		row.Set(k, r.Sheet.Spec.Set[k])
	}
	for i, c := range r.Sheet.Spec.Columns {
		if c.Field == "" || r.bad[i] && c.Kind == AsDate {
			continue
		}
		if c.Uncited {
			row.Set(c.Field, r.vals[i])
		} else {
			row.SetCell(c.Field, r.Sheet.cols[i], r.vals[i])
		}
	}
	r.Row = row
	r.added = append(r.added, row)
	f.Added = append(f.Added, row)
	r.Sheet.Facts++
	return row
}

// Count counts the row in the sheet's second reading without adding a fact, v its value of
// what the tally sums (a sheet whose facts are made from several of its rows, a rollup,
// reconciles the rows it read).
func (r *Row) Count(v any) {
	r.Sheet.Facts++
	if f, ok := v.(float64); ok {
		r.Sheet.Total += f
	}
}

// Adapter is the ingest.Adapter a Spec declares.
type Adapter struct{ s *Spec }

// New is the adapter spec declares.
func New(spec *Spec) Adapter { return Adapter{spec} }

// Spec is the adapter's declaration.
func (a Adapter) Spec() *Spec { return a.s }

// Capability implements ingest.Adapter.
func (a Adapter) Capability() *capability.Capability { return a.s.Cap }

// Version implements ingest.Adapter.
func (a Adapter) Version() string { return a.s.Version }

// Folders implements ingest.Adapter.
func (a Adapter) Folders() []string { return a.s.Folders }

// Known implements ingest.Adapter.
func (a Adapter) Known() []fetch.Source { return append([]fetch.Source(nil), a.s.Known...) }

// Name implements ingest.Named.
func (a Adapter) Name() string { return a.s.Name }

// Plan implements ingest.Adapter.
func (a Adapter) Plan(finder *ingest.Finder) ([]ingest.Plan, error) { return a.s.plan(finder) }

// Build implements ingest.Adapter.
func (a Adapter) Build(p ingest.Plan) (*ingest.Build, error) { return a.s.build(p) }

// plan plans the files of each kind, each its own snapshot (or one of the kind's, or one per
// group), companions joining the last, with the reference files.
func (s *Spec) plan(finder *ingest.Finder) ([]ingest.Plan, error) {
	var plans []ingest.Plan
	var matches [][]string // the data file's submatches, by plan
	var companions []ingest.File
	for _, k := range s.Files {
		paths, err := k.find(finder)
		if err != nil {
			return nil, fmt.Errorf("%s plan: %w", s.Cap.ID, err)
		}
		var together *ingest.Plan
		groups := map[string]int{}
		for _, p := range paths {
			m := k.match(filepath.Base(p))
			if k.Accept != nil {
				ok, err := k.Accept(finder, p, m)
				if err != nil {
					return nil, fmt.Errorf("%s plan: %w", s.Cap.ID, err)
				}
				if !ok {
					continue
				}
			}
			f := k.file(p, m)
			switch {
			case k.Companion:
				companions = append(companions, f)
			case k.Group != nil:
				g := k.Group(m)
				if i, ok := groups[g]; ok {
					plans[i].Files = append(plans[i].Files, f)
					continue
				}
				groups[g] = len(plans)
				plans = append(plans, ingest.Plan{AsOfHint: k.hint(p, m), Document: k.document(m), Files: []ingest.File{f}})
				matches = append(matches, m)
			case k.Together:
				if together == nil {
					plans = append(plans, ingest.Plan{AsOfHint: k.hint(p, m), Document: k.document(m)})
					matches = append(matches, m)
					together = &plans[len(plans)-1]
				}
				together.Files = append(together.Files, f)
			default:
				plans = append(plans, ingest.Plan{AsOfHint: k.hint(p, m), Document: k.document(m), Files: []ingest.File{f}})
				matches = append(matches, m)
			}
		}
	}
	if s.Together && len(plans) > 1 {
		for _, p := range plans[1:] {
			plans[0].Files = append(plans[0].Files, p.Files...)
		}
		plans, matches = plans[:1], matches[:1]
	}
	if s.ByHint {
		idx := make([]int, len(plans))
		for i := range idx {
			idx[i] = i
		}
		newest := func(h string) string {
			if h == "" {
				return "\uffff"
			}
			return h
		}
		sort.SliceStable(idx, func(i, j int) bool { return newest(plans[idx[i]].AsOfHint) < newest(plans[idx[j]].AsOfHint) })
		sorted, sm := make([]ingest.Plan, len(plans)), make([][]string, len(plans))
		for i, j := range idx {
			sorted[i], sm[i] = plans[j], matches[j]
		}
		plans, matches = sorted, sm
	}
	if len(plans) > 0 {
		last := &plans[len(plans)-1]
		last.Files = append(last.Files, companions...)
	}
	for _, ref := range s.Refs {
		newest, err := ref.newest(finder)
		if err != nil {
			return nil, fmt.Errorf("%s plan: %w", s.Cap.ID, err)
		}
		for i := range plans {
			p := newest
			if ref.SameYear && ref.Year != nil {
				same, err := finder.Named(ref.Name(ref.Year(matches[i])))
				if err != nil {
					return nil, fmt.Errorf("%s plan: %w", s.Cap.ID, err)
				}
				if len(same) > 0 {
					p = same[0]
				}
			}
			if p == "" {
				continue
			}
			name := filepath.Base(p)
			plans[i].Files = append(plans[i].Files, ingest.File{Path: p, SourceID: ref.SourceID, Publisher: ref.Publisher,
				URL: ref.URL(name, ref.Match.FindStringSubmatch(name)), Role: ingest.RoleReference})
		}
	}
	if s.Sort != nil {
		s.Sort(plans)
	}
	return plans, nil
}

// find lists the kind's files.
func (k *File) find(finder *ingest.Finder) ([]string, error) {
	if len(k.Names) == 0 {
		return finder.Find(k.Match.MatchString)
	}
	var out []string
	for _, n := range k.Names {
		ps, err := finder.Named(n)
		if err != nil {
			return nil, err
		}
		out = append(out, ps...)
	}
	return out, nil
}

// match is name's submatches (name alone, for a kind declared by Names).
func (k *File) match(name string) []string {
	if k.Match == nil {
		return []string{name}
	}
	return k.Match.FindStringSubmatch(name)
}

func (k *File) matches(name string) bool {
	for _, n := range k.Names {
		if n == name {
			return true
		}
	}
	return k.Match != nil && k.Match.MatchString(name)
}

func (k *File) document(m []string) string {
	if k.Document == nil {
		return ""
	}
	return k.Document(m)
}

func (k *File) hint(path string, m []string) string {
	if k.Hint == nil {
		return ""
	}
	return k.Hint(path, m)
}

// file is the plan's entry of the data file at path.
func (k *File) file(path string, m []string) ingest.File {
	name := filepath.Base(path)
	id, pub, url := k.SourceID, k.Publisher, ""
	if k.URL != nil {
		url = k.URL(name, m)
	}
	if k.Source != nil {
		id, pub, url = k.Source(name, m)
	}
	orig := k.OriginalURL
	if k.OriginalOf != nil {
		orig = k.OriginalOf(name, m)
	}
	role := k.Role
	if role == "" {
		role = ingest.RoleData
	}
	return ingest.File{Path: path, SourceID: id, Publisher: pub, URL: url, Role: role, Derived: k.Derived, OriginalURL: orig}
}

// newest is the path of the reference file with the greatest first submatch ("" when none).
func (ref *Ref) newest(finder *ingest.Finder) (string, error) {
	ps, err := finder.Find(ref.Match.MatchString)
	if err != nil || len(ps) == 0 {
		return "", err
	}
	best := ps[0]
	for _, p := range ps[1:] {
		if ref.Match.FindStringSubmatch(filepath.Base(p))[1] > ref.Match.FindStringSubmatch(filepath.Base(best))[1] {
			best = p
		}
	}
	return best, nil
}

// build reads every sheet of every data file by its declaration, with the hooks' fields and
// gates, and finishes the rows at the as_of the hooks read.
func (s *Spec) build(p ingest.Plan) (*ingest.Build, error) {
	b := &Book{Spec: s, Plan: p, Rows: ingest.NewRows(s.Cap)}
	if s.State != nil {
		b.State = s.State()
	}
	var data []ingest.File
	for _, f := range p.Files {
		if f.Role == ingest.RoleData {
			data = append(data, f)
		} else {
			b.Refs = append(b.Refs, f)
		}
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("%s: the plan has no data file", s.Cap.ID)
	}
	if s.Codebooks != nil {
		if err := s.Codebooks(b); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Cap.ID, err)
		}
	}
	for i := range data {
		if err := b.read(&data[i]); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Cap.ID, err)
		}
	}
	asOf := b.AsOf
	if s.AsOf != nil {
		var err error
		if asOf, err = s.AsOf(b); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Cap.ID, err)
		}
	}
	facts, err := b.Rows.Finish(asOf)
	if err != nil {
		return nil, err
	}
	b.Facts, b.AsOf = facts, asOf
	out := &ingest.Build{AsOf: asOf, Rows: facts, Cells: b.Rows.Cells(), Ranges: s.Ranges, Required: s.Required, Coverage: b.Coverage}
	if s.Gates != nil {
		out.Checks = s.Gates(b)
	}
	for _, fr := range b.Files {
		if !fr.Omit {
			out.Sources = append(out.Sources, fr.Source)
		}
	}
	for _, f := range b.Refs {
		out.Sources = append(out.Sources, f.Source())
	}
	if len(b.Codebooks) > 0 {
		out.Codebooks = ingest.CountCodes(s.Cap, b.Codebooks, facts)
	}
	return out, nil
}

// kindOf is the kind of data file named name.
func (s *Spec) kindOf(name string) *File {
	for _, k := range s.Files {
		if k.matches(name) {
			return k
		}
	}
	return nil
}

// read reads one data file: its Open hook, every declared sheet, its Close hook.
func (b *Book) read(f *ingest.File) error {
	name := filepath.Base(f.Path)
	k := b.Spec.kindOf(name)
	if k == nil {
		return fmt.Errorf("%s: no kind of file of the adapter is named so", name)
	}
	wb, err := grid.Open(f.Path)
	if err != nil {
		return err
	}
	fr := &FileRead{File: f, Book: b, Kind: k, Name: name, Match: k.match(name), WB: wb, Source: f.Source()}
	fr.Source.HeaderRows = map[string]int{}
	b.Files = append(b.Files, fr)
	if k.Open != nil {
		if err := k.Open(fr); err != nil {
			return err
		}
	}
	for _, spec := range k.Sheets {
		fr.readSheet(spec)
	}
	if k.Close != nil {
		return k.Close(fr)
	}
	return nil
}

// Sheet finds the sheet spec declares in the file (nil when absent).
func (fr *FileRead) Sheet(spec *Sheet) *grid.Sheet {
	switch {
	case spec.Prefix != "" || spec.Suffix != "":
		for _, sh := range fr.WB.Sheets {
			if strings.HasPrefix(sh.Name, spec.Prefix) && strings.HasSuffix(sh.Name, spec.Suffix) {
				return sh
			}
		}
		return nil
	case spec.Name != "":
		return fr.WB.Sheet(spec.Name)
	case len(fr.WB.Sheets) > 0:
		return fr.WB.Sheets[0]
	}
	return nil
}

// readSheet reads one declared sheet: its header row, each data row's columns, and the
// second reading.
func (fr *FileRead) readSheet(spec *Sheet) {
	b := fr.Book
	sh := fr.Sheet(spec)
	if sh == nil {
		if !spec.Optional {
			b.Missing = append(b.Missing, fmt.Sprintf("%s: no sheet %q (sheets: %s)", fr.Name, spec.Name, strings.Join(fr.WB.SheetNames(), ", ")))
		}
		return
	}
	s := &SheetRead{Sheet: sh, File: fr, Spec: spec, fold: spec.Fold}
	if s.fold == nil {
		s.fold = Norm
	}
	fr.Sheets = append(fr.Sheets, s)
	s.HeaderRow = spec.Header
	var lacks []string
	switch {
	case spec.HeaderAt != nil:
		s.HeaderRow = spec.HeaderAt(sh)
	case spec.Find > 0:
		labels := spec.FindLabels
		if labels == nil {
			for _, c := range spec.Columns {
				if c.Header != "" && c.Find == nil && !c.Optional {
					labels = append(labels, c.Header)
				}
			}
		}
		if r := s.findHeader(spec.Find, labels); r > 0 {
			s.HeaderRow = r
		} else {
			lacks = append(lacks, fmt.Sprintf("no row among the first %d holds %q", spec.Find, labels))
		}
	}
	fr.Source.HeaderRows[sh.Name] = s.HeaderRow
	if s.HeaderRow > 0 {
		s.Header = headerAtFold(sh, s.HeaderRow, s.fold)
	}
	s.cols = make([]int, len(spec.Columns))
	read := true
	var absent []string
	for i, c := range spec.Columns {
		switch {
		case c.Find != nil:
			s.cols[i] = c.Find(s)
		case c.Header == "":
			s.cols[i] = c.At
			continue
		default:
			s.cols[i] = s.ColOf(c.Header)
		}
		for _, a := range c.Alt {
			if s.cols[i] == 0 {
				s.cols[i] = s.ColOf(a)
			}
		}
		if s.cols[i] > 0 {
			continue
		}
		if c.Optional {
			s.cols[i] = c.At
			continue
		}
		absent = append(absent, c.Header)
		if c.At > 0 {
			s.cols[i] = c.At
		} else {
			read = false
		}
	}
	if len(absent) > 0 {
		lacks = append(lacks, fmt.Sprintf("row %d lacks %q", s.HeaderRow, absent))
	}
	if len(lacks) > 0 {
		how := " (read at the layout's positions instead)"
		if !read {
			how = " (not read)"
		}
		b.Missing = append(b.Missing, fmt.Sprintf("%s sheet %s: %s%s", fr.Name, sh.Name, strings.Join(lacks, "; "), how))
		if !read {
			return
		}
	}
	if spec.Begin != nil && !spec.Begin(s) {
		return
	}
	first := spec.First
	if first == 0 {
		first = s.HeaderRow + 1
	}
	s.End = sh.NumRows() + 1
	for n := first; n <= sh.NumRows(); n++ {
		r := &Row{Sheet: s, File: fr, Book: b, N: n}
		if spec.Stop != nil && spec.Stop(r) {
			s.End = n
			break
		}
		if spec.IsRow != nil && !spec.IsRow(r) || spec.IsRow == nil && !published(sh.Row(n)) {
			continue
		}
		r.vals, r.bad = make([]any, len(spec.Columns)), make([]bool, len(spec.Columns))
		for i, c := range spec.Columns {
			if s.cols[i] == 0 || c.Field == "" {
				continue
			}
			v, err := c.Kind.Read(sh.Cell(n, s.cols[i]), c.Marks...)
			if err != nil {
				r.bad[i] = true
				r.Problem(s.cols[i], c.Header, "%v", err)
			}
			r.vals[i] = v
		}
		if spec.Each != nil {
			spec.Each(r)
		} else {
			r.Add()
			if spec.Row != nil {
				spec.Row(r)
			}
		}
		if t := spec.Tally; t != nil && t.Field != "" {
			for _, row := range r.added {
				switch v := row.Get(t.Field).(type) {
				case float64:
					s.Total += v
				case int64: // a whole-number field (AsInt)
					s.Total += float64(v)
				}
			}
		}
	}
	if t := spec.Tally; t != nil {
		n, sum := t.read(s)
		label := sh.Name
		if t.Label != nil {
			label = t.Label(s)
		}
		b.Rec.Sheet(label, s.Facts, s.Total, n, sum, t.Unit)
	}
}

// published reports whether a row holds a published cell and is not a note.
func published(row []grid.Cell) bool {
	for _, c := range row {
		if !Blank(c) {
			return !IsNote(row)
		}
	}
	return false
}

// findHeader is the first row among the first max that holds every label (0: none).
func (s *SheetRead) findHeader(max int, labels []string) int {
	for n := 1; n <= min(max, s.NumRows()); n++ {
		h := headerAtFold(s.Sheet, n, s.fold)
		ok := true
		for _, l := range labels {
			if h.Col(l) == 0 {
				ok = false
				break
			}
		}
		if ok {
			return n
		}
	}
	return 0
}

// read is the tally's count of rows and the sum of its columns, read from the cells' text.
func (t *Tally) read(s *SheetRead) (int, float64) {
	mark := 0
	if t.Mark != "" {
		// The column under the label, else where the layout puts a declared column of it.
		if mark = s.ColOf(t.Mark); mark == 0 {
			for i, c := range s.Spec.Columns {
				if c.Header == t.Mark {
					mark = s.cols[i]
				}
			}
		}
		if mark == 0 {
			return 0, 0
		}
	}
	var cols []int
	if t.SumCols != nil {
		cols = t.SumCols(s)
	} else {
		for _, h := range t.Sum {
			cols = append(cols, s.ColOf(h))
		}
	}
	n, sum := 0, 0.0
	for r := s.HeaderRow + 1; r <= s.NumRows(); r++ {
		if mark > 0 {
			if !wholeNumber(s.Cell(r, mark).Value) {
				continue
			}
		} else if Filled(s.Sheet.Row(r)) < max(t.Cells, 1) {
			continue
		}
		if t.Skip != nil && t.Skip(s, r) {
			continue
		}
		if len(cols) <= 1 {
			n++
		}
		for _, c := range cols {
			if len(cols) > 1 {
				n++
			}
			v := s.Cell(r, c).Value
			if t.Grouped {
				v = ungroup(v)
			}
			if x, ok := parseFloat(v); ok {
				sum += x
			}
		}
	}
	return n, sum
}

// Filled is the number of cells of a row whose text is not white space.
func Filled(row []grid.Cell) int {
	n := 0
	for _, c := range row {
		if strings.TrimSpace(c.Value) != "" {
			n++
		}
	}
	return n
}

// wholeNumber reports whether text s is a whole number.
func wholeNumber(s string) bool {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil && f == math.Trunc(f) && !math.IsInf(f, 0)
}

// parseFloat reads text s as a number.
func parseFloat(s string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return f, err == nil
}

// HeadersGate is the headers_present gate: the header faults, else ok.
func (b *Book) HeadersGate(ok string) snapshots.Gate { return Failures(GateHeaders, b.Missing, ok) }

// CellsGate is the cells_parse gate: the cells that do not parse, else ok.
func (b *Book) CellsGate(ok string) snapshots.Gate { return b.Bad.Gate(GateCells, ok) }

// CompleteGate is the sheets_complete gate: what is cut short, else ok.
func (b *Book) CompleteGate(ok string) snapshots.Gate {
	return Failures(GateComplete, b.Incomplete, ok)
}
