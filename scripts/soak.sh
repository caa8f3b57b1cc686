#!/usr/bin/env bash
# Soak test of `citeq serve` on loopback: SOAK_DURATION (default 10m) at SOAK_RATE requests a
# second (default 50) of mixed requests (scripts/soak), with the server's resident memory and
# open files sampled every second; fails unless both stay flat.
#   scripts/soak.sh        (make soak)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
raw=${CITEQ_RAW:-$root/../shared/data/raw}
work=$(mktemp -d)
trap 'kill "${pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/citeq" ./cmd/citeq && go build -o "$work/soak" ./scripts/soak)
"$work/citeq" ingest --raw "$raw" --data "$work/var" >/dev/null
export CITEQ_API_KEY=$("$work/citeq" keys create --data "$work/var" --plan annual --owner soak | grep '^cq_')
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$work/citeq" serve --data "$work/var" --addr "127.0.0.1:$port" 2>"$work/serve.log" &
pid=$!
until curl -fs "http://127.0.0.1:$port/v1/health" >/dev/null 2>&1; do sleep 0.05; done
"$work/soak" -server "http://127.0.0.1:$port" -pid "$pid" -duration "${SOAK_DURATION:-10m}" -rate "${SOAK_RATE:-50}"
