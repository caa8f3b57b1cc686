#!/usr/bin/env bash
# End-to-end load test of a running `citeq serve` with wrk, on loopback only:
#   - time from process start to the first answered query (a grouped, cited answer, every
#     snapshot loaded), and until every served capability has answered one query;
#   - the server's resident memory after the warm-up against the bytes of the fact tables;
#   - after an unreported warm-up of WARMUP seconds (default 3):
#   - p50 and p99 latency at fixed request rates, for distinct cited queries across the
#     whole catalogue (catalog.lua, from mix.py), for distinct grouped queries with citations
#     on power.capacity and for one repeated pinned query. wrk has no constant-rate mode: each
#     connection waits a fixed delay after each response, so a rate is offered by enough
#     connections (rate / 20, at least CONNECTIONS) each waiting connections × 1000 / rate ms;
#     the achieved rate falls short of it by the share of the latency in delay + latency;
#   - the maximum throughput of each (no delay);
#   - for each line, p50 and p99 as wrk sees them (P50, P99: with wrk sharing the machine's
#     cores) and as the server's request log records them (SRV P50, SRV P99: the handler's
#     time per query);
#   - the server's resident memory against the bytes of the fact tables it loaded.
# Every request loop is bounded in time (DURATION seconds) and stops by itself.
#   bench/load.sh            (make load)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
raw=${CITEQ_RAW:-$root/../shared/data/raw}
duration=${DURATION:-10}
conns=${CONNECTIONS:-10}
rates=${RATES:-"100 500 1000"}

if ! command -v wrk >/dev/null; then
  echo "installing wrk (Debian package)" >&2
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq wrk; else sudo apt-get install -y -qq wrk; fi
fi
work=$(mktemp -d)
trap 'kill "${pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/citeq" ./cmd/citeq)
"$work/citeq" ingest --raw "$raw" --data "$work/var" >/dev/null
export CITEQ_API_KEY=$("$work/citeq" keys create --data "$work/var" --plan annual --owner load-test | grep '^cq_')
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"

# The first query: a grouped, cited answer from the capability with the most rows (its
# latest snapshot), sent as soon as the server listens; then one query to every served
# capability, one after the other.
first_path=/v1/power/price-ercot/query
first_body='{"group_by":["settlement_point"]}'
start=$(date +%s%N)
"$work/citeq" serve --data "$work/var" --addr "127.0.0.1:$port" 2>"$work/serve.log" &
pid=$!
until curl -fs -o /dev/null -H "Authorization: Bearer $CITEQ_API_KEY" -H 'Content-Type: application/json' \
  -d "$first_body" "$base$first_path" 2>/dev/null; do sleep 0.005; done
first_ms=$(( ($(date +%s%N) - start) / 1000000 ))
# A capability refusing every query on these files (a 4xx answer) has answered too; a 5xx
# or no answer stops the test.
for path in $(curl -fs "$base/v1/capabilities" | python3 -c 'import json,sys; print(" ".join(c["path"] for c in json.load(sys.stdin)["capabilities"]))'); do
  code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $CITEQ_API_KEY" -H 'Content-Type: application/json' -d '{}' "$base/v1/$path/query")
  case $code in 2??|4??) ;; *) echo "$path: HTTP $code" >&2; exit 1 ;; esac
done
all_ms=$(( ($(date +%s%N) - start) / 1000000 ))
facts=$(find "$work/var/snapshots" -name facts.parquet -printf '%s\n' | awk '{s+=$1} END {print s}')
nsnap=$(find "$work/var/snapshots" -name facts.parquet | wc -l)
python3 "$here/load/mix.py" "$base" "$work/mix.txt" >"$work/mix.out"
export CITEQ_MIX=$work/mix.txt

# run NAME SCRIPT RATE: one wrk run; RATE 0 means as fast as it goes.
run() {
  local name=$1 script=$2 rate=$3 delay=0 c=$conns
  if [ "$rate" != 0 ]; then
    c=$(( rate / 20 > conns ? rate / 20 : conns ))
    delay=$(( c * 1000 / rate ))
  fi
  local before
  before=$(wc -l <"$work/serve.log")
  CITEQ_DELAY_MS=$delay wrk -t2 -c"$c" -d"${duration}s" --latency -s "$here/load/$script" "$base" >"$work/wrk.out" 2>&1 || true
  # The server's own time per query (its request log), without wrk's share of the 2 cores.
  local server
  server=$(tail -n +"$((before + 1))" "$work/serve.log" | python3 -c '
import json, sys
l = sorted(json.loads(x)["latency_ms"] for x in sys.stdin if "/query" in x and x.startswith("{"))
print("%.2fms %.2fms" % (l[len(l) // 2], l[min(len(l) - 1, int(len(l) * 0.99))]) if l else "- -")')
  local p50 p99 rps non2xx
  p50=$(awk '$1=="50%" {print $2}' "$work/wrk.out")
  p99=$(awk '$1=="99%" {print $2}' "$work/wrk.out")
  rps=$(awk '/^Requests\/sec/ {print $2}' "$work/wrk.out")
  non2xx=$(awk '/Non-2xx/ {print $NF}' "$work/wrk.out")
  printf '%-9s %-22s %8s %10s %10s %10s %10s %8s\n' "$name" "$( [ "$rate" = 0 ] && echo max || echo "$rate/s offered")" "$rps" "$p50" "$p99" ${server} "${non2xx:-0}"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
echo "first answered query: ${first_ms} ms from start ($nsnap snapshots served); every capability answered once: ${all_ms} ms"
echo "catalogue mix: $(cat "$work/mix.out")"
# A warm-up, not reported (WARMUP seconds of each mix), as the benchmark's warm-up runs: the
# server's background column decoding, first allocations and caches settle.
wrk -t2 -c10 -d"${WARMUP:-3}s" -s "$here/load/distinct.lua" "$base" >/dev/null 2>&1 || true
wrk -t2 -c10 -d"${WARMUP:-3}s" -s "$here/load/catalog.lua" "$base" >/dev/null 2>&1 || true
rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
echo "server RSS after warm-up: $((rss / 1024)) MiB; fact tables of the $nsnap snapshots: $((facts / 1024)) KiB on disk"
printf '%-9s %-22s %8s %10s %10s %10s %10s %8s\n' QUERY RATE "REQ/S" P50 P99 "SRV P50" "SRV P99" "NON-2XX"
for rate in $rates 0; do run catalog catalog.lua "$rate"; done
for rate in $rates 0; do run distinct distinct.lua "$rate"; done
for rate in $rates 0; do run pinned pinned.lua "$rate"; done
rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
echo "server RSS: $((rss / 1024)) MiB now, $((hwm / 1024)) MiB peak; fact tables $((facts / 1024)) KiB on disk"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
