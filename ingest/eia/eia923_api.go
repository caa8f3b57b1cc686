package eia

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
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
	"github.com/citeq/citeq/snapshots"
)

// Generation ingests power.generation from EIA API v2 response bodies of route
// electricity/facility-fuel (Form EIA-923 page 1): eia923_<year>.json, or its pages
// eia923_<year>_<offset>.json, all pages of a year in one snapshot. The data table is the
// response's member response.data (header row 1: the members' names).
type Generation struct{}

var generationFile = regexp.MustCompile(`^eia923_(\d{4})(?:_(\d+))?\.json$`)

const (
	generationSheet   = "response.data"
	generationRoute   = "https://api.eia.gov/v2/electricity/facility-fuel/data/"
	generationEpsilon = 0.015 // the agency rounds to 0.01 MWh
)

// generationHeaders are the API's member names in the order it writes them: a header that is
// missing is reported and its column read at this position.
var generationHeaders = []string{"period", "plantCode", "plantName", "fuel2002", "fuelTypeDescription", "state", "stateDescription",
	"primeMover", "generation", "gross-generation", "generation-units", "gross-generation-units"}

// Capability implements Adapter.
func (Generation) Capability() *capability.Capability { return capability.PowerGeneration }

// Version implements Adapter.
func (Generation) Version() string { return "eia923api/2" }

// Folders implements Adapter.
func (Generation) Folders() []string { return []string{"eia/eia923_api"} }

// Known implements Adapter. The API needs a key and pages of at most 5,000 rows, which the
// plain file download does not do: the request is listed by Paged instead.
func (Generation) Known() []fetch.Source { return nil }

// GenerationKeyEnv is the environment variable that holds the EIA API key ingest --fetch
// pages the API with (never stored: not in the raw files, the logs or the citations).
const GenerationKeyEnv = "CITEQ_EIA_API_KEY"

// generationPageRows is the most rows the API returns in one JSON page.
const generationPageRows = 5000

// GenerationRequest is the request ingest --fetch pages through: the agency's
// electricity/facility-fuel route, monthly net and gross generation of Colorado plants in
// 2022, newest month first (the request the response eia923_2022.json echoes).
const GenerationRequest = generationRoute + "?data[]=generation&data[]=gross-generation&end=2022-12&facets[state][]=CO&frequency=monthly&sort[0][column]=period&sort[0][direction]=desc&start=2022-01"

// Paged implements ingest.Pager: the request's pages, 5,000 rows each, the first as
// eia923_2022.json and the page at offset n as eia923_2022_<n>.json, which Plan reads
// together as one snapshot.
func (Generation) Paged() []fetch.Pages {
	return []fetch.Pages{{
		URL: GenerationRequest, Dest: "eia/eia923_api/eia923_2022.json", Length: generationPageRows,
		KeyParam: "api_key", KeyEnv: GenerationKeyEnv,
		KeyHelp: "a free key from https://www.eia.gov/opendata/register.php",
		Count:   countGenerationPage,
	}}
}

