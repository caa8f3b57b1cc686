// Package adapters is the list of every adapter the service ingests with, one line each,
// grouped by publisher family. A capability is served once its definition is registered in
// package capability and its adapter is listed here.
package adapters

import (
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/eia"
)

// All lists every adapter, in ingest order.
func All() []ingest.Adapter {
	var all []ingest.Adapter

	// U.S. Energy Information Administration
	all = append(all,
		eia.EIA860M{},
		eia.NaturalGasPrices{},
		eia.RetailSales{},
		eia.AssetOwnership{},
		eia.Demand{},
		eia.DemandRollup{},
		eia.Generation{},
		eia.FuelCost{},
		eia.GenerationAnnual{},
	)

	// Grid operators: interconnection queues

	// Grid operators: wholesale and capacity markets

	// Federal Reserve (FRED), Census Bureau, NCSES, FCC

	return all
}
