package eia

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

var codeLike = regexp.MustCompile(`^[A-Z0-9]{1,4}$`)

// codebooks reads the agency's code tables: prime mover (Table 2), generator status
// (Tables 4 and 6) and energy source codes with their fuel types (Table 28) from the EIA-860
// layout file, and balancing authority codes from the EIA-861 list. It returns the codebooks,
// the energy-source → fuel-type map and the gate that says every table was found.
func inventoryCodebooks(refs []ingest.File) ([]snapshots.Codebook, map[string]string, snapshots.Gate, error) {
	gate := snapshots.Gate{Name: "codebooks_read"}
	fuel := map[string]string{}
	var layout, ba *ingest.File
	for i := range refs {
		switch {
		case layoutFile.MatchString(filepath.Base(refs[i].Path)):
			layout = &refs[i]
		case baFile.MatchString(filepath.Base(refs[i].Path)):
			ba = &refs[i]
		}
	}
	if layout == nil {
		gate.Detail = "no EIA-860 layout file (LayoutY<year>.xlsx) found: the code tables cannot be read"
		return nil, fuel, gate, nil
	}
	wb, err := grid.Open(layout.Path)
	if err != nil {
		return nil, nil, gate, err
	}
	src := func(sheet string, row int) *snapshots.CodeSource {
		return &snapshots.CodeSource{SourceFile: filepath.Base(layout.Path), Sheet: sheet, SourceRow: row, SHA256: layout.SHA256}
	}
	var problems []string
	table := func(sheet, header string) []snapshots.Code {
		codes, err := codeTable(wb, sheet, header, src)
		if err != nil {
			problems = append(problems, err.Error())
		}
		return codes
	}
	primeMovers := table("Reference Tables 1-3", "Prime Mover Code")
	status := table("Reference Tables 4-6", "Generator Status Code")
	proposed := table("Reference Tables 4-6", "Proposed Generator Status Code")
	energy, err := energySourceTable(wb, src)
	if err != nil {
		problems = append(problems, err.Error())
	}
	var statusCodes []snapshots.Code
	for _, c := range status {
		lc := "operating"
		if c.Code == "RE" {
			lc = "retired"
		}
		c.Group, c.Code = lc, lc+"."+c.Code
		statusCodes = append(statusCodes, c)
	}
	for _, c := range proposed {
		lc := "planned"
		if c.Code == "CN" || c.Code == "IP" {
			lc = "canceled_or_postponed"
		}
		c.Group, c.Code = lc, lc+"."+c.Code
		statusCodes = append(statusCodes, c)
	}
	var fuelGroups []snapshots.Code
	seen := map[string]bool{}
	for _, c := range energy {
		fuel[c.Code] = c.Group
		if !seen[c.Group] {
			seen[c.Group] = true
			fuelGroups = append(fuelGroups, snapshots.Code{Code: c.Group, Description: "fuel type of Table 28", InAgencyTable: true, Source: c.Source})
		}
	}
	books := []snapshots.Codebook{
		{Name: "energy_source_code", Description: "Table 28, Energy Source Codes and Heat Content, of the EIA-860 layout file", Codes: energy},
		{Name: "fuel_group", Description: "the fuel types under which Table 28 groups the energy source codes", Codes: fuelGroups},
		{Name: "prime_mover_code", Description: "Table 2, Prime Mover Codes, of the EIA-860 layout file", Codes: primeMovers},
		{Name: "status_code", Description: "<lifecycle>.<code>: Table 4 (generator status) codes under operating (RE under retired), Table 6 (proposed generator status) codes under planned (CN and IP under canceled_or_postponed)", Codes: statusCodes},
	}
	if ba != nil {
		codes, err := baTable(ba)
		if err != nil {
			problems = append(problems, err.Error())
		}
		books = append(books, snapshots.Codebook{Name: "balancing_authority_code",
			Description: "balancing authority codes of the EIA-861 " + filepath.Base(ba.Path) + " list, plus codes the data reports that the list lacks (preserved as reported)", Codes: codes})
	} else {
		books = append(books, snapshots.Codebook{Name: "balancing_authority_code", Description: "codes as reported in the data (no EIA-861 list found)"})
	}
	if len(problems) > 0 {
		gate.Detail = strings.Join(problems, "; ")
		return books, fuel, gate, nil
	}
	gate.Passed = true
	gate.Detail = fmt.Sprintf("%d energy source, %d prime mover, %d status codes from %s", len(energy), len(primeMovers), len(statusCodes), filepath.Base(layout.Path))
	return books, fuel, gate, nil
}

