package queue

import (
	"testing"

	"github.com/citeq/citeq/capability"
)

func TestColumnName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Project #", "project"},
		{"Net MWs to Grid", "net_mws_to_grid"},
		{"Interconnection Request\nReceive Date", "interconnection_request_receive_date"},
		{" Nearest Town or County", "nearest_town_or_county"},
		{"2nd Phase", "col_2nd_phase"},
		{"Type/ Fuel", "type_fuel"},
	} {
		if got := capability.QueueColumnName(tc.in); got != tc.want {
			t.Errorf("QueueColumnName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTextDate(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"2018-03-12T04:00:00+00:00", "2018-03-12", true},
		{"2024-12-07T11:31:23.5971506+00:00", "2024-12-07", true},
		{"2024-02-30T00:00:00", "", false},
		{"03-2026", "", false},
	} {
		got, ok := textDate(tc.in, nil)
		if got != tc.want || ok != tc.ok {
			t.Errorf("textDate(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestTables checks that every operator's tables only name normalized values the shared
// vocabulary has, and fields its capability has.
func TestTables(t *testing.T) {
	in := func(v string, set []string) bool {
		for _, s := range set {
			if s == v {
				return true
			}
		}
		return false
	}
	for _, op := range Operators {
		t.Run(op.Cap.ID, func(t *testing.T) {
			for raw, st := range op.Statuses {
				if !in(st.Norm, capability.QueueStatuses) || (st.Progress != "" && !in(st.Progress, capability.QueueProgress)) {
					t.Errorf("status %q maps to %+v, outside the vocabulary", raw, st)
				}
			}
			for raw, p := range op.Progress {
				if !in(p, capability.QueueProgress) {
					t.Errorf("progress %q maps to %q", raw, p)
				}
			}
			for raw, ty := range op.Types {
				if ty != "" && !in(ty, capability.QueueTypes) {
					t.Errorf("type %q maps to %q", raw, ty)
				}
			}
			for f := range op.Fields {
				if _, ok := op.Cap.Field(f); !ok {
					t.Errorf("field %s is not a field of %s", f, op.Cap.ID)
				}
			}
		})
	}
}
