package market

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// MISOAuctionTranscribed ingests power.capacity_market_miso from a third party's
// transcription of MISO's Planning Resource Auction postings (derived), in
// iso/miso/pra_derived:
//   - the auction clearing prices (miso_pra_auction_clearing_prices_transcribed.csv: iso,
//     delivery_year, season, area, area_type, auction_round, clearing_price, price_unit,
//     cleared_mw, source_doc, source_page), one row per area and season: the ACP of each zone
//     ("LRZ 1" ... "LRZ 10") in USD/MW-day, the external resource zone ("ERZ", its range
//     quoted in the row's note when the price is left blank) and MISO's system rows;
//   - CONE, PRM and demand-curve points (miso_pra_cone_prm_rbdc_transcribed_EXCERPT.csv: iso,
//     delivery_year, area, season, metric, point_index, x_value, x_unit, y_value, y_unit,
//     vintage, source_doc, source_page): metric gross_cone is the annual CONE of a zone (or the
//     ERZs) as MISO states it; a row of metric net_cone whose vintage names MISO's table "CONE
//     (Seasonal)" is the seasonal CONE of a subregion in USD/MW-day (the transcriber filed it
//     under net_cone; MISO's table calls it CONE); the other net_cone rows (Net CONE), irm
//     (PRM) and curve_point rows are not atoms of the capability.
//
// The files are one snapshot, as of the latest date in the addresses of the MISO documents
// whose atoms it serves (a posting's date, or a FERC filing's). Each row names the MISO
// document and page it was transcribed from: every atom carries them (original_document_url,
// original_page), and the citations name the transcription as the file hashed, derived, with
// MISO's page of the postings as the original. Rows of planning years before 2024, MISO's
// system-wide rows, Net CONE, PRM, demand-curve points and cleared MW are not served.
//
// A transcription has no official address to download it from (ingest --fetch downloads
// MISO's postings themselves, through MISOAuction).
var MISOAuctionTranscribed = kit.New(&kit.Spec{
	Cap:     capability.PowerCapacityMarketMISO,
	Version: "miso-pra-transcribed/1",
	Name:    "transcription",
	Folders: []string{misoPRADerivedFolder},
	Files: []*kit.File{
		misoACPTranscript.file(PublisherMISO, misoPRAURL, acpRow),
		misoCONETranscript.file(PublisherMISO, misoPRAURL, coneRow),
	},
	Together: true,
	State: func() any {
		return &txRead{skipped: map[string]int{}, docs: map[string]misoDoc{}, count: map[string]map[string]int{}, have: map[string]map[string]bool{}}
	},
	AsOf: func(b *kit.Book) (string, error) {
		if asOf := b.State.(*txRead).asOf; asOf != "" {
			return asOf, nil
		}
		return "1970-01-01", nil
	},
	Gates:    misoTxGates,
	Required: []string{"auction_label", "planning_year", "scope", "atom_type", "report_period", "original_document_url", "original_page"},
	Ranges:   map[string]snapshots.Range{"acp_usd_mw_day": {Min: 0, Max: 10000}, "cone_usd_mw_day": {Min: 0, Max: 1000000}},
})

const misoPRADerivedFolder = "iso/miso/pra_derived"

// The two transcriptions.
var (
	misoACPTranscript = transcript{
		name:     regexp.MustCompile(`(?i)^miso_pra_auction_clearing_prices.*\.csv$`),
		sourceID: "miso_pra_results_transcribed",
		copies: map[string]string{"miso_pra_auction_clearing_prices_transcribed.csv": transcriber +
			"/blob/1799832578583d6d8a9d58af5c23c91a2986604c/data/raw/capacity-market/auction-price/miso/miso.csv"},
		labels: []string{"iso", "delivery_year", "season", "area", "area_type", "auction_round", "clearing_price", "price_unit", "cleared_mw", "source_doc", "source_page"},
	}
	misoCONETranscript = transcript{
		name:     regexp.MustCompile(`(?i)^miso_pra_cone.*\.csv$`),
		sourceID: "miso_pra_cone_transcribed",
		copies: map[string]string{"miso_pra_cone_prm_rbdc_transcribed_EXCERPT.csv": transcriber +
			"/blob/35391de6ec399f2e940eb122e363e62525960659/data/raw/capacity-market/demand-curve/miso/miso.csv"},
		labels: []string{"iso", "delivery_year", "area", "season", "metric", "point_index", "x_value", "x_unit", "y_value", "y_unit", "vintage", "source_doc", "source_page"},
	}
)

