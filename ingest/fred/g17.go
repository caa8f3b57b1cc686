// Package fred ingests the Federal Reserve Board's data as distributed by FRED (Federal
// Reserve Bank of St. Louis): the G.17 industrial production and capacity series of
// semiconductor and other electronic component manufacturing (NAICS 3344).
package fred

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// Publisher is the agency every file of this package is cited to; FRED is its distributor.
const Publisher = "Board of Governors of the Federal Reserve System (G.17), via FRED (Federal Reserve Bank of St. Louis)"

// Distributor is who the files are downloaded from.
const Distributor = "FRED, Federal Reserve Bank of St. Louis"

// Folder is the raw directory's folder of the G.17 downloads.
const Folder = "aiinfra_robotics/fred_g17"

// g17Series is one FRED series of the capability.
type g17Series struct {
	id, name, measure, frequency, unit string
}

var g17List = []g17Series{
	{"IPG3344S", "Industrial Production: Manufacturing: Durable Goods: Semiconductor and Other Electronic Component (NAICS = 3344)", "industrial_production", "monthly", "index 2017=100"},
	{"IPG3344SQ", "Industrial Production: Manufacturing: Durable Goods: Semiconductor and Other Electronic Component (NAICS = 3344), quarterly", "industrial_production", "quarterly", "index 2017=100"},
	{"CAPG3344S", "Industrial Capacity: Manufacturing: Durable Goods: Semiconductor and Other Electronic Component (NAICS = 3344)", "capacity", "monthly", "percent of 2017 output"},
	{"CAPUTLG3344S", "Capacity Utilization: Manufacturing: Durable Goods: Semiconductor and Other Electronic Component (NAICS = 3344)", "capacity_utilization", "monthly", "percent of capacity"},
}

// staleMonths is how far a file's last period may trail the snapshot's latest before the
// file counts as cut short (sheets_complete).
const staleMonths = 12

// noDataAsOf dates a build in which no file could be read; its gates reject it.
const noDataAsOf = "1900-01-01"

// G17 ingests ai_infrastructure.production from FRED CSV downloads (fredgraph.csv, header
// observation_date,<SERIES_ID>), one file per series, each of its own vintage, all in one
// snapshot.
var G17 = kit.New(&kit.Spec{
	Cap:     capability.AIInfrastructureProduction,
	Version: "fred-g17/1",
	Folders: []string{Folder},
	Known:   known(),
	Files: []*kit.File{{
		Match:    regexp.MustCompile(`^(IPG3344S|IPG3344SQ|CAPG3344S|CAPUTLG3344S)\.csv$`),
		Together: true,
		Source: func(_ string, m []string) (string, string, string) {
			return "FRED:" + m[1], Publisher, seriesURL(m[1])
		},
		Sheets: []*kit.Sheet{{
			Header: 1,
			Columns: []kit.Column{
				{Field: "observation_date", At: 1, Kind: kit.AsDate},
				{Field: "value", At: 2, Kind: kit.AsNumber},
			},
			Begin: seriesHeader,
			IsRow: func(r *kit.Row) bool { return len(r.Sheet.Sheet.Row(r.N)) > 0 },
			Each:  observation,
			Tally: &kit.Tally{Cells: 1, SumCols: func(*kit.SheetRead) []int { return []int{2} }, Field: "value", Label: kit.FileLabel},
		}},
		Close: vintage,
	}},
	State:    func() any { return &g17State{} },
	AsOf:     g17AsOf,
	Gates:    g17Gates,
	Ranges:   map[string]snapshots.Range{"value": {Min: 0, Max: 10000}, "year": {Min: 1900, Max: 2100}},
	Required: []string{"series_id", "measure", "frequency", "observation_date", "period", "unit", "vintage"},
})

func seriesURL(id string) string { return "https://fred.stlouisfed.org/graph/fredgraph.csv?id=" + id }

func known() []fetch.Source {
	var out []fetch.Source
	for _, s := range g17List {
		out = append(out, fetch.Source{URL: seriesURL(s.id), Kind: fetch.CSV, Dest: Folder + "/" + s.id + ".csv"})
	}
	return out
}

func seriesByFile(name string) (g17Series, bool) {
	for _, s := range g17List {
		if name == s.id+".csv" {
			return s, true
		}
	}
	return g17Series{}, false
}

// g17State is what the files of one build add up to.
type g17State struct {
	reads  []*fileRead
	latest time.Time
}

// fileRead is what one file contributed.
type fileRead struct {
	file   *ingest.File
	series g17Series
	rows   []*ingest.Row
	last   time.Time
}

