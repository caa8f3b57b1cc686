package main

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/citeq/citeq/capability"
)

// TestRecordLayout: the records table leaves out exactly the fields the definitions mark as
// bookkeeping (the lists the client once kept by hand for the two served capabilities), shows
// the fields a metric sums, averages or takes the extreme of, and for a capability the binary
// does not know leaves out the common fields only.
func TestRecordLayout(t *testing.T) {
	common := []string{"as_of", "raw_file_sha256", "source_id", "source_record_key", "source_row_number"}
	cases := []struct {
		id             string
		skip, measures []string
	}{
		{capability.PowerCapacity.ID,
			append([]string{"included_in_default_us_metrics", "region_scope", "report_month", "sheet_name"}, common...),
			[]string{"nameplate_mw", "net_summer_mw", "net_winter_mw"}},
		{capability.NaturalGasPrices.ID, append([]string{"release_date"}, common...), []string{"price"}},
		{capability.PowerCapacityFactor.ID, common, []string{"available_mwh", "net_generation_mwh"}},
		{"no.such_capability", common, nil},
	}
	for _, tc := range cases {
		t.Run(tc.id, func(t *testing.T) {
			l := layoutOf(tc.id)
			if got, want := slices.Sorted(maps.Keys(l.skip)), slices.Sorted(slices.Values(tc.skip)); !slices.Equal(got, want) {
				t.Errorf("skip %v, want %v", got, want)
			}
			if got, want := slices.Sorted(maps.Keys(l.measures)), slices.Sorted(slices.Values(tc.measures)); !slices.Equal(got, want) {
				t.Errorf("measures %v, want %v", got, want)
			}
		})
	}
}

// TestUsageExample: the help text's example names a served capability's filter, enum value
// and date range.
func TestUsageExample(t *testing.T) {
	ex := examples()
	c := capability.ByPath(ex.path)
	if c == nil || c.Unserved != "" {
		t.Fatalf("example path %q is not a served capability", ex.path)
	}
	f, ok := c.Field(ex.filter)
	if !ok || !f.Filter || !slices.Contains(f.Enum, ex.value) || !slices.Contains(f.Enum, ex.value2) {
		t.Errorf("example filter %s=%s|%s is not a filter of %s with those values", ex.filter, ex.value, ex.value2, c.ID)
	}
	if !slices.ContainsFunc(c.DateRanges, func(r capability.DateRange) bool { return r.Name == ex.dateRange }) {
		t.Errorf("example date range %s is not one of %s", ex.dateRange, c.ID)
	}
	if u := usage(); !strings.Contains(u, "--from "+ex.dateRange+"=2015 sets "+ex.dateRange+"_date_from") {
		t.Errorf("usage lacks the --from example:\n%s", u)
	}
}
