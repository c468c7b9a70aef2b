#!/usr/bin/env bash
# A/B of serve-http under load: for each binary in turn (repeated ROUNDS
# times, alternating, so both see the same machine load), start
# `serve-http` on VAULT with its default persistent index (and vectors, if
# built), wait until /ready, run bench/httpload with 50 clients for
# DURATION, stop the server. Every run prints `uptime` first, and, where
# /proc exists (Linux), the server's user+system CPU per call, which
# machine contention distorts much less than latency.
#   bench/httpab.sh VAULT DURATION ROUNDS BIN... [-- extra httpload flags]
# Example (index and embeddings built first with `enquire-mcp index` and
# `enquire-mcp build-embeddings` on the same vault):
#   bench/httpab.sh /tmp/zk 60s 2 ./old ./new
# Open loop (500 calls/s offered, latency from the scheduled send time):
#   bench/httpab.sh /tmp/zk 30s 2 ./old ./new -- --rate 500
set -euo pipefail
cd "$(dirname "$0")/.."
vault=$1 duration=$2 rounds=$3
shift 3
bins=() extra=()
while [ $# -gt 0 ]; do
  if [ "$1" = -- ]; then shift; extra=("$@"); break; fi
  bins+=("$1"); shift
done
go build -o bench/out/httpload ./bench/httpload
port=18791
export ENQUIRE_HTTP_TOKEN=$("${bins[0]}" gen-token)
tick=$(getconf CLK_TCK 2>/dev/null || echo 100)
cpu() { [ -r "/proc/$1/stat" ] && awk '{print $14 + $15}' "/proc/$1/stat" || echo 0; }
for r in $(seq "$rounds"); do
  for bin in "${bins[@]}"; do
    echo "== $bin round $r: $(uptime)"
    "$bin" serve-http --vault "$vault" --addr 127.0.0.1:$port --rate-limit 0 2>/dev/null &
    pid=$!
    for _ in $(seq 600); do
      curl -sf http://127.0.0.1:$port/ready >/dev/null 2>&1 && break
      sleep 0.2
    done
    c0=$(cpu $pid)
    out=$(bench/out/httpload --url http://127.0.0.1:$port/mcp --vault "$vault" --pid $pid \
      --clients 50 --duration "$duration" --seed "$r" "${extra[@]}" 2>&1 || true)
    c1=$(cpu $pid)
    echo "$out"
    calls=$(echo "$out" | grep -o 'calls [0-9]*' | head -1 | cut -d' ' -f2)
    awk -v t=$((c1 - c0)) -v hz="$tick" -v n="${calls:-0}" 'BEGIN { if (n > 0 && t > 0) printf "server CPU %.1f s for %d calls: %.2f ms/call\n", t / hz, n, 1000 * t / hz / n }'
    kill $pid; wait $pid 2>/dev/null || true
  done
done
echo "== end: $(uptime)"
