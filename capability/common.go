package capability

import "slices"

// Names of the common fields every capability has: declared once here and added by register
// to every definition that does not place them itself.
const (
	FieldSourceID   = "source_id"
	FieldAsOf       = "as_of"
	FieldRecordKey  = "source_record_key"
	FieldSourceRow  = "source_row_number"
	FieldRawSHA256  = "raw_file_sha256"
	recordKeyDetail = "the row's key in its source: identifies the published row within the snapshot"
)

// CommonFields are the fields of every capability's fact table and detail records, besides
// its own. A definition may declare one of them itself, to place it among its fields or to
// describe it more exactly; its type must then be the one given here.
var CommonFields = []Field{
	{Name: FieldSourceID, Type: String, Bookkeeping: true, Description: "source identifier"},
	{Name: FieldAsOf, Type: Date, Bookkeeping: true, Description: "snapshot date"},
	{Name: FieldRecordKey, Type: String, Unique: true, Bookkeeping: true, Description: recordKeyDetail},
	{Name: FieldSourceRow, Type: Integer, Bookkeeping: true, Description: "1-based row of the record in its source file, as the file numbers it"},
	{Name: FieldRawSHA256, Type: String, Bookkeeping: true, Description: "sha256 of the raw source file"},
}

// IsCommon reports whether name is one of the common fields.
func IsCommon(name string) bool {
	return slices.ContainsFunc(CommonFields, func(f Field) bool { return f.Name == name })
}

// addCommon completes c's fields with the common fields it does not declare: source_id and
// as_of first, the record key, row number and file hash last. Declared common fields are
// marked bookkeeping.
func addCommon(c *Capability) {
	has := func(name string) int {
		return slices.IndexFunc(c.Fields, func(f Field) bool { return f.Name == name })
	}
	var front, back []Field
	for _, cf := range CommonFields {
		if i := has(cf.Name); i >= 0 {
			c.Fields[i].Bookkeeping = true
			if cf.Unique {
				c.Fields[i].Unique = true
			}
			continue
		}
		if cf.Name == FieldSourceID || cf.Name == FieldAsOf {
			front = append(front, cf)
		} else {
			back = append(back, cf)
		}
	}
	fields := append(front, c.Fields...)
	c.Fields = append(fields, back...)
}
