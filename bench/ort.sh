#!/usr/bin/env bash
# Benchmarks of the ort build with random-weight models of
# all-MiniLM-L6-v2's shape (fp32; bench/ortmodel), against the pure-Go
# built-in model in the same run:
#   1. build-embeddings on a vault: chunks/s (ort, the default binary's
#      pure-Go encoder on the same model, and builtin);
#   2. the ort package's go benchmarks: ~200-token chunks, a ~10-token
#      query (both also in the pure-Go encoder, same run), reranking 50
#      passages of ~200 tokens;
#   3. peak RSS of `serve` with the embedding model (and with RERANK=1
#      the reranker too) loaded, answering one obsidian_search.
# ONNX Runtime comes from $ENQUIRE_ORT_LIB, else from the npm package
# onnxruntime-node@1.30.0 (npm pack + tar, no install scripts).
# With REAL_MODEL=DIR (an installed all-MiniLM-L6-v2: install-model
# --from, see README) steps 1 and 3 run the real weights too, in the
# same run.
# Usage: bench/ort.sh [VAULT]   (default: the kepano vault of the datasets)
set -euo pipefail
cd "$(dirname "$0")/.."
vault=${1:-/work/shared/datasets/vaults/kepano}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "${ENQUIRE_ORT_LIB:-}" ]; then
  (cd "$tmp" && timeout 300 npm pack --silent onnxruntime-node@1.30.0 >/dev/null && tar xzf onnxruntime-node-1.30.0.tgz)
  export ENQUIRE_ORT_LIB="$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1"
fi
echo "machine: $(nproc) cores; load: $(uptime | sed 's/.*load average: //')"
CGO_ENABLED=1 go build -tags ort -o "$tmp/enquire-mcp" ./cmd/enquire-mcp
CGO_ENABLED=0 go build -o "$tmp/enquire-mcp-purego" ./cmd/enquire-mcp
go run ./bench/ortmodel -out "$tmp/models" >/dev/null

echo "--- build-embeddings on $vault"
for model in builtin "$tmp/models/minilm" ${REAL_MODEL:+"$REAL_MODEL"}; do
  rm -f "$tmp/ix.db"
  "$tmp/enquire-mcp" index --vault "$vault" --index-file "$tmp/ix.db" >/dev/null
  echo "$model: $("$tmp/enquire-mcp" build-embeddings --vault "$vault" --index-file "$tmp/ix.db" --embedding-model "$model" | grep -E 'took|truncated' | tr '\n' ' ')"
done
# The same model in the default (CGO_ENABLED=0) binary: the pure-Go encoder.
rm -f "$tmp/ix.db"
"$tmp/enquire-mcp-purego" index --vault "$vault" --index-file "$tmp/ix.db" >/dev/null
echo "pure Go $tmp/models/minilm: $("$tmp/enquire-mcp-purego" build-embeddings --vault "$vault" --index-file "$tmp/ix.db" --embedding-model "$tmp/models/minilm" | grep -E 'took|truncated' | tr '\n' ' ')"

echo "--- go benchmarks (load: $(uptime | sed 's/.*load average: //'))"
CGO_ENABLED=1 go test -tags ort -run XXX -bench . -benchtime "${BENCHTIME:-3x}" -count "${COUNT:-1}" ./embed/onnx/ | grep -E '^Benchmark'

echo "--- serve: peak RSS with the embedding model${RERANK:+ and the reranker} (load: $(uptime | sed 's/.*load average: //'))"
req='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"obsidian_search","arguments":{"query":"how do I organise my notes","limit":10}}}'
# stdin stays open until the search is answered: at end of input serve
# cancels what is still running.
: >"$tmp/serve.out"
{ printf '%s\n' "$req"; until grep -q '"id":2' "$tmp/serve.out"; do sleep 1; done; } |
  /usr/bin/time -f 'serve: peak RSS %M KiB, %e s wall' "$tmp/enquire-mcp" serve --vault "$vault" \
  --index-file "$tmp/ix.db" --embedding-model "$tmp/models/minilm" ${RERANK:+--rerank "$tmp/models/minilm-cross"} --watch=false \
  2>"$tmp/serve.err" >"$tmp/serve.out" || { cat "$tmp/serve.err"; exit 1; }
grep 'peak RSS' "$tmp/serve.err"
if [ -n "${RERANK:-}" ]; then
  grep -q '"rerank":{' "$tmp/serve.out" && echo "serve: the search reply carries per_signal.rerank" || { echo "serve: no rerank in the reply" >&2; cat "$tmp/serve.out" >&2; exit 1; }
else
  grep -q '"embeddings":{' "$tmp/serve.out" && echo "serve: the search used the embeddings" || { echo "serve: no embeddings in the reply" >&2; exit 1; }
fi
