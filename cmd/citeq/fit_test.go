package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestQueryFitsTheWidth: the query table of two capabilities fits $COLUMNS (100 by default
// off a terminal), wrapping columns into blocks that repeat the group columns and saying so;
// --metrics picks the columns, and every printed figure is the response's.
func TestQueryFitsTheWidth(t *testing.T) {
	srv := apiServer(t)
	cases := []struct {
		name    string
		args    []string
		body    string   // the same query as a POST body, for the figures
		metrics []string // the metric columns expected, in order
		columns string   // $COLUMNS ("" unset: 100)
		blocks  int      // column blocks expected
	}{
		{
			name:    "power.capacity, every metric, default width",
			args:    []string{"power/capacity", "--filter", "lifecycle=operating", "--group-by", "state", "--order-by", "nameplate_mw", "--top", "5"},
			body:    `{"filters":{"lifecycle":"operating"},"group_by":["state"],"order_by":"nameplate_mw","top_n":5}`,
			metrics: []string{"nameplate_mw", "net_summer_mw", "net_winter_mw", "generator_count", "distinct_plant_count", "source_record_count"},
			blocks:  2,
		},
		{
			name:    "power.capacity, two metrics chosen, one block",
			args:    []string{"power/capacity", "--filter", "state=RI", "--group-by", "fuel_group", "--metrics", "nameplate_mw,generator_count"},
			body:    `{"filters":{"state":"RI"},"group_by":["fuel_group"]}`,
			metrics: []string{"nameplate_mw", "generator_count"},
			blocks:  1,
		},
		{
			name:    "power.capacity, two group columns, two metrics",
			args:    []string{"power/capacity", "--filter", "state=RI", "--group-by", "lifecycle,fuel_group", "--metrics", "nameplate_mw,generator_count"},
			body:    `{"filters":{"state":"RI"},"group_by":["lifecycle","fuel_group"]}`,
			metrics: []string{"nameplate_mw", "generator_count"},
			blocks:  2,
		},
		{
			name:    "power.capacity, 60 columns",
			args:    []string{"power/capacity", "--group-by", "lifecycle"},
			body:    `{"group_by":["lifecycle"]}`,
			metrics: []string{"nameplate_mw", "net_summer_mw", "net_winter_mw", "generator_count", "distinct_plant_count", "source_record_count"},
			columns: "60",
			blocks:  5,
		},
		{
			name:    "natural_gas.prices, metrics in the order chosen",
			args:    []string{"natural-gas/prices", "--filter", "atom=henry_hub_daily_spot", "--group-by", "year", "--from", "observation=2019", "--to", "observation=2021", "--metrics", "max_price,avg_price"},
			body:    `{"filters":{"atom":"henry_hub_daily_spot"},"group_by":["year"],"observation_date_from":"2019","observation_date_to":"2021"}`,
			metrics: []string{"max_price", "avg_price"},
			blocks:  1,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("COLUMNS", tc.columns)
			width := defaultWidth
			if tc.columns != "" {
				fmt.Sscan(tc.columns, &width)
			}
			out, err := command("query", append(tc.args, "--server", srv.URL), "")
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range strings.Split(out, "\n") {
				if len([]rune(l)) > width {
					t.Errorf("line of %d characters, wider than %d: %q", len([]rune(l)), width, l)
				}
			}
			resp := decodeJSON[restQuery](t, rest(t, srv, "/v1/"+tc.args[0]+"/query", []byte(tc.body)))
			blocks := tableBlocks(t, out)
			if len(blocks) != tc.blocks {
				t.Fatalf("%d column blocks, want %d:\n%s", len(blocks), tc.blocks, out)
			}
			said := strings.Contains(strings.Join(strings.Fields(out), " "), fmt.Sprintf("(the columns are wrapped into %d blocks", tc.blocks))
			if said != (tc.blocks > 1) {
				t.Errorf("wrapped into %d blocks, says so: %v:\n%s", tc.blocks, said, out)
			}
			// Every chosen metric is a column of one block, in order, and none other is; each
			// block starts with the group columns; every figure is the response's.
			var got []string
			for _, b := range blocks {
				for _, h := range b.head {
					if h == "citation" || h == "" || (len(resp.Rows) > 0 && hasKey(resp.Rows[0].Group, h)) {
						continue
					}
					got = append(got, h)
				}
				for i, r := range b.rows {
					if len(resp.Rows) <= i {
						t.Fatalf("more printed rows than returned:\n%s", out)
					}
					for _, h := range b.head {
						c := b.col(t, h)
						m, isMetric := resp.Rows[i].Metrics[h]
						switch {
						case isMetric && m == nil:
							if r[c] != "null" {
								t.Errorf("row %d %s printed %q, response null", i, h, r[c])
							}
						case isMetric:
							if !sameAt3(number(t, r[c]), *m) {
								t.Errorf("row %d %s printed %s, response %v", i, h, r[c], *m)
							}
						case h == "citation":
							if r[c] != resp.Rows[i].Lineage.Ref {
								t.Errorf("row %d citation %q, response %q", i, r[c], resp.Rows[i].Lineage.Ref)
							}
						}
					}
				}
				// The TOTAL line leaves the group columns after the first blank: its cells
				// line up with the header from the right.
				shift := len(b.head) - len(b.total)
				for _, h := range b.head {
					if v, ok := resp.Summary.Totals[h]; ok && v != nil && !sameAt3(number(t, b.total[b.col(t, h)-shift]), *v) {
						t.Errorf("TOTAL %s printed %s, summary.totals %v", h, b.total[b.col(t, h)-shift], *v)
					}
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.metrics, ",") {
				t.Errorf("metric columns %q, want %q", got, tc.metrics)
			}
		})
	}

	// An unknown metric is refused before the query is sent, naming the metrics there are.
	_, err := command("query", []string{"power/capacity", "--metrics", "nameplate_mw,capacity_mw", "--server", srv.URL}, "")
	if err == nil || !strings.Contains(err.Error(), "--metrics capacity_mw: no such metric") || !strings.Contains(err.Error(), "net_summer_mw") {
		t.Errorf("unknown metric: %v", err)
	}
}

func hasKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}

