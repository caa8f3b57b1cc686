// Package fred ingests the Federal Reserve Board's data as distributed by FRED (Federal
// Reserve Bank of St. Louis): the G.17 industrial production and capacity series of
// semiconductor and other electronic component manufacturing (NAICS 3344).
package fred

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/grid"
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
// observation_date,<SERIES_ID>), one file per series, each of its own vintage.
type G17 struct{}

// Capability implements ingest.Adapter.
func (G17) Capability() *capability.Capability { return capability.AIInfrastructureProduction }

// Version implements ingest.Adapter.
func (G17) Version() string { return "fred-g17/1" }

// Folders implements ingest.Adapter.
func (G17) Folders() []string { return []string{Folder} }

func seriesURL(id string) string { return "https://fred.stlouisfed.org/graph/fredgraph.csv?id=" + id }

// Known implements ingest.Adapter.
func (G17) Known() []fetch.Source {
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

// Plan implements ingest.Adapter: one snapshot of every series file found.
func (G17) Plan(finder *ingest.Finder) ([]ingest.Plan, error) {
	paths, err := finder.Find(func(n string) bool { _, ok := seriesByFile(n); return ok })
	if err != nil {
		return nil, fmt.Errorf("fred g17 plan: %w", err)
	}
	if len(paths) == 0 {
		return nil, nil
	}
	var files []ingest.File
	for _, p := range paths {
		s, _ := seriesByFile(filepath.Base(p))
		files = append(files, ingest.File{Path: p, SourceID: "FRED:" + s.id, Publisher: Publisher, URL: seriesURL(s.id), Role: ingest.RoleData})
	}
	return []ingest.Plan{{Files: files}}, nil
}

// fileRead is what one file contributed.
type fileRead struct {
	file   *ingest.File
	series g17Series
	rows   []*ingest.Row
	last   time.Time
	n      int
	sum    float64
}

// Build implements ingest.Adapter.
func (G17) Build(p ingest.Plan) (*ingest.Build, error) {
	b := &ingest.Build{
		Ranges:   map[string]snapshots.Range{"value": {Min: 0, Max: 10000}, "year": {Min: 1900, Max: 2100}},
		Required: []string{"series_id", "measure", "frequency", "observation_date", "period", "unit", "vintage"},
	}
	rows := ingest.NewRows(capability.AIInfrastructureProduction)
	var bad kit.Problems
	var missing, found []string
	var reads []*fileRead
	var latest time.Time
	var rc kit.Reconcile
	for i := range p.Files {
		f := &p.Files[i]
		name := filepath.Base(f.Path)
		s, ok := seriesByFile(name)
		if !ok {
			return nil, fmt.Errorf("fred g17: %s: no series is read from this file", name)
		}
		wb, err := grid.Open(f.Path)
		if err != nil {
			return nil, fmt.Errorf("fred g17: %w", err)
		}
		sh := wb.Sheets[0]
		h := kit.HeaderAt(sh, 1)
		if miss := h.Missing("observation_date", s.id); len(miss) > 0 || h.Col("observation_date") != 1 || h.Col(s.id) != 2 {
			missing = append(missing, fmt.Sprintf("%s: line 1 is %q, not observation_date,%s", name, strings.Join(h.Labels(), ","), s.id))
			continue
		}
		fr := &fileRead{file: f, series: s}
		sheetRows, sheetSum := 0, 0.0
		for r := 2; r <= sh.NumRows(); r++ {
			if len(sh.Row(r)) == 0 {
				continue
			}
			sheetRows++
			if v, err := kit.Number(sh.Cell(r, 2)); err == nil && v != nil {
				sheetSum += v.(float64)
			}
			d, err := kit.Date(sh.Cell(r, 1))
			if err != nil || d == nil {
				bad.Add("%s line %d: observation_date %q is not a date", name, r, sh.Cell(r, 1).Value)
				continue
			}
			t, _ := time.Parse("2006-01-02", d.(string))
			v, err := kit.Number(sh.Cell(r, 2))
			if err != nil {
				bad.Add("%s line %d: %v", name, r, err)
			}
			period := periodOf(s, t)
			row := rows.Add(ingest.Lineage{SourceID: f.SourceID, File: name, Sheet: sh.Name, Row: r, SHA256: f.SHA256}).
				Set("series_id", s.id).
				Set("series_name", s.name).
				Set("measure", s.measure).
				Set("frequency", s.frequency).
				Set("naics", "3344").
				Set("seasonal_adjustment", "SA").
				SetCell("observation_date", 1, d).
				Set("period", period).
				Set("year", t.Year()).
				SetCell("value", 2, v).
				Set("unit", s.unit).
				Set("distributor", Distributor).
				Key(s.id + ":" + period)
			fr.rows = append(fr.rows, row)
			if v != nil {
				fr.n++
				fr.sum += v.(float64)
			}
			if t.After(fr.last) {
				fr.last = t
			}
		}
		rc.Sheet(name, len(fr.rows), fr.sum, sheetRows, sheetSum, "")
		if fr.last.After(latest) {
			latest = fr.last
		}
		reads = append(reads, fr)
		found = append(found, fmt.Sprintf("%s: observation_date,%s", name, s.id))
	}
	var short, parsed []string
	for _, fr := range reads {
		vintage := "observations through " + periodOf(fr.series, fr.last)
		for _, r := range fr.rows {
			r.Set("vintage", vintage)
		}
		src := fr.file.Source()
		src.Title = fr.series.name + " [" + fr.series.id + "], " + fr.series.unit + ", seasonally adjusted"
		src.Release = "FRED download, " + vintage
		src.HeaderRows = map[string]int{grid.CSVSheetName: 1}
		b.Sources = append(b.Sources, src)
		parsed = append(parsed, fmt.Sprintf("%s %d rows (%s)", fr.series.id, len(fr.rows), vintage))
		if monthsBetween(fr.last, latest) > staleMonths || len(fr.rows) == 0 {
			short = append(short, fmt.Sprintf("%s ends %s, more than %d months before the latest period of the snapshot (%s): the file is cut short", filepath.Base(fr.file.Path), fr.last.Format("2006-01"), staleMonths, latest.Format("2006-01")))
		}
	}
	asOf := noDataAsOf // nothing read: the gates above reject the snapshot
	if !latest.IsZero() {
		asOf = latest.Format("2006-01-02")
	}
	facts, err := rows.Finish(asOf)
	if err != nil {
		return nil, fmt.Errorf("fred g17: %w", err)
	}
	b.AsOf, b.Rows, b.Cells = asOf, facts, rows.Cells()
	b.Checks = append(b.Checks,
		kit.Failures(kit.GateHeaders, missing, strings.Join(found, "; ")),
		bad.Gate(kit.GateCells, strings.Join(parsed, "; ")),
		kit.Failures(kit.GateComplete, short, fmt.Sprintf("every series runs to within %d months of %s", staleMonths, latest.Format("2006-01"))),
		rc.Gate(),
		utilizationAgrees(reads))
	return b, nil
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
