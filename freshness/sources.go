// Package freshness keeps served capabilities fresh by themselves: each source declares its
// publisher's cadence and when it is checked (Sources), a sync loop checks it when due with
// conditional requests, downloads only what changed, and ingests, gates and promotes it, so
// the webhooks fire with nothing run by hand (Loop); its state survives restarts, and from it
// each capability's freshness is judged and shown (Report) and exported as metrics.
package freshness

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/fetch/archive"
)

// Source is one source a sync loop checks: a publisher's documents at their official
// addresses, the cadence the publisher releases them on and when to look.
type Source struct {
	// ID names the source in the freshness member, the state and the metrics: the source id
	// its citations carry, where its files carry one.
	ID        string
	Publisher string
	// Cadence is how often the publisher releases a new version (not how often its data
	// points fall: EIA's daily Henry Hub prices are released weekly).
	Cadence capability.Cadence
	// Check is when the loop looks.
	Check Schedule
	// Cites are the source ids the rows of its files cite (ID alone when empty); an id
	// ending in * is a prefix.
	Cites []string
	// Current are the raw-directory destinations of files the adapters know (Known) at a
	// stable address: each check asks for them with the validators of the version held, and
	// a 304 costs nothing.
	Current []string
	// Fixed marks current files that are fixed documents, one vintage each (a year's final
	// workbook, an auction's posting): a check finds a revision, never a newer vintage, so
	// the publisher is never overdue.
	Fixed bool
	// Dated is a document released each period at an address of its own: each check looks
	// for the periods after the newest held (archive.Dated.Due).
	Dated *archive.Dated
	// Listing is a publisher's listing that dates its documents: each check reads it and
	// downloads the postings not held, of periods from Lookback ago on.
	Listing  *archive.ERCOTReport
	Lookback time.Duration
	// Feeds are the capabilities its files feed (computed from the adapters' Known for
	// Current files; declared for Dated and Listing sources).
	Feeds []string
	// Grace is how late past its cadence the publisher may release before it is overdue (0:
	// the cadence's default, graceFor).
	Grace time.Duration
}

// Unchecked is a source no loop checks, and why: it is shown as such, never judged stale.
type Unchecked struct {
	Cites  []string
	Reason string
}

// cites reports whether a file citing id is this source's.
func cites(list []string, id string) bool {
	for _, c := range list {
		if c == id || strings.HasSuffix(c, "*") && strings.HasPrefix(id, strings.TrimSuffix(c, "*")) {
			return true
		}
	}
	return false
}

// CitesID reports whether rows citing source id come from s's files.
func (s Source) CitesID(id string) bool {
	if len(s.Cites) == 0 {
		return id == s.ID
	}
	return cites(s.Cites, id)
}

const (
	eia   = "U.S. Energy Information Administration"
	ercot = "Electric Reliability Council of Texas (ERCOT)"
)

