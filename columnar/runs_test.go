package columnar

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/citeq/citeq/snapshots"
)

// runRows is genRows with the source file and sheet in runs, as a snapshot's rows are:
// each changes, independently of the other, after a few hundred to a few thousand rows, now
// and then after a run of a few rows, and either may be null for a whole run.
func runRows(seed int64, n int) []snapshots.Row {
	rows := genRows(seed, n)
	rng := rand.New(rand.NewPCG(uint64(seed), 7))
	runLen := func() int {
		if rng.IntN(10) == 0 {
			return 1 + rng.IntN(10)
		}
		return 200 + rng.IntN(5000)
	}
	pick := func(format string, card int) any {
		if rng.IntN(12) == 0 {
			return nil
		}
		return fmt.Sprintf(format, rng.IntN(card))
	}
	var file, sheet any
	fileLeft, sheetLeft := 0, 0
	for _, r := range rows {
		if fileLeft == 0 {
			fileLeft, file = runLen(), pick("file_%d.xlsx", 4)
		}
		if sheetLeft == 0 {
			sheetLeft, sheet = runLen(), pick("s%d", 5)
		}
		r[iFile], r[iSheet] = file, sheet
		fileLeft--
		sheetLeft--
	}
	return rows
}

// runFilterCases add to filterCases a selection of a few rows spread over many runs, which
// counts its lineage row by row rather than run by run.
var runFilterCases = append(slices.Clip(filterCases),
	filterCase{"plants", []predSpec{values(colPlant, "p00001", "p00002", "p00500")}})

// TestKernelsRuns compares Compute and its lineage with the reference on tables whose source
// file and sheet come in runs (lineage counted stretch by stretch of one file and sheet),
// and checks Runs and CountValues.
func TestKernelsRuns(t *testing.T) {
	for _, n := range []int{1000, 70000, 200000} {
		t.Run(fmt.Sprintf("rows=%d", n), func(t *testing.T) {
			fx := newFixture(t, runRows(int64(3000+n), n))
			for _, name := range []string{colFile, colSheet} {
				c := fx.tbl.Col(name)
				if got, want := c.Runs(), refRuns(c.Codes); got == nil || !slices.Equal(got, want) {
					t.Fatalf("%s: Runs() = %v…, want %v…", name, head32(got), head32(want))
				}
			}
			for _, fc := range runFilterCases {
				for _, keys := range keySets {
					if skipQuery(n, fc.name, keys) && fc.name != "plants" {
						continue
					}
					t.Run(fmt.Sprintf("Query/%s/by=%s", fc.name, strings.Join(keys, ",")), func(t *testing.T) {
						checkQuery(t, fx, fc.preds, keys)
					})
				}
			}
			t.Run("CountValues", func(t *testing.T) { checkCountValues(t, fx) })
		})
	}
}

// TestRunsNotInRuns: a column whose codes change too often, or that is not a Dict column,
// has no runs.
func TestRunsNotInRuns(t *testing.T) {
	fx := newFixture(t, genRows(11, 70000))
	for _, name := range []string{colFile, colSheet, colPlant, colCap} {
		if r := fx.tbl.Col(name).Runs(); r != nil {
			t.Errorf("%s: Runs() has %d runs, want nil", name, len(r))
		}
	}
}

func refRuns(codes []int32) []int32 {
	var out []int32
	for i, c := range codes {
		if i == 0 || c != codes[i-1] {
			out = append(out, int32(i))
		}
	}
	return out
}

func head32(xs []int32) []int32 { return xs[:min(len(xs), 8)] }

// checkCountValues compares CountValues with a count over the reference selection, over
// every row (twice: the kept counts must not change) and over filtered rows.
func checkCountValues(t *testing.T, fx *fixture) {
	for _, fc := range runFilterCases {
		ref := fx.refSelect(fc.preds)
		var eng []Predicate
		for _, p := range fc.preds {
			eng = append(eng, p.engine(fx.tbl))
		}
		sel := fx.tbl.Filter(eng)
		for _, name := range []string{colRegion, colFile, colYear} {
			c := fx.tbl.Col(name)
			want, wantNulls := make([]int64, len(c.Values)), int64(0)
			for _, r := range ref {
				if code := fx.codes[name][r]; code >= 0 {
					want[code]++
				} else {
					wantNulls++
				}
			}
			for range 2 {
				got, nulls := c.CountValues(sel)
				if !slices.Equal(got, want) || nulls != wantNulls {
					t.Errorf("%s: CountValues of %s = %v, %d nulls; want %v, %d", fc.name, name, got, nulls, want, wantNulls)
				}
				clear(got)
			}
		}
	}
}
