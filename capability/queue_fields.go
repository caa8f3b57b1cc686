package capability

import (
	"strings"
	"unicode"
)

// QueueColumn is one column an operator publishes in its queue file, kept in the detail
// record under its own header name: Name is the header in lower_snake (QueueColumnName).
type QueueColumn struct {
	Header string
	Name   string
	Type   Type
	// Filter makes the column a filter and a group_by dimension too (an operator's own mark
	// of what a request is, such as ISO-NE's Type).
	Filter bool
}

// QueueStatuses is the normalized project status of every queue capability (Berkeley Lab's
// "Queued Up" set: gridstatus's "completed" is operational here, and suspended is kept).
var QueueStatuses = []string{"active", "withdrawn", "operational", "suspended"}

// QueueProgress is the normalized interconnection-agreement progress of a queued project.
var QueueProgress = []string{"not_started", "feasibility_study", "system_impact_study", "facility_study", "cluster_study",
	"ia_pending", "ia_executed", "construction", "operational", "withdrawn"}

// QueueTypes is the normalized generation type of a queued project.
var QueueTypes = []string{"solar", "wind", "offshore_wind", "battery_storage", "hybrid", "natural_gas", "coal", "oil",
	"nuclear", "hydro", "pumped_storage", "geothermal", "biomass", "waste_heat", "fuel_cell", "transmission", "load", "other"}

// QueueKinds is what a queued request asks to connect: generation, transmission (an elective
// transmission upgrade, a transmission service request, a merchant line) or load.
var QueueKinds = []string{"generation", "transmission", "load"}

// Known defects of a queue row that the known_defects gate names and the row's known_defect
// field holds: a row that is not a project, and a project published without a queue id.
const (
	QueuePlaceholder = "placeholder"
	QueueNoID        = "no_queue_id"
)

// queueFlags are the rows every queue answer names when it includes them.
var queueFlags = []Flag{
	{Field: "known_defect", Value: QueuePlaceholder, Note: "placeholder_rows",
		Rows:   "are placeholders the operator publishes, not projects (rows with no queue date, place, fuel or requested MW, named by the known_defects gate)",
		Advice: "project_count leaves them out (they have no normalized status, request kind or type) and compare_as_of lists them under not_compared, not as projects that entered or left; their published cells are kept, and their published MW (0) stays in the MW sums; filter known_defect to placeholder to see them"},
	{Field: "known_defect", Value: QueueNoID, Note: "no_queue_id",
		Rows:   "are projects published without a queue id (the operator's mark for none, such as N/A), named by the known_defects gate",
		Advice: "they are counted as projects, but compare_as_of cannot match them between snapshots and lists them under not_compared; filter known_defect to no_queue_id to see them"},
	{Field: "status_inferred", Value: "true", Note: "status_inferred", Sum: "requested_mw", Before: "in_service_date",
		Rows:   "have no published status and no withdrawal date, so their status is inferred, not published",
		Advice: "filter status_inferred to false to leave them out, or to true to see only them; those whose in-service date has passed may long be in service"},
}

// queueColumns holds the published columns of each queue capability, by identifier.
var queueColumns = map[string][]QueueColumn{}

// QueueColumns lists the published columns of queue capability id, in definition order.
func QueueColumns(id string) []QueueColumn { return queueColumns[id] }

// QueueColumnName is the field name of a published header: lower case, every run of
// characters other than letters and digits one underscore ("Project #" gives project,
// "Net MWs to Grid" net_mws_to_grid), prefixed with "col_" when it would start with a digit.
func QueueColumnName(header string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(header) {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
			under = false
			continue
		}
		under = true
	}
	s := b.String()
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		s = "col_" + s
	}
	return s
}

// queueSpec is what differs between the queue capabilities; queueCapability builds the rest.
type queueSpec struct {
	id, title, publisher, description, asOfRule string
	cadence                                     Cadence
	// naturalKey defaults to sheet and queue_id.
	naturalKey []string
	// mw says which published column each normalized MW field holds ("" when the operator
	// publishes no such column): requested_mw is the operator's headline requested capacity.
	requestedMW, summerMW, winterMW, netMW string
	// columns are the operator's published columns, kept under their header names.
	columns []QueueColumn
	// kindRule says how the operator's file marks a request's kind (request_kind).
	kindRule string
	// fields are the operator's own derived fields; flags the rows of them an answer names.
	fields []Field
	flags  []Flag
	rules  []string
}

