package capability

import (
	"strings"
	"testing"
)

// TestDefinitionsValidate checks every registered definition, and that no two share an
// identifier or a path.
func TestDefinitionsValidate(t *testing.T) {
	ids, paths := map[string]bool{}, map[string]bool{}
	for _, c := range All() {
		if err := c.Validate(); err != nil {
			t.Error(err)
		}
		if ids[c.ID] || paths[c.Path] {
			t.Errorf("%s: identifier or path %s repeated", c.ID, c.Path)
		}
		ids[c.ID], paths[c.Path] = true, true
		for _, cf := range CommonFields {
			if f, ok := c.Field(cf.Name); !ok || !f.Bookkeeping {
				t.Errorf("%s: common field %s missing or not bookkeeping", c.ID, cf.Name)
			}
		}
	}
}

func valid() *Capability {
	c := &Capability{
		ID: "test.valid", Path: "test/valid", Title: "t", Description: "d", Grain: "g", Cadence: Monthly, Publisher: "p", AsOfRule: "r",
		NaturalKey: []string{"id"},
		Documents:  Documents{Relation: Complement, Document: "one file per year"},
		Fields: []Field{
			{Name: "id", Type: String, Description: "id"},
			{Name: "year", Type: Integer, Filter: true, GroupBy: true, Description: "year"},
			{Name: "price", Type: Number, Filter: true, GroupBy: true, Description: "price"},
			{Name: "unit", Type: String, Description: "unit"},
			{Name: "day", Type: Date, Description: "day"},
			{Name: "code", Type: String, Codebook: "code", Description: "code"},
		},
		Metrics: []Metric{
			{Name: "years", Unit: "count", Agg: Sum, Column: "year", Additive: true, Description: "d"},
			{Name: "avg_price", Unit: "USD", Agg: Avg, Column: "price", UnitColumn: "unit", Description: "d"},
			{Name: "rows", Unit: "count", Agg: Count, Additive: true, Description: "d"},
			{Name: "median_price", Unit: "USD", Agg: Median, Column: "price", UnitColumn: "unit", Description: "d"},
			{Name: "p90_price", Unit: "USD", Agg: Percentile, Percentile: 90, Column: "price", Description: "d"},
		},
		DateRanges: []DateRange{{Name: "day", Column: "day"}},
		Partitions: []string{"year"},
	}
	addCommon(c)
	return c
}

func fieldOf(c *Capability, name string) *Field {
	for i := range c.Fields {
		if c.Fields[i].Name == name {
			return &c.Fields[i]
		}
	}
	panic("no field " + name)
}

