#!/usr/bin/env bash
# Search quality on the shared BEIR datasets, every signal combination, and
# the ireval.py cross-check of the default configuration's run.
#   bench/quality.sh [SHARED_DIR]   (default: ../shared next to the repo)
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${1:-../shared}
out=bench/out
mkdir -p "$out"
go build -o "$out/enquire-mcp" ./cmd/enquire-mcp
for ds in scifact cranfield enquire-bench; do
  echo "## $ds (test split)"
  "$out/enquire-mcp" eval "$shared/datasets/$ds" --matrix "${@:2}"
  "$out/enquire-mcp" eval "$shared/datasets/$ds" --run "$out/$ds.trec" --json > "$out/$ds.json"
  echo "ireval.py on the default run: $(python3 "$shared/tools/ireval.py" eval "$shared/datasets/$ds" "$out/$ds.trec")"
  echo
done
