package apierror

// The codes of the contract (service-contract.md).
const (
	CodeInvalidParameter = "invalid_parameter"
	CodeInvalidFilter    = "invalid_filter"
	CodeInvalidRequest   = "invalid_request"
)

// Codes of the endpoints.
const (
	// CodeNotFound: no capability (or endpoint) at the path.
	CodeNotFound = "capability_not_found"
	// CodeNotServed: the capability is defined but no snapshot of it is served.
	CodeNotServed = "capability_not_served"
	// CodeMethodNotAllowed: the path is served, but not for the request's method.
	CodeMethodNotAllowed = "method_not_allowed"
	// CodeInternal: a bug, logged with the request id.
	CodeInternal = "internal_error"
	// CodeCancelled: the request's context ended before it was answered.
	CodeCancelled = "request_cancelled"
	// CodeOverCapacity: the most requests of a kind the server runs at once are running (open
	// connections, aggregate verifications); retry after the Retry-After seconds.
	CodeOverCapacity = "over_capacity"
)

// Codes of keys and the free quota.
const (
	CodeKeyRequired     = "api_key_required"
	CodeInvalidKey      = "invalid_api_key"
	CodeRevokedKey      = "api_key_revoked"
	CodePaymentRequired = "payment_required"
)

// Codes of webhook subscriptions.
const (
	// CodeSubscriptionNotFound answers a delete of a subscription the caller does not own
	// (unknown, deleted, or another key's: the three are not told apart).
	CodeSubscriptionNotFound = "subscription_not_found"
	// CodeSubscriptionLimit answers a create beyond state.MaxSubscriptionsPerKey.
	CodeSubscriptionLimit = "subscription_limit_reached"
)

// Codes of the source-row evidence.
const (
	CodeEvidenceInvalid     = "invalid_citation"
	CodeEvidenceUnknownFile = "evidence_file_unknown"
	CodeEvidenceFileName    = "evidence_file_name_mismatch"
	CodeEvidenceHash        = "evidence_hash_mismatch"
	CodeEvidenceSheet       = "evidence_sheet_unknown"
	CodeEvidenceRow         = "evidence_row_out_of_range"
	CodeEvidenceUnreadable  = "evidence_file_unreadable"
	// A citation whose file, sheet and row exist but which no served snapshot makes.
	CodeEvidenceSheetNotCited = "evidence_sheet_not_cited"
	CodeEvidenceRowNotCited   = "evidence_row_not_cited"
	CodeEvidenceAsOf          = "evidence_as_of_mismatch"
	CodeEvidenceSourceID      = "evidence_source_id_mismatch"
	CodeEvidenceSourceURL     = "evidence_source_url_mismatch"
)

// Codes of the aggregate evidence.
const (
	// CodeEvidenceLineage: the lineage filter is malformed, names what the snapshot does not
	// hold, or selects no row.
	CodeEvidenceLineage = "invalid_lineage_filter"
	// CodeEvidenceCellsUnknown: the snapshot does not record which cells a field was read
	// from (it was written before manifests recorded them), so the metric cannot be
	// recomputed from the raw file here.
	CodeEvidenceCellsUnknown = "evidence_cells_unknown"
	// CodeNotRecomputable: the capability's definition declares that the metric cannot be
	// recomputed from the cells its citations cite, and says why.
	CodeNotRecomputable = "metric_not_recomputable"
	// A member of the posted citation that is not what the service cites for the rows its
	// lineage filter selects (source_id and source_url have the row evidence's codes).
	CodeEvidencePublisher  = "evidence_publisher_mismatch"
	CodeEvidenceSourceFile = "evidence_source_file_mismatch"
	CodeEvidenceSHA256     = "evidence_raw_file_sha256_mismatch"
	CodeEvidenceDerived    = "evidence_derived_mismatch"
	CodeEvidenceRowsCount  = "evidence_rows_count_mismatch"
	CodeEvidenceRowsSample = "evidence_rows_sample_mismatch"
	CodeEvidenceVerify     = "evidence_verify_mismatch"
	CodeEvidenceSourceView = "evidence_source_view_mismatch"
)
