package derive

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/jsonw"
	"github.com/citeq/citeq/snapshots"
)

// power.capacity_factor joins, for every month both inputs have, the plant totals of
// power.generation (net generation) with the operating generators of power.capacity
// (nameplate) of the inventory whose report month is that month, plant by plant.

var _ = register(capability.PowerCapacityFactor, buildCapacityFactor)

// Sides of the capacity-factor join: the generation input and the capacity input.
const (
	cfGeneration = "generation"
	cfCapacity   = "capacity"
)

// NoteJoinUnmatched: a derived answer left out input rows the other input has no partner
// for (a plant with generation but no operating generator that month, or the reverse).
const NoteJoinUnmatched = "join_unmatched"

// cfEntry is one input row as the join's check and notes read it.
type cfEntry struct {
	month string
	plant string // eia_plant_id as text ("" when the row has none)
	state string
	value float64 // net generation (MWh) or nameplate (MW); 0 when not published
}

// cfSide is what one input has, month by month, as of the derived date.
type cfSide struct {
	name, capID, what string
	asOf              map[string]string // month → as_of of the snapshot that serves it
	entries           map[string][]cfEntry
	unmatched         []cfEntry // rows of months both sides have, whose plant the other side lacks
}

func (sd *cfSide) months() []string {
	out := make([]string, 0, len(sd.entries))
	for m := range sd.entries {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// hoursIn is the calendar hours of month m (YYYY-MM): its days × 24, daylight saving not
// applied.
func hoursIn(m string) (float64, time.Time, error) {
	t, err := time.Parse("2006-01", m)
	if err != nil {
		return 0, t, err
	}
	days := time.Date(t.Year(), t.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day()
	return float64(days * 24), t, nil
}

// cfLineage are the lineage columns a derived row takes from its input row.
var cfLineage = []string{capability.ColSourceID, capability.ColSourceFile, capability.ColSheet, capability.ColSourceRow, capability.ColRawSHA256}

// buildCapacityFactor builds power.capacity_factor as of asOf from the generation and
// capacity snapshots on or before it.
func buildCapacityFactor(c *capability.Capability, asOf string, inputs map[string][]Input) (*Table, error) {
	gen := &cfSide{name: cfGeneration, capID: capability.PowerGeneration.ID, what: "net generation, plant totals", asOf: map[string]string{}, entries: map[string][]cfEntry{}}
	capa := &cfSide{name: cfCapacity, capID: capability.PowerCapacity.ID, what: "operating nameplate", asOf: map[string]string{}, entries: map[string][]cfEntry{}}
	cols := snapshots.Columns(c)
	idx := map[string]int{}
	for i, f := range cols {
		idx[f.Name] = i
	}
	type inputRows struct {
		snap  Input
		rows  []int
		cells map[string][]string
		valid map[string][]bool
	}
	read := func(snap Input, where map[string][]string, names []string) (*inputRows, error) {
		names = append(append([]string{}, names...), cfLineage...)
		rows, cells, valid, err := snap.Select(where, names)
		if err != nil {
			return nil, err
		}
		ir := &inputRows{snap: snap, rows: rows, cells: map[string][]string{}, valid: map[string][]bool{}}
		for i, n := range names {
			ir.cells[n], ir.valid[n] = cells[i], valid[i]
		}
		return ir, nil
	}
	// Generation: the newest snapshot serving each month, its plant totals of that month.
	genNames := []string{"period", "eia_plant_id", "plant_name", "state", "net_generation_mwh", "source_id", "source_record_key", "source_row_number", "raw_file_sha256"}
	genByMonth := map[string]*inputRows{}
	genRowsOf := map[string][]int{}          // month → positions in genByMonth[month]
	for _, snap := range inputs[gen.capID] { // oldest first: newer snapshots replace months
		ir, err := read(snap, map[string][]string{"level": {"plant_total"}}, genNames)
		if err != nil {
			return nil, err
		}
		byMonth := map[string][]int{}
		for i := range ir.rows {
			if ir.valid["period"][i] {
				byMonth[ir.cells["period"][i]] = append(byMonth[ir.cells["period"][i]], i)
			}
		}
		for m, pos := range byMonth {
			genByMonth[m], genRowsOf[m] = ir, pos
			gen.asOf[m] = snap.AsOf()
		}
	}
	// Capacity: each inventory is its report month (the month of its as_of), operating rows.
	capNames := []string{"eia_plant_id", "plant_name", "state", "generator_id", "technology", "energy_source_code", "prime_mover_code", "status_code", "nameplate_mw",
		"source_id", "source_record_key", "source_row_number", "raw_file_sha256"}
	capByMonth := map[string]*inputRows{}
	for _, snap := range inputs[capa.capID] {
		m := snap.AsOf()[:7]
		ir, err := read(snap, map[string][]string{"lifecycle": {"operating"}}, capNames)
		if err != nil {
			return nil, err
		}
		capByMonth[m] = ir
		capa.asOf[m] = snap.AsOf()
	}
	num := func(ir *inputRows, name string, i int) (float64, bool) {
		if !ir.valid[name][i] {
			return 0, false
		}
		v, err := strconv.ParseFloat(ir.cells[name][i], 64)
		return v, err == nil
	}
	txt := func(ir *inputRows, name string, i int) any {
		if !ir.valid[name][i] {
			return nil
		}
		return ir.cells[name][i]
	}
	integer := func(ir *inputRows, name string, i int) any {
		if !ir.valid[name][i] {
			return nil
		}
		n, err := strconv.ParseInt(ir.cells[name][i], 10, 64)
		if err != nil {
			return nil
		}
		return n
	}
	entry := func(ir *inputRows, i int, m, value string) cfEntry {
		e := cfEntry{month: m}
		if ir.valid["eia_plant_id"][i] {
			e.plant = ir.cells["eia_plant_id"][i]
		}
		if ir.valid["state"][i] {
			e.state = ir.cells["state"][i]
		}
		e.value, _ = num(ir, value, i)
		return e
	}
	for m, ir := range genByMonth {
		for _, i := range genRowsOf[m] {
			gen.entries[m] = append(gen.entries[m], entry(ir, i, m, "net_generation_mwh"))
		}
	}
	for m, ir := range capByMonth {
		for i := range ir.rows {
			capa.entries[m] = append(capa.entries[m], entry(ir, i, m, "nameplate_mw"))
		}
	}

	fileAsOf := map[string]string{}
	var rows []snapshots.Row
	var used []Input
	months := gen.months()
	for _, m := range months {
		cir := capByMonth[m]
		if cir == nil {
			continue
		}
		gir := genByMonth[m]
		hours, start, err := hoursIn(m)
		if err != nil {
			return nil, fmt.Errorf("power.generation period %q: %w", m, err)
		}
		genPlants, capPlants := map[string]bool{}, map[string]bool{}
		for _, e := range gen.entries[m] {
			genPlants[e.plant] = true
		}
		for _, e := range capa.entries[m] {
			capPlants[e.plant] = true
		}
		base := func(ir *inputRows, i int, side string) snapshots.Row {
			r := make(snapshots.Row, len(cols))
			r[idx["source_id"]] = txt(ir, "source_id", i)
			r[idx["as_of"]] = ir.snap.AsOf()
			r[idx["side"]] = side
			r[idx["month"]] = m
			r[idx["year"]] = int64(start.Year())
			r[idx["period_date"]] = start.Format("2006-01-02")
			r[idx["eia_plant_id"]] = integer(ir, "eia_plant_id", i)
			r[idx["plant_name"]] = txt(ir, "plant_name", i)
			r[idx["state"]] = txt(ir, "state", i)
			r[idx["hours"]] = hours
			r[idx["source_record_key"]] = txt(ir, "source_record_key", i)
			r[idx["source_row_number"]] = integer(ir, "source_row_number", i)
			r[idx["raw_file_sha256"]] = txt(ir, "raw_file_sha256", i)
			for _, l := range cfLineage {
				if l == capability.ColSourceRow {
					r[idx[l]] = integer(ir, l, i)
				} else {
					r[idx[l]] = txt(ir, l, i)
				}
			}
			fileAsOf[ir.cells[capability.ColSourceFile][i]] = ir.snap.AsOf()
			return r
		}
		for k, i := range genRowsOf[m] {
			e := gen.entries[m][k]
			if !capPlants[e.plant] || e.plant == "" {
				gen.unmatched = append(gen.unmatched, e)
				continue
			}
			r := base(gir, i, cfGeneration)
			if v, ok := num(gir, "net_generation_mwh", i); ok {
				r[idx["net_generation_mwh"]] = v
			}
			rows = append(rows, r)
		}
		for i := range cir.rows {
			e := capa.entries[m][i]
			if !genPlants[e.plant] || e.plant == "" {
				capa.unmatched = append(capa.unmatched, e)
				continue
			}
			r := base(cir, i, cfCapacity)
			for _, f := range []string{"generator_id", "technology", "energy_source_code", "prime_mover_code", "status_code"} {
				r[idx[f]] = txt(cir, f, i)
			}
			if v, ok := num(cir, "nameplate_mw", i); ok {
				r[idx["nameplate_mw"]] = v
				r[idx["available_mwh"]] = v * hours
			}
			rows = append(rows, r)
		}
		for _, snap := range []Input{gir.snap, cir.snap} {
			if !slices.Contains(used, snap) {
				used = append(used, snap)
			}
		}
	}
	if len(used) == 0 { // no month joined: the schema still lists what each input serves
		for _, in := range c.Inputs {
			if l := inputs[in]; len(l) > 0 {
				used = append(used, l[len(l)-1])
			}
		}
	}
	return &Table{Rows: rows, Inputs: used, FileAsOf: fileAsOf, Join: &cfJoin{c: c, sides: [2]*cfSide{gen, capa}}}, nil
}

// cfJoin answers the check and the notes of one derived capacity-factor snapshot.
type cfJoin struct {
	c     *capability.Capability
	sides [2]*cfSide
}

// asked is the months a query asks for: those of its period range (an open bound closed by
// the months either input has), else of its month or year filters, else every month either
// input has; narrowed by the month and year filters.
func (j *cfJoin) asked(p Query) []string {
	have := map[string]bool{}
	for _, sd := range j.sides {
		for m := range sd.entries {
			have[m] = true
		}
	}
	var all []string
	for m := range have {
		all = append(all, m)
	}
	sort.Strings(all)
	var base []string
	b, ranged := p.Ranges["period"]
	switch {
	case ranged:
		lo, hi := b[0], b[1]
		if lo == "" && len(all) > 0 {
			lo = all[0] + "-01"
		}
		if hi == "" && len(all) > 0 {
			hi = all[len(all)-1] + "-01"
		}
		if lo == "" || hi == "" {
			break
		}
		// A month is asked when its first day (its period_date) lies within the bounds.
		t, _ := time.Parse("2006-01-02", lo[:7]+"-01")
		for ; t.Format("2006-01-02") <= hi; t = t.AddDate(0, 1, 0) {
			if t.Format("2006-01-02") >= lo {
				base = append(base, t.Format("2006-01"))
			}
		}
	case len(p.Filters["month"]) > 0:
		base = append(base, p.Filters["month"]...)
	case len(p.Filters["year"]) > 0:
		for _, y := range p.Filters["year"] {
			for mo := 1; mo <= 12; mo++ {
				base = append(base, fmt.Sprintf("%s-%02d", y, mo))
			}
		}
	default:
		base = all
	}
	var out []string
	for _, m := range base {
		if ms := p.Filters["month"]; len(ms) > 0 && !slices.Contains(ms, m) {
			continue
		}
		if ys := p.Filters["year"]; len(ys) > 0 && (len(m) < 4 || !slices.Contains(ys, m[:4])) {
			continue
		}
		out = append(out, m)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// inScope reports whether e lies within the query's state and plant filters.
func inScope(p Query, e cfEntry) bool {
	if s := p.Filters["state"]; len(s) > 0 && !slices.Contains(s, e.state) {
		return false
	}
	if pl := p.Filters["eia_plant_id"]; len(pl) > 0 && !slices.Contains(pl, e.plant) {
		return false
	}
	return true
}

// Check refuses a query for which an input lacks a month asked, within the filters.
func (j *cfJoin) Check(p Query) *apierror.Error {
	asked := j.asked(p)
	scope := scopeText(p)
	if len(asked) == 0 {
		return apierror.New(400, apierror.CodeInvalidParameter, "%s: the period, month and year parameters select no calendar month; %s", j.c.ID, j.haveText(p))
	}
	var missing []string
	for _, sd := range j.sides {
		var lacks []string
		for _, m := range asked {
			found := false
			for _, e := range sd.entries[m] {
				if inScope(p, e) {
					found = true
					break
				}
			}
			if !found {
				lacks = append(lacks, m)
			}
		}
		if len(lacks) > 0 {
			missing = append(missing, fmt.Sprintf("%s (%s) has no row%s for %s", sd.capID, sd.what, scope, monthRuns(lacks)))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return apierror.New(400, apierror.CodeInvalidParameter, "%s needs both net generation and operating nameplate for every month asked (%s), and %s. %s",
		j.c.ID, monthRuns(asked), strings.Join(missing, "; "), j.haveText(p))
}

// haveText says what each input has and which months both have, and what to ask.
func (j *cfJoin) haveText(p Query) string {
	var parts []string
	common := map[string]int{}
	for _, sd := range j.sides {
		months := sd.months()
		if len(months) == 0 {
			parts = append(parts, sd.capID+" has no month")
			continue
		}
		states := map[string]bool{}
		var asOfs []string
		for _, m := range months {
			for _, e := range sd.entries[m] {
				states[e.state] = true
			}
			if !slices.Contains(asOfs, sd.asOf[m]) {
				asOfs = append(asOfs, sd.asOf[m])
			}
			common[m]++
		}
		parts = append(parts, fmt.Sprintf("%s has %s (as_of %s; %s)", sd.capID, monthRuns(months), strings.Join(asOfs, ", "), stateText(states)))
	}
	var both []string
	for m, n := range common {
		if n == len(j.sides) {
			both = append(both, m)
		}
	}
	sort.Strings(both)
	text := strings.Join(parts, "; ") + ". "
	if len(both) == 0 {
		return text + "No month is on both sides, so no capacity factor can be computed from the snapshots served. " + j.wouldAnswer()
	}
	return text + fmt.Sprintf("Months on both sides: %s; ask for them, e.g. period_date_from=%s&period_date_to=%s, and for states and plants both sides have.", monthRuns(both), both[0], both[len(both)-1])
}

// eia860mArchive is where the agency publishes each month's EIA-860M inventory, under the
// file name the power.capacity adapter reads (<month>_generator<year>.xlsx).
const eia860mArchive = "https://www.eia.gov/electricity/data/eia860m/archive/xls/"

// wouldAnswer names the files whose ingest would give both sides a month: the EIA-860M
// inventory of a month power.generation serves, or EIA-923 generation of a month
// power.capacity serves, and where each is read from and published.
func (j *cfJoin) wouldAnswer() string {
	var parts []string
	if months := j.sides[0].months(); len(months) > 0 {
		var names []string
		for _, m := range months {
			t, err := time.Parse("2006-01", m)
			if err != nil {
				continue
			}
			names = append(names, strings.ToLower(t.Month().String())+"_generator"+m[:4]+".xlsx")
		}
		parts = append(parts, fmt.Sprintf("an EIA-860M inventory (power.capacity) of a month power.generation serves: %s, from %s, into eia/eia860m/ of the raw directory",
			strings.Join(names, ", "), eia860mArchive))
	}
	if months := j.sides[1].months(); len(months) > 0 {
		var years []string
		for _, m := range months {
			if !slices.Contains(years, m[:4]) {
				years = append(years, m[:4])
			}
		}
		var names []string
		for _, y := range years {
			names = append(names, "eia923_"+y+".json")
		}
		parts = append(parts, fmt.Sprintf("or EIA-923 generation (power.generation) of a month power.capacity serves (%s): the EIA API v2 response of route electricity/facility-fuel for those months, as %s in eia/eia923_api/ of the raw directory, or the agency's EIA-923 workbook of %s in eia/eia923/",
			monthRuns(months), strings.Join(names, ", "), strings.Join(years, ", ")))
	}
	if len(parts) == 0 {
		return "Ingest EIA-860M inventories and EIA-923 generation of the same months."
	}
	return "Files that would make it answer: " + strings.Join(parts, "; ") + "; then run citeq ingest."
}

// Describe is what each input serves, for the schema: its capability, what it gives, its
// months with the as_of of the snapshot serving each, and its states.
func (j *cfJoin) Describe() []jsonw.Obj {
	var out []jsonw.Obj
	for _, sd := range j.sides {
		months := sd.months()
		states := map[string]bool{}
		byMonth := jsonw.Obj{}
		for _, m := range months {
			for _, e := range sd.entries[m] {
				if e.state != "" {
					states[e.state] = true
				}
			}
			byMonth = append(byMonth, jsonw.KV{m, sd.asOf[m]})
		}
		list := make([]string, 0, len(states))
		for st := range states {
			list = append(list, st)
		}
		sort.Strings(list)
		out = append(out, jsonw.Obj{{"capability", sd.capID}, {"side", sd.name}, {"gives", sd.what}, {"months", byMonth}, {"states", list}})
	}
	return out
}

// Notes is the join_unmatched note of an answer: the plants of the months asked, within the
// filters, that one side has and the other lacks, left out of the answer.
func (j *cfJoin) Notes(p Query) []jsonw.Obj {
	asked := map[string]bool{}
	for _, m := range j.asked(p) {
		asked[m] = true
	}
	var sides []jsonw.Obj
	var texts []string
	for _, sd := range j.sides {
		plants := map[string]bool{}
		var n int
		var sum float64
		var examples []string
		for _, e := range sd.unmatched {
			if !asked[e.month] || !inScope(p, e) {
				continue
			}
			n++
			sum += e.value
			if !plants[e.plant] && len(examples) < 5 {
				examples = append(examples, e.plant)
			}
			plants[e.plant] = true
		}
		if n == 0 {
			continue
		}
		unit, measure, other := "MWh", "net_generation_mwh", cfCapacity
		if sd.name == cfCapacity {
			unit, measure, other = "MW", "nameplate_mw", cfGeneration
		}
		sum = math.Round(sum*1e6) / 1e6
		sides = append(sides, jsonw.Obj{{"side", sd.name}, {"plants", len(plants)}, {"rows", n}, {measure, jsonw.Num{V: sum, Valid: true}}, {"plants_first", examples}})
		texts = append(texts, fmt.Sprintf("%s: %d rows, %d plants, %s %s (e.g. plant %s) with no %s row that month", sd.name, n, len(plants), strconv.FormatFloat(sum, 'f', -1, 64), unit, strings.Join(examples, ", "), other))
	}
	if len(sides) == 0 {
		return nil
	}
	return []jsonw.Obj{{
		{"code", NoteJoinUnmatched},
		{"sides", sides},
		{"message", fmt.Sprintf("the join leaves out input rows without a partner in the other input: %s. Generation without operating nameplate, or nameplate without a generation row, has no capacity factor; query power.generation or power.capacity for them (filter eia_plant_id)", strings.Join(texts, "; "))},
	}}
}

// scopeText names the state and plant filters of p, for a refusal.
func scopeText(p Query) string {
	var parts []string
	if s := p.Filters["state"]; len(s) > 0 {
		parts = append(parts, "state "+strings.Join(s, ", "))
	}
	if pl := p.Filters["eia_plant_id"]; len(pl) > 0 {
		parts = append(parts, "plant "+strings.Join(pl, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return " in " + strings.Join(parts, " and ")
}

// stateText names the states of one side (all of them up to 12, else their number).
func stateText(states map[string]bool) string {
	var list []string
	for s := range states {
		if s != "" {
			list = append(list, s)
		}
	}
	sort.Strings(list)
	if len(list) > 12 {
		return fmt.Sprintf("%d states", len(list))
	}
	if len(list) == 1 {
		return "state " + list[0]
	}
	return "states " + strings.Join(list, ", ")
}

// monthRuns writes sorted months as runs: 2022-08..2022-12, 2016-05.
func monthRuns(months []string) string {
	var out []string
	for i := 0; i < len(months); {
		j := i
		for j+1 < len(months) && nextMonth(months[j]) == months[j+1] {
			j++
		}
		if j == i {
			out = append(out, months[i])
		} else {
			out = append(out, months[i]+".."+months[j])
		}
		i = j + 1
	}
	return strings.Join(out, ", ")
}

func nextMonth(m string) string {
	t, err := time.Parse("2006-01", m)
	if err != nil {
		return ""
	}
	return t.AddDate(0, 1, 0).Format("2006-01")
}
