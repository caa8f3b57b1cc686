package api

import (
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/service"
)

// oaFreshnessSchema is the OpenAPI schema of the freshness member.
func oaFreshnessSchema() service.Obj {
	ts := func(desc string) service.Obj {
		return service.Obj{{"type", []string{"string", "null"}}, {"format", "date-time"}, {"description", desc + " (UTC; null when unknown)"}}
	}
	source := oaObject("A source of the capability: checked on its publisher's cadence at its official addresses, or (checked false) placed by hand with no address to check.", service.Obj{
		{"source_id", oaStr("the source id its citations carry")},
		{"publisher", oaStr("")},
		{"checked", oaBoolean("false for a source with no official address to check (its files are placed by hand): never judged stale")},
		{"reason", oaStr("checked false: why")},
		{"cadence", oaStr("how often the publisher releases a new version")},
		{"check", oaStr("when it is checked")},
		{"addresses", oaArray(service.Obj{{"type", "string"}}, "the official addresses checked")},
		{"last_checked", ts("the last check")},
		{"last_succeeded", ts("the last check that did not fail")},
		{"last_changed", ts("when the publisher released the version held: its Last-Modified date, else when a check first found it")},
		{"next_check", ts("the next check")},
		{"consecutive_failures", oaInteger("checks failed in a row")},
		{"last_error", service.Obj{{"type", []string{"string", "null"}}, {"description", "the last failed check's error"}}},
		{"stale", oaBoolean("")},
		{"stale_reason", oaStr("present when stale")},
	}, "source_id", "checked")
	return oaObject("How fresh the capability is: present when the server knows of a sync loop (citeq serve, with or without --sync).", service.Obj{
		{"sync", oaStr("whether a sync loop checks the sources in this server")},
		{"stale", oaBoolean("true when a source's checks have failed past the threshold, its publisher is overdue, or it is no longer checked; answers over the latest snapshot then carry a " + service.NoteStale + " note")},
		{"stale_reasons", oaArray(service.Obj{{"type", "string"}}, "present when stale: each reason, naming its source")},
		{"last_checked", ts("the least recent of the sources' last checks: every source was checked since")},
		{"last_changed", ts("the most recent release among the sources")},
		{"next_check", ts("the soonest next check")},
		{"sources", oaArray(source, "")},
	}, "sync", "stale", "last_checked", "last_changed", "next_check", "sources")
}

// oaJoinKeys is the schema of a capability's join_keys member.
func oaJoinKeys() service.Obj {
	return oaObject("fields whose values come from a vocabulary shared across capabilities (join_key_vocabulary of /v1/capabilities): combine two answers only on fields of one key", service.Obj{
		{"keys", oaMapOf(oaStr(""), "field → join key")},
		{"names_only", oaMapOf(oaObject("", service.Obj{{"names", oaStr("what the printed name names")}, {"join_on", oaStr("the key to join on instead, where a capability gives it")}}, "names"), "field → a name without a code")},
	}, "keys", "names_only")
}

// oaFlagNoteMembers are the members of a flag's note (flagNotes) for the Note schema, but
// field, which other notes have too.
func oaFlagNoteMembers() service.Obj {
	return service.Obj{
		{"value", service.Obj{{"type", []string{"string", "boolean"}}, {"description", "a flag's note: the field's value on those rows"}}},
		{"sum_field", oaStr("a flag's note: the field summed over the rows named")},
		{"sum", service.Obj{{"type", []string{"number", "null"}}, {"description", "a flag's note: the sum of sum_field over the rows named (null when none publishes it)"}}},
		{"date_field", oaStr("a flag's note: the date field the rows named are dated by")},
		{"dated_before_as_of", oaInteger("a flag's note: the rows named whose date_field is before the snapshot's as_of")},
	}
}

// oaPageMembers are the summary members of a page in the OpenAPI document.
func oaPageMembers() []service.KV {
	return []service.KV{
		{capability.ParamCursor, oaStr("the cursor this page was asked with")},
		{"next_cursor", oaStr("present when more follow: the cursor of the next page")},
		{"next_page", oaStr("present when more follow: how to ask for the next page")},
	}
}
