package ferc

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// Build implements Adapter: the schedule 402 facts of the latest filing of every respondent
// and report year.
func (Form1) Build(p ingest.Plan) (*ingest.Build, error) {
	var all, filings []*filing
	var missing, incomplete, unidentified, misplaced []string
	var rec kit.Reconcile
	names := map[string]bool{}
	for _, f := range ingest.DataFiles(p.Files) {
		fl, miss, err := read(f)
		if err != nil {
			return nil, err
		}
		if names[fl.name] {
			return nil, fmt.Errorf("two filings are named %s: a citation could not tell them apart", fl.name)
		}
		names[fl.name] = true
		all = append(all, fl)
		missing = append(missing, miss...)
		misplaced = append(misplaced, fl.problems...)
		if got := fl.sh.NumRows() - 1; got != fl.declaredFacts {
			incomplete = append(incomplete, fmt.Sprintf("%s: the facts sheet has %d facts, the document %d fact elements", fl.name, got, fl.declaredFacts))
		}
		rec.Sheet(fl.name+" "+grid.XBRLFactsSheet, fl.parsedRows, fl.parsedSum, fl.secondRows, fl.secondSum, "(numbers of every unit)")
		switch {
		case fl.respondent == "":
			unidentified = append(unidentified, fl.name+": no fact names its entity")
		case fl.year == 0:
			unidentified = append(unidentified, fl.name+": no ReportYear fact")
		case fl.formType != "" && fl.formType != "1":
			unidentified = append(unidentified, fmt.Sprintf("%s: FormType %q, not Form 1", fl.name, fl.formType))
		case fl.period != "" && fl.period != "Q4":
			unidentified = append(unidentified, fmt.Sprintf("%s: ReportPeriod %q, not the annual report (Q4)", fl.name, fl.period))
		default:
			filings = append(filings, fl)
		}
	}

	// One filing per respondent and year: the latest.
	byKey := map[string][]*filing{}
	var keys []string
	for _, fl := range filings {
		k := fmt.Sprintf("%s %d", fl.respondent, fl.year)
		if byKey[k] == nil {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], fl)
	}
	sort.Strings(keys)
	served := map[*filing]bool{}
	var superseded, ties []string
	for _, k := range keys {
		win, ok := latest(byKey[k])
		if !ok {
			var ns []string
			for _, fl := range byKey[k] {
				ns = append(ns, fl.name)
			}
			ties = append(ties, fmt.Sprintf("%s: filings %s have the same dates and submission type; which is the latest cannot be told", k, strings.Join(ns, ", ")))
			continue
		}
		served[win] = true
		for _, fl := range byKey[k] {
			if fl != win {
				superseded = append(superseded, fmt.Sprintf("%s (%s, attested %s) by %s (%s, attested %s)", fl.name, fl.submission, fl.date(), win.name, win.submission, win.date()))
			}
		}
	}

	rows := ingest.NewRows(capability.PowerPlantCosts)
	var bad kit.Problems
	var inconsistent, duplicates, otherPeriod []string
	asOf := ""
	var sources []snapshots.Source
	for _, fl := range all {
		src := fl.file.Source()
		src.HeaderRows = map[string]int{grid.XBRLFactsSheet: 1, grid.XBRLInstanceSheet: 1}
		src.Release = fl.date()
		src.Title = fmt.Sprintf("FERC Form 1, %s (%s), report year %d, submission %s", fl.legalName, fl.respondent, fl.year, fl.submission)
		sources = append(sources, src)
		if !served[fl] {
			continue
		}
		d := fl.date()
		if d == "" {
			d = fmt.Sprintf("%d-12-31", fl.year)
		}
		asOf = max(asOf, d)
		fl.build(rows, &bad, &factLists{inconsistent: &inconsistent, duplicates: &duplicates, otherPeriod: &otherPeriod})
	}
	if asOf == "" {
		return nil, fmt.Errorf("no filing of %d could be served: %s", len(p.Files), strings.Join(append(unidentified, ties...), "; "))
	}
	facts, err := rows.Finish(asOf)
	if err != nil {
		return nil, err
	}
	return &ingest.Build{
		AsOf: asOf, Rows: facts, Sources: sources, Cells: rows.Cells(),
		Checks: []snapshots.Gate{
			kit.Failures(kit.GateHeaders, missing, "every facts sheet has its columns, and every fact in a schedule 402 context is a line of the schedule"),
			kit.Failures(kit.GateComplete, incomplete, "every facts sheet holds as many facts as its document has fact elements"),
			bad.Gate(kit.GateCells, "every numeric fact parses, with a unit"),
			rec.Gate(),
			kit.Failures("filings_identified", unidentified, fmt.Sprintf("%d filings, each a Form 1 annual report naming its respondent and report year", len(filings))),
			kit.Failures("filings_superseded", ties, listOr(superseded, "no respondent filed a report year twice", "superseded, not served: ")),
			kit.Failures("facts_placed", misplaced, "every plant line is filed with the plant name alone, every fuel line with the plant name and a fuel kind, of one entity"),
			kit.Failures("duplicate_facts_consistent", inconsistent,
				listOr(append(duplicates, otherPeriod...), "no fact is repeated; every fact is of its report year", "not served: ")),
		},
		Ranges:   map[string]snapshots.Range{"report_year": {Min: 2000, Max: 2100}, "line": {Min: 1, Max: 44}},
		Required: []string{"respondent_id", "report_year", "plant_name", "concept", "source_record_key"},
	}, nil
}

