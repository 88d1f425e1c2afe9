#!/usr/bin/env bash
# One run split in parts (`--part I/N --group ID`): 1, 2 and 4 parts of the same load started
# together (`--start-at`) on this machine against one local OpenSearch node, the whole run's
# clients divided between the parts. On one machine the parts share its two cores with the
# node: the point is that the totals add up (every document once, the group's throughput the
# one node's), not that more parts go faster. Per layout: each part's docs/s and driver CPU,
# and the group's documents, span (first part's start to last part's end), docs/s and driver
# CPU; then `results merge` of the group: its state and headline docs/s (each part's steady
# window summed over the group's, the warm-up left out), and how long the merge took.
#
#   bench/parts.sh [DOCS]          (default 1,000,000 logs documents, 4 clients in all, 3 rounds)
#   ROUNDS=2 CLIENTS=8 bench/parts.sh 2000000
set -euo pipefail
cd "$(dirname "$0")/.."
DOCS=${1:-1000000}
CLIENTS=${CLIENTS:-4}
ROUNDS=${ROUNDS:-3}
ENGINE=${ENGINE:-opensearch-2.19.1}
OUT=${OUT:-target/bench-parts}
BIN=${BIN:-target/release/searchbench}
mkdir -p "$OUT"
[ -n "${NO_BUILD:-}" ] || cargo build --release -q -p searchbench --bin searchbench
"$BIN" engine start "$ENGINE" --heap 1g --json >"$OUT/node.json"
URL=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' "$OUT/node.json")
PORT=${URL##*:}
PORT=${PORT%%/*}
trap '"$BIN" engine stop --port "$PORT" >/dev/null 2>&1 || true' EXIT
rm -f "$OUT"/*.json.part "$OUT/rows.tsv" "$OUT/results.db"*
for round in $(seq "$ROUNDS"); do
  # The first load on a fresh node is the slowest (its JIT warms up): the order turns round
  # by round so that no layout always goes first.
  if [ $((round % 2)) = 1 ]; then order="1 2 4"; else order="4 2 1"; fi
  for n in $order; do
    curl -s -XDELETE "$URL/parts" >/dev/null
    at=$(date -u -d "@$(( $(date +%s) + 3 ))" +%Y-%m-%dT%H:%M:%SZ)
    pids=()
    for i in $(seq "$n"); do
      "$BIN" ingest logs --docs "$DOCS" --index parts --url "$URL" --clients "$CLIENTS" \
        --bulk-size 1000 --part "$i/$n" --group "bench-$n-$round" --start-at "$at" --quiet \
        --store "$OUT/results.db" --export-json "$OUT/$n-$i-$round.json" >/dev/null 2>&1 &
      pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; done
    t0=$(date +%s.%N)
    "$BIN" results merge "bench-$n-$round" --store "$OUT/results.db" --json \
      >"$OUT/merged-$n-$round.json" 2>/dev/null || true
    merge_secs=$(python3 -c "import sys; print(round($(date +%s.%N) - $t0, 3))")
    count=$(curl -s -XPOST "$URL/parts/_refresh" >/dev/null; curl -s "$URL/parts/_count" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])')
    python3 - "$OUT" "$n" "$round" "$count" "$merge_secs" >>"$OUT/rows.tsv" <<'PY'
import json, sys
out, n, rnd, count, merge_secs = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
# One part is a whole run (`--part 1/1`): nothing to merge.
text = open(f"{out}/merged-{n}-{rnd}.json").read()
merged = json.loads(text) if text.strip() else {"state": "-", "result": {"docs_per_sec": 0}}
parts = [json.load(open(f"{out}/{n}-{i}-{rnd}.json")) for i in range(1, n + 1)]
start = min(p["started_unix"] for p in parts)
end = max(p["started_unix"] + p["wall_secs"] for p in parts)
docs = sum(p["counts"]["indexed"] for p in parts)
cpu = sum(p["cpu"]["driver_secs"] for p in parts)
each = " ".join("%.0f/%.1f" % (p["docs_per_sec"], p["cpu"]["driver_secs"]) for p in parts)
print(n, rnd, docs, count, end - start, docs / (end - start), cpu, each,
      merged["state"], merged["result"]["docs_per_sec"], merge_secs, sep="\t")
PY
    echo "$n part(s), round $round done"
  done
done
python3 - "$OUT/rows.tsv" "$DOCS" "$CLIENTS" <<'PY'
import sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
print(f"{int(sys.argv[2]):,} logs documents, {sys.argv[3]} clients in all, one node:")
print("| parts | documents indexed (index _count) | span s | group docs/s | driver CPU s, all parts | each part: docs/s / driver CPU s | merged: state, headline docs/s | merge s |")
print("|---|---|---|---|---|---|---|---|")
for r in rows:
    print(f"| {r[0]} | {int(r[2]):,} ({int(r[3]):,}) | {float(r[4]):.1f} | {float(r[5]):,.0f} | {float(r[6]):.2f} | {r[7].strip()} | {r[8]}, {float(r[9]):,.0f} | {r[10]} |")
PY