// Sources are the sources with an official address, as the sync loop checks them. A source's
// files keep the addresses their adapter declares (Known); what is declared here is the
// publisher's cadence, when to look, and where earlier documents are kept.
var Sources = []Source{
	{ID: "eia860m", Publisher: eia, Cadence: capability.Monthly, Check: Daily(16, 0), Dated: &archive.EIA860M,
		Feeds: []string{capability.PowerCapacity.ID}},
	// EIA's six-month EIA-930 files: a check looks for the half-years after the newest held.
	// How often EIA rewrites the file of the half-year under way is not stated with the files,
	// so the source is never judged overdue.
	{ID: "eia930_balance", Publisher: eia, Cadence: capability.Irregular, Check: Daily(16, 0), Dated: &archive.EIA930Balance,
		Feeds: []string{capability.PowerDemand.ID}},
	{ID: "eia860", Publisher: eia, Cadence: capability.Annual, Check: Weekly(time.Wednesday, 16, 0), Fixed: true,
		Current: []string{"eia/eia860/4___Owner_Y2024.xlsx", "eia/eia860/LayoutY2024.xlsx"}},
	{ID: "eia861", Publisher: eia, Cadence: capability.Annual, Check: Weekly(time.Wednesday, 16, 0), Fixed: true,
		Current: []string{"eia/eia861/Sales_Ult_Cust_2018.xlsx", "eia/eia861/Balancing_Authority_2018.xlsx"}},
	{ID: "eia923", Publisher: eia, Cadence: capability.Annual, Check: Weekly(time.Wednesday, 16, 0), Fixed: true,
		Current: []string{"eia/eia923/EIA923_Schedules_2_3_4_5_M_12_2024_Final.xlsx"}},
	{ID: "ng_henryhub_daily", Publisher: eia, Cadence: capability.Weekly, Check: Daily(18, 0),
		Current: []string{"eia/ng_prices/RNGWHHDd.xls"}},
	{ID: "ng_prices_us_monthly", Publisher: eia, Cadence: capability.Monthly, Check: Daily(18, 0),
		Current: []string{"eia/ng_prices/NG_PRI_SUM_DCU_NUS_M.xls"}},
	{ID: "ng_prices_state_electric_monthly", Publisher: eia, Cadence: capability.Monthly, Check: Daily(18, 0),
		Current: []string{"eia/ng_prices/NG_PRI_SUM_A_EPG0_PEU_DMCF_M.xls"}},
	{ID: "fred_g17", Publisher: "Board of Governors of the Federal Reserve System, via FRED", Cadence: capability.Monthly, Check: Daily(14, 30),
		Cites:   []string{"FRED:*"},
		Current: []string{"aiinfra_robotics/fred_g17/IPG3344S.csv", "aiinfra_robotics/fred_g17/IPG3344SQ.csv", "aiinfra_robotics/fred_g17/CAPG3344S.csv", "aiinfra_robotics/fred_g17/CAPUTLG3344S.csv"}},
	{ID: "census_c30", Publisher: "U.S. Census Bureau", Cadence: capability.Monthly, Check: Daily(15, 30),
		Cites:   []string{"CENSUS:C30:*"},
		Current: []string{"aiinfra_robotics/census_c30/privsatime.xlsx", "aiinfra_robotics/census_c30/pubsatime.xlsx"}},
	{ID: "census_trade_api", Publisher: "U.S. Census Bureau", Cadence: capability.Monthly, Check: Daily(14, 0),
		Cites: []string{"CENSUS:intltrade:imports:*"},
		Current: []string{"aiinfra_robotics/census_trade/imports_hs8541.json", "aiinfra_robotics/census_trade/imports_hs8542.json",
			"aiinfra_robotics/census_trade/imports_hs8486.json", "aiinfra_robotics/census_trade/imports_hs847950.json"}},
	{ID: "caiso_queue", Publisher: "California ISO", Cadence: capability.Irregular, Check: Daily(13, 0),
		Current: []string{"iso/caiso/PublicQueueReport.xlsx"}},
	{ID: "nyiso_queue", Publisher: "New York ISO (NYISO)", Cadence: capability.Monthly, Check: Daily(13, 0),
		Current: []string{"iso/nyiso/NYISO-Interconnection-Queue.xlsx"}},
	{ID: "spp_queue", Publisher: "Southwest Power Pool (SPP)", Cadence: capability.Irregular, Check: Daily(13, 0),
		Current: []string{"iso/spp/GI_ActiveRequest.csv"}},
	{ID: "ercot_gis_queue", Publisher: ercot, Cadence: capability.Monthly, Check: Daily(14, 0), Listing: &archive.ERCOTGIS,
		Lookback: 62 * 24 * time.Hour, Feeds: []string{capability.QueueERCOT.ID}},
	{ID: "ercot_dam_spp_lzhb", Publisher: ercot, Cadence: capability.Irregular, Check: Daily(14, 0), Listing: &archive.ERCOTPrices,
		Lookback: 366 * 24 * time.Hour, Feeds: []string{capability.PowerPriceERCOT.ID}},
	{ID: "pjm_rpm", Publisher: "PJM Interconnection", Cadence: capability.Annual, Check: Weekly(time.Wednesday, 15, 0), Fixed: true,
		Cites:   []string{"pjm_bra_results", "pjm_bra_planning_parameters"},
		Current: pjmRPM},
	{ID: "miso_pra_results", Publisher: "Midcontinent ISO (MISO)", Cadence: capability.Annual, Check: Weekly(time.Wednesday, 15, 0), Fixed: true,
		Current: []string{"iso/miso/pra/2024-2025 PRA Results Posting 20240425.pdf", "iso/miso/pra/2025-2026 PRA Results Posting 20250529 Corrections.pdf",
			"iso/miso/pra/2026-2027 PRA Results Posting 20260522 Corrections.pdf"}},
	{ID: "pjm_elcc_class_ratings", Publisher: "PJM Interconnection", Cadence: capability.Irregular, Check: Weekly(time.Wednesday, 15, 0), Fixed: true,
		Current: []string{"iso/pjm/elcc/elcc-class-ratings-for-2023-2024-bra.pdf", "iso/pjm/elcc/2026-27-bra-elcc-class-ratings.pdf", "iso/pjm/elcc/28-29-bra-elcc-class-ratings.pdf"}},
	{ID: "miso_seasonal_accreditation", Publisher: "Midcontinent ISO (MISO)", Cadence: capability.Annual, Check: Weekly(time.Wednesday, 15, 0), Fixed: true,
		Current: []string{"iso/miso/accreditation/2025-2026 Indicative DLOL Results.pdf"}},
	{ID: "ferc1", Publisher: "Federal Energy Regulatory Commission", Cadence: capability.Annual, Check: Weekly(time.Wednesday, 15, 0), Fixed: true,
		Current: []string{"ferc/form1_xbrl/AEP_Generating_Company_form1_Q4_2023_1712707904.xbrl", "ferc/form1_xbrl/Evergy_Kansas_Central_Inc_form1_Q4_2023_1713550549.xbrl",
			"ferc/form1_xbrl/Southern_Indiana_Gas_and_Electric_Company_Inc_form1_Q4_2021_1650316090.xbrl", "ferc/form1_xbrl/Southern_Indiana_Gas_and_Electric_Company_Inc_form1_Q4_2021_1666384204.xbrl"}},
	{ID: "fcc_ibfs", Publisher: "Federal Communications Commission", Cadence: capability.Daily, Check: Daily(10, 0),
		Cites:   []string{"FCC:IBFS:*"},
		Current: []string{"space/fcc_ibfs/main.dat", "space/fcc_ibfs/address.dat"}},
	{ID: "fcc_sat_notices", Publisher: "Federal Communications Commission", Cadence: capability.Weekly, Check: Daily(17, 0),
		Cites:   []string{"FCC:EDOCS:*"},
		Current: []string{"space/fcc_sat_notices/edocs_sb_rss.xml"}},
}

