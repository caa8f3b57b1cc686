// Package ferc holds the Federal Energy Regulatory Commission's adapters: FERC Form 1 (the
// annual report of major electric utilities), filed since 2021 as XBRL instance documents
// through FERC's eForms system.
package ferc

import (
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/kit"
)

// Form1 ingests power.plant_costs from FERC Form 1 XBRL filings: every fact of schedule 402,
// Steam-Electric Generating Plant Statistics (Large Plants), of every filing found, one
// snapshot of them all.
type Form1 struct{}

const (
	sourceID = "ferc1"
	// Publisher is the agency every adapter of this package cites.
	Publisher = "Federal Energy Regulatory Commission"
	// folder holds filings named <document>-<instance> (FERC's eForms document number, then
	// the instance's own name), xbrlFolder filings under the names FERC's XBRL RSS feed
	// archive gives them, where ingest --fetch stores the known filings. Both are read alike.
	folder     = "ferc/form1"
	xbrlFolder = "ferc/form1_xbrl"
)

var (
	instanceName = regexp.MustCompile(`(?i)\.(xml|xbrl)$`)
	// documentName is the name ingest --fetch gives a filing: FERC's document number, a
	// hyphen, and the instance's own file name.
	documentName  = regexp.MustCompile(`^(\d+)-(.+)$`)
	fercNamespace = regexp.MustCompile(`^http://ferc\.gov/form/\d{4}-\d{2}-\d{2}/ferc$`)
	// dimensionHeader is a dimension column's header: the axis QName as written.
	dimensionHeader = regexp.MustCompile(`^[A-Za-z_][\w.-]*:([A-Za-z_][\w.-]*)$`)
)

// Capability implements Adapter.
func (Form1) Capability() *capability.Capability { return capability.PowerPlantCosts }

// Version implements Adapter.
func (Form1) Version() string { return "ferc1-402/2" }

// Folders implements Adapter.
func (Form1) Folders() []string { return []string{folder, xbrlFolder} }

// downloadURL is the eForms address of a filing's instance document.
func downloadURL(document, name string) string {
	return "https://ecollection.ferc.gov/api/DownloadDocument/" + document + "/1?filename=" + url.QueryEscape(name)
}

// knownFiling is a filing ingest --fetch downloads: its eForms document number, the
// instance's name on eForms, and the name it is stored under in xbrlFolder (the name FERC's
// XBRL RSS feed archive gives it: respondent, form, period, report year and the feed's
// publication time).
type knownFiling struct{ document, instance, stored string }

// knownFilings are the four filings of ferc/form1_xbrl, each at the eForms address FERC's XBRL
// RSS feed gave for it (https://ecollection.ferc.gov/api/rssfeed lists every filing): AEP
// Generating Company 2023, Evergy Kansas Central 2023, and Southern Indiana Gas & Electric
// 2021, its original filing and the refiling that supersedes it.
var knownFilings = []knownFiling{
	{"232550", "wk-20231231.xml", "AEP_Generating_Company_form1_Q4_2023_1712707904.xbrl"},
	{"245982", "wk-20231231.xml", "Evergy_Kansas_Central_Inc_form1_Q4_2023_1713550549.xbrl"},
	{"142021", "wk-20211231.xml", "Southern_Indiana_Gas_and_Electric_Company_Inc_form1_Q4_2021_1650316090.xbrl"},
	{"156387", "wk-20211231.xml", "Southern_Indiana_Gas_and_Electric_Company_Inc_form1_Q4_2021_1666384204.xbrl"},
}

// Known implements Adapter: the known filings, each from its eForms download address.
func (Form1) Known() []fetch.Source {
	var out []fetch.Source
	for _, k := range knownFilings {
		out = append(out, fetch.Source{URL: downloadURL(k.document, k.instance), Kind: fetch.TEXT, Dest: xbrlFolder + "/" + k.stored})
	}
	return out
}

// sourceURL is the address a file is cited with: its eForms download when it is a known
// filing or its name carries the document number.
func sourceURL(name string) string {
	for _, k := range knownFilings {
		if k.stored == name {
			return downloadURL(k.document, k.instance)
		}
	}
	if m := documentName.FindStringSubmatch(name); m != nil {
		return downloadURL(m[1], m[2])
	}
	return "https://ecollection.ferc.gov/ (an eForms filing; the file name does not carry its document number)"
}

// Plan implements Adapter: every filing found is one snapshot's data.
func (Form1) Plan(files *ingest.Finder) ([]ingest.Plan, error) {
	paths, err := files.Find(instanceName.MatchString)
	if err != nil || len(paths) == 0 {
		return nil, err
	}
	var fs []ingest.File
	for _, p := range paths {
		fs = append(fs, ingest.File{Path: p, SourceID: sourceID, Publisher: Publisher, Role: ingest.RoleData, URL: sourceURL(filepath.Base(p))})
	}
	return []ingest.Plan{{Files: fs}}, nil
}