// queueField is a normalized field of every queue capability.
func queueFields(s queueSpec) []Field {
	mw := func(header, what string) string {
		if header == "" {
			return what + "; not published by this operator (always null)"
		}
		return what + ", from the published column \"" + header + "\""
	}
	return []Field{
		{Name: "sheet", Type: String, Filter: true, GroupBy: true, Description: "the sheet (or table) of the file the project is published on, as named by the operator"},
		{Name: "queue_id", Type: String, Filter: true, Description: "the operator's queue position or project id, as published"},
		{Name: "project_name", Type: String, Description: "project name as published (null where the operator keeps it confidential or does not publish it)"},
		{Name: "developer", Type: String, Description: "developer or interconnection customer as published (null where not published)"},
		{Name: "state", Key: KeyState, Type: String, Filter: true, GroupBy: true, Description: "state or province as a two-letter code: as published, except that a state's full name is its code (Michigan: MI) and a code the known_defects gate names as wrong for the row's county is corrected (a Desha County, Arkansas row published as AK: AR); the published text stays in the state column under its header name"},
		{Name: "county", Key: NameCounty, Type: String, Filter: true, GroupBy: true, Description: "county as published"},
		{Name: "poi", Type: String, Description: "point of interconnection (substation or line) as published"},
		{Name: "transmission_owner", Type: String, Filter: true, GroupBy: true, Description: "transmission owner or utility at the point of interconnection, as published"},
		{Name: "generation_type", Type: String, Filter: true, GroupBy: true, Enum: QueueTypes, Description: "normalized generation type, mapped from generation_type_raw by the operator's table (a raw value no table knows rejects the snapshot)",
			From: "generation_type_raw"},
		{Name: "generation_type_raw", Type: String, Filter: true, GroupBy: true, Description: "generation type or fuel as published"},
		{Name: "requested_mw", Type: Number, Description: mw(s.requestedMW, "requested capacity (MW), the operator's headline column")},
		{Name: "requested_mw_summer", Type: Number, Description: mw(s.summerMW, "requested summer capacity (MW)")},
		{Name: "requested_mw_winter", Type: Number, Description: mw(s.winterMW, "requested winter capacity (MW)")},
		{Name: "requested_mw_net", Type: Number, Description: mw(s.netMW, "requested net capacity to the grid (MW)")},
		{Name: "queue_date", Type: Date, Description: "date the request entered the queue"},
		{Name: "in_service_date", Type: Date, Description: "proposed (or, once in service, actual) in-service date as published"},
		{Name: "withdrawal_date", Type: Date, Description: "withdrawal date, where published"},
		{Name: "study_phase", Type: String, Filter: true, GroupBy: true, Description: "study phase, cycle or cluster as published"},
		{Name: "ia_status_raw", Type: String, Description: "interconnection agreement status as published (null where not published)"},
		{Name: "ia_progress", Type: String, Filter: true, GroupBy: true, Enum: QueueProgress, Description: "normalized interconnection progress (not started, feasibility, system impact, facility or cluster study, IA pending, IA executed, construction, operational; withdrawn for withdrawn projects)"},
		{Name: "status", Type: String, Filter: true, GroupBy: true, Enum: QueueStatuses, Description: "normalized project status: active, withdrawn, operational (completed or in service) or suspended, mapped from status_raw and the sheet by the operator's table",
			Nulls: "a placeholder row the known_defects gate names (known_defect placeholder), which is not a project and so has no status; status_raw keeps what the operator published on it"},
		{Name: "status_raw", Type: String, Filter: true, GroupBy: true, Description: "status as published (the sheet name where the operator publishes status by sheet only)"},
		{Name: "status_inferred", Type: Boolean, Filter: true, Description: "true where the operator publishes no status and the normalized status is inferred (ISO-NE: no Project Status and no withdrawal date gives active); a status_inferred note names such rows in every answer that includes them"},
		{Name: "request_kind", Type: String, Filter: true, GroupBy: true, Enum: QueueKinds, Description: "what the request asks to connect: generation, transmission (an elective transmission upgrade, a transmission service request, a merchant line) or load. " + s.kindRule,
			Nulls: "no kind: a placeholder row, which is not a project, or a row of an operator that marks the kind by the generation type where the row publishes none (NYISO)"},
		{Name: "known_defect", Type: String, Filter: true, GroupBy: true, Enum: []string{QueuePlaceholder, QueueNoID}, Description: "null on a project published with its own queue id; placeholder on a published row that is not a project (no queue date, place, fuel or requested MW: MISO's MSG KEEP), which has no normalized status and is not counted; no_queue_id on a project published without an id (MISO's N/A), counted but not matched between snapshots. The known_defects gate names each such row",
			Nulls: "no known defect: a project published with its own queue id"},
	}
}