// listOr is none when items is empty, else prefix and the items (the first eight, and the
// count of the others).
func listOr(items []string, none, prefix string) string {
	if len(items) == 0 {
		return none
	}
	if len(items) > 8 {
		items = append(items[:8:8], fmt.Sprintf("and %d more", len(items)-8))
	}
	return prefix + strings.Join(items, "; ")
}

// factLists collects the facts a filing does not serve, and why.
type factLists struct {
	inconsistent, duplicates, otherPeriod *[]string
}

// servedFact is what a served fact's key maps to: its row and value, to compare a repeat with.
type servedFact struct {
	row         int
	value, unit string
}

// build adds the rows of one served filing.
func (fl *filing) build(rows *ingest.Rows, bad *kit.Problems, lists *factLists) {
	sh, cols := fl.sh, fl.cols
	cell := func(r int, col string) grid.Cell { return sh.Cell(r, cols.col(col)) }
	text := func(r int, col string) string { return strings.TrimSpace(cell(r, col).Value) }
	yearEnd := fmt.Sprintf("%d-12-31", fl.year)
	// The plant's kind (line 1), for every fact of the plant.
	kinds := map[string]string{}
	for _, r := range fl.rows {
		if text(r, "concept") == "PlantKind" {
			plant := strings.TrimSpace(sh.Cell(r, cols.plant).Value)
			if _, ok := kinds[plant]; !ok {
				kinds[plant] = text(r, "value")
			}
		}
	}
	seen := map[string]servedFact{}
	for _, r := range fl.rows {
		concept := text(r, "concept")
		c := concepts[concept]
		plant := strings.TrimSpace(sh.Cell(r, cols.plant).Value)
		fuel := ""
		if cols.fuel > 0 {
			fuel = strings.TrimSpace(sh.Cell(r, cols.fuel).Value)
		}
		end := text(r, "period_end")
		endCol := "period_end"
		if end == "" {
			end, endCol = text(r, "period_instant"), "period_instant"
		}
		where := fmt.Sprintf("%s row %d (%s, %s", fl.name, r, concept, plant)
		if fuel != "" {
			where += ", " + fuel
		}
		where += ")"
		if end != yearEnd {
			*lists.otherPeriod = append(*lists.otherPeriod, fmt.Sprintf("%s: period ending %s, not the report year's end", where, end))
			continue
		}
		key := fmt.Sprintf("%s:%d:%s:%s:%s", sourceID, fl.year, fl.respondent, plant, fuel) + ":" + concept
		value, unitRaw := text(r, "value"), text(r, "unit")
		if prev, dup := seen[key]; dup {
			if sameFact(prev.value, value, c.numeric) && prev.unit == unitRaw {
				*lists.duplicates = append(*lists.duplicates, fmt.Sprintf("%s repeats row %d", where, prev.row))
			} else {
				*lists.inconsistent = append(*lists.inconsistent, fmt.Sprintf("%s: %q %s, but row %d has %q %s", where, value, unitRaw, prev.row, prev.value, prev.unit))
			}
			continue
		}
		seen[key] = servedFact{row: r, value: value, unit: unitRaw}

		row := rows.Add(ingest.Lineage{SourceID: sourceID, File: fl.name, Sheet: grid.XBRLFactsSheet, Row: r, SHA256: fl.file.SHA256})
		setText := func(field string, col int) any {
			v := kit.Text(sh.Cell(r, col))
			row.SetCell(field, col, v)
			return v
		}
		setDate := func(field, col string) {
			v, err := kit.Date(cell(r, col))
			if err != nil {
				bad.Add("%s %s: %v", where, col, err)
			}
			row.SetCell(field, cols.col(col), v)
		}
		setText("respondent_id", cols.col("entity"))
		setText("plant_name", cols.plant)
		if cols.fuel > 0 {
			setText("fuel_kind", cols.fuel)
		}
		setText("concept", cols.col("concept"))
		setText("fact_id", cols.col("id"))
		setText("context_id", cols.col("context"))
		setText("decimals", cols.col("decimals"))
		setDate("period_start", "period_start")
		setDate("period_end", endCol)
		isNil := text(r, "nil") == "true"
		row.Set("is_nil", isNil)
		unit := ""
		if u := setText("unit_raw", cols.col("unit")); u != nil {
			unit = localUnit(u.(string))
			row.Set("unit", unit)
		}
		// value is the number the filed text spells: every numeric line's value (text there is
		// a fault), and a text line's where it spells one (a year).
		v, err := kit.Number(cell(r, "value"))
		switch {
		case c.numeric && err != nil:
			bad.Add("%s value: %v", where, err)
		case c.numeric && v != nil && unit == "":
			bad.Add("%s: the number %s has no unit", where, value)
		case !c.numeric:
			setText("value_text", cols.col("value"))
		}
		row.SetCell("value", cols.col("value"), v)
		row.Set("respondent_name", nilIfEmpty(fl.legalName)).Set("report_year", fl.year).Set("report_period", nilIfEmpty(fl.period)).
			Set("submission_type", nilIfEmpty(fl.submission)).Set("attestation_date", nilIfEmpty(fl.attestation)).
			Set("plant_key", fl.respondent+" | "+plant).Set("plant_entry", plantEntry(plant)).Set("plant_kind", nilIfEmpty(kinds[plant])).
			Set("part", c.part).Set("line_label", c.label)
		if c.line > 0 {
			row.Set("line", c.line)
		}
		row.Key(key)
	}
}

