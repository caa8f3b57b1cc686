// Package market ingests the grid operators' wholesale and capacity market publications:
// ERCOT's day-ahead settlement point prices (power.price_ercot), PJM's base residual auction
// results and planning parameters (power.capacity_market_pjm), and, built for the
// publishers' layouts until their files arrive, MISO's planning resource auction and the
// MISO and PJM capacity accreditation postings.
package market

// Publishers, as the citations name them.
const (
	PublisherERCOT = "Electric Reliability Council of Texas (ERCOT)"
	PublisherPJM   = "PJM Interconnection"
	PublisherMISO  = "Midcontinent ISO (MISO)"
)
