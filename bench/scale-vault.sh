#!/usr/bin/env bash
# Generates the scale vault (107,320 notes by default): the zettelkasten vault
# copied 8 times into sub-folders. It writes under /tmp (never into the
# repository) and prints the vault path.
#
#   bash bench/scale-vault.sh [COPIES] [OUT]   # defaults: 8, /tmp/enquire-scale-vault
set -euo pipefail
src=/work/shared/datasets/vaults/zettelkasten
copies=${1:-8}
out=${2:-/tmp/enquire-scale-vault}
case "$out" in
/tmp/*) ;;
*) echo "scale-vault: OUT must be under /tmp" >&2; exit 2 ;;
esac
rm -rf "$out"
mkdir -p "$out"
for i in $(seq 1 "$copies"); do
	mkdir -p "$out/copy$i"
	# Notes only: the copies' .obsidian folders would just be skipped.
	(cd "$src" && find . -name '*.md' -not -path './.obsidian/*' -print0 | xargs -0 cp --parents -p -t "$out/copy$i")
done
echo "$out: $(find "$out" -name '*.md' | wc -l) notes" >&2
echo "$out"