// sameFact reports whether a repeated fact's value is the first one's: the same number, or
// the same text.
func sameFact(a, b string, numeric bool) bool {
	if !numeric {
		return a == b
	}
	x, errA := kit.Number(grid.Cell{Kind: grid.Text, Value: a})
	y, errB := kit.Number(grid.Cell{Kind: grid.Text, Value: b})
	return errA == nil && errB == nil && x == y
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Kinds of entry on the plant name axis (plant_entry).
const (
	entryPlant       = "plant"
	entryTotal       = "filer_total"
	entryPlaceholder = "placeholder"
)

var (
	totalWord = regexp.MustCompile(`(?i)\btotals?\b`)
	anyLetter = regexp.MustCompile(`\pL`)
)

// plantEntry says what a plant name as filed stands for: a name without a letter ("0", "$—")
// is a placeholder the filer's tool wrote for an empty column; a name with the word total
// ("ROCKPORT TOTAL AEG", "ROCKPORT TOTAL PLANT") is the filer's own total of other columns
// or of a whole plant it owns a share of; any other name is a plant (or unit) as filed.
func plantEntry(name string) string {
	switch {
	case !anyLetter.MatchString(name):
		return entryPlaceholder
	case totalWord.MatchString(name):
		return entryTotal
	}
	return entryPlant
}
