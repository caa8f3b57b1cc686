package queue_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/citeq/citeq/ingest/iso/queue"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/internal/testenv"
)

// TestTotalsReadIndependently narrows an operator's row selection (a key pattern that leaves
// out most of SPP's requests) and checks that totals_reconcile fails: the second reading does
// not repeat the selection it checks, so a selection that drops projects is caught. With a
// selection left as it is, the gate passes.
func TestTotalsReadIndependently(t *testing.T) {
	t.Parallel()
	raw := testenv.Raw(t)
	for _, tc := range []struct {
		name    string
		pattern *regexp.Regexp
		passed  bool
	}{
		{"the operator's selection", nil, true},
		{"a selection that drops projects", regexp.MustCompile(`^GEN-2017`), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			op := *queue.SPP
			op.KeyPattern = tc.pattern
			a := queue.New(&op)
			p := testenv.OnePlan(t, a, raw)
			b, err := a.Build(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range b.Checks {
				if g.Name != kit.GateReconcile {
					continue
				}
				if g.Passed != tc.passed {
					t.Fatalf("%s passed %v, want %v: %s", g.Name, g.Passed, tc.passed, g.Detail)
				}
				if !tc.passed && !strings.Contains(g.Detail, "GI_ActiveRequest") {
					t.Errorf("%s does not name the sheet: %s", g.Name, g.Detail)
				}
				return
			}
			t.Fatalf("no %s gate among %d", kit.GateReconcile, len(b.Checks))
		})
	}
}