// countGenerationPage reads an API v2 response body: response.total (a string or a number)
// and the rows of response.data.
func countGenerationPage(body []byte) (total, rows int, err error) {
	var doc struct {
		Response struct {
			Total json.RawMessage   `json:"total"`
			Data  []json.RawMessage `json:"data"`
		} `json:"response"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return 0, 0, err
	}
	total, ok := jsonInt(doc.Response.Total)
	if !ok {
		return 0, 0, fmt.Errorf("response.total is %s, not a count of rows", orNone(doc.Response.Total))
	}
	return total, len(doc.Response.Data), nil
}

func orNone(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "absent"
	}
	return string(raw)
}

// Plan implements Adapter: one snapshot per year, every page of that year.
func (Generation) Plan(files *ingest.Finder) ([]ingest.Plan, error) {
	ps, err := files.Find(generationFile.MatchString)
	if err != nil || len(ps) == 0 {
		return nil, err
	}
	byYear := map[string][]string{}
	var years []string
	for _, p := range ps {
		y := generationFile.FindStringSubmatch(filepath.Base(p))[1]
		if byYear[y] == nil {
			years = append(years, y)
		}
		byYear[y] = append(byYear[y], p)
	}
	sort.Strings(years)
	var plans []ingest.Plan
	for _, y := range years {
		var fs []ingest.File
		for _, p := range byYear[y] {
			fs = append(fs, ingest.File{Path: p, SourceID: "eia_api_v2", Publisher: Publisher, Role: ingest.RoleData, URL: generationURL(p)})
		}
		plans = append(plans, ingest.Plan{AsOfHint: y + "-12-31", Document: "eia923_" + y, Files: fs})
	}
	return plans, nil
}

// apiMeta is the part of an API v2 response body besides its data table.
type apiMeta struct {
	Response struct {
		Total    json.RawMessage `json:"total"`
		Warnings []struct {
			Warning     string `json:"warning"`
			Description string `json:"description"`
		} `json:"warnings"`
	} `json:"response"`
	Request struct {
		Command string `json:"command"`
		Params  struct {
			Frequency string              `json:"frequency"`
			Data      []string            `json:"data"`
			Facets    map[string][]string `json:"facets"`
			Start     string              `json:"start"`
			End       string              `json:"end"`
			Sort      []struct {
				Column    string `json:"column"`
				Direction string `json:"direction"`
			} `json:"sort"`
			Offset json.RawMessage `json:"offset"`
			Length json.RawMessage `json:"length"`
		} `json:"params"`
	} `json:"request"`
}

func readMeta(path string) *apiMeta {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var m apiMeta
	if json.Unmarshal(b, &m) != nil || m.Request.Command == "" {
		return nil
	}
	return &m
}

func jsonInt(raw json.RawMessage) (int, bool) {
	s := strings.Trim(string(raw), `"`)
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// generationURL is the request the response body echoes, without the API key; the route when
// the body does not echo one.
func generationURL(path string) string {
	m := readMeta(path)
	if m == nil {
		return generationRoute
	}
	q := url.Values{}
	p := m.Request.Params
	q.Set("frequency", p.Frequency)
	for _, d := range p.Data {
		q.Add("data[]", d)
	}
	facets := make([]string, 0, len(p.Facets))
	for k := range p.Facets {
		facets = append(facets, k)
	}
	sort.Strings(facets)
	for _, k := range facets {
		for _, v := range p.Facets[k] {
			q.Add("facets["+k+"][]", v)
		}
	}
	if p.Start != "" {
		q.Set("start", p.Start)
	}
	if p.End != "" {
		q.Set("end", p.End)
	}
	for i, s := range p.Sort {
		q.Set(fmt.Sprintf("sort[%d][column]", i), s.Column)
		q.Set(fmt.Sprintf("sort[%d][direction]", i), s.Direction)
	}
	if off, ok := jsonInt(p.Offset); ok {
		q.Set("offset", strconv.Itoa(off))
	}
	if n, ok := jsonInt(p.Length); ok {
		q.Set("length", strconv.Itoa(n))
	}
	return "https://api.eia.gov" + m.Request.Command + "?" + q.Encode() + " (api_key omitted)"
}

// genRow is one parsed row of the table.
type genRow struct {
	r                       int
	period, plant, fuel, pm string
	desc                    string
	net, gross              any
	level                   string
}

func levelOf(fuel, pm string) string {
	switch {
	case fuel == "ALL" && pm == "ALL":
		return "plant_total"
	case pm == "ALL":
		return "fuel_total"
	}
	return "fuel_prime_mover"
}

// genPage is one response file of a plan, parsed.
type genPage struct {
	f      ingest.File
	name   string
	sh     *grid.Sheet
	col    func(h string) int
	parsed []genRow
	meta   *apiMeta
}

// Build implements Adapter. The pages of one request are read together: a month is cut only
// when the pages together hold fewer rows than the request's total, and its levels are
// checked across pages.
func (Generation) Build(p ingest.Plan) (*ingest.Build, error) {
	rows := ingest.NewRows(capability.PowerGeneration)
	var bad kit.Problems
	var rec kit.Reconcile
	var missing, coverage, levelBad, broken []string
	var sources []snapshots.Source
	var pages []*genPage
	for _, f := range ingest.DataFiles(p.Files) {
		name := filepath.Base(f.Path)
		wb, err := grid.Open(f.Path)
		if err != nil {
			return nil, err
		}
		sh := wb.Sheet(generationSheet)
		if sh == nil {
			missing = append(missing, fmt.Sprintf("%s: no data table %s (tables: %s)", name, generationSheet, strings.Join(wb.SheetNames(), ", ")))
			continue
		}
		hdr := kit.HeaderAt(sh, 1)
		if absent := hdr.Missing(generationHeaders...); len(absent) > 0 {
			missing = append(missing, fmt.Sprintf("%s %s row 1 lacks %q (read at the API's positions instead)", name, generationSheet, absent))
		}
		col := func(h string) int {
			if c := hdr.Col(h); c > 0 {
				return c
			}
			return slices.Index(generationHeaders, h) + 1
		}
		pg := &genPage{f: f, name: name, sh: sh, col: col, meta: readMeta(f.Path)}
		text := func(r int, h string) string { return strings.TrimSpace(sh.Cell(r, col(h)).Value) }
		for r := 2; r <= sh.NumRows(); r++ {
			g := genRow{r: r, period: text(r, "period"), plant: text(r, "plantCode"), fuel: text(r, "fuel2002"), pm: text(r, "primeMover"), desc: text(r, "fuelTypeDescription")}
			if g.period == "" {
				continue
			}
			g.level = levelOf(g.fuel, g.pm)
			for _, m := range []struct {
				h   string
				dst *any
			}{{"generation", &g.net}, {"gross-generation", &g.gross}} {
				v, err := kit.Number(sh.Cell(r, col(m.h)))
				if err != nil {
					bad.Add("%s row %d %s: %v", name, r, m.h, err)
				}
				*m.dst = v
			}
			pg.parsed = append(pg.parsed, g)
		}
		pages = append(pages, pg)
	}
	// The pages together: their rows, and the request's own account of its total.
	var all []genRow
	var meta *apiMeta
	var names, tiles []string
	for _, pg := range pages {
		all = append(all, pg.parsed...)
		names = append(names, pg.name)
		if meta == nil {
			meta = pg.meta
		}
		off := "?"
		if pg.meta != nil {
			if o, ok := jsonInt(pg.meta.Request.Params.Offset); ok {
				off = strconv.Itoa(o)
			}
		}
		tiles = append(tiles, fmt.Sprintf("%s offset %s: %d rows", pg.name, off, len(pg.parsed)))
	}
	label := strings.Join(names, " + ")
	partial, incomplete := partialMonths(meta, all, len(all))
	for _, m := range sortedKeys(incomplete) {
		broken = append(broken, fmt.Sprintf("%s: month %s is incomplete (%s) and the response does not say it is cut", label, m, incomplete[m]))
	}
	// The levels of a served month must add up: detail to fuel totals, fuel totals to the
	// plant total.
	skip := map[string]string{}
	for m, why := range partial {
		skip[m] = why
	}
	for m, why := range incomplete {
		skip[m] = why
	}
	levelBad = append(levelBad, checkLevels(label, all, skip)...)
	perMonth := map[string]int{}
	for _, g := range all {
		perMonth[g.period]++
	}
	var months, served, servedMonths []string
	for m := range perMonth {
		months = append(months, m)
	}
	sort.Strings(months)
	for _, m := range months {
		if why, ok := partial[m]; ok {
			coverage = append(coverage, fmt.Sprintf("%s: %s (%d rows) not served: %s", label, m, perMonth[m], why))
		} else {
			served = append(served, fmt.Sprintf("%s %d rows", m, perMonth[m]))
			servedMonths = append(servedMonths, m)
		}
	}
	coverage = append(coverage, fmt.Sprintf("%s: served %s", label, strings.Join(served, ", ")))
	if len(pages) > 1 {
		total := "not stated"
		if meta != nil {
			if t, ok := jsonInt(meta.Response.Total); ok {
				total = strconv.Itoa(t)
			}
		}
		coverage = append(coverage, fmt.Sprintf("pages: %s; %d rows of the request's %s", strings.Join(tiles, ", "), len(all), total))
	}
	latest := ""
	for _, pg := range pages {
		f, name, sh, col := pg.f, pg.name, pg.sh, pg.col
		src := f.Source()
		src.HeaderRows = map[string]int{generationSheet: 1}
		src.Title = "EIA API v2 electricity/facility-fuel (Form EIA-923)"
		n, sum := 0, 0.0
		fileLatest := ""
		for _, g := range pg.parsed {
			if _, skip := partial[g.period]; skip {
				continue
			}
			plant, err := kit.Int(sh.Cell(g.r, col("plantCode")))
			if err != nil {
				bad.Add("%s row %d plantCode: %v", name, g.r, err)
			}
			pd, perr := kit.ParseDate(g.period + "-01")
			row := rows.Add(ingest.Lineage{SourceID: f.SourceID, File: name, Sheet: generationSheet, Row: g.r, SHA256: f.SHA256}).
				Set("level", g.level).
				SetCell("period", col("period"), g.period).
				SetCell("eia_plant_id", col("plantCode"), plant).
				SetCell("plant_name", col("plantName"), kit.Text(sh.Cell(g.r, col("plantName")))).
				SetCell("state", col("state"), kit.Text(sh.Cell(g.r, col("state")))).
				SetCell("state_name", col("stateDescription"), kit.Text(sh.Cell(g.r, col("stateDescription")))).
				SetCell("energy_source_code", col("fuel2002"), nullIfEmpty(g.fuel)).
				SetCell("fuel_type_description", col("fuelTypeDescription"), nullIfEmpty(g.desc)).
				SetCell("prime_mover_code", col("primeMover"), nullIfEmpty(g.pm)).
				SetCell("net_generation_mwh", col("generation"), g.net).
				SetCell("gross_generation_mwh", col("gross-generation"), g.gross).
				SetCell("net_generation_unit", col("generation-units"), kit.Text(sh.Cell(g.r, col("generation-units")))).
				SetCell("gross_generation_unit", col("gross-generation-units"), kit.Text(sh.Cell(g.r, col("gross-generation-units")))).
				Key(fmt.Sprintf("%s:%s:%s:%s:%s:%s", f.SourceID, g.period, g.plant, g.fuel, g.desc, g.pm))
			if perr != nil {
				bad.Add("%s row %d period %q is not YYYY-MM", name, g.r, g.period)
			} else {
				row.Set("period_date", pd.Format("2006-01-02")).Set("year", pd.Year())
				fileLatest = max(fileLatest, g.period)
			}
			if v, ok := g.net.(float64); ok {
				sum += v
			}
			n++
		}
		// A second reading: rows of the served months counted, generation summed as written.
		rn, rs := 0, 0.0
		for r := 2; r <= sh.NumRows(); r++ {
			per := strings.TrimSpace(sh.Cell(r, col("period")).Value)
			if _, skip := partial[per]; per == "" || skip {
				continue
			}
			rn++
			if x, err := strconv.ParseFloat(strings.TrimSpace(sh.Cell(r, col("generation")).Value), 64); err == nil {
				rs += x
			}
		}
		rec.Sheet(name+" "+generationSheet, n, sum, rn, rs, "MWh")
		src.Release = fileLatest
		latest = max(latest, fileLatest)
		sources = append(sources, src)
	}
	if latest == "" {
		return nil, fmt.Errorf("no complete month in %d response files", len(ingest.DataFiles(p.Files)))
	}
	pd, _ := kit.ParseDate(latest + "-01")
	asOf := pd.AddDate(0, 1, -1).Format("2006-01-02")
	facts, err := rows.Finish(asOf)
	if err != nil {
		return nil, err
	}
	return &ingest.Build{
		AsOf: asOf, Rows: facts, Sources: sources, Cells: rows.Cells(), Coverage: generationCoverage(pages[0].name, meta, len(all), servedMonths, partial),
		Checks: []snapshots.Gate{
			kit.Failures(kit.GateHeaders, missing, "the data table has the API's 12 members"),
			bad.Gate(kit.GateCells, "every generation value parses"),
			rec.Gate(),
			kit.Failures(kit.GateComplete, broken, "every served month has all three levels of every plant"),
			kit.Failures("level_totals_agrees", levelBad, "in every served month, detail rows add up to their fuel totals and fuel totals to their plant totals (within 0.015 MWh)"),
			{Name: "page_coverage", Passed: true, Detail: strings.Join(coverage, "; ")},
		},
		Ranges:   map[string]snapshots.Range{"net_generation_mwh": {Min: -1e7, Max: 1e8}, "gross_generation_mwh": {Min: -1e7, Max: 1e8}},
		Required: []string{"level", "period", "eia_plant_id", "source_record_key"},
	}, nil
}

// generationCoverage is what a request's pages cover of each year they serve, when that is
// fewer than its 12 months: the months served, the months cut (not served), and how to get
// the rest.
func generationCoverage(file string, meta *apiMeta, rows int, served []string, cut map[string]string) []snapshots.Coverage {
	byYear := map[string][]string{}
	var years []string
	for _, m := range served {
		y := m[:4]
		if byYear[y] == nil {
			years = append(years, y)
		}
		byYear[y] = append(byYear[y], m)
	}
	more := "No published file here has the rest of it"
	if meta != nil {
		if t, ok := jsonInt(meta.Response.Total); ok && rows < t {
			more += fmt.Sprintf(": the pages here hold %d of the request's %d rows; citeq ingest --fetch with an EIA API key (CITEQ_EIA_API_KEY) walks every page of the request, and those pages, a newer version of this document, serve every month the request covers", rows, t)
		}
	}
	var out []snapshots.Coverage
	for _, y := range years {
		ms := byYear[y]
		if len(ms) == 12 {
			continue
		}
		covered := fmt.Sprintf("the months %s to %s, %d of its 12", ms[0], ms[len(ms)-1], len(ms))
		var cutHere []string
		for m := range cut {
			if strings.HasPrefix(m, y) {
				cutHere = append(cutHere, m)
			}
		}
		sort.Strings(cutHere)
		if len(cutHere) > 0 {
			covered += fmt.Sprintf(" (%s is in the response only in part and not served)", strings.Join(cutHere, ", "))
		}
		out = append(out, snapshots.Coverage{Where: map[string]string{"year": y}, Period: "the year " + y, File: file, Covered: covered, Complete: more + "."})
	}
	return out
}

// partialMonths names the months a response holds only in part, with the reason. From the
// response's own account (cut, not served): when it returns fewer rows than its total, the
// last month in its sort order (the oldest for a descending sort) is cut, and without a sort
// any month may be. From the rows (incomplete, a gate failure): any other month where a
// plant's levels are not all present (a plant total without fuel totals, a fuel total without
// detail or without its plant total), which a file cut short shows.
func partialMonths(meta *apiMeta, rows []genRow, n int) (cut, incomplete map[string]string) {
	out := map[string]string{}
	incomplete = map[string]string{}
	var months []string
	seen := map[string]bool{}
	for _, g := range rows {
		if !seen[g.period] {
			seen[g.period] = true
			months = append(months, g.period)
		}
	}
	sort.Strings(months)
	if meta != nil && len(months) > 0 {
		total, ok := jsonInt(meta.Response.Total)
		if ok && n < total {
			why := fmt.Sprintf("the response holds %d of the query's %d rows", n, total)
			dir := ""
			if s := meta.Request.Params.Sort; len(s) > 0 && s[0].Column == "period" {
				dir = s[0].Direction
			}
			switch dir {
			case "desc":
				out[months[0]] = why + ", sorted by period descending, so its oldest month is cut"
			case "asc":
				out[months[len(months)-1]] = why + ", sorted by period ascending, so its newest month is cut"
			default:
				for _, m := range months {
					out[m] = why + ", in no period order"
				}
			}
		}
	}
	type key struct{ period, plant, fuel, desc string }
	plantTotal, fuelTotal := map[key]bool{}, map[key]bool{}
	fuelsOf, detailOf := map[key]bool{}, map[key]bool{}
	for _, g := range rows {
		switch g.level {
		case "plant_total":
			plantTotal[key{g.period, g.plant, "", ""}] = true
		case "fuel_total":
			fuelTotal[key{g.period, g.plant, g.fuel, g.desc}] = true
			fuelsOf[key{g.period, g.plant, "", ""}] = true
		default:
			detailOf[key{g.period, g.plant, g.fuel, g.desc}] = true
		}
	}
	mark := func(period, why string) {
		if _, done := out[period]; done {
			return
		}
		if _, done := incomplete[period]; !done {
			incomplete[period] = why
		}
	}
	for k := range plantTotal {
		if !fuelsOf[k] {
			mark(k.period, fmt.Sprintf("plant %s has a total but no fuel totals", k.plant))
		}
	}
	for k := range fuelTotal {
		if !detailOf[k] {
			mark(k.period, fmt.Sprintf("plant %s fuel %s has a total but no detail rows", k.plant, k.fuel))
		}
		if !plantTotal[key{k.period, k.plant, "", ""}] {
			mark(k.period, fmt.Sprintf("plant %s has fuel totals but no plant total", k.plant))
		}
	}
	for k := range detailOf {
		if !fuelTotal[k] {
			mark(k.period, fmt.Sprintf("plant %s fuel %s has detail rows but no fuel total", k.plant, k.fuel))
		}
	}
	// Without the response's own account (a bare table), a page of the API is contiguous in
	// its sort order, so only its first and last months can be cut by the page limit: an
	// incomplete edge month is taken as cut, as long as a complete month remains.
	if meta == nil && len(months) > 0 {
		edges := []string{months[0]}
		if len(months) > 1 {
			edges = append(edges, months[len(months)-1])
		}
		complete := len(months) - len(incomplete)
		for _, m := range edges {
			if why, ok := incomplete[m]; ok && complete > 0 {
				out[m] = "an edge month of a page without the response's account of its rows, incomplete: " + why
				delete(incomplete, m)
			}
		}
	}
	return out, incomplete
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checkLevels compares, in every month not cut, the detail rows with their fuel totals and
// the fuel totals with their plant totals, for net and gross generation.
func checkLevels(name string, rows []genRow, partial map[string]string) []string {
	type key struct{ period, plant, fuel, desc string }
	var bad []string
	for _, measure := range []string{"net", "gross"} {
		val := func(g genRow) (float64, bool) {
			v := g.net
			if measure == "gross" {
				v = g.gross
			}
			f, ok := v.(float64)
			return f, ok
		}
		detail, fuelSum := map[key]float64{}, map[key]float64{}
		fuel, plant := map[key]float64{}, map[key]float64{}
		var keys []key
		for _, g := range rows {
			if _, skip := partial[g.period]; skip {
				continue
			}
			v, ok := val(g)
			if !ok {
				continue
			}
			switch g.level {
			case "plant_total":
				plant[key{g.period, g.plant, "", ""}] = v
			case "fuel_total":
				k := key{g.period, g.plant, g.fuel, g.desc}
				fuel[k] = v
				keys = append(keys, k)
				fuelSum[key{g.period, g.plant, "", ""}] += v
			default:
				detail[key{g.period, g.plant, g.fuel, g.desc}] += v
			}
		}
		for _, k := range keys {
			if math.Abs(detail[k]-fuel[k]) > generationEpsilon {
				bad = append(bad, fmt.Sprintf("%s %s plant %s %s (%s): %s detail %.2f, fuel total %.2f", name, k.period, k.plant, k.fuel, k.desc, measure, detail[k], fuel[k]))
			}
		}
		var pk []key
		for k := range plant {
			pk = append(pk, k)
		}
		sort.Slice(pk, func(i, j int) bool { return pk[i].period+pk[i].plant < pk[j].period+pk[j].plant })
		for _, k := range pk {
			if math.Abs(fuelSum[k]-plant[k]) > generationEpsilon {
				bad = append(bad, fmt.Sprintf("%s %s plant %s: %s fuel totals %.2f, plant total %.2f", name, k.period, k.plant, measure, fuelSum[k], plant[k]))
			}
		}
	}
	return bad
}