// misoDocPosting and misoDocFiling read the date of a MISO document from the name in its
// address: "2025 PRA Results Posting 20250529_Corrections694160.pdf" (the auction's year, the
// posting date, then MISO's document number) and "2025-10-15 Docket No. ER26-139-000722804.pdf"
// (a FERC filing, by its filing date).
var (
	misoDocPosting = regexp.MustCompile(`^(\d{4}) PRA Results Posting (\d{4})(\d{2})(\d{2})`)
	misoDocFiling  = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2}) Docket No\.`)
	misoERZRange   = regexp.MustCompile(`(?i)published as a range '([^']+)'`)
	misoLRZ        = regexp.MustCompile(`^LRZ (\d{1,2})$`)
	misoPY         = regexp.MustCompile(`^(\d{4})-(\d{4})$`)
)

// misoDoc is a MISO document a transcription cites.
type misoDoc struct {
	url, name string
	date      string // YYYY-MM-DD, "" when the address gives none
	posting   bool   // a PRA results posting (not a filing)
	year      int    // a posting's auction year (its planning year's first)
}

func misoDocOf(addr string) misoDoc {
	d := misoDoc{url: addr, name: docName(addr)}
	if m := misoDocPosting.FindStringSubmatch(d.name); m != nil {
		d.date, d.posting = m[2]+"-"+m[3]+"-"+m[4], true
		d.year, _ = strconv.Atoi(m[1])
	} else if m := misoDocFiling.FindStringSubmatch(d.name); m != nil {
		d.date = m[1] + "-" + m[2] + "-" + m[3]
	}
	return d
}

// txAtom is one result atom read from a transcription row.
type txAtom struct {
	doc, page                 string
	py                        string
	season, zone, scope, atom string
	field                     string // the field the value is read into
	value                     any
	fromCell                  bool   // the value is its column's cell (else read from the row's note)
	valueLabel                string // the column the value is read from
	unit                      string // cone_unit of a CONE atom
}

// txRead is what the transcriptions of a plan hold: the rows not served and why, the MISO
// documents cited and the atoms read of each.
type txRead struct {
	skipped map[string]int // rows not served, by reason
	docs    map[string]misoDoc
	count   map[string]map[string]int  // by document, atoms by type
	have    map[string]map[string]bool // by document, atoms read
	asOf    string
}

func (rd *txRead) skip(why string) { rd.skipped[why]++ }

// planningYear reads row r's delivery_year ("2025-2026"): the year it starts, or 0 after
// recording the problem.
func planningYear(r *kit.Row) int {
	py := txText(r, "delivery_year")
	m := misoPY.FindStringSubmatch(py)
	if m == nil {
		txProblem(r, "delivery_year", "%q is not a planning year (YYYY-YYYY)", py)
		return 0
	}
	a, _ := strconv.Atoi(m[1])
	if b, _ := strconv.Atoi(m[2]); b != a+1 {
		txProblem(r, "delivery_year", "%q is not a planning year (YYYY-YYYY)", py)
		return 0
	}
	return a
}

// servedYear is the first year of row r's planning year when it is served, else 0: the
// planning year does not parse (recorded) or is before 2024-2025 (counted as not served).
func servedYear(r *kit.Row) int {
	start := planningYear(r)
	if start != 0 && start < misoFirstYear {
		r.Book.State.(*txRead).skip(fmt.Sprintf("planning years before %d-%d (not answered)", misoFirstYear, misoFirstYear+1))
		return 0
	}
	return start
}