// factColumns are the columns of one filing's facts sheet.
type factColumns struct {
	fixed map[string]int // XBRLFactColumns → column
	plant int            // PlantNameAxis (0: the filing has no such column)
	fuel  int            // FuelKindAxis
	dims  []int          // every dimension column
}

func (c factColumns) col(name string) int { return c.fixed[name] }

// columnsOf reads the header row of a facts sheet: the fixed columns by name (read at their
// place in the layout when a header is missing, which is reported), and the dimension
// columns by their axis QNames.
func columnsOf(sh *grid.Sheet, name string) (factColumns, []string) {
	var missing []string
	c := factColumns{fixed: map[string]int{}}
	hdr := kit.HeaderAt(sh, 1)
	for i, h := range grid.XBRLFactColumns {
		if col := hdr.Col(h); col > 0 {
			c.fixed[h] = col
		} else {
			c.fixed[h] = i + 1
			missing = append(missing, fmt.Sprintf("%s: the facts sheet has no %q column", name, h))
		}
	}
	for col := len(grid.XBRLFactColumns) + 1; col <= len(sh.Row(1)); col++ {
		label := strings.TrimSpace(sh.Cell(1, col).Value)
		m := dimensionHeader.FindStringSubmatch(label)
		if m == nil {
			missing = append(missing, fmt.Sprintf("%s: column %s of the facts sheet is headed %q, not a dimension", name, grid.ColumnName(col), label))
			continue
		}
		c.dims = append(c.dims, col)
		switch m[1] {
		case "PlantNameAxis":
			c.plant = col
		case "FuelKindAxis":
			c.fuel = col
		}
	}
	return c, missing
}

// filing is one instance document and what its cover facts say.
type filing struct {
	file          ingest.File
	name          string
	sh            *grid.Sheet
	cols          factColumns
	respondent    string // the entity identifier (FERC CID)
	legalName     string
	year          int64
	period        string
	submission    string
	formType      string
	attestation   string
	reportDate    string
	rows          []int // rows of schedule 402 facts, each in its part's context
	parsedRows    int   // schedule 402 facts read, those in the wrong part's context included
	parsedSum     float64
	problems      []string
	secondRows    int
	secondSum     float64
	declaredFacts int
}

// date is the filing's date for choosing among a respondent's filings of one year.
func (f *filing) date() string {
	if f.attestation != "" {
		return f.attestation
	}
	return f.reportDate
}

// cover are the facts of a filing's cover page the adapter reads (no dimension).
var cover = []string{"RespondentLegalName", "ReportYear", "ReportPeriod", "SubmissionType", "FormType", "AttestationDate", "ReportDate"}

// read opens one filing and finds its cover facts and its schedule 402 facts.
func read(f ingest.File) (*filing, []string, error) {
	wb, err := grid.Open(f.Path)
	if err != nil {
		return nil, nil, err
	}
	name := filepath.Base(f.Path)
	sh, inst := wb.Sheet(grid.XBRLFactsSheet), wb.Sheet(grid.XBRLInstanceSheet)
	if sh == nil || inst == nil {
		return nil, nil, fmt.Errorf("%s is not an XBRL instance (sheets %s)", name, strings.Join(wb.SheetNames(), ", "))
	}
	fl := &filing{file: f, name: name, sh: sh}
	var missing []string
	fl.cols, missing = columnsOf(sh, name)
	for r := 2; r <= inst.NumRows(); r++ {
		if strings.TrimSpace(inst.Cell(r, 1).Value) == "facts" {
			n, err := strconv.Atoi(strings.TrimSpace(inst.Cell(r, 2).Value))
			if err == nil {
				fl.declaredFacts = n
			}
		}
	}
	text := func(r int, col string) string { return strings.TrimSpace(sh.Cell(r, fl.cols.col(col)).Value) }
	coverValues := map[string]string{}
	for r := 2; r <= sh.NumRows(); r++ {
		if !fercNamespace.MatchString(text(r, "namespace")) {
			continue
		}
		entity := text(r, "entity")
		switch {
		case fl.respondent == "":
			fl.respondent = entity
		case entity != fl.respondent:
			fl.problems = append(fl.problems, fmt.Sprintf("%s row %d: entity %s, but the filing's first fact is of %s", name, r, entity, fl.respondent))
		}
		concept := text(r, "concept")
		dims := fl.dimsOf(r)
		if len(dims) == 0 {
			if slices.Contains(cover, concept) {
				if _, seen := coverValues[concept]; !seen {
					coverValues[concept] = text(r, "value")
				}
			}
			continue
		}
		if fl.cols.plant == 0 || !dims[fl.cols.plant] || len(dims) > 2 || len(dims) == 2 && !dims[fl.cols.fuel] {
			continue // a fact of another schedule
		}
		c, known := concepts[concept]
		if !known {
			missing = append(missing, fmt.Sprintf("%s row %d: %s, in a schedule 402 context, is not a line of schedule 402", name, r, concept))
			continue
		}
		fl.parsedRows++
		if c.numeric {
			if x, err := strconv.ParseFloat(text(r, "value"), 64); err == nil {
				fl.parsedSum += x
			}
		}
		if (c.part == partFuel) != dims[fl.cols.fuel] {
			fl.problems = append(fl.problems, fmt.Sprintf("%s row %d: %s (line %d, %s part) is filed in a context %s a fuel kind",
				name, r, concept, c.line, c.part, map[bool]string{true: "with", false: "without"}[dims[fl.cols.fuel]]))
			continue
		}
		fl.rows = append(fl.rows, r)
	}
	fl.legalName = coverValues["RespondentLegalName"]
	fl.period, fl.submission, fl.formType = coverValues["ReportPeriod"], coverValues["SubmissionType"], coverValues["FormType"]
	if y, err := strconv.ParseInt(coverValues["ReportYear"], 10, 64); err == nil {
		fl.year = y
	}
	for _, d := range []struct {
		v   string
		dst *string
	}{{coverValues["AttestationDate"], &fl.attestation}, {coverValues["ReportDate"], &fl.reportDate}} {
		if t, err := kit.ParseDate(d.v); err == nil {
			*d.dst = t.Format("2006-01-02")
		}
	}
	fl.secondRows, fl.secondSum = secondReading(sh, fl.cols)
	return fl, missing, nil
}

