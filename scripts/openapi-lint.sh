#!/usr/bin/env bash
# Lints an OpenAPI document with Redocly CLI (pinned in scripts/package.json and
# package-lock.json, installed into scripts/node_modules with npm ci on first use) under the
# rules of scripts/redocly.yaml. Exits non-zero when the document has errors; warnings are
# printed but do not fail.
#
#   scripts/openapi-lint.sh path/to/openapi.json
set -euo pipefail

if [ "$#" -ne 1 ]; then
	echo "usage: $0 OPENAPI_FILE" >&2
	exit 2
fi
file=$1
if [ ! -f "$file" ]; then
	echo "$0: $file: no such file" >&2
	exit 2
fi

dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
redocly="$dir/node_modules/.bin/redocly"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	echo "$0: node and npm are needed to run Redocly CLI (scripts/package.json)" >&2
	exit 2
fi
want=$(node -p "require('$dir/package-lock.json').packages['node_modules/@redocly/cli'].version")
have=$(node -p "try { require('$dir/node_modules/@redocly/cli/package.json').version } catch (e) { '' }")
if [ ! -x "$redocly" ] || [ "$have" != "$want" ]; then
	echo "installing @redocly/cli $want into $dir/node_modules" >&2
	npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >&2
fi

# No telemetry, no update check: the result depends on the document and the pinned version only.
export REDOCLY_TELEMETRY=off
export REDOCLY_SUPPRESS_UPDATE_NOTICE=true

exec "$redocly" lint --config "$dir/redocly.yaml" --format=codeframe "$file"