// common checks the cells every served row needs (iso, document, page) and starts its atom.
func common(r *kit.Row, start int) (txAtom, bool) {
	ok := true
	if iso := txText(r, "iso"); iso != "MISO" {
		txProblem(r, "iso", "%q, MISO expected", iso)
		ok = false
	}
	doc := txText(r, "source_doc")
	d := misoDocOf(doc)
	switch {
	case !strings.HasPrefix(doc, "https://"):
		txProblem(r, "source_doc", "%q is not the address of a MISO document", doc)
		ok = false
	case d.date == "":
		txProblem(r, "source_doc", "the address %q gives no posting or filing date (YYYYMMDD after 'PRA Results Posting', or a leading YYYY-MM-DD)", doc)
		ok = false
	case d.posting && d.year != start:
		txProblem(r, "source_doc", "%q is the %d auction's posting, not planning year %d-%d's", d.name, d.year, start, start+1)
		ok = false
	}
	page := txText(r, "source_page")
	if page == "" {
		txProblem(r, "source_page", "no page of the MISO document")
		ok = false
	}
	return txAtom{doc: doc, page: page, py: fmt.Sprintf("%d-%d", start, start+1)}, ok
}

// acpRow reads row r of the clearing prices transcription.
func acpRow(r *kit.Row) {
	rd := r.Book.State.(*txRead)
	start := servedYear(r)
	if start == 0 {
		return
	}
	area, areaType := txText(r, "area"), txText(r, "area_type")
	if areaType == "rto" && area == "MISO" {
		rd.skip("MISO system-wide clearing prices (the contract's ACP atoms are zonal)")
		return
	}
	a, ok := common(r, start)
	if round := txText(r, "auction_round"); round != "planning_resource_auction" {
		txProblem(r, "auction_round", "%q, planning_resource_auction expected", round)
		ok = false
	}
	if u := txText(r, "price_unit"); u != "usd_per_mw_day" {
		txProblem(r, "price_unit", "%q, usd_per_mw_day expected", u)
		ok = false
	}
	season := txText(r, "season")
	if !isSeason(season) {
		txProblem(r, "season", "%q is not a season (summer, fall, winter, spring)", season)
		ok = false
	}
	a.season = season
	switch {
	case areaType == "lrz" && misoLRZ.MatchString(area):
		z, zok := misoZone(area)
		if !zok {
			txProblem(r, "area", "%q is not a zone 1 to 10", area)
			return
		}
		// A price that does not parse is recorded and left null, so that only cells_parse
		// rejects the file.
		v, err := kit.Number(r.Cell("clearing_price"))
		if err != nil || v == nil {
			txProblem(r, "clearing_price", "%q is not a price", r.Cell("clearing_price").Value)
			v = nil
		}
		a.zone, a.scope, a.atom, a.field, a.value, a.fromCell, a.valueLabel = z, "zone", "acp", "acp_usd_mw_day", v, true, "clearing_price"
	case areaType == "resource" && area == "ERZ":
		a.scope, a.atom, a.field, a.valueLabel = "external_resource_zone", "acp_erz_verbatim", "acp_erz_verbatim", "clearing_price"
		if p := txText(r, "clearing_price"); p != "" {
			a.value, a.fromCell = p, true
		} else if m := misoERZRange.FindStringSubmatch(a.page); m != nil {
			a.value = m[1] // the range as the transcription quotes it, never parsed
		} else {
			txProblem(r, "clearing_price", "no external resource zone clearing, neither as a price nor quoted in the note")
			return
		}
	default:
		txProblem(r, "area", "area %q of type %q is neither a zone (LRZ 1 ... LRZ 10, type lrz), the ERZ (resource) nor MISO (rto)", area, areaType)
		return
	}
	if ok {
		rd.add(r, a)
	}
}

