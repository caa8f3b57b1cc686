package eia

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/grid"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// AssetOwnership ingests power.asset_ownership from the EIA-860 Schedule 4 workbook
// (4___Owner_Y<year>.xlsx, sheet Ownership), with the status codebook from the layout file's
// Tables 4 and 6.
type AssetOwnership struct{}

var ownerFile = regexp.MustCompile(`^4___Owner_Y(\d{4})\.xlsx$`)

const (
	ownerSheet     = "Ownership"
	ownerHeaderRow = 2
)

var ownerTitleYear = regexp.MustCompile(`^(\d{4}) Form EIA-860 Data - Schedule 4`)

var ownerHeaders = []string{"Utility ID", "Utility Name", "Plant Code", "Plant Name", "State", "Generator ID", "Status",
	"Owner Name", "Owner Street Address", "Owner City", "Owner State", "Owner Zip", "Ownership ID", "Percent Owned"}

// Capability implements Adapter.
func (AssetOwnership) Capability() *capability.Capability { return capability.PowerAssetOwnership }

// Version implements Adapter.
func (AssetOwnership) Version() string { return "eia860owner/1" }

// Folders implements Adapter.
func (AssetOwnership) Folders() []string { return []string{"eia/eia860"} }

func eia860URL(year, member string) string {
	return fmt.Sprintf("https://www.eia.gov/electricity/data/eia860/xls/eia860%s.zip (zip member %s)", year, member)
}

// Known implements Adapter.
func (AssetOwnership) Known() []fetch.Source {
	return []fetch.Source{
		{URL: "https://www.eia.gov/electricity/data/eia860/xls/eia8602024.zip", Kind: fetch.XLSX, ZipMember: "4___Owner_Y2024.xlsx", Dest: "eia/eia860/4___Owner_Y2024.xlsx"},
		{URL: "https://www.eia.gov/electricity/data/eia860/xls/eia8602024.zip", Kind: fetch.XLSX, ZipMember: "LayoutY2024.xlsx", Dest: "eia/eia860/LayoutY2024.xlsx"},
	}
}

// Plan implements Adapter: one snapshot per ownership workbook, with the layout file of the
// same year (else the newest) for the status codes.
func (AssetOwnership) Plan(files *ingest.Finder) ([]ingest.Plan, error) {
	owners, err := files.Find(ownerFile.MatchString)
	if err != nil || len(owners) == 0 {
		return nil, err
	}
	newestLayout, err := newest(files, layoutFile)
	if err != nil {
		return nil, err
	}
	var plans []ingest.Plan
	for _, o := range owners {
		year := ownerFile.FindStringSubmatch(filepath.Base(o))[1]
		fs := []ingest.File{{Path: o, SourceID: "eia860", Publisher: Publisher, Role: ingest.RoleData, URL: eia860URL(year, filepath.Base(o))}}
		layout, err := yearReference(files, "LayoutY"+year+".xlsx", newestLayout)
		if err != nil {
			return nil, err
		}
		if layout != "" {
			y := layoutFile.FindStringSubmatch(filepath.Base(layout))[1]
			fs = append(fs, ingest.File{Path: layout, SourceID: "eia860", Publisher: Publisher, Role: ingest.RoleReference, URL: eia860URL(y, filepath.Base(layout))})
		}
		plans = append(plans, ingest.Plan{AsOfHint: year + "-12-31", Files: fs})
	}
	return plans, nil
}