var pjmRPM = func() []string {
	var out []string
	for _, dy := range []string{"2021-2022", "2022-2023", "2023-2024", "2024-2025", "2025-2026"} {
		out = append(out, "iso/pjm/rpm/"+dy+"-base-residual-auction-results.xlsx")
	}
	out = append(out, "iso/pjm/rpm/2026-2027-bra-results.xlsx", "iso/pjm/rpm/2027-2028-bra-results.xlsx", "iso/pjm/rpm/2021-2022-bra-planning-period-parameters.xlsx")
	for _, dy := range []string{"2022-2023", "2023-2024", "2025-2026", "2026-2027", "2027-2028", "2028-2029"} {
		out = append(out, "iso/pjm/rpm/"+dy+"-planning-period-parameters-for-base-residual-auction.xlsx")
	}
	return append(out, "iso/pjm/rpm/2024-2025-rpm-bra-planning-parameters.xlsx")
}()

// UncheckedSources are the sources that have files but no address a loop can check, and why.
// A served source that is in neither list is one whose files were placed by hand.
var UncheckedSources = []Unchecked{
	{Cites: []string{"eia930"}, Reason: "the CSV came from EIA's API v1 query browser, which made it in the browser and is retired: no address to check"},
	{Cites: []string{"eia_api_v2"}, Reason: "the EIA API v2 is walked page by page with a key by citeq ingest --fetch; the sync loop does not walk it"},
	{Cites: []string{"miso_queue"}, Reason: "MISO's GI Interactive Queue is exported from its web page in the browser: no address to check"},
	{Cites: []string{"pjm_queue", "pjm_cycle_queue"}, Reason: "PJM's queue exports are made from its web pages in the browser: no address to check"},
	{Cites: []string{"isone_queue"}, Reason: "ISO-NE's IRTT queue export is made from its web page in the browser: no address to check"},
}