// coneRow reads row r of the CONE, PRM and demand curve transcription.
func coneRow(r *kit.Row) {
	rd := r.Book.State.(*txRead)
	metric := txText(r, "metric")
	seasonal := metric == "net_cone" && strings.HasPrefix(kit.Norm(txText(r, "vintage")), "cone (seasonal)")
	switch {
	case metric == "irm":
		rd.skip("planning reserve margins (PRM, not answered)")
		return
	case metric == "curve_point":
		rd.skip("demand-curve points (not answered)")
		return
	case metric == "net_cone" && !seasonal:
		rd.skip("Net CONE (not a CONE atom: CONE less inframarginal rents)")
		return
	case metric != "gross_cone" && !seasonal:
		txProblem(r, "metric", "metric %q is none of gross_cone, net_cone, curve_point, irm", metric)
		return
	}
	start := servedYear(r)
	if start == 0 {
		return
	}
	area, season := txText(r, "area"), txText(r, "season")
	if seasonal && kit.Norm(area) == "system" {
		rd.skip("MISO system-wide seasonal CONE (the contract's seasonal CONE is subregional)")
		return
	}
	a, ok := common(r, start)
	unit := map[string]string{"usd_per_mw_yr": "USD/MW-year", "usd_per_mw_day": "USD/MW-day"}[txText(r, "y_unit")]
	if unit == "" {
		txProblem(r, "y_unit", "unit %q, usd_per_mw_yr or usd_per_mw_day expected", txText(r, "y_unit"))
		ok = false
	}
	v, err := kit.Number(r.Cell("y_value"))
	if err != nil || v == nil {
		txProblem(r, "y_value", "%q is not a CONE figure", r.Cell("y_value").Value)
		v = nil
	}
	a.field, a.value, a.fromCell, a.valueLabel, a.unit = "cone_usd_mw_day", v, true, "y_value", unit
	if seasonal {
		a.atom, a.season = "cone_seasonal", season
		if !isSeason(season) {
			txProblem(r, "season", "%q is not a season (summer, fall, winter, spring)", season)
			return
		}
		if a.scope = misoSubregion(area); a.scope == "" {
			txProblem(r, "area", "%q is neither North/Central, South nor System", area)
			return
		}
	} else {
		a.atom = "cone_annual"
		if season != "" {
			txProblem(r, "season", "%q: annual CONE has no season", season)
			return
		}
		if z, zok := misoZoneOrERZ(area); !zok {
			txProblem(r, "area", "%q is neither a zone (LRZ 1 ... LRZ 10) nor the ERZs", area)
			return
		} else if z == "ERZ" {
			a.scope = "external_resource_zone"
		} else {
			a.zone, a.scope = z, "zone"
		}
	}
	if ok {
		rd.add(r, a)
	}
}

// isSeason reports whether s is one of the four seasons, lower case.
func isSeason(s string) bool {
	return s == "summer" || s == "fall" || s == "winter" || s == "spring"
}

// add adds the row of atom a read from row r.
func (rd *txRead) add(r *kit.Row, a txAtom) {
	d := misoDocOf(a.doc)
	rd.docs[d.url] = d
	rd.asOf = max(rd.asOf, d.date)
	key := strings.Join([]string{a.py, a.season, a.zone, a.scope, a.atom, d.date}, "|")
	var zone any
	if a.zone != "" {
		zone = a.zone
	}
	col := r.Sheet.Col
	row := r.Add().
		Set("sheet_name", r.Sheet.Name).
		Set("iso", "MISO").
		Set("auction_label", a.py+" PRA").
		SetCell("planning_year", col("delivery_year"), a.py).
		Set("zone", zone).
		Set("scope", a.scope).
		Set("atom_type", a.atom).
		Set("report_period", d.date).
		SetCell("original_document_url", col("source_doc"), a.doc).
		SetCell("original_page", col("source_page"), a.page).
		Key(key)
	if a.season != "" {
		row.SetCell("season", col("season"), a.season)
	} else {
		row.Set("season", nil)
	}
	if a.fromCell {
		row.SetCell(a.field, col(a.valueLabel), a.value)
	} else {
		row.Set(a.field, a.value)
	}
	if a.unit != "" {
		row.Set("cone_unit", a.unit)
	}
	if rd.count[d.url] == nil {
		rd.count[d.url], rd.have[d.url] = map[string]int{}, map[string]bool{}
	}
	rd.count[d.url][a.atom]++
	rd.have[d.url][a.atom+"|"+a.season+"|"+a.zone+"|"+a.scope] = true
}

