#!/usr/bin/env bash
# What a part of a `--file` load costs the driver (`--part I/N`): each part of a plain NDJSON
# file of DOCS logs documents (~1 KB each) run alone into the bulk sink
# (examples/bulk_sink.rs: the engine's CPU out of the figure), user+sys CPU and wall of the
# searchbench process (/usr/bin/time), and the whole file in one process beside. With
# BEFORE=/path/to/searchbench the same runs of another build side by side (a build from
# before the byte split counts the file's documents in a first pass, then reads up to the end
# of its share). The file stays in the page cache.
#
#   bench/parts-file.sh [DOCS] [PARTS]       (default 1,000,000 documents, 4 parts, 3 rounds)
#   BEFORE=/tmp/before/target/release/searchbench bench/parts-file.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DOCS=${1:-1000000}
PARTS=${2:-4}
ROUNDS=${ROUNDS:-3}
OUT=${OUT:-target/bench-parts-file}
BIN=${BIN:-target/release/searchbench}
mkdir -p "$OUT"
cargo build --release -q -p searchbench --bin searchbench --example bulk_sink
FILE="$OUT/logs-$DOCS.ndjson"
[ -s "$FILE" ] || target/release/searchbench generate logs --docs "$DOCS" --out "$FILE" --no-progress
target/release/examples/bulk_sink >"$OUT/sink.log" 2>&1 &
SINK=$!
trap 'kill $SINK 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q listening "$OUT/sink.log" && break; sleep 0.1; done
URL=$(sed -n 's/^listening on //p' "$OUT/sink.log")
cat "$FILE" >/dev/null # page cache
rm -f "$OUT/rows.tsv"
builds="now=$BIN"
[ -n "${BEFORE:-}" ] && builds="before=$BEFORE $builds"
for round in $(seq "$ROUNDS"); do
  for b in $builds; do
    name=${b%%=*}; bin=${b#*=}
    for p in whole $(seq "$PARTS"); do
      # One bulk client in every run: a part's share of PARTS clients.
      if [ "$p" = whole ]; then flags=(--clients 1); else flags=(--clients "$PARTS" --part "$p/$PARTS" --group g); fi
      /usr/bin/time -f "%U %S %e" -o "$OUT/time.txt" "$bin" ingest --file "$FILE" \
        --index parts-file --url "$URL" --quiet --no-store --bulk-size 1000 \
        "${flags[@]}" >/dev/null 2>"$OUT/err.txt" || { cat "$OUT/err.txt"; exit 1; }
      read -r user sys wall <"$OUT/time.txt"
      echo -e "$name\t$p\t$(python3 -c "print(round($user + $sys, 2))")\t$wall" >>"$OUT/rows.tsv"
    done
  done
  echo "round $round done"
done
python3 - "$OUT/rows.tsv" "$DOCS" "$PARTS" <<'PY'
import statistics, sys
from collections import defaultdict
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
cpu, wall = defaultdict(list), defaultdict(list)
for b, p, c, w in rows:
    cpu[(b, p)].append(float(c)); wall[(b, p)].append(float(w))
print(f"{int(sys.argv[2]):,} logs documents in one plain file, {sys.argv[3]} parts, each run alone into the sink (medians):")
print("| build | run | driver CPU s | wall s |")
print("|---|---|---|---|")
for (b, p) in sorted(cpu, key=lambda k: (k[0] != "before", k[1] != "whole", k[1])):
    print(f"| {b} | {'whole file' if p == 'whole' else 'part ' + p + '/' + sys.argv[3]} | {statistics.median(cpu[(b, p)]):.2f} | {statistics.median(wall[(b, p)]):.2f} |")
PY