// Bound is a source resolved against the adapters: the fetch sources of its current files and
// the capabilities it feeds.
type Bound struct {
	Source
	// Files are the fetch sources of Current, as the adapters declare them.
	Files []fetch.Source
	// Adapters are the adapters of the capabilities it feeds, which a change is ingested by.
	Adapters []ingest.Adapter
}

// Bind resolves srcs against the adapters: each Current destination must be one an adapter
// knows (Known), and the capabilities a source feeds are those of the adapters that know its
// files, with the Feeds it declares.
func Bind(srcs []Source, adapters []ingest.Adapter) ([]Bound, error) {
	known := map[string]fetch.Source{}
	knownBy := map[string][]string{}
	for _, a := range adapters {
		for _, k := range a.Known() {
			known[k.Dest] = k
			knownBy[k.Dest] = append(knownBy[k.Dest], a.Capability().ID)
		}
	}
	var out []Bound
	seen := map[string]bool{}
	for _, s := range srcs {
		if seen[s.ID] {
			return nil, fmt.Errorf("freshness: source %s is declared twice", s.ID)
		}
		seen[s.ID] = true
		if s.Check.Every <= 0 {
			return nil, fmt.Errorf("freshness: source %s has no check schedule", s.ID)
		}
		b := Bound{Source: s}
		feeds := slices.Clone(s.Feeds)
		for _, dest := range s.Current {
			k, ok := known[dest]
			if !ok {
				return nil, fmt.Errorf("freshness: source %s: no adapter knows the file %s (ingest.Adapter.Known)", s.ID, dest)
			}
			b.Files = append(b.Files, k)
			feeds = append(feeds, knownBy[dest]...)
		}
		if len(b.Files) == 0 && s.Dated == nil && s.Listing == nil {
			return nil, fmt.Errorf("freshness: source %s has no file, dated document or listing to check", s.ID)
		}
		slices.Sort(feeds)
		b.Feeds = slices.Compact(feeds)
		if len(b.Feeds) == 0 {
			return nil, fmt.Errorf("freshness: source %s feeds no capability", s.ID)
		}
		for _, a := range adapters {
			if slices.Contains(b.Feeds, a.Capability().ID) {
				b.Adapters = append(b.Adapters, a)
			}
		}
		out = append(out, b)
	}
	return out, nil
}

// Addresses are the official addresses a check asks, for the freshness member.
func (b Bound) Addresses(now time.Time) []string {
	var out []string
	for _, f := range b.Files {
		out = append(out, f.URL)
	}
	if b.Dated != nil {
		out = append(out, b.Dated.Addresses(b.Dated.Periods(now, now)[0])...)
	}
	if b.Listing != nil {
		out = append(out, b.Listing.Source(time.Time{}).URL)
	}
	return out
}