// tableBlocks splits a query table into its column blocks, each parsed as parseQueryTable
// parses a whole table.
func tableBlocks(t *testing.T, out string) []queryTable {
	t.Helper()
	head, rest, _ := strings.Cut(out, "\n\n")
	head = strings.ReplaceAll(head, "\n", " ") // the first line, wrapped on a narrow width
	var blocks []queryTable
	for _, chunk := range strings.Split(rest, "\n\n") {
		if !strings.Contains(chunk, "\nTOTAL") {
			break
		}
		blocks = append(blocks, parseQueryTable(t, head+"\n\n"+chunk+"\n"))
	}
	return blocks
}

// TestDescribeValues: describe prints the values of every filter the schema lists and the
// codes of every codebook, a page at a time or all of them, for two capabilities.
func TestDescribeValues(t *testing.T) {
	t.Setenv("COLUMNS", "0")
	srv := apiServer(t)
	type schema struct {
		Filters []struct {
			Name     string            `json:"name"`
			Values   []string          `json:"values"`
			Snapshot []json.RawMessage `json:"values_in_snapshot"`
		} `json:"filters"`
		Codebooks map[string]struct {
			Codes []struct {
				Code        string `json:"code"`
				Description string `json:"description"`
			} `json:"codes"`
		} `json:"codebooks"`
	}
	for _, path := range []string{"power/capacity", "natural-gas/prices"} {
		t.Run(path, func(t *testing.T) {
			s := decodeJSON[schema](t, rest(t, srv, "/v1/"+path+"/schema", nil))
			all, err := command("describe", []string{path, "--all", "--server", srv.URL}, "")
			if err != nil {
				t.Fatal(err)
			}
			listed := 0
			for _, f := range s.Filters {
				vals := f.Values
				for _, v := range f.Snapshot {
					vals = append(vals, plainValue(v))
				}
				if len(vals) == 0 {
					continue
				}
				listed++
				want := fmt.Sprintf("\n  %s (%s): %s\n", f.Name, valuesPage{all: true}.span(len(vals)), strings.Join(vals, ", "))
				if !strings.Contains(all, want) {
					t.Errorf("--all does not print %q", want)
				}
			}
			if listed == 0 {
				t.Fatal("the schema lists no filter's values")
			}
			for name, cb := range s.Codebooks {
				if !strings.Contains(all, "\n  "+name+": ") {
					t.Errorf("codebook %s not printed", name)
				}
				for _, c := range cb.Codes {
					if !strings.Contains(all, "\n    "+c.Code+" ") || !strings.Contains(all, c.Description) {
						t.Errorf("codebook %s: code %s (%s) not printed", name, c.Code, c.Description)
					}
				}
			}
			if strings.Contains(all, "More values follow") {
				t.Error("--all says more values follow")
			}

			// Pages: --values 3 --page 2 prints the 4th to 6th value of every longer list.
			page, err := command("describe", []string{path, "--values", "3", "--page", "2", "--server", srv.URL}, "")
			if err != nil {
				t.Fatal(err)
			}
			more := false
			for _, f := range s.Filters {
				vals := f.Values
				for _, v := range f.Snapshot {
					vals = append(vals, plainValue(v))
				}
				if len(vals) < 6 {
					continue
				}
				more = more || len(vals) > 6
				want := fmt.Sprintf("\n  %s (4-6 of %d): %s\n", f.Name, len(vals), strings.Join(vals[3:6], ", "))
				if !strings.Contains(page, want) {
					t.Errorf("page 2 does not print %q", want)
				}
			}
			if more && !strings.Contains(page, "More values follow: --page 3 for the next 3") {
				t.Errorf("page 2 does not say how to reach page 3:\n%s", page)
			}
		})
	}
	if _, err := command("describe", []string{"power/capacity", "--field", "nothing", "--server", srv.URL}, ""); err == nil || !strings.Contains(err.Error(), "no such filter or codebook") {
		t.Errorf("unknown --field: %v", err)
	}
	if _, err := command("describe", []string{"power/capacity", "--page", "0", "--server", srv.URL}, ""); err == nil || !strings.Contains(err.Error(), "whole number from 1") {
		t.Errorf("--page 0: %v", err)
	}
}

