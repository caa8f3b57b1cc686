package eia

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
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// AssetOwnership ingests power.asset_ownership from the EIA-860 Schedule 4 workbook
// (4___Owner_Y<year>.xlsx, sheet Ownership), with the status codebook from the layout file's
// Tables 4 and 6 (the same year's, else the newest).
var AssetOwnership = kit.New(&kit.Spec{
	Cap:     capability.PowerAssetOwnership,
	Version: "eia860owner/1",
	Folders: []string{"eia/eia860"},
	Known: []fetch.Source{
		{URL: "https://www.eia.gov/electricity/data/eia860/xls/eia8602024.zip", Kind: fetch.XLSX, ZipMember: "4___Owner_Y2024.xlsx", Dest: "eia/eia860/4___Owner_Y2024.xlsx"},
		{URL: "https://www.eia.gov/electricity/data/eia860/xls/eia8602024.zip", Kind: fetch.XLSX, ZipMember: "LayoutY2024.xlsx", Dest: "eia/eia860/LayoutY2024.xlsx"},
	},
	Files: []*kit.File{{
		Match:    ownerFile,
		SourceID: "eia860", Publisher: Publisher,
		URL:  func(name string, m []string) string { return eia860URL(m[1], name) },
		Hint: func(_ string, m []string) string { return m[1] + "-12-31" },
		Open: func(fr *kit.FileRead) error {
			fr.Book.AsOf, fr.Source.Release = fr.Match[1]+"-12-31", fr.Match[1]
			return nil
		},
		Sheets: []*kit.Sheet{{
			Name: ownerSheet, Header: ownerHeaderRow,
			Columns: []kit.Column{
				{Field: "utility_id", Header: "Utility ID", Kind: kit.AsInt, At: 1},
				{Field: "utility_name", Header: "Utility Name", At: 2},
				{Field: "eia_plant_id", Header: "Plant Code", Kind: kit.AsInt, At: 3},
				{Field: "plant_name", Header: "Plant Name", At: 4},
				{Field: "state", Header: "State", At: 5},
				{Field: "generator_id", Header: "Generator ID", At: 6},
				{Field: "status", Header: "Status", At: 7},
				{Field: "owner_name", Header: "Owner Name", At: 8},
				{Field: "owner_street_address", Header: "Owner Street Address", At: 9},
				{Field: "owner_city", Header: "Owner City", At: 10},
				{Field: "owner_state", Header: "Owner State", At: 11},
				{Field: "owner_zip", Header: "Owner Zip", At: 12},
				{Field: "owner_id", Header: "Ownership ID", Kind: kit.AsInt, At: 13},
				{Field: "fraction_owned", Header: "Percent Owned", Kind: kit.AsNumber, At: 14},
			},
			Begin: ownerTitle,
			IsRow: func(r *kit.Row) bool { return r.CellAt(1).Kind == grid.Number },
			Row:   ownershipLine,
			Tally: &kit.Tally{Mark: "Utility ID", SumCols: func(s *kit.SheetRead) []int { return []int{s.Col("fraction_owned")} },
				Field: "fraction_owned", Unit: "fraction owned"},
		}},
	}},
	Refs: []*kit.Ref{{Match: layoutFile, SourceID: "eia860", Publisher: Publisher, SameYear: true,
		URL:  func(name string, m []string) string { return eia860URL(m[1], name) },
		Name: func(year string) string { return "LayoutY" + year + ".xlsx" },
		Year: func(m []string) string { return m[1] }}},
	State: func() any { return &ownerState{shares: map[string]float64{}, published: map[string]bool{}} },
	Codebooks: func(b *kit.Book) error {
		var err error
		b.Codebooks, b.CodebookGate, err = statusBook(b.Refs)
		return err
	},
	Gates:    ownerGates,
	Ranges:   map[string]snapshots.Range{"fraction_owned": {Min: 0, Max: 1}, "report_year": {Min: 2000, Max: 2100}},
	Required: []string{"eia_plant_id", "generator_id", "owner_id", "owner_name", "source_record_key"},
})