// statusBook reads the bare generator status codes of Tables 4 and 6 of the layout file.
func statusBook(refs []ingest.File) ([]snapshots.Codebook, snapshots.Gate, error) {
	gate := snapshots.Gate{Name: "codebooks_read"}
	for _, f := range refs {
		if !layoutFile.MatchString(filepath.Base(f.Path)) {
			continue
		}
		wb, err := grid.Open(f.Path)
		if err != nil {
			return nil, gate, err
		}
		src := func(sheet string, row int) *snapshots.CodeSource {
			return &snapshots.CodeSource{SourceFile: filepath.Base(f.Path), Sheet: sheet, SourceRow: row, SHA256: f.SHA256}
		}
		var codes []snapshots.Code
		var problems []string
		for _, t := range []struct{ header, group string }{{"Generator Status Code", "existing (Table 4)"}, {"Proposed Generator Status Code", "proposed (Table 6)"}} {
			cs, err := codeTable(wb, "Reference Tables 4-6", t.header, src)
			if err != nil {
				problems = append(problems, err.Error())
			}
			for _, c := range cs {
				c.Group = t.group
				codes = append(codes, c)
			}
		}
		if len(problems) > 0 {
			gate.Detail = strings.Join(problems, "; ")
			return nil, gate, nil
		}
		gate.Passed, gate.Detail = true, fmt.Sprintf("%d status codes from Tables 4 and 6 of %s", len(codes), filepath.Base(f.Path))
		return []snapshots.Codebook{{Name: "status", Description: "generator status codes: Table 4 (existing) and Table 6 (proposed) of the EIA-860 layout file", Codes: codes}}, gate, nil
	}
	gate.Passed, gate.Detail = true, "no EIA-860 layout file in the plan: status has no codebook"
	return nil, gate, nil
}

// NormalizeOwner folds an owner name for matching: upper case, periods and commas dropped,
// white space collapsed.
func NormalizeOwner(s string) string {
	s = strings.NewReplacer(".", "", ",", "").Replace(strings.ToUpper(s))
	return strings.Join(strings.Fields(s), " ")
}

