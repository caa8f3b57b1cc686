package service

import (
	"slices"
	"strings"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
)

// ServerCardPath is where the MCP server card is served: the discovery document that names
// the MCP endpoint, its protocol revisions, how to authenticate and the free quota.
const ServerCardPath = "/.well-known/mcp"

// ServedDates lists the as_of dates served for capability id, oldest first (none when it is
// unknown or not served).
func (s *Service) ServedDates(id string) []string {
	if capability.ByID(id) == nil {
		return nil
	}
	_, dates := s.served(id)
	return dates
}

// SchemaAt is the describe payload of capability id with the codebooks and filter values of
// its snapshot asOf (latest: the newest): for latest, byte for byte GET /v1/<path>/schema.
func (s *Service) SchemaAt(id, asOf string) ([]byte, *apierror.Error) {
	c, e := s.served1(id)
	if e != nil {
		return nil, e
	}
	return s.schemaAt(c.Path, asOf, false)
}

// served1 is the served capability with identifier id, or the error REST gives its path.
func (s *Service) served1(id string) (*capability.Capability, *apierror.Error) {
	c := capability.ByID(id)
	if c == nil {
		return nil, apierror.New(404, apierror.CodeNotFound, "no capability %q; list_capabilities_v1 (GET /v1/capabilities) lists the served ones", id)
	}
	return s.resolve(c.Path)
}

// SnapshotDoc describes the snapshot asOf of capability id: its rows, the source files it was
// built from (each with its sha256), the gates it passed and its fingerprint. A pinned
// snapshot never changes.
func (s *Service) SnapshotDoc(id, asOf string) ([]byte, *apierror.Error) {
	c, e := s.served1(id)
	if e != nil {
		return nil, e
	}
	snap, e := s.snapshot(c, asOf)
	if e != nil {
		return nil, e
	}
	doc := Obj{{"capability", c.ID}, {"path", c.Path}, {"as_of", snap.Manifest.AsOf}}
	if snap.derived != nil {
		doc = append(doc, KV{"derived_from", snap.derived.inputs()})
		return mustJSON(append(doc, KV{"schema", "/v1/" + c.Path + "/schema"})), nil
	}
	m := snap.Manifest
	sources := make([]Obj, 0, len(m.Sources))
	for _, src := range m.Sources {
		o := Obj{{"source_id", src.SourceID}, {"publisher", src.Publisher}, {"source_url", src.URL}, {"source_file", src.File},
			{"raw_file_sha256", src.SHA256}, {"role", src.Role}, {"title", src.Title}, {"release", src.Release}}
		if src.Derived {
			o = append(o, KV{"derived", true}, KV{"original_url", src.OriginalURL})
		}
		sources = append(sources, o)
	}
	gates := make([]Obj, 0, len(m.Gates))
	for _, g := range m.Gates {
		gates = append(gates, Obj{{"gate", g.Name}, {"passed", g.Passed}})
	}
	doc = append(doc, KV{"rows", m.Rows}, KV{"fingerprint", m.Fingerprint}, KV{"schema_version", m.SchemaVersion},
		KV{"sources", sources}, KV{"gates", gates}, KV{"schema", "/v1/" + c.Path + "/schema"})
	return mustJSON(doc), nil
}

// FieldValues lists every value of filter field of capability id in its snapshot asOf, each
// with the rows that carry it and, for a codebook field, the code's description: what the
// compact description and the query tools' input schemas leave out.
func (s *Service) FieldValues(id, asOf, field string) ([]byte, *apierror.Error) {
	c, f, snap, e := s.filterAt(id, asOf, field)
	if e != nil {
		return nil, e
	}
	values := s.fieldValues(snap, f)
	out := make([]Obj, 0, len(values))
	for _, v := range values {
		out = append(out, v.obj())
	}
	return mustJSON(Obj{{"capability", c.ID}, {"as_of", snap.Manifest.AsOf}, {"field", f.Name}, {"value_count", len(out)}, {"values", out}}), nil
}