// queueCapability builds a queue capability: the shared normalized fields, then the
// operator's published columns, and the shared metrics plus a sum for each published MW
// column.
func queueCapability(s queueSpec) *Capability {
	path := strings.ReplaceAll(strings.ReplaceAll(s.id, "_", "-"), ".", "/")
	fields := append(queueFields(s), s.fields...)
	taken := map[string]bool{}
	for _, f := range fields {
		taken[f.Name] = true
	}
	for _, cf := range CommonFields {
		taken[cf.Name] = true
	}
	metrics := []Metric{
		{Name: "project_count", Unit: "count", Agg: CountNonNull, Column: "status", Additive: true, Description: "number of queued projects: the published rows with a normalized status (a placeholder row the known_defects gate names, which is not a project, has none and is not counted)"},
		{Name: "requested_mw", Unit: "MW", Agg: Sum, Column: "requested_mw", Additive: true, Description: "sum of the headline requested capacity"},
		{Name: "mean_requested_mw", Unit: "MW", Agg: Avg, Column: "requested_mw", Description: "mean headline requested capacity of the projects that publish one"},
		{Name: "median_requested_mw", Unit: "MW", Agg: Median, Column: "requested_mw", Description: "median headline requested capacity of the projects that publish one (the mean of the two middle values of an even count)"},
		{Name: "requested_mw_summer", Unit: "MW", Agg: Sum, Column: "requested_mw_summer", Additive: true, Description: "sum of requested summer capacity (null where the operator publishes none)"},
		{Name: "requested_mw_winter", Unit: "MW", Agg: Sum, Column: "requested_mw_winter", Additive: true, Description: "sum of requested winter capacity (null where the operator publishes none)"},
		{Name: "requested_mw_net", Unit: "MW", Agg: Sum, Column: "requested_mw_net", Additive: true, Description: "sum of requested net capacity (null where the operator publishes none)"},
		{Name: "distinct_counties", Unit: "count", Agg: CountDistinct, Column: "county", NullNote: "county_not_published", Description: "number of distinct county values as published; rows without a county are not counted"},
		{Name: "distinct_states", Unit: "count", Agg: CountDistinct, Column: "state", NullNote: "state_not_published", Description: "number of distinct state values as published; rows without a state are not counted"},
	}
	var cols []QueueColumn
	for _, c := range s.columns {
		c.Name = QueueColumnName(c.Header)
		if taken[c.Name] {
			c.Name += "_published"
		}
		taken[c.Name] = true
		if c.Type == "" {
			c.Type = String
		}
		cols = append(cols, c)
		fields = append(fields, Field{Name: c.Name, Type: c.Type, Filter: c.Filter, GroupBy: c.Filter, Description: "published column \"" + c.Header + "\", as published"})
		// Every published numeric column is a capacity in MW, but for voltages (kV).
		if c.Type == Number && !strings.Contains(c.Header, "kV") {
			metrics = append(metrics, Metric{Name: "sum_" + c.Name, Unit: "MW", Agg: Sum, Column: c.Name, Additive: true,
				Description: "sum of the published column \"" + c.Header + "\""})
		}
	}
	queueColumns[s.id] = cols
	key := s.naturalKey
	if key == nil {
		key = []string{"sheet", "queue_id"}
	}
	rules := append([]string{
		"One row per project row the operator publishes, on every sheet; the sheet is a dimension and the normalized status says what it means.",
		"Requested MW columns are never merged: summer, winter and net are separate fields, each null where the operator does not publish it; requested_mw is the operator's headline column named in its description.",
		"status and generation_type are mapped from the published values by a table per operator; the raw values stay beside them (status_raw, generation_type_raw), and a raw value no table knows rejects the snapshot.",
		"mean_requested_mw and median_requested_mw are over the projects that publish a headline requested MW (a blank or N/A is left out, not counted as 0); the median is exact, by the linear definition (the mean of the two middle values of an even count). Neither is additive, so the (other) row of top_n shows them null.",
		"Requests of different kinds are kept apart the same way for every operator: request_kind (generation, transmission or load, from the operator's own mark) is a partition, so a total over several kinds carries a mixed_partition note; filter or group by it.",
		"Rows the known_defects gate names are kept as published and marked in known_defect: a placeholder that is not a project has no normalized status, request kind or type and is not counted in project_count; a project without a queue id is counted but not matched between snapshots. An answer that includes either, a status the operator does not publish but that is inferred (status_inferred), or, on PJM's serial queue, a project counted in the cycle queue too (moved_to_cycle), carries a note naming them with their number and how to leave them out.",
		"What changed: the query parameter compare_as_of (another served as_of, or latest) classifies every project of either snapshot by its queue_id first (entered: absent from the older; left: absent from the newer; then status changed, requested MW changed, unchanged), and the filters then select among them by their values in either snapshot (entered by the newer, left by the older, the others by either), filter values being checked against both snapshots; the answer holds the query's figures at both snapshots and the projects of each kind, each side cited to its own row. Rows without an identity (known_defect) are listed apart, under not_compared.",
		"Does not answer: the probability that a queued project is built, deliverable or accredited capacity, energy (MWh).",
	}, s.rules...)
	return register(&Capability{
		ID:          s.id,
		Path:        path,
		Title:       s.title,
		Description: s.description,
		Grain:       "one queued project row per sheet per snapshot",
		Cadence:     s.cadence,
		Publisher:   s.publisher,
		AsOfRule:    s.asOfRule,
		Documents:   queueDocuments,
		Partitions:  []string{"status", "sheet", "request_kind"},
		Flags:       append(append([]Flag{}, queueFlags...), s.flags...),
		NaturalKey:  key,
		Fields:      fields,
		Metrics:     metrics,
		DateRanges: []DateRange{
			{Name: "queue", Column: "queue_date"},
			{Name: "in_service", Column: "in_service_date"},
			{Name: "withdrawal", Column: "withdrawal_date"},
		},
		Rules: rules,
	})
}
