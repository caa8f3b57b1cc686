package snapshots

// Document is one document a snapshot of complementing documents holds: the newest version,
// published on or before the snapshot's as_of, of one document identity.
type Document struct {
	// ID is the document's identity (the same for every version of it).
	ID string `json:"id"`
	// AsOf is the as_of the document has on its own: the date it was published.
	AsOf string `json:"as_of"`
	// Fingerprint is the fingerprint of a snapshot of this document alone (its files read by
	// the same adapter version): a later ingest finds the document's date by it without
	// reading the files again.
	Fingerprint string `json:"fingerprint"`
	// Files are the document's files.
	Files []string `json:"source_files"`
	// Rows is how many rows the document's files give (before a newer publication of the same
	// rows replaces some of them).
	Rows int `json:"rows"`
}

// Coverage is a period one document of a snapshot covers only in part: a year to date, a
// day the download cut short. An answer whose matched rows lie in the period says so.
type Coverage struct {
	// Where is the period: field → value, every one holding on a row of the period
	// ({"year": "2025"}, {"period": "2022-02-19", "time_basis": "local"}).
	Where map[string]string `json:"where"`
	// Period names it for a reader ("the year 2025", "the local day 2022-02-19").
	Period string `json:"period"`
	// File is the document that covers it in part.
	File string `json:"source_file"`
	// Covered says what the file holds of the period, and how much of it that is.
	Covered string `json:"covered"`
	// Complete says how to get the complete figure, or that no published file here has it.
	Complete string `json:"complete"`
	// Expected, when set, is the number of rows the whole period has, each with a value in
	// field Counted: a snapshot composed of several documents whose rows, together, complete
	// the period does not list it (two half-years' files, each holding a part of the month
	// between them). Neither is written to the manifest.
	Expected int    `json:"-"`
	Counted  string `json:"-"`
}

// Revision is a row that two documents of different identity both publish, with values that
// differ: the snapshot serves the newer publication's row (Key, the served row's
// source_record_key); Earlier cites the earlier publication's row.
type Revision struct {
	Key     string         `json:"source_record_key"`
	Values  []RevisedValue `json:"values"`
	Earlier RecordCitation `json:"earlier"`
	Served  RecordCitation `json:"served"`
}

// RevisedValue is one field whose value a later publication revised.
type RevisedValue struct {
	Field   string `json:"field"`
	Served  any    `json:"served"`
	Earlier any    `json:"earlier"`
}

// RecordCitation is a record-level citation of one source row: what the evidence endpoint
// takes. Release is the publication date of the document the row is read from.
type RecordCitation struct {
	SourceID  string `json:"source_id"`
	SourceURL string `json:"source_url"`
	File      string `json:"source_file"`
	Sheet     string `json:"sheet"`
	Row       int    `json:"source_row"`
	SHA256    string `json:"raw_file_sha256"`
	AsOf      string `json:"as_of"`
	Release   string `json:"release,omitempty"`
}
