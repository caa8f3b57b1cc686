package fred

import (
	"fmt"
	"math"
	"strings"

	"github.com/citeq/citeq/snapshots"
)

// agreeTolerance is how far, in percentage points, capacity utilization may differ from
// production over capacity in periods G.17 no longer revises: the published series are
// rounded to four decimals and seasonally adjusted separately.
const agreeTolerance = 0.25

// utilizationAgrees checks the files against each other: capacity utilization (CAPUTLG3344S)
// is production (IPG3344S) over capacity (CAPG3344S), times 100, in every month through
// December of the year two years before the earliest of the three files' last years, where
// the files' different vintages no longer matter.
func utilizationAgrees(reads []*fileRead) snapshots.Gate {
	g := snapshots.Gate{Name: "capacity_utilization_agrees", Passed: true}
	byID := map[string]*fileRead{}
	for _, fr := range reads {
		byID[fr.series.id] = fr
	}
	ip, capa, util := byID["IPG3344S"], byID["CAPG3344S"], byID["CAPUTLG3344S"]
	if ip == nil || capa == nil || util == nil {
		g.Detail = "not checked: the snapshot lacks one of IPG3344S, CAPG3344S, CAPUTLG3344S"
		return g
	}
	last := ip.last
	for _, fr := range []*fileRead{capa, util} {
		if fr.last.Before(last) {
			last = fr.last
		}
	}
	through := fmt.Sprintf("%d-12", last.Year()-2)
	values := func(fr *fileRead) map[string]float64 {
		out := map[string]float64{}
		for _, r := range fr.rows {
			p, _ := r.Get("period").(string)
			if v, ok := r.Get("value").(float64); ok && p <= through {
				out[p] = v
			}
		}
		return out
	}
	ipv, capv, utilv := values(ip), values(capa), values(util)
	var bad []string
	n, worst := 0, 0.0
	for p, u := range utilv {
		i, ok1 := ipv[p]
		c, ok2 := capv[p]
		if !ok1 || !ok2 || c == 0 {
			continue
		}
		n++
		d := math.Abs(i/c*100 - u)
		worst = math.Max(worst, d)
		if d > agreeTolerance {
			bad = append(bad, fmt.Sprintf("%s: IP/CAP*100 %.4f, CAPUTL %.4f", p, i/c*100, u))
		}
	}
	if len(bad) > 0 {
		g.Passed = false
		if len(bad) > 5 {
			bad = append(bad[:5], fmt.Sprintf("and %d more", len(bad)-5))
		}
		g.Detail = fmt.Sprintf("more than %.2f points apart through %s: %s", agreeTolerance, through, strings.Join(bad, "; "))
		return g
	}
	g.Detail = fmt.Sprintf("%d months through %s: capacity utilization within %.3f points of production over capacity", n, through, worst)
	return g
}
