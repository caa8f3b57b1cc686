package api_test

import (
	"bytes"
	"io"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/adapters"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/snapshots"
)

// TestFormsAndRepeatsAreByteIdentical: POST, GET q= and GET pairs give the same bytes; so do
// repeats, and a server over a data directory ingested a second time from the same files.
func TestFormsAndRepeatsAreByteIdentical(t *testing.T) {
	data := testenv.CopyDir(t, testenv.Data(t))
	srv := newServer(t, data)
	cases := []struct {
		path, body, pairs string
	}{
		{"/v1/power/capacity/query",
			`{"filters":{"lifecycle":"operating","state":["TX","CA"]},"group_by":["state","technology"],"order_by":"nameplate_mw","top_n":5}`,
			"lifecycle=operating&state=TX&state=CA&group_by=state,technology&order_by=nameplate_mw&top_n=5"},
		{"/v1/power/capacity/query",
			`{"filters":{"technology":"Batteries"},"include_records":true,"limit":3,"operating_date_from":"2010"}`,
			"technology=Batteries&include_records=true&limit=3&operating_date_from=2010"},
		{"/v1/natural-gas/prices/query",
			`{"filters":{"atom":"henry_hub_daily_spot"},"group_by":["year"],"observation_date_from":"2020-01","observation_date_to":"2020-12"}`,
			"atom=henry_hub_daily_spot&group_by=year&observation_date_from=2020-01&observation_date_to=2020-12"},
	}
	var first [][]byte
	for _, tc := range cases {
		st, postBody := post(t, srv, tc.path, tc.body)
		if st != 200 {
			t.Fatalf("POST %s: %d %s", tc.body, st, postBody)
		}
		_, again := post(t, srv, tc.path, tc.body)
		_, q := get(t, srv, tc.path+"?q="+url.QueryEscape(tc.body))
		_, pairs := get(t, srv, tc.path+"?"+tc.pairs)
		for name, b := range map[string][]byte{"repeat": again, "GET q": q, "GET pairs": pairs} {
			if !bytes.Equal(b, postBody) {
				t.Errorf("%s differs from POST for %s:\n%s\n%s", name, tc.body, b, postBody)
			}
		}
		first = append(first, postBody)
	}
	// Ingest the same files again into the same data directory: nothing changes.
	outcomes, err := ingest.Run(testenv.Raw(t), &snapshots.Store{Dir: data}, adapters.All(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outcomes {
		if !o.Unchanged {
			t.Errorf("second ingest changed %s %s", o.Capability, o.AsOf)
		}
	}
	// And a fresh ingest into a new directory answers byte for byte the same.
	fresh := t.TempDir()
	if _, err := ingest.Run(testenv.Raw(t), &snapshots.Store{Dir: fresh}, adapters.All(), io.Discard); err != nil {
		t.Fatal(err)
	}
	srv2 := newServer(t, fresh)
	for i, tc := range cases {
		_, b := post(t, srv2, tc.path, tc.body)
		if !bytes.Equal(b, first[i]) {
			t.Errorf("fresh ingest answers differently for %s", tc.body)
		}
	}
}

// TestTopNReconciles: with top_n, the additive metrics of the returned rows, (other)
// included, sum to summary.totals; non-additive ones are null in (other).
func TestTopNReconciles(t *testing.T) {
	srv := newServer(t, testenv.Data(t))
	bodies := []string{
		`{"filters":{"lifecycle":"operating"},"group_by":["state"],"order_by":"nameplate_mw","top_n":5}`,
		`{"group_by":["lifecycle","fuel_group"],"order_by":"generator_count","order":"asc","top_n":3}`,
		`{"filters":{"lifecycle":"planned"},"group_by":["technology"],"order_by":"net_summer_mw","top_n":1}`,
		`{"group_by":["energy_source_code"],"order_by":"distinct_plant_count","top_n":10}`,
	}
	additive := []string{"nameplate_mw", "net_summer_mw", "generator_count", "source_record_count"}
	for _, b := range bodies {
		st, body := post(t, srv, "/v1/power/capacity/query", b)
		if st != 200 {
			t.Fatalf("%d %s", st, body)
		}
		r := decode[response](t, body)
		last := r.Rows[len(r.Rows)-1]
		isOther := false
		for _, v := range last.Group {
			isOther = isOther || v == "(other)"
		}
		if !isOther {
			t.Fatalf("%s: no (other) row", b)
		}
		if last.Metrics["distinct_plant_count"] != nil {
			t.Errorf("%s: non-additive distinct_plant_count not null in (other)", b)
		}
		for _, m := range additive {
			sum := 0.0
			for _, row := range r.Rows {
				if v := row.Metrics[m]; v != nil {
					sum += *v
				}
			}
			if tot := r.Summary.Totals[m]; tot == nil || !near(sum, *tot) {
				t.Errorf("%s: rows sum %s to %v, totals %v", b, m, sum, deref(tot))
			}
		}
		// Ranking: the top rows are in order of the metric.
		var orderBy string
		for _, kv := range strings.Split(b, ",") {
			if strings.Contains(kv, "order_by") {
				orderBy = strings.Trim(strings.Split(kv, ":")[1], `"`)
			}
		}
		asc := strings.Contains(b, `"asc"`)
		for i := 1; i < len(r.Rows)-1; i++ {
			a, c := r.Rows[i-1].Metrics[orderBy], r.Rows[i].Metrics[orderBy]
			if a != nil && c != nil && ((asc && *a > *c) || (!asc && *a < *c)) {
				t.Errorf("%s: rows %d and %d out of order", b, i-1, i)
			}
		}
	}
}

func TestRecords(t *testing.T) {
	srv := newServer(t, testenv.Data(t))
	st, body := post(t, srv, "/v1/power/capacity/query", `{"filters":{"technology":"Batteries","lifecycle":"operating"},"include_records":true,"limit":3}`)
	if st != 200 {
		t.Fatal(string(body))
	}
	r := decode[response](t, body)
	if len(r.Records) != 3 || !r.Summary.Truncated {
		t.Fatalf("%d records, truncated %v", len(r.Records), r.Summary.Truncated)
	}
	fields := strings.Fields(`source_id report_month as_of lifecycle sheet_name region_scope included_in_default_us_metrics source_record_key
		source_row_number eia_entity_identity_name eia_plant_id plant_name generator_id unit_code state county county_fips
		balancing_authority_code lat lon sector technology energy_source_code prime_mover_code nameplate_mw net_summer_mw
		net_winter_mw nameplate_energy_mwh dc_net_capacity_mw status_raw status_code operating_year operating_month
		operating_date planned_operation_year planned_operation_month planned_operation_date planned_retirement_year
		planned_retirement_month planned_retirement_date retirement_year retirement_month retirement_date raw_file_sha256 citation`)
	for _, rec := range r.Records {
		for _, f := range fields {
			if _, ok := rec[f]; !ok {
				t.Errorf("record lacks %s", f)
			}
		}
		if rec["technology"] != "Batteries" || rec["net_winter_mw"] != nil || rec["balancing_authority_code"] != nil {
			t.Errorf("record %v", rec)
		}
		if s, _ := rec["status_code"].(string); !strings.HasPrefix(s, "operating.") {
			t.Errorf("status_code %v", rec["status_code"])
		}
	}
}

func TestSchema(t *testing.T) {
	srv := newServer(t, testenv.Data(t))
	st, body := get(t, srv, "/v1/power/capacity/schema")
	if st != 200 {
		t.Fatal(string(body))
	}
	type code struct {
		Code          string `json:"code"`
		Description   string `json:"description"`
		InAgencyTable bool   `json:"in_agency_table"`
	}
	s := decode[struct {
		Codebooks map[string]struct {
			Codes []code `json:"codes"`
		} `json:"codebooks"`
		Fields []struct {
			Name      string `json:"name"`
			Published *bool  `json:"published"`
		} `json:"detail_fields"`
	}](t, body)
	inTable := func(book string) map[string]string {
		out := map[string]string{}
		for _, c := range s.Codebooks[book].Codes {
			if c.InAgencyTable {
				out[c.Code] = c.Description
			}
		}
		return out
	}
	// Counts and codes stated by the agency's layout file (and the service contract).
	if es := inTable("energy_source_code"); len(es) != 39 || es["AB"] != "Agricultural By-Products" || es["BLQ"] != "Black Liquor" {
		t.Errorf("energy_source_code: %d codes, AB %q", len(es), es["AB"])
	}
	if pm := inTable("prime_mover_code"); len(pm) != 23 || pm["BA"] != "Energy Storage, Battery" || pm["CE"] != "Energy Storage, Compressed Air" {
		t.Errorf("prime_mover_code: %d codes, BA %q", len(pm), pm["BA"])
	}
	st12 := 0
	for c := range inTable("status_code") {
		if !strings.HasPrefix(c, "canceled_or_postponed.") {
			st12++
		}
	}
	if sc := inTable("status_code"); st12 != 12 || sc["operating.OP"] == "" || sc["planned.L"] == "" || sc["operating.OA"] == "" {
		t.Errorf("status codes of operating/planned/retired: %d, want 12", st12)
	}
	if ba := inTable("balancing_authority_code"); ba["AECI"] == "" || ba["AVA"] == "" {
		t.Errorf("balancing authority codebook lacks AECI/AVA: %d codes", len(ba))
	}
	unpublished := map[string]bool{}
	for _, f := range s.Fields {
		if f.Published != nil && !*f.Published {
			unpublished[f.Name] = true
		}
	}
	for _, f := range []string{"net_winter_mw", "balancing_authority_code", "county_fips"} {
		if !unpublished[f] {
			t.Errorf("schema does not say %s is not published by the 2016 vintage", f)
		}
	}
}

// capabilityHead is the head of a capability's schema payload.
type capabilityHead struct {
	Capability string            `json:"capability"`
	Served     bool              `json:"served"`
	Tools      map[string]string `json:"mcp_tools"`
	Why        string            `json:"not_served_because"`
}

// schemaHead GETs a schema and reads its head.
func schemaHead(t *testing.T, srv *httptest.Server, path string) capabilityHead {
	t.Helper()
	st, body := get(t, srv, path)
	if st != 200 {
		t.Fatalf("%d %s", st, body)
	}
	return decode[capabilityHead](t, body)
}

// TestUnservedCapabilitySchema: a capability defined with an adapter for its publisher's
// layout but no file ingested (space.satellite_filings) is described though no snapshot serves it.
func TestUnservedCapabilitySchema(t *testing.T) {
	srv := newServer(t, testenv.Data(t))
	s := schemaHead(t, srv, "/v1/space/satellite-filings/schema")
	if s.Capability != "space.satellite_filings" || s.Served || s.Tools["query"] != "query_space_satellite_filings_v1" || s.Why == "" {
		t.Errorf("%+v", s)
	}
	_, caps := get(t, srv, "/v1/capabilities")
	if strings.Contains(string(caps), "satellite_filings") {
		t.Error("an unserved capability is listed as available")
	}
}

// TestNewFilesServed: power.plant_costs (the FERC Form 1 filings, agency bytes) and
// power.fuel_cost (a derived excerpt of EIA-923 page 5) are listed by /v1/capabilities, and
// their schemas' sources say which is derived, with EIA's address of the workbook.
func TestNewFilesServed(t *testing.T) {
	srv := newServer(t, testenv.Data(t))
	_, caps := get(t, srv, "/v1/capabilities")
	for _, id := range []string{"power.plant_costs", "power.fuel_cost"} {
		if !strings.Contains(string(caps), `"`+id+`"`) {
			t.Errorf("/v1/capabilities does not list %s", id)
		}
	}
	type source struct {
		File        string `json:"source_file"`
		URL         string `json:"source_url"`
		Derived     bool   `json:"derived"`
		OriginalURL string `json:"original_url"`
	}
	type schema struct {
		Served  bool     `json:"served"`
		AsOf    string   `json:"as_of"`
		Sources []source `json:"sources"`
	}
	for path, want := range map[string]struct {
		asOf    string
		files   int
		derived bool
	}{"/v1/power/plant-costs/schema": {"2024-04-18", 4, false}, "/v1/power/fuel-cost/schema": {"2024-12-31", 1, true}} {
		st, body := get(t, srv, path)
		if st != 200 {
			t.Fatalf("%s: %d %s", path, st, body)
		}
		s := decode[schema](t, body)
		if !s.Served || s.AsOf != want.asOf || len(s.Sources) != want.files {
			t.Errorf("%s: served %v as_of %s, %d sources; want %s, %d", path, s.Served, s.AsOf, len(s.Sources), want.asOf, want.files)
		}
		for _, src := range s.Sources {
			if src.Derived != want.derived || want.derived && src.OriginalURL != "https://www.eia.gov/electricity/data/eia923/xls/f923_2024.zip" {
				t.Errorf("%s: source %+v, derived should be %v", path, src, want.derived)
			}
		}
	}
}

// TestDerivedCapabilityServed: power.capacity_factor (identifier and tool names by the
// contract's convention) is computed from power.generation and power.capacity, so it is
// listed once both are served; on the files here they share no month, so its query is a 400
// naming what each side has.
func TestDerivedCapabilityServed(t *testing.T) {
	srv := newServer(t, testenv.Data(t))
	s := schemaHead(t, srv, "/v1/power/capacity-factor/schema")
	if s.Capability != "power.capacity_factor" || !s.Served || s.Tools["query"] != "query_power_capacity_factor_v1" {
		t.Errorf("%+v", s)
	}
	_, caps := get(t, srv, "/v1/capabilities")
	if !strings.Contains(string(caps), "power.capacity_factor") {
		t.Error("the derived capability is not listed")
	}
	st, body := post(t, srv, "/v1/power/capacity-factor/query", map[string]any{})
	if st != 400 || !strings.Contains(string(body), "invalid_parameter") || !strings.Contains(string(body), "No month is on both sides") {
		t.Errorf("%d %s", st, body)
	}
}
