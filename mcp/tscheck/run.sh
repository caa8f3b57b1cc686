#!/usr/bin/env bash
# Starts citeq on a free loopback port over a freshly ingested data directory and runs the
# TypeScript SDK check against it at both protocol revisions: 2025-11-25 with the v1 SDK and
# 2026-07-28 with the v2 client. Installs the SDKs (pinned in package-lock.json) when absent.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
raw=${CITEQ_RAW:-$root/../shared/data/raw}
command -v node >/dev/null || { echo "node is required (apt-get install nodejs npm)"; exit 1; }
[ -d "$here/node_modules/@modelcontextprotocol/sdk" ] && [ -d "$here/node_modules/@modelcontextprotocol/client" ] ||
  (cd "$here" && npm ci --no-audit --no-fund --silent)

work=$(mktemp -d)
trap 'kill "${pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/citeq" ./cmd/citeq)
"$work/citeq" ingest --raw "$raw" --data "$work/var" >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 18765)
# The operator key keeps both checks' queries clear of the free quota.
"$work/citeq" serve --data "$work/var" --addr "127.0.0.1:$port" --operator-key "$work/operator.key" >/dev/null 2>"$work/serve.log" &
pid=$!
for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:$port/v1/health" >/dev/null 2>&1 && break
  sleep 0.1
done
key=$(cat "$work/operator.key")
status=0
for revision in 2025-11-25 2026-07-28; do
  node "$here/check.mjs" "http://127.0.0.1:$port" "$revision" "$key" || status=1
done
exit $status
