#!/usr/bin/env bash
# Server CPU per call under load: like httpab.sh (alternating binaries,
# 50 clients of bench/httpload), but it also reads the server's user+system
# CPU time from /proc before and after the run and prints CPU ms per call,
# which machine contention distorts much less than latency. Linux only.
#   bench/httpcpu.sh VAULT DURATION ROUNDS BIN...
# Example: bench/httpcpu.sh /tmp/zk 30s 2 ./old ./new
set -euo pipefail
cd "$(dirname "$0")/.."
vault=$1 duration=$2 rounds=$3
shift 3
go build -o bench/out/httpload ./bench/httpload
port=18792
tick=$(getconf CLK_TCK)
export ENQUIRE_HTTP_TOKEN=$("$1" gen-token)
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
for r in $(seq "$rounds"); do
  for bin in "$@"; do
    echo "== $bin round $r: $(uptime)"
    "$bin" serve-http --vault "$vault" --addr 127.0.0.1:$port --rate-limit 0 2>/dev/null &
    pid=$!
    for _ in $(seq 600); do
      curl -sf http://127.0.0.1:$port/ready >/dev/null 2>&1 && break
      sleep 0.2
    done
    c0=$(cpu $pid)
    out=$(bench/out/httpload --url http://127.0.0.1:$port/mcp --vault "$vault" --clients 50 --duration "$duration" --seed "$r" 2>&1 || true)
    c1=$(cpu $pid)
    echo "$out" | grep -E 'throughput|^search'
    calls=$(echo "$out" | grep -o 'calls [0-9]*' | head -1 | cut -d' ' -f2)
    awk -v t=$((c1 - c0)) -v hz="$tick" -v n="${calls:-0}" 'BEGIN { if (n > 0) printf "server CPU %.1f s for %d calls: %.2f ms/call\n", t / hz, n, 1000 * t / hz / n }'
    kill $pid; wait $pid 2>/dev/null || true
  done
done
echo "== end: $(uptime)"