func TestValidateRejects(t *testing.T) {
	if err := valid().Validate(); err != nil {
		t.Fatalf("the valid definition is refused: %v", err)
	}
	cases := []struct {
		name string
		edit func(c *Capability)
		want string
	}{
		{"metric column missing", func(c *Capability) { c.Metrics[0].Column = "yaer" }, `"yaer", which is not a field`},
		{"sum over text", func(c *Capability) { c.Metrics[0].Column = "unit" }, "needs [integer number]"},
		{"sum over a date", func(c *Capability) { c.Metrics[0].Column = "day" }, "needs [integer number]"},
		{"natural key not a field", func(c *Capability) { c.NaturalKey = []string{"idd"} }, "natural key"},
		{"codebook named otherwise", func(c *Capability) { fieldOf(c, "code").Codebook = "codes" }, "named like its field"},
		{"unit column not a field", func(c *Capability) { c.Metrics[1].UnitColumn = "units" }, "unit column"},
		{"unit column not text", func(c *Capability) { c.Metrics[1].UnitColumn = "year" }, "unit column"},
		{"ratio denominator missing", func(c *Capability) {
			c.Metrics[1].Agg, c.Metrics[1].Denominator = Ratio, "cost"
		}, "denominator"},
		{"enum on a number", func(c *Capability) { fieldOf(c, "price").Enum = []string{"1"} }, "enum"},
		{"floor on a field that is not a filter", func(c *Capability) { fieldOf(c, "unit").Floor = &Floor{Value: "2024", Reason: "r"} }, "not a filter"},
		{"floor without a reason", func(c *Capability) { fieldOf(c, "year").Floor = &Floor{Value: "2024"} }, "without its first value or its reason"},
		{"floor a number cannot order", func(c *Capability) { fieldOf(c, "price").Floor = &Floor{Value: "low", Reason: "r"} }, "does not order"},
		{"text floor without a leading number", func(c *Capability) {
			f := fieldOf(c, "unit")
			f.Filter, f.Floor = true, &Floor{Value: "PY 2024", Reason: "r"}
		}, "does not order"},
		{"cadence untyped", func(c *Capability) { c.Cadence = "every so often" }, "cadence"},
		{"path not derived from id", func(c *Capability) { c.Path = "test/other" }, "path"},
		{"field twice", func(c *Capability) { c.Fields = append(c.Fields, c.Fields[0]) }, "declared twice"},
		{"common field retyped", func(c *Capability) {
			fieldOf(c, FieldSourceRow).Type = String
		}, "common field source_row_number"},
		{"date range over a number", func(c *Capability) { c.DateRanges[0].Column = "price" }, "date range"},
		{"count with a column", func(c *Capability) { c.Metrics[2].Column = "id" }, "takes no column"},
		{"partition not a field", func(c *Capability) { c.Partitions = []string{"yaer"} }, `partition "yaer" is not a field`},
		{"partition not a dimension", func(c *Capability) { c.Partitions = []string{"unit"} }, "partition unit must be both a filter and a group_by"},
		{"partition twice", func(c *Capability) { c.Partitions = []string{"year", "year"} }, "partition year is declared twice"},
		{"median over text", func(c *Capability) { c.Metrics[3].Column = "unit" }, "needs [integer number]"},
		{"median additive", func(c *Capability) { c.Metrics[3].Additive = true }, "metric median_price is a median, which is not additive"},
		{"percentile additive", func(c *Capability) { c.Metrics[4].Additive = true }, "is a percentile, which is not additive"},
		{"percentile without one", func(c *Capability) { c.Metrics[4].Percentile = 0 }, "strictly between 0 and 100"},
		{"percentile of 100", func(c *Capability) { c.Metrics[4].Percentile = 100 }, "strictly between 0 and 100"},
		{"percentile below 0", func(c *Capability) { c.Metrics[4].Percentile = -5 }, "strictly between 0 and 100"},
		{"percentile on a median", func(c *Capability) { c.Metrics[3].Percentile = 50 }, "its aggregation is median, not percentile"},
		{"percentile on a sum", func(c *Capability) { c.Metrics[0].Percentile = 10 }, "its aggregation is sum, not percentile"},
		{"instants over a number", func(c *Capability) {
			c.DateRanges[0].Instants = &Instants{From: "price", To: "unit", Convention: "c"}
		}, "instants names field price of type number"},
		{"instants not a field", func(c *Capability) {
			c.DateRanges[0].Instants = &Instants{From: "unit", To: "stamp", Convention: "c"}
		}, `"stamp", which is not a field`},
		{"instants without a convention", func(c *Capability) { c.DateRanges[0].Instants = &Instants{From: "unit", To: "unit"} }, "states no convention"},
		{"repeat on a non-partition", func(c *Capability) {
			c.Repeats = []Repeat{{Dimension: "unit", Values: []string{"C"}, Of: []string{"B"}, Reason: "r"}}
		}, "not a partition dimension"},
		{"repeat of an unknown metric", func(c *Capability) {
			c.Repeats = []Repeat{{Dimension: "year", Values: []string{"1"}, Of: []string{"2"}, Metrics: []string{"yeers"}, Reason: "r"}}
		}, `names metric "yeers"`},
		{"repeat without a reason", func(c *Capability) {
			c.Repeats = []Repeat{{Dimension: "year", Values: []string{"1"}, Of: []string{"2"}}}
		}, "needs its repeating values"},
		{"its own input", func(c *Capability) { c.Inputs = []string{c.ID} }, "its own input"},
		{"documents undeclared", func(c *Capability) { c.Documents = Documents{} }, "relation \"\" must be complement or restate"},
		{"document unsaid", func(c *Capability) { c.Documents.Document = "" }, "say what one document is"},
		{"inputs not derived", func(c *Capability) { c.Inputs = []string{"power.capacity"} }, "a capability with inputs is derived"},
		{"restated documents overlap", func(c *Capability) {
			c.Documents = Documents{Relation: Restate, Document: "an export", Overlap: "o"}
		}, "only complementing documents may overlap"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := valid()
			tc.edit(c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestRegisterRefusesDuplicates(t *testing.T) {
	for _, tc := range []struct{ name, id, path string }{
		{"identifier", PowerCapacity.ID, "power/other"},
		{"path", "power.other", PowerCapacity.Path},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := valid()
			c.ID, c.Path = tc.id, tc.path
			defer func() {
				if recover() == nil {
					t.Fatal("register accepted a duplicate")
				}
			}()
			register(c)
		})
	}
}

func TestQuantile(t *testing.T) {
	for _, tc := range []struct {
		m    Metric
		want float64
		ok   bool
	}{
		{Metric{Agg: Median}, 50, true},
		{Metric{Agg: Percentile, Percentile: 10}, 10, true},
		{Metric{Agg: Percentile, Percentile: 97.5}, 97.5, true},
		{Metric{Agg: Avg}, 0, false},
		{Metric{Agg: Sum, Percentile: 10}, 0, false},
	} {
		if got, ok := tc.m.Quantile(); got != tc.want || ok != tc.ok {
			t.Errorf("%s %v: Quantile() = %v, %v; want %v, %v", tc.m.Agg, tc.m.Percentile, got, ok, tc.want, tc.ok)
		}
	}
}

// TestFloorBefore: a filter value is before the floor by the field's own order, and a value
// that cannot be ordered is left to the filter's other checks.
func TestFloorBefore(t *testing.T) {
	py := &Floor{Value: "2024-2025", Reason: "r"}
	auction := &Floor{Value: "2024-2025 PRA", Reason: "r"}
	year := &Floor{Value: "2024", Reason: "r"}
	day := &Floor{Value: "2024-06-01", Reason: "r"}
	for _, tc := range []struct {
		floor *Floor
		t     Type
		v     string
		want  bool
	}{
		{py, String, "2023-2024", true},
		{py, String, " 2019-2020", true},
		{py, String, "2024-2025", false},
		{py, String, "2024", false},
		{py, String, "2030-2031", false},
		{py, String, "PY 2023", false},
		{py, String, "", false},
		{auction, String, "2022-2023 PRA", true},
		{auction, String, "2025-2026 PRA", false},
		{year, Integer, "2023", true},
		{year, Integer, "2024", false},
		{year, Integer, "two", false},
		{year, Number, "2023.5", true},
		{day, Date, "2024-05-31", true},
		{day, Date, "2024-06-01", false},
		{day, Date, "May 2024", false},
	} {
		if got := tc.floor.Before(tc.t, tc.v); got != tc.want {
			t.Errorf("floor %s (%s): Before(%q) = %v, want %v", tc.floor.Value, tc.t, tc.v, got, tc.want)
		}
	}
}
