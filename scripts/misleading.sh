#!/usr/bin/env bash
# The ten questions of a new user's first hour that got answers a reader could misread, asked
# again of a citeq server this script starts on the data directory (DATA, default var; it is
# ingested first when it holds no snapshot), with each answer's figures and every note it
# carries. Nothing is checked here: the notes are printed for a person to read (the tests
# check them). A question whose parameters this version does not know is printed with the
# server's refusal, and the next one is asked.
#   scripts/misleading.sh        (make misleading; BIN, DATA and RAW as for make run)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin=${BIN:-bin/citeq}
data=${DATA:-var}
raw=${RAW:-${CITEQ_RAW:-../shared/data/raw}}
for tool in curl jq; do
	command -v "$tool" >/dev/null || { echo "misleading: $tool is needed (make test uses it too)" >&2; exit 1; }
done
if [ ! -s "$data/catalog.json" ]; then
	echo "== misleading: $data holds no snapshot yet: ingesting $raw"
	"$bin" ingest --raw "$raw" --data "$data" >/dev/null || exit 1
fi
log=$(mktemp)
trap 'kill "${pid:-}" 2>/dev/null; rm -f "$log"' EXIT
# Port 0: the server takes a free port and says which.
"$bin" serve --data "$data" --addr 127.0.0.1:0 --operator-key "$data/operator.key" >"$log" 2>/dev/null &
pid=$!
server=
for _ in $(seq 1 600); do
	server=$(sed -n 's/^serving .* at \(http:[^ ]*\) .*/\1/p' "$log")
	[ -n "$server" ] && break
	kill -0 "$pid" 2>/dev/null || { echo "misleading: the server did not start:" >&2; cat "$log" >&2; exit 1; }
	sleep 0.1
done
[ -n "$server" ] || { echo "misleading: the server did not start within a minute" >&2; exit 1; }
key=$(cat "$data/operator.key")
echo "== misleading: asking $server (as_of latest of each capability)"

n=0
ask() { # ask QUESTION PATH_AND_QUERY
	n=$((n + 1))
	echo
	echo "== $n. $1"
	echo "   GET /v1/$2"
	body=$(curl -s -H "Authorization: Bearer $key" "$server/v1/$2")
	if ! jq -e . >/dev/null 2>&1 <<<"$body"; then
		echo "   (no JSON answer: $body)"
		return
	fi
	jq -r '
	  def show: if type == "number" then (. * 1000 | round / 1000 | tostring) else tostring end;
	  if .error then "   refused: \(.error.code): \(.error.message)"
	  else
	    "   as_of \(.as_of); \(.summary.matched_source_rows) rows matched; totals: "
	      + ([.summary.totals | to_entries[] | "\(.key) \(.value | show)"] | join(", ")),
	    (if (.rows | length) > 1 then
	       (.rows[:12][] | "   row \(.group | to_entries | map("\(.key)=\(.value)") | join(" ")): "
	         + ([.metrics | to_entries[:3][] | "\(.key) \(.value | show)"] | join(", "))
	         + (if .notes then " [" + ([.notes[].code] | unique | join(", ")) + "]" else "" end))
	     else empty end),
	    (if (.summary.notes | length) == 0 then "   notes: none" else "   notes:" end),
	    (.summary.notes[] | "   - \(.code)\(if .metric then " (" + .metric + ")" else "" end): \(.message)"),
	    ([.rows[] | select(.notes) | .notes[]] | unique_by(.code)[] | "   - row note \(.code)\(if .metric then " (" + .metric + ")" else "" end), e.g.: \(.message)")
	  end' <<<"$body"
}

ask "ERCOT day-ahead price at HB_NORTH in 2024" "power/price-ercot/query?settlement_point=HB_NORTH&year=2024"
ask "ISO-NE active requests by generation type (a null type)" "power/interconnection-queue-isone/query?status=active&group_by=generation_type"
ask "PJM active serial-queue requests (ids moved to the cycle queue)" "power/interconnection-queue-pjm/query?status=active"
ask "MISO active requests: projects and states (MSG KEEP, AK, Michigan)" "power/interconnection-queue/query?status=active"
ask "MISO active requests by generation type (a null group)" "power/interconnection-queue/query?status=active&group_by=generation_type"
ask "Data center construction since January 2025 (SAAR)" "ai-infrastructure/construction/query?line=Data%20center&observation_date_from=2025-01"
ask "Share of all companies using autonomous systems and robotics" "robotics/adoption/query?technology=Autonomous%20systems%20and%20robotics&response=using&industry=All%20industries"
ask "States ranked by the 2022 gas price for power (unequal months)" "natural-gas/prices/query?atom=state_electric_power_monthly&year=2022&group_by=area&order_by=avg_price&top_n=10"
ask "Capacity factor of the plants served" "power/capacity-factor/query"
ask "U.S. gas price for power in June 2022 (N3045US3)" "natural-gas/prices/query?atom=us_electric_power_monthly&month=2022-06"
