#!/usr/bin/env bash
# Speed and memory on the shared real vaults (in process and over MCP
# stdio), then the hot-path Go benchmarks.
#   bench/speed.sh [SHARED_DIR]   (default: ../shared next to the repo)
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${1:-../shared}
out=bench/out
mkdir -p "$out"
go build -o "$out/enquire-mcp" ./cmd/enquire-mcp
for v in zettelkasten obsidian-help-en obsidian-help-zh kepano uni-lecture-notes; do
  go run ./bench/vaultbench -vault "$shared/datasets/vaults/$v" -bin "$out/enquire-mcp" -index -embeddings $([ "$v" = uni-lecture-notes ] && echo -pdfs)
  echo
done
go test ./analysis ./rankers ./graph -run NONE -bench . -count 6 -benchmem | tee "$out/hotpaths.txt"
ENQUIRE_BENCH_VAULT="$shared/datasets/vaults/zettelkasten" go test ./bench -run NONE -bench . -count 6 -benchtime 20x -benchmem | tee "$out/vault.txt"
ENQUIRE_BENCH_VAULT="$shared/datasets/vaults/zettelkasten" go test ./tools -run NONE -bench 'BenchmarkTools$' -benchtime 300x -count 3 | tee "$out/tools.txt"