// seriesHeader checks line 1 is observation_date,<SERIES_ID>; a file whose line 1 is not is
// reported and not read.
func seriesHeader(sh *kit.SheetRead) bool {
	b, s := sh.File.Book, series(sh.File)
	h := sh.Header
	if miss := h.Missing("observation_date", s.id); len(miss) > 0 || h.Col("observation_date") != 1 || h.Col(s.id) != 2 {
		b.Missing = append(b.Missing, fmt.Sprintf("%s: line 1 is %q, not observation_date,%s", sh.File.Name, strings.Join(h.Labels(), ","), s.id))
		sh.File.Omit = true
		return false
	}
	b.Found = append(b.Found, fmt.Sprintf("%s: observation_date,%s", sh.File.Name, s.id))
	return true
}

func series(fr *kit.FileRead) g17Series {
	s, _ := seriesByFile(fr.Name)
	return s
}

// observation is one line: a dated value of the file's series (a line without a date is a
// cell that does not parse, and no row).
func observation(r *kit.Row) {
	d, ok := r.Value("observation_date").(string)
	if !ok {
		if r.Parsed("observation_date") {
			r.Problem(1, "observation_date", "%q is not a date", r.CellAt(1).Value)
		}
		return
	}
	s := series(r.File)
	t, _ := time.Parse("2006-01-02", d)
	period := periodOf(s, t)
	r.Add().
		Set("series_id", s.id).
		Set("series_name", s.name).
		Set("measure", s.measure).
		Set("frequency", s.frequency).
		Set("naics", "3344").
		Set("seasonal_adjustment", "SA").
		Set("period", period).
		Set("year", t.Year()).
		Set("unit", s.unit).
		Set("distributor", Distributor).
		Key(s.id + ":" + period)
}

// vintage sets the file's rows' vintage (its latest observation) and its source's title.
func vintage(fr *kit.FileRead) error {
	if fr.Omit {
		return nil
	}
	st := fr.Book.State.(*g17State)
	rd := &fileRead{file: fr.File, series: series(fr), rows: fr.Added}
	for _, r := range fr.Added {
		if t, err := time.Parse("2006-01-02", r.Get("observation_date").(string)); err == nil && t.After(rd.last) {
			rd.last = t
		}
	}
	if rd.last.After(st.latest) {
		st.latest = rd.last
	}
	st.reads = append(st.reads, rd)
	v := "observations through " + periodOf(rd.series, rd.last)
	for _, r := range rd.rows {
		r.Set("vintage", v)
	}
	fr.Source.Title = rd.series.name + " [" + rd.series.id + "], " + rd.series.unit + ", seasonally adjusted"
	fr.Source.Release = "FRED download, " + v
	return nil
}

func g17AsOf(b *kit.Book) (string, error) {
	if st := b.State.(*g17State); !st.latest.IsZero() {
		return st.latest.Format("2006-01-02"), nil
	}
	return noDataAsOf, nil // nothing read: the gates reject the snapshot
}

func g17Gates(b *kit.Book) []snapshots.Gate {
	st := b.State.(*g17State)
	var short, parsed []string
	for _, fr := range st.reads {
		parsed = append(parsed, fmt.Sprintf("%s %d rows (observations through %s)", fr.series.id, len(fr.rows), periodOf(fr.series, fr.last)))
		if monthsBetween(fr.last, st.latest) > staleMonths || len(fr.rows) == 0 {
			short = append(short, fmt.Sprintf("%s ends %s, more than %d months before the latest period of the snapshot (%s): the file is cut short", filepath.Base(fr.file.Path), fr.last.Format("2006-01"), staleMonths, st.latest.Format("2006-01")))
		}
	}
	b.Incomplete = append(b.Incomplete, short...)
	return []snapshots.Gate{
		b.HeadersGate(strings.Join(b.Found, "; ")),
		b.CellsGate(strings.Join(parsed, "; ")),
		b.CompleteGate(fmt.Sprintf("every series runs to within %d months of %s", staleMonths, st.latest.Format("2006-01"))),
		b.Rec.Gate(),
		utilizationAgrees(st.reads),
	}
}

func monthsBetween(a, b time.Time) int {
	return (b.Year()-a.Year())*12 + int(b.Month()) - int(a.Month())
}

// periodOf is the period a series' observation date stands for: YYYY-MM, or YYYY-Qn for a
// quarterly series.
func periodOf(s g17Series, t time.Time) string {
	if s.frequency == "quarterly" {
		return fmt.Sprintf("%d-Q%d", t.Year(), (int(t.Month())+2)/3)
	}
	return t.Format("2006-01")
}