// Build implements Adapter.
func (AssetOwnership) Build(p ingest.Plan) (*ingest.Build, error) {
	data, refs := ingest.SplitRoles(p.Files)
	if data == nil {
		return nil, fmt.Errorf("no ownership workbook in the plan")
	}
	name := filepath.Base(data.Path)
	m := ownerFile.FindStringSubmatch(name)
	if m == nil {
		return nil, fmt.Errorf("%s is not a 4___Owner_Y<year>.xlsx workbook", name)
	}
	year, _ := strconv.Atoi(m[1])
	asOf := m[1] + "-12-31"
	wb, err := grid.Open(data.Path)
	if err != nil {
		return nil, err
	}
	books, cbGate, err := statusBook(refs)
	if err != nil {
		return nil, err
	}
	checks := []snapshots.Gate{cbGate}
	src := data.Source()
	src.Release, src.HeaderRows = m[1], map[string]int{ownerSheet: ownerHeaderRow}
	rows := ingest.NewRows(capability.PowerAssetOwnership)
	var bad kit.Problems
	var rec kit.Reconcile
	var missing []string
	yearGate := snapshots.Gate{Name: "report_year_consistent"}
	shares := map[string]float64{}
	published := map[string]bool{} // generators with at least one published share
	var order []string
	sh := wb.Sheet(ownerSheet)
	if sh == nil {
		missing = append(missing, fmt.Sprintf("sheet %q is missing (sheets: %s)", ownerSheet, strings.Join(wb.SheetNames(), ", ")))
	} else {
		title := kit.Squash(sh.Cell(1, 1).Value)
		src.Title = title
		if tm := ownerTitleYear.FindStringSubmatch(title); tm == nil {
			yearGate.Detail = fmt.Sprintf("the title %q does not state the report year", title)
		} else if tm[1] != m[1] {
			yearGate.Detail = fmt.Sprintf("the title says %s, the file name %s", tm[1], m[1])
		} else {
			yearGate.Passed, yearGate.Detail = true, "title and file name agree on "+m[1]
		}
		hdr := kit.HeaderAt(sh, ownerHeaderRow)
		if absent := hdr.Missing(ownerHeaders...); len(absent) > 0 {
			missing = append(missing, fmt.Sprintf("sheet %s row %d lacks %q (read at the layout's positions instead)", ownerSheet, ownerHeaderRow, absent))
		}
		// col is the column of a header, by its label, else at the position the layout gives it.
		col := func(h string) int {
			if c := hdr.Col(h); c > 0 {
				return c
			}
			return slices.Index(ownerHeaders, h) + 1
		}
		{
			parsedShare := 0.0
			for r := ownerHeaderRow + 1; r <= sh.NumRows(); r++ {
				if sh.Cell(r, 1).Kind != grid.Number {
					continue
				}
				row := rows.Add(ingest.Lineage{SourceID: data.SourceID, File: name, Sheet: ownerSheet, Row: r, SHA256: data.SHA256})
				text := func(field, h string) any {
					c := col(h)
					v := kit.Text(sh.Cell(r, c))
					row.SetCell(field, c, v)
					return v
				}
				integer := func(field, h string) any {
					c := col(h)
					v, err := kit.Int(sh.Cell(r, c))
					if err != nil {
						bad.Add("%s!%s%d %s: %v", ownerSheet, grid.ColumnName(c), r, h, err)
					}
					row.SetCell(field, c, v)
					return v
				}
				row.Set("report_year", year)
				integer("utility_id", "Utility ID")
				text("utility_name", "Utility Name")
				plant := integer("eia_plant_id", "Plant Code")
				text("plant_name", "Plant Name")
				text("state", "State")
				gen := text("generator_id", "Generator ID")
				text("status", "Status")
				if on := text("owner_name", "Owner Name"); on != nil {
					row.Set("owner_name_normalized", NormalizeOwner(on.(string)))
				}
				text("owner_street_address", "Owner Street Address")
				text("owner_city", "Owner City")
				text("owner_state", "Owner State")
				text("owner_zip", "Owner Zip")
				owner := integer("owner_id", "Ownership ID")
				c := col("Percent Owned")
				share, err := kit.Number(sh.Cell(r, c))
				if err != nil {
					bad.Add("%s!%s%d Percent Owned: %v", ownerSheet, grid.ColumnName(c), r, err)
				}
				row.SetCell("fraction_owned", c, share)
				gk := fmt.Sprintf("%v/%v", orEmpty(plant), orEmpty(gen))
				row.Set("generator_key", gk)
				if _, seen := shares[gk]; !seen {
					order = append(order, gk)
					shares[gk] = 0
				}
				if f, ok := share.(float64); ok {
					published[gk] = true
					shares[gk] += f
					parsedShare += f
				}
				row.Key(fmt.Sprintf("%s:%d:%v:%v:%v", data.SourceID, year, orEmpty(plant), orEmpty(gen), orEmpty(owner)))
			}
			// A second reading: rows with a numeric Utility ID, Percent Owned summed from the cells.
			n, sum := 0, 0.0
			for r := ownerHeaderRow + 1; r <= sh.NumRows(); r++ {
				if sh.Cell(r, 1).Kind != grid.Number {
					continue
				}
				n++
				if f, err := strconv.ParseFloat(strings.TrimSpace(sh.Cell(r, col("Percent Owned")).Value), 64); err == nil {
					sum += f
				}
			}
			rec.Sheet(ownerSheet, rows.Len(), parsedShare, n, sum, "fraction owned")
		}
	}
	// Shares that do not add up to one are reported, not corrected: the gate passes and says
	// which generators they are.
	var odd []string
	for _, g := range order {
		switch {
		case !published[g]:
			odd = append(odd, g+" has no published share")
		case math.Abs(shares[g]-1) > 1e-6:
			odd = append(odd, fmt.Sprintf("%s sums to %g", g, shares[g]))
		}
	}
	sort.Strings(odd)
	shareGate := snapshots.Gate{Name: "ownership_shares", Passed: true,
		Detail: fmt.Sprintf("%d generators; the published shares add up to 1 for all but %d (kept as published): %s", len(order), len(odd), strings.Join(odd, "; "))}
	checks = append(checks,
		yearGate,
		kit.Failures(kit.GateHeaders, missing, "sheet Ownership has its 14 headers in row 2"),
		rec.Gate(),
		bad.Gate(kit.GateCells, "every numeric cell parses or is a published blank"),
		shareGate)
	facts, err := rows.Finish(asOf)
	if err != nil {
		return nil, err
	}
	books = ingest.CountCodes(capability.PowerAssetOwnership, books, facts)
	sources := []snapshots.Source{src}
	for _, f := range refs {
		sources = append(sources, f.Source())
	}
	return &ingest.Build{
		AsOf: asOf, Rows: facts, Sources: sources, Codebooks: books, Checks: checks, Cells: rows.Cells(),
		Ranges:   map[string]snapshots.Range{"fraction_owned": {Min: 0, Max: 1}, "report_year": {Min: 2000, Max: 2100}},
		Required: []string{"eia_plant_id", "generator_id", "owner_id", "owner_name", "source_record_key"},
	}, nil
}
