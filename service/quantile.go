package service

import (
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
)

// opOf is the engine operation of metric m (not a ratio, which is two sums).
func opOf(m capability.Metric) columnar.Op {
	p, _ := m.Quantile()
	return columnar.Op{Agg: aggOf(m.Agg), Column: m.Column, Unit: m.UnitColumn, Percentile: p}
}

// quantileDoc is what the schema says of a median or percentile metric: the percentile it
// takes and how a percentile between two values is taken.
func quantileDoc(m capability.Metric) Obj {
	p, ok := m.Quantile()
	if !ok {
		return nil
	}
	return Obj{{"percentile", p}, {"interpolation", capability.Interpolation + ": over the n non-null values sorted ascending, x[0] to x[n-1], with h = (n-1)·p/100 the value is x[⌊h⌋] + (h-⌊h⌋)·(x[⌊h⌋+1] - x[⌊h⌋]) (type 7 of Hyndman and Fan; numpy.percentile's default, Excel's PERCENTILE.INC); the median of an even count is the mean of the two middle values, and one value is its own percentile. Null values are left out; the value is null when no matched row has one."}}
}