// TestCapabilitiesFitTheWidth: at 100 columns (a pipe without $COLUMNS) the capabilities that
// do not fit side by side are printed in blocks, each headed and led by the capability names,
// so that no block is a column of dates without names.
func TestCapabilitiesFitTheWidth(t *testing.T) {
	srv := apiServer(t)
	doc := decodeJSON[restCapabilities](t, rest(t, srv, "/v1/capabilities", nil))
	t.Setenv("COLUMNS", "")
	out, err := command("capabilities", []string{"--server", srv.URL}, "")
	if err != nil {
		t.Fatal(err)
	}
	table, _, _ := strings.Cut(out, "\n\n* ")
	blocks := strings.Split(strings.TrimRight(table, "\n"), "\n\n")
	if len(blocks) < 2 {
		t.Fatalf("the table fits 100 columns in one block; this test needs one that does not:\n%s", out)
	}
	columns := map[string]bool{}
	for i, b := range blocks {
		lines := strings.Split(b, "\n")
		head := fields(lines[0])
		if head[0] != "capability" {
			t.Errorf("block %d is headed %q, not by the capability column", i+1, head)
		}
		for _, h := range head {
			columns[h] = true
		}
		if len(lines)-1 != len(doc.Capabilities) {
			t.Fatalf("block %d has %d rows for %d capabilities", i+1, len(lines)-1, len(doc.Capabilities))
		}
		for j, c := range doc.Capabilities {
			if !strings.HasPrefix(lines[1+j], c.Capability) {
				t.Errorf("block %d row %d does not start with %s: %q", i+1, j+1, c.Capability, lines[1+j])
			}
			if len(lines[1+j]) > 100 {
				t.Errorf("block %d row %d is %d characters wide", i+1, j+1, len(lines[1+j]))
			}
		}
	}
	for _, h := range []string{"path", "as_of latest", "as_of available"} {
		if !columns[h] {
			t.Errorf("no block has the column %q:\n%s", h, out)
		}
	}
}