// misoTxGates are the gates of the transcriptions: the atoms read, by the MISO document they
// are transcribed from (a cell of any row that does not parse rejects the snapshot), and each
// document's atoms complete.
func misoTxGates(b *kit.Book) []snapshots.Gate {
	rd := b.State.(*txRead)
	if rd.asOf == "" && len(b.Missing) == 0 && b.Bad.Len() == 0 {
		b.Incomplete = append(b.Incomplete, "no atom of a dated MISO document read")
	}
	var urls []string
	for u := range rd.docs {
		urls = append(urls, u)
	}
	sort.Slice(urls, func(i, j int) bool { return rd.docs[urls[i]].date < rd.docs[urls[j]].date })
	var read []string
	for _, u := range urls {
		// A row left out because a cell does not parse is reported once, under cells_parse.
		if len(b.Missing) == 0 && b.Bad.Len() == 0 {
			b.Incomplete = append(b.Incomplete, misoTxComplete(rd.docs[u], rd.count[u], rd.have[u])...)
		}
		var atoms []string
		for _, k := range []string{"acp", "acp_erz_verbatim", "cone_seasonal", "cone_annual"} {
			if n := rd.count[u][k]; n > 0 {
				atoms = append(atoms, fmt.Sprintf("%d %s", n, k))
			}
		}
		read = append(read, fmt.Sprintf("%s (%s): %s", rd.docs[u].name, rd.docs[u].date, strings.Join(atoms, ", ")))
	}
	for _, fr := range b.Files {
		fr.Source.Title = "MISO Planning Resource Auction results, as transcribed by a third party (" + fr.Name + ")"
		fr.Source.Release = b.AsOf
	}
	var skipped []string
	for why, n := range rd.skipped {
		skipped = append(skipped, fmt.Sprintf("%d %s of %s", n, map[bool]string{true: "row", false: "rows"}[n == 1], why))
	}
	sort.Strings(skipped)
	return []snapshots.Gate{
		b.HeadersGate("the transcriptions' header labels, each in its column"),
		b.CellsGate(fmt.Sprintf("%d atoms read, by the MISO document they are transcribed from: %s; not served: %s", len(b.Facts), strings.Join(read, "; "), strings.Join(skipped, "; "))),
		b.CompleteGate("every results posting with the ACP of zones 1 to 10 in each season and the annual CONE of zones 1 to 10; the CONE each document states complete"),
		kit.Failures("planning_year_supported", nil, fmt.Sprintf("planning years from %d-%d on; rows of earlier ones are not served", misoFirstYear, misoFirstYear+1)),
	}
}

// misoTxComplete lists what document d's atoms lack: a results posting gives the ACP of
// zones 1 to 10 in each season and the annual CONE of zones 1 to 10; any document that states
// annual CONE states it for zones 1 to 10, and seasonal CONE for both subregions in each season.
func misoTxComplete(d misoDoc, count map[string]int, have map[string]bool) []string {
	var out []string
	lack := func(what string) { out = append(out, fmt.Sprintf("%s: %s (cut short?)", d.name, what)) }
	for _, s := range []string{"summer", "fall", "winter", "spring"} {
		if d.posting || count["acp"] > 0 {
			n := 0
			for z := 1; z <= 10; z++ {
				if have["acp|"+s+"|Z"+strconv.Itoa(z)+"|zone"] {
					n++
				}
			}
			if n < 10 {
				lack(fmt.Sprintf("ACP of %d zones in %s, 10 expected", n, s))
			}
		}
		if count["cone_seasonal"] > 0 {
			for _, sc := range []string{"north_central_subregion", "south_subregion"} {
				if !have["cone_seasonal|"+s+"||"+sc] {
					lack(fmt.Sprintf("no %s seasonal CONE of %s", s, sc))
				}
			}
		}
	}
	if d.posting || count["cone_annual"] > 0 {
		n := 0
		for z := 1; z <= 10; z++ {
			if have["cone_annual||Z"+strconv.Itoa(z)+"|zone"] {
				n++
			}
		}
		if n < 10 {
			lack(fmt.Sprintf("annual CONE of %d zones, 10 expected", n))
		}
	}
	if len(count) == 0 {
		lack("no atom")
	}
	return out
}
