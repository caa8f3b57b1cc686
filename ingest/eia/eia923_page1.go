package eia

import (
	"fmt"
	"math"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// GenerationAnnual ingests power.generation from page 1 (Generation and Fuel Data) of the
// EIA-923 Schedules 2, 3, 4, 5 workbook, the agency's complete release: one row per plant,
// prime mover, fuel and month (level fuel_prime_mover), from the Netgen columns of each
// published row, through the workbook's last month.
var GenerationAnnual = kit.New(&kit.Spec{
	Cap:     capability.PowerGeneration,
	Version: "eia923page1/1",
	Name:    "workbook",
	Folders: []string{eia923Folder},
	Known:   eia923Known,
	Files: []*kit.File{eia923Workbook("Page 1 Generation and Fuel Data", func(fr *kit.FileRead) error {
		m := fr.Match
		st := fr.Book.State.(*page1State)
		fmt.Sscanf(m[1], "%d", &st.lastMonth)
		st.fallback = m[2] + "-" + m[1]
		fr.Source.Release = m[2] + "-" + m[1] + " " + m[3]
		fr.Source.Title = "EIA-923 Schedules 2, 3, 4, 5, page 1 Generation and Fuel Data, " + m[2] + " (" + m[3] + ")"
		return nil
	}, page1Sheet(), nil)},
	State: func() any { return &page1State{} },
	AsOf: func(b *kit.Book) (string, error) {
		st := b.State.(*page1State)
		latest := st.latest
		if latest == "" {
			latest = st.fallback
		}
		pd, err := kit.ParseDate(latest + "-01")
		if err != nil {
			return "", fmt.Errorf("latest month %q: %w", latest, err)
		}
		return pd.AddDate(0, 1, -1).Format("2006-01-02"), nil
	},
	Gates: func(b *kit.Book) []snapshots.Gate {
		s := b.Files[0].Sheets[0]
		return []snapshots.Gate{
			b.HeadersGate(fmt.Sprintf("sheet %s has its header row at row %d", s.Name, s.HeaderRow)),
			b.CellsGate("every Netgen cell parses or is a published blank"),
			b.Rec.Gate(),
			kit.Failures("annual_netgen_agrees", b.State.(*page1State).annualBad, "every row's twelve months add up to its published annual net generation (within 0.5 MWh)"),
		}
	},
	Ranges:   map[string]snapshots.Range{"net_generation_mwh": {Min: -1e7, Max: 1e8}},
	Required: []string{"level", "period", "eia_plant_id", "source_record_key"},
})

var netgenMonths = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}

const page1DefaultHeaderRow = 6

// page1Sheet is page 1: its header row among the first ten (else the layout's row 6, the
// columns at the layout's positions of 2022 onward); a row per plant, prime mover and fuel
// whose Plant Id is a number, with a Netgen column per month.
func page1Sheet() *kit.Sheet {
	cols := []kit.Column{
		{Field: "eia_plant_id", Header: "Plant Id", Kind: kit.AsInt, At: 1},
		{Field: "plant_name", Header: "Plant Name", At: 4},
		{Field: "state", Header: "Plant State", At: 7},
		{Field: "prime_mover_code", Header: "Reported Prime Mover", At: 14},
		{Field: "energy_source_code", Header: "Reported Fuel Type Code", At: 15},
		{Header: "Net Generation (Megawatthours)", At: 96},
		{Field: "year", Header: "YEAR", Kind: kit.AsInt, At: 97, Uncited: true},
	}
	for i, mo := range netgenMonths {
		cols = append(cols, kit.Column{Header: "Netgen " + mo, At: 80 + i})
	}
	return &kit.Sheet{
		Prefix: "Page 1 Generation", Name: "Page 1 Generation and Fuel Data", Header: page1DefaultHeaderRow, Find: 10, Columns: cols,
		IsRow: func(r *kit.Row) bool { return r.Cell("eia_plant_id").Kind == grid.Number },
		Each:  plantMonths,
		// The second reading: every month cell of the rows with a whole Plant Id, summed as
		// written.
		Tally: &kit.Tally{Mark: "Plant Id", SumCols: func(s *kit.SheetRead) []int {
			var out []int
			for _, mo := range netgenMonths[:s.File.Book.State.(*page1State).lastMonth] {
				out = append(out, s.Col("Netgen "+mo))
			}
			return out
		}, Field: "net_generation_mwh", Unit: "MWh"},
	}
}

// page1State is what one build of page 1 reads besides the rows.
type page1State struct {
	lastMonth        int
	latest, fallback string
	annualBad        []string
}

// plantMonths adds a row's months through the workbook's last: each month is its own column
// of the row, so the month's value is set, and the unchanging columns are cited.
// fuel_type_description stays null: page 1 publishes codes only, and its rows of one plant,
// fuel and prime mover repeat for nuclear units (the key carries the row).
func plantMonths(r *kit.Row) {
	st := r.Book.State.(*page1State)
	year, ok := r.Value("year").(int64)
	if !ok {
		if r.Parsed("year") {
			r.Problem(r.Sheet.Col("year"), "YEAR", "%q", r.Cell("year").Value)
		}
		return
	}
	plant, fuel, pm := r.Value("eia_plant_id"), r.Value("energy_source_code"), r.Value("prime_mover_code")
	sum := 0.0
	for i, mo := range netgenMonths[:st.lastMonth] {
		v := r.Read(kit.AsNumber, r.Sheet.Col("Netgen "+mo), "Netgen "+mo)
		period := fmt.Sprintf("%04d-%02d", year, i+1)
		r.Add().
			Set("level", "fuel_prime_mover").
			Set("period", period).
			Set("period_date", period+"-01").
			Set("net_generation_mwh", v).
			Set("net_generation_unit", "megawatthours").
			Key(fmt.Sprintf("%s:%s:%v:%v:%v:row%d", r.File.SourceID, period, orEmpty(plant), orEmpty(fuel), orEmpty(pm), r.N))
		if f, ok := v.(float64); ok {
			sum += f
		}
		st.latest = max(st.latest, period)
	}
	if st.lastMonth == 12 {
		c := r.Sheet.Col("Net Generation (Megawatthours)")
		if tot, err := kit.Number(r.CellAt(c)); err == nil && tot != nil && math.Abs(tot.(float64)-sum) > 0.5 {
			st.annualBad = append(st.annualBad, fmt.Sprintf("row %d: months %.3f, annual %.3f MWh", r.N, sum, tot.(float64)))
		}
	}
}