// dimsOf lists the dimension columns a fact's row fills.
func (fl *filing) dimsOf(r int) map[int]bool {
	out := map[int]bool{}
	for _, c := range fl.cols.dims {
		if !kit.Blank(fl.sh.Cell(r, c)) {
			out[c] = true
		}
	}
	return out
}

// secondReading counts the schedule 402 facts of a facts sheet and sums their numbers a
// second way: the capability's list of concepts, the plant name column filled, no dimension
// but the plant and the fuel kind, and the value column of the facts with a unit parsed as it
// stands.
func secondReading(sh *grid.Sheet, cols factColumns) (int, float64) {
	if cols.plant == 0 {
		return 0, 0
	}
	n, sum := 0, 0.0
rows:
	for r := 2; r <= sh.NumRows(); r++ {
		if !fercNamespace.MatchString(strings.TrimSpace(sh.Cell(r, cols.col("namespace")).Value)) ||
			!slices.Contains(capability.PlantCostConcepts, strings.TrimSpace(sh.Cell(r, cols.col("concept")).Value)) ||
			strings.TrimSpace(sh.Cell(r, cols.plant).Value) == "" {
			continue
		}
		for _, c := range cols.dims {
			if c != cols.plant && c != cols.fuel && strings.TrimSpace(sh.Cell(r, c).Value) != "" {
				continue rows
			}
		}
		n++
		if strings.TrimSpace(sh.Cell(r, cols.col("unit")).Value) == "" {
			continue
		}
		if x, err := strconv.ParseFloat(strings.TrimSpace(sh.Cell(r, cols.col("value")).Value), 64); err == nil {
			sum += x
		}
	}
	return n, sum
}

// localUnit writes a unit's measures by their local names: "iso4217:USD/utr:kW" gives
// "USD/kW".
func localUnit(raw string) string {
	var b strings.Builder
	start := 0
	for i := 0; i <= len(raw); i++ {
		if i == len(raw) || raw[i] == '/' || raw[i] == '*' {
			m := raw[start:i]
			if j := strings.LastIndexByte(m, ':'); j >= 0 {
				m = m[j+1:]
			}
			b.WriteString(m)
			if i < len(raw) {
				b.WriteByte(raw[i])
			}
			start = i + 1
		}
	}
	return b.String()
}

// latest chooses, among a respondent's filings of one year, the one served: the latest
// attestation date (else report date), then the latest report date, then a resubmission
// after an original. It reports false when the first two cannot be told apart.
func latest(fs []*filing) (*filing, bool) {
	sorted := append([]*filing(nil), fs...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if a.date() != b.date() {
			return a.date() > b.date()
		}
		if a.reportDate != b.reportDate {
			return a.reportDate > b.reportDate
		}
		return a.submission == "R" && b.submission != "R"
	})
	if len(sorted) > 1 {
		a, b := sorted[0], sorted[1]
		if a.date() == b.date() && a.reportDate == b.reportDate && (a.submission == "R") == (b.submission == "R") {
			return a, false
		}
	}
	return sorted[0], true
}
