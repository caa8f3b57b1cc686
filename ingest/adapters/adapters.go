// Package adapters is the list of every adapter the service ingests with, one line each,
// grouped by publisher family. A capability is served once its definition is registered in
// package capability and its adapter is listed here.
package adapters

import (
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/census"
	"github.com/citeq/citeq/ingest/eia"
	"github.com/citeq/citeq/ingest/fcc"
	"github.com/citeq/citeq/ingest/ferc"
	"github.com/citeq/citeq/ingest/fred"
	"github.com/citeq/citeq/ingest/iso/market"
	"github.com/citeq/citeq/ingest/iso/queue"
	"github.com/citeq/citeq/ingest/ncses"
)

// All lists every adapter, in ingest order.
func All() []ingest.Adapter {
	var all []ingest.Adapter

	// U.S. Energy Information Administration
	all = append(all,
		eia.EIA860M,
		eia.NaturalGasPrices,
		eia.RetailSales,
		eia.AssetOwnership,
		eia.Demand,
		eia.DemandRollup,
		eia.Generation{},
		eia.FuelCost,
		eia.FuelCostExcerpt,
		eia.GenerationAnnual,
	)

	// Grid operators: interconnection queues
	all = append(all,
		queue.New(queue.MISO),
		queue.New(queue.PJM),
		queue.New(queue.PJMCycle),
		queue.New(queue.CAISO),
		queue.New(queue.NYISO),
		queue.New(queue.ISONE),
		queue.New(queue.ERCOT),
		queue.New(queue.SPP),
	)

	// Grid operators: wholesale and capacity markets
	all = append(all,
		market.ERCOTPrices,
		market.PJMCapacityMarket,
		market.MISOAuction{},
		market.MISOAuctionTranscribed,
		market.PJMAccreditation{},
		market.PJMAccreditationTranscribed,
		market.MISOAccreditation{},
	)

	// Federal Energy Regulatory Commission
	all = append(all, ferc.Form1{})

	// Federal Reserve (FRED), Census Bureau, NCSES, FCC
	all = append(all,
		fred.G17,
		census.C30,
		ncses.ABS,
		census.ChipTrade(),
		census.EquipmentTrade(),
		census.RobotTrade(),
		fcc.Filings{},
		fcc.Notices{},
	)

	return all
}