var ownerFile = regexp.MustCompile(`^4___Owner_Y(\d{4})\.xlsx$`)

const (
	ownerSheet     = "Ownership"
	ownerHeaderRow = 2
)

var ownerTitleYear = regexp.MustCompile(`^(\d{4}) Form EIA-860 Data - Schedule 4`)

func eia860URL(year, member string) string {
	return fmt.Sprintf("https://www.eia.gov/electricity/data/eia860/xls/eia860%s.zip (zip member %s)", year, member)
}

// ownerState is what the lines of one build add up to: the title's report year, and each
// generator's published shares.
type ownerState struct {
	year      int
	yearGate  snapshots.Gate
	shares    map[string]float64
	published map[string]bool // generators with at least one published share
	order     []string
}

// ownerTitle reads the report year the sheet's title states, which must be the file name's.
func ownerTitle(s *kit.SheetRead) bool {
	st, fr := s.File.Book.State.(*ownerState), s.File
	st.year, _ = strconv.Atoi(fr.Match[1])
	title := kit.Squash(s.Cell(1, 1).Value)
	fr.Source.Title = title
	st.yearGate.Passed = false
	if tm := ownerTitleYear.FindStringSubmatch(title); tm == nil {
		st.yearGate.Detail = fmt.Sprintf("the title %q does not state the report year", title)
	} else if tm[1] != fr.Match[1] {
		st.yearGate.Detail = fmt.Sprintf("the title says %s, the file name %s", tm[1], fr.Match[1])
	} else {
		st.yearGate.Passed, st.yearGate.Detail = true, "title and file name agree on "+fr.Match[1]
	}
	return true
}

// ownershipLine completes one ownership line: its report year, the owner's normalized name,
// the generator it shares and its key.
func ownershipLine(r *kit.Row) {
	st := r.Book.State.(*ownerState)
	r.Set("report_year", st.year)
	if on, ok := r.Value("owner_name").(string); ok {
		r.Set("owner_name_normalized", NormalizeOwner(on))
	}
	plant, gen := orEmpty(r.Value("eia_plant_id")), orEmpty(r.Value("generator_id"))
	gk := fmt.Sprintf("%v/%v", plant, gen)
	r.Set("generator_key", gk)
	if _, seen := st.shares[gk]; !seen {
		st.order = append(st.order, gk)
		st.shares[gk] = 0
	}
	if f, ok := r.Value("fraction_owned").(float64); ok {
		st.published[gk] = true
		st.shares[gk] += f
	}
	r.Key(fmt.Sprintf("%s:%d:%v:%v:%v", r.File.SourceID, st.year, plant, gen, orEmpty(r.Value("owner_id"))))
}

// ownerGates are the gates of a build; shares that do not add up to one are reported, not
// corrected: the ownership_shares gate passes and says which generators they are.
func ownerGates(b *kit.Book) []snapshots.Gate {
	st := b.State.(*ownerState)
	if st.yearGate.Name == "" {
		st.yearGate.Name = "report_year_consistent"
	}
	var odd []string
	for _, g := range st.order {
		switch {
		case !st.published[g]:
			odd = append(odd, g+" has no published share")
		case math.Abs(st.shares[g]-1) > 1e-6:
			odd = append(odd, fmt.Sprintf("%s sums to %g", g, st.shares[g]))
		}
	}
	sort.Strings(odd)
	return []snapshots.Gate{
		b.CodebookGate,
		st.yearGate,
		b.HeadersGate("sheet Ownership has its 14 headers in row 2"),
		b.Rec.Gate(),
		b.CellsGate("every numeric cell parses or is a published blank"),
		{Name: "ownership_shares", Passed: true,
			Detail: fmt.Sprintf("%d generators; the published shares add up to 1 for all but %d (kept as published): %s", len(st.order), len(odd), strings.Join(odd, "; "))},
	}
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