// filterAt resolves filter field of served capability id and its snapshot asOf.
func (s *Service) filterAt(id, asOf, field string) (*capability.Capability, capability.Field, *Snapshot, *apierror.Error) {
	c, e := s.served1(id)
	if e != nil {
		return nil, capability.Field{}, nil, e
	}
	f, ok := c.Field(field)
	if !ok || !f.Filter {
		return nil, f, nil, apierror.New(404, apierror.CodeInvalidFilter, "%s has no filter %q; its filters are %s", c.ID, field, join(c.FilterNames()[1:]))
	}
	snap, e := s.snapshot(c, asOf)
	return c, f, snap, e
}

// FieldValue is one value of a filter field.
type FieldValue struct {
	Value       string
	Description string
	Rows        int
	hasRows     bool
}

func (v FieldValue) obj() Obj {
	o := Obj{{"value", v.Value}}
	if v.Description != "" {
		o = append(o, KV{"description", v.Description})
	}
	if v.hasRows {
		o = append(o, KV{"rows_in_snapshot", v.Rows})
	}
	return o
}

// fieldValues are the values of f in snap: its codebook's codes, else its enum, else the
// snapshot's distinct values.
func (s *Service) fieldValues(snap *Snapshot, f capability.Field) []FieldValue {
	if f.Codebook != "" {
		for _, cb := range snap.Codebooks {
			if cb.Name == f.Codebook {
				out := make([]FieldValue, len(cb.Codes))
				for i, code := range cb.Codes {
					out[i] = FieldValue{Value: code.Code, Description: code.Description, Rows: code.Rows, hasRows: true}
				}
				return out
			}
		}
	}
	if len(f.Enum) > 0 {
		out := make([]FieldValue, len(f.Enum))
		for i, v := range f.Enum {
			out[i] = FieldValue{Value: v}
		}
		return out
	}
	if snap.Table == nil {
		return nil
	}
	col := snap.Table.Col(f.Name)
	if col == nil {
		return nil
	}
	out := make([]FieldValue, len(col.Values))
	for i, v := range col.Values {
		out[i] = FieldValue{Value: v}
	}
	return out
}

// CompleteValues returns up to max values of filter field of capability id (snapshot asOf)
// that start with prefix (case-insensitive), and how many match in all.
func (s *Service) CompleteValues(id, asOf, field, prefix string, max int) ([]string, int) {
	c := capability.ByID(id)
	if c == nil {
		return nil, 0
	}
	f, ok := c.Field(field)
	if !ok || !f.Filter {
		return nil, 0
	}
	if _, dates := s.served(id); len(dates) == 0 {
		return nil, 0
	}
	if asOf == "" {
		asOf = "latest"
	}
	snap, e := s.snapshot(c, asOf)
	if e != nil {
		return nil, 0
	}
	values := s.fieldValues(snap, f)
	names := make([]string, len(values))
	for i, v := range values {
		names[i] = v.Value
	}
	return Complete(names, prefix, max)
}

// Complete returns up to max of values that start with prefix (case-insensitive), and how
// many match in all.
func Complete(values []string, prefix string, max int) ([]string, int) {
	var out []string
	n := 0
	p := strings.ToLower(prefix)
	for _, v := range values {
		if strings.HasPrefix(strings.ToLower(v), p) {
			n++
			if len(out) < max {
				out = append(out, v)
			}
		}
	}
	return out, n
}

// IsServedAsOf reports whether asOf is latest or a served date of capability id.
func (s *Service) IsServedAsOf(id, asOf string) bool {
	return asOf == "latest" || slices.Contains(s.ServedDates(id), asOf)
}

// FieldValueDoc describes one value of filter field of capability id in its snapshot asOf:
// its codebook description and the rows that carry it, where known. A value the snapshot
// does not hold is an invalid_filter error naming where the values are listed.
func (s *Service) FieldValueDoc(id, asOf, field, value string) ([]byte, *apierror.Error) {
	c, f, snap, e := s.filterAt(id, asOf, field)
	if e != nil {
		return nil, e
	}
	for _, v := range s.fieldValues(snap, f) {
		if v.Value == value {
			return mustJSON(append(Obj{{"capability", c.ID}, {"as_of", snap.Manifest.AsOf}, {"field", f.Name}}, v.obj()...)), nil
		}
	}
	return nil, apierror.New(404, apierror.CodeInvalidFilter, "%s as of %s has no %s value %q; the values resource citeq://%s/%s/values/%s lists them", c.ID, snap.Manifest.AsOf, f.Name, value, c.ID, snap.Manifest.AsOf, f.Name)
}
