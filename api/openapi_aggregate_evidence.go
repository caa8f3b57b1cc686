package api

import "github.com/citeq/citeq/service"

import "github.com/citeq/citeq/apierror"

// The aggregate evidence in the OpenAPI document.
func init() {
	extraPaths = append(extraPaths, oaAggregateEvidence)
}

const oaAggregateEvidenceOpID = "evidence_aggregate_post"

// oaAggregateEvidenceCodes are the 400 codes of the aggregate evidence, with when each is sent.
var oaAggregateEvidenceCodes = [][2]string{
	{apierror.CodeInvalidRequest, "the body is not one JSON object of the documented members (anything after it is refused too), or lacks the citation"},
	{apierror.CodeInvalidParameter, "a metric the capability lacks, or an as_of it does not serve"},
	{apierror.CodeNotRecomputable, "the capability's definition declares the metric not recomputable from the cells its citations cite; the message gives the reason (the schema's not_recomputable)"},
	{apierror.CodeEvidenceInvalid, "citation is not an aggregate citation, or has a member an aggregate citation does not"},
	{apierror.CodeEvidenceLineage, "the lineage filter is malformed (an unknown member, a filter listing no value, a value the query would refuse, a null the snapshot does not hold, a date bound that is not a date, reversed bounds, an excluded group repeated or that no row under the filters holds) or selects no row"},
	{apierror.CodeEvidenceSourceFile, "the citation's source_file is not its lineage filter's"},
	{apierror.CodeEvidenceSHA256, "the citation's raw_file_sha256 is not its lineage filter's"},
	{apierror.CodeEvidenceSourceID, "the citation's source_id is not the one the selected rows are cited with"},
	{apierror.CodeEvidencePublisher, "the citation's publisher is not the file's"},
	{apierror.CodeEvidenceSourceURL, "the citation's source_url is not the file's"},
	{apierror.CodeEvidenceDerived, "the citation's derived or original_url is not the file's"},
	{apierror.CodeEvidenceRowsCount, "the citation's source_rows_count is not the number of rows its lineage filter selects"},
	{apierror.CodeEvidenceRowsSample, "the citation's source_rows_sample is not the first five selected rows in source order"},
	{apierror.CodeEvidenceVerify, "the citation's verify is not the record citation of the first selected row"},
	{apierror.CodeEvidenceSourceView, "the citation's source_view is not the file's title, release and the selected rows' sheets"},
	{apierror.CodeEvidenceCellsUnknown, "the snapshot does not record the cell a field of a selected row was read from (written before snapshots recorded it)"},
	{apierror.CodeEvidenceUnknownFile, "the service no longer holds the raw file"},
	{apierror.CodeEvidenceFileName, "the hash is of a file with another name"},
	{apierror.CodeEvidenceHash, "the stored file changed on disk since ingest"},
	{apierror.CodeEvidenceUnreadable, "the stored file cannot be read or parsed"},
	{apierror.CodeEvidenceSheet, "a cited sheet is not in the file"},
	{apierror.CodeEvidenceRow, "a cited row is outside its sheet"},
}

// oaAggregateEvidenceBusy are its 503 codes.
var oaAggregateEvidenceBusy = [][2]string{
	{apierror.CodeOverCapacity, "the most verifications the service runs at once are running: send it again after Retry-After seconds"},
	{apierror.CodeCancelled, "the request ended (client gone, an MCP call cancelled) before it was answered"},
}

// oaCodes are the codes of a code list.
func oaCodes(list [][2]string) []string {
	out := make([]string, len(list))
	for i, c := range list {
		out[i] = c[0]
	}
	return out
}

// oaWithHeaders adds response headers (of components/headers) to a response.
func oaWithHeaders(resp service.Obj, names ...string) service.Obj {
	for i, kv := range resp {
		if kv.K == "headers" {
			resp[i].V = oaHeaders(names...)
		}
	}
	return resp
}

