#!/usr/bin/env bash
# The yardstick for a cold `enquire-mcp index`: the sqlite3 CLI's raw
# FTS5 build of the same Markdown files (path and whole text per row,
# the index's tokenizer, one transaction), timed against a cold index of
# the same vault in the same run, alternating, so both see the same
# machine.
#   bench/fts5-baseline.sh VAULT [ROUNDS] [ENQUIRE_BINARY]
# Prints one line per round and the median ratio index/sqlite3.
set -euo pipefail
vault=$(cd "$1" && pwd -P)
rounds=${2:-5}
bin=${3:-}
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not found (apt-get install sqlite3)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$bin" ]; then
  bin=$tmp/enquire-mcp
  (cd "$(dirname "$0")/.." && go build -o "$bin" ./cmd/enquire-mcp)
fi
# fsdir() and the FTS5 module are part of the sqlite3 shell; the same
# tokenizer as index.Tokenizer.
cat >"$tmp/fts5.sql" <<'SQL'
PRAGMA journal_mode = WAL;
CREATE VIRTUAL TABLE fts USING fts5(path, body, tokenize = 'porter unicode61 remove_diacritics 2');
BEGIN;
INSERT INTO fts(path, body)
  SELECT name, CAST(data AS TEXT) FROM fsdir('.')
  WHERE name LIKE '%.md' AND name NOT LIKE '%/.%';
COMMIT;
SELECT count(*) FROM fts;
SQL
now() { date +%s.%N; }
ratios=()
for r in $(seq "$rounds"); do
  rm -f "$tmp"/fts5.db* "$tmp"/ix.db*
  t0=$(now)
  rows=$(cd "$vault" && sqlite3 "$tmp/fts5.db" <"$tmp/fts5.sql" | tail -1)
  t1=$(now)
  "$bin" index --vault "$vault" --index-file "$tmp/ix.db" >/dev/null 2>&1
  t2=$(now)
  s=$(echo "$t1 - $t0" | bc -l); i=$(echo "$t2 - $t1" | bc -l); q=$(echo "$i / $s" | bc -l)
  printf 'round %d: sqlite3 FTS5 %.3f s (%s rows), enquire-mcp index %.3f s, ratio %.2f\n' "$r" "$s" "$rows" "$i" "$q"
  ratios+=("$q")
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "median ratio index/sqlite3: %.2f over %d rounds\n", m, NR}'