// codeTable reads a two-column (code, description) table whose header cell reads header,
// within the first five rows of sheet; blank spacer rows inside the table are skipped.
func codeTable(wb *grid.Workbook, sheet, header string, src func(string, int) *snapshots.CodeSource) ([]snapshots.Code, error) {
	sh := wb.Sheet(sheet)
	if sh == nil {
		return nil, fmt.Errorf("layout file has no sheet %q", sheet)
	}
	for hr := 1; hr <= 5; hr++ {
		for ci, c := range sh.Row(hr) {
			if kit.Squash(c.Value) != header {
				continue
			}
			var out []snapshots.Code
			for r := hr + 1; r <= sh.NumRows(); r++ {
				code := strings.TrimSpace(sh.Cell(r, ci+1).Value)
				if code == "" {
					continue
				}
				out = append(out, snapshots.Code{Code: code, Description: kit.Squash(sh.Cell(r, ci+2).Value), InAgencyTable: true, Source: src(sheet, r)})
			}
			if len(out) == 0 {
				return nil, fmt.Errorf("table %q on sheet %q has no codes", header, sheet)
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("no table headed %q on sheet %q", header, sheet)
}

// energySourceTable reads Table 28: the code is the first cell of a row that looks like a
// code; the fuel type label stands in column A only on the first row of its group.
func energySourceTable(wb *grid.Workbook, src func(string, int) *snapshots.CodeSource) ([]snapshots.Code, error) {
	const sheet = "Reference Table 28"
	sh := wb.Sheet(sheet)
	if sh == nil {
		return nil, fmt.Errorf("layout file has no sheet %q", sheet)
	}
	var out []snapshots.Code
	pos := map[string]int{}
	group := ""
	for r := 6; r <= sh.NumRows(); r++ {
		row := sh.Row(r)
		if len(row) == 0 {
			continue
		}
		if a := kit.Squash(row[0].Value); a != "" && !codeLike.MatchString(a) {
			group = a
		}
		for ci, c := range row {
			code := strings.TrimSpace(c.Value)
			if !codeLike.MatchString(code) {
				continue
			}
			desc := kit.Squash(sh.Cell(r, len(row)).Value)
			if ci+1 == len(row) {
				desc = ""
			}
			if i, dup := pos[code]; dup {
				out[i].Description += " | " + desc
				out[i].Note = fmt.Sprintf("listed twice in Table 28 (rows %d and %d)", out[i].Source.SourceRow, r)
			} else {
				pos[code] = len(out)
				out = append(out, snapshots.Code{Code: code, Description: desc, Group: group, InAgencyTable: true, Source: src(sheet, r)})
			}
			break
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no energy source codes on sheet %q", sheet)
	}
	return out, nil
}

// baTable reads the EIA-861 balancing authority list: one row per code and state.
func baTable(f *ingest.File) ([]snapshots.Code, error) {
	wb, err := grid.Open(f.Path)
	if err != nil {
		return nil, err
	}
	if len(wb.Sheets) == 0 {
		return nil, fmt.Errorf("%s has no sheet", filepath.Base(f.Path))
	}
	sh := wb.Sheets[0]
	hdr := kit.HeaderAt(sh, 1)
	cc, nc, sc := hdr.Col("BA Code"), hdr.Col("Balancing Authority Name"), hdr.Col("State")
	if cc == 0 || nc == 0 {
		return nil, fmt.Errorf("%s: header row lacks BA Code or Balancing Authority Name", filepath.Base(f.Path))
	}
	var out []snapshots.Code
	pos := map[string]int{}
	for r := 2; r <= sh.NumRows(); r++ {
		code := strings.TrimSpace(sh.Cell(r, cc).Value)
		if code == "" {
			continue
		}
		st := strings.TrimSpace(sh.Cell(r, sc).Value)
		if i, ok := pos[code]; ok {
			if st != "" {
				out[i].Group += " " + st
			}
			continue
		}
		pos[code] = len(out)
		out = append(out, snapshots.Code{Code: code, Description: kit.Squash(sh.Cell(r, nc).Value), Group: st, InAgencyTable: true,
			Source: &snapshots.CodeSource{SourceFile: filepath.Base(f.Path), Sheet: sh.Name, SourceRow: r, SHA256: f.SHA256}})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out, nil
}