func oaAggregateEvidence(s *service.Service) (string, service.Obj) {
	var ids []string
	for _, c := range s.Served() {
		if len(c.Inputs) == 0 { // a derived capability's citations are verified row by row
			ids = append(ids, c.ID)
		}
	}
	num := service.Obj{{"type", []string{"number", "null"}}}
	request := oaWithAdditional(oaObject("The aggregate to verify: an aggregate citation of a query answer (or its lineage_filter with as_of), the capability it comes from and a metric.", service.Obj{
		{"capability", service.Obj{{"type", "string"}, {"enum", ids}, {"description", "the capability's identifier (its path is taken too)"}}},
		{"metric", oaStr("the metric to recompute")},
		{"citation", oaWithDesc(oaSref("AggregateCitation"), "a member of the answer's citations, as is")},
		{"lineage_filter", service.Obj{{"type", "object"}, {"description", "instead of citation: its lineage_filter (then as_of is required)"}}},
		{"as_of", oaDate("with lineage_filter: the as_of of the answer; with citation, the citation's (omit it)")},
		{"value", service.Obj{{"type", "number"}, {"description", "optional: the figure read in the answer, to compare with the recomputed one"}}},
	}, "capability", "metric"), false)
	column := oaObject("", service.Obj{
		{"sheet", service.Obj{{"type", []string{"string", "null"}}}},
		{"field", oaStr("")},
		{"column", service.Obj{{"type", []string{"string", "null"}}, {"description", "column letter(s); null when the sheet has no column for the field, or for a rule the field is read by"}}},
		{"header", service.Obj{{"type", []string{"string", "null"}}, {"description", "the column's header"}}},
		{"by", service.Obj{{"type", "object"}, {"description", "on a sheet holding one column per line or series: the field choosing the column, and its value"}}},
		{"note", oaStr("")},
	}, "sheet", "field", "column", "header")
	response := oaObject("A whole aggregate recomputed from the literal cells of the rows its citation cites.", service.Obj{
		{"verified", oaBoolean("true when the raw file hashed as cited and the recomputed figure equals the served one")},
		{"equal", oaBoolean("whether the recomputed figure equals the figure served for the cited rows (to 15 significant digits; both null counts as equal)")},
		{"capability", oaStr("")},
		{"as_of", oaDate("")},
		{"metric", oaStr("")},
		{"aggregation", oaStr("")},
		{"unit", oaStr("the unit the cited rows share, else the definition's")},
		{"recomputed", oaWithDesc(num, "the metric recomputed from the cells alone")},
		{"served", oaWithDesc(num, "the metric as the service computes it over the same rows: a row's figure when the row is cited by this one citation")},
		{"rows", oaInteger("the rows the lineage filter selects: the citation's source_rows_count")},
		{"value_given", num},
		{"equal_to_value_given", oaBoolean("with value: whether it is the recomputed figure")},
		{"source_file", oaStr("")},
		{"raw_file_sha256", service.Obj{{"type", "string"}, {"pattern", oaSha256Pattern}}},
		{"computed_sha256", service.Obj{{"type", "string"}, {"pattern", oaSha256Pattern}, {"description", "the hash of the stored file, computed now"}}},
		{"cells_read", oaInteger("")},
		{"empty_cells", oaInteger("cells read empty: null values")},
		{"non_numeric_cells", oaInteger("cells of a numeric field that spell no number: null values")},
		{"non_numeric_sample", oaArray(oaObject("", service.Obj{{"field", oaStr("")}, {"sheet", oaStr("")}, {"source_row", oaInteger("")}, {"column", oaStr("")}, {"value", oaStr("")}}), "the first five of them")},
		{"columns", oaArray(column, "per sheet and field, the column read and its header")},
		{"lineage_filter", service.Obj{{"type", "object"}, {"description", "the lineage filter verified"}}},
		{"method", oaStr("how the figure was recomputed")},
	}, "verified", "equal", "capability", "as_of", "metric", "aggregation", "unit", "recomputed", "served", "rows", "source_file", "raw_file_sha256", "computed_sha256", "columns", "method")
	c := exampleCap()
	metric := ""
	if len(c.Metrics) > 0 {
		metric = c.Metrics[0].Name
	}
	body := service.Obj{
		{"description", "The capability, the metric and the aggregate citation (a member of a query answer's citations), or its lineage_filter with as_of as here."},
		{"required", true},
		{"content", service.Obj{{"application/json", service.Obj{
			{"schema", request},
			{"example", service.Obj{{"capability", c.ID}, {"metric", metric}, {"as_of", "2016-05-31"}, {"lineage_filter", service.Obj{
				{"source_file", "may_generator2016.xlsx"}, {"raw_file_sha256", "b196f74ef36c02c34e956ffaed9fc2d996abb1319b87e7a0f77d3d9f3ff18fe5"},
				{"filters", service.Obj{{"lifecycle", []string{"operating"}}, {"state", []string{"TX"}}}}}}}},
		}}}},
	}
	op := oaOp{
		id: oaAggregateEvidenceOpID, tags: []string{"evidence"}, summary: "Verify a whole aggregate",
		desc: "Verify a whole number: selects the rows the citation's lineage_filter cites (the (other) row's included: its excludes list the groups before it), checks every other member of the citation against what the service cites for those rows (a forged member is a 400 naming it), re-opens the raw file by its sha256 and re-hashes it, reads every cited row's cells by the rules ingest read them with (the column recorded at ingest, per line or series on a sheet holding one column each; the publisher's marks for no value; the capability's cell rules), recomputes the metric from those cells alone in one pass, and returns the recomputed figure, the row count and whether it equals the figure served. A metric the definition declares not recomputable is a 400 metric_not_recomputable with the reason. A mismatch is an answer (equal: false); a citation or file that cannot be verified is a 400. Free, like every verification (no key, no quota); at most a few run at once (503 over_capacity with Retry-After beyond). Revalidated on every call (Cache-Control: no-cache).",
		body: body, ok: oaJSONOK("The aggregate, recomputed.", response, "ETag", "Cache-Control"), cached: true,
		errs: []string{"400", "404", "413", "503"},
	}
	return service.AggregateEvidencePath, service.Obj{{"post", op.build()}}
}
