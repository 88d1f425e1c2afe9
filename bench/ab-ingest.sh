#!/usr/bin/env bash
# Did a change to searchbench make its driver slower? Two builds of searchbench, BEFORE and
# AFTER (git revisions), load the same corpus in paired rounds, their order alternating round
# by round so that the machine's drift falls on both alike:
#
#   1. into the bulk sink (examples/bulk_sink.rs, indexes nothing), driver pinned to one core
#      and the sink to the other: the driver's own ceiling;
#   2. into one local OpenSearch node started once for all rounds: what a user sees.
#
# Per side and target it prints the median docs/s and driver CPU seconds per million
# documents, and AFTER's ratio to BEFORE.
#
#   bench/ab-ingest.sh BEFORE [AFTER]        AFTER defaults to HEAD
#   ROUNDS=5 SINK_DOCS=5000000 NODE_DOCS=1000000 bench/ab-ingest.sh 0886cd8 HEAD
#   TARGETS=sink ROUNDS=9 bench/ab-ingest.sh d45e0f8      the bulk sink only
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE=${1:?usage: bench/ab-ingest.sh BEFORE [AFTER]}
AFTER=${2:-HEAD}
ROUNDS=${ROUNDS:-5}
SINK_DOCS=${SINK_DOCS:-5000000}
NODE_DOCS=${NODE_DOCS:-1000000}
CLIENTS=${CLIENTS:-2}
TARGETS=${TARGETS:-sink node}
ENGINE=${ENGINE:-opensearch-2.19.1}
DRIVER_CORE=${DRIVER_CORE:-0}
SINK_CORE=${SINK_CORE:-1}
OUT=${OUT:-target/bench-ab}
mkdir -p "$OUT"

# One build per revision, from a clean export of it; the build folder is shared, so only
# searchbench itself is compiled twice.
build() {
  local label=$1 rev=$2 src="$OUT/src-$1"
  rm -rf "$src" && mkdir -p "$src"
  git archive "$rev" | tar -x -C "$src"
  (cd "$src" && CARGO_TARGET_DIR="$PWD/../build" cargo build --release -q -p searchbench \
    --bin searchbench --example bulk_sink)
  cp "$OUT/build/release/searchbench" "$OUT/searchbench-$label"
  cp "$OUT/build/release/examples/bulk_sink" "$OUT/bulk_sink-$label"
  echo "$label = $(git rev-parse --short "$rev")"
}
build before "$BEFORE"
build after "$AFTER"

taskset -c "$SINK_CORE" "$OUT/bulk_sink-after" >"$OUT/sink.log" 2>&1 &
SINK=$!
NODE_PORT=""
cleanup() {
  kill "$SINK" 2>/dev/null || true
  if [ -n "$NODE_PORT" ]; then
    "$OUT/searchbench-after" engine stop --port "$NODE_PORT" >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT
for _ in $(seq 50); do grep -q listening "$OUT/sink.log" && break; sleep 0.1; done
SINK_URL=$(sed -n 's/^listening on //p' "$OUT/sink.log")

if [[ " $TARGETS " == *" node "* ]]; then
  "$OUT/searchbench-after" engine start "$ENGINE" --heap 1g --json >"$OUT/node.json"
  NODE_URL=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' "$OUT/node.json")
  NODE_PORT=${NODE_URL##*:}
  NODE_PORT=${NODE_PORT%%/*}
fi

rm -f "$OUT"/rows.tsv
# <side> <target> <round>: one load, its figures appended to rows.tsv.
one() {
  local side=$1 target=$2 round=$3 json="$OUT/$1-$2-$3.json"
  if [ "$target" = sink ]; then
    taskset -c "$DRIVER_CORE" "$OUT/searchbench-$side" ingest logs --docs "$SINK_DOCS" \
      --clients "$CLIENTS" --url "$SINK_URL" --quiet --no-store --export-json "$json" >/dev/null
  else
    "$OUT/searchbench-$side" ingest logs --docs "$NODE_DOCS" --clients "$CLIENTS" \
      --bulk-size 1000 --url "$NODE_URL" --index ab-ingest --replace --quiet --no-store \
      --export-json "$json" >/dev/null
  fi
  python3 - "$json" "$side" "$target" "$round" >>"$OUT/rows.tsv" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(sys.argv[2], sys.argv[3], r["docs_per_sec"], r["cpu"]["driver_secs_per_million_docs"],
      sys.argv[4], sep="\t")
PY
}
for round in $(seq "$ROUNDS"); do
  for target in $TARGETS; do
    if [ $((round % 2)) = 1 ]; then order="before after"; else order="after before"; fi
    for side in $order; do one "$side" "$target" "$round"; done
  done
  echo "round $round of $ROUNDS done"
done

python3 - "$OUT/rows.tsv" "$ROUNDS" <<'PY'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
def col(side, target, c):
    return {r[4]: float(r[c]) for r in rows if r[0] == side and r[1] == target}
print(f"{sys.argv[2]} paired rounds: medians before -> after, and the median of the rounds' "
      "after/before ratios")
for target in sorted({r[1] for r in rows}, reverse=True):
    out = [target + ":"]
    for c, what, fmt in ((2, "docs/s", ",.0f"), (3, "driver CPU s per 1M docs", ".3f")):
        b, a = col("before", target, c), col("after", target, c)
        ratios = [a[k] / b[k] for k in b if k in a]
        out.append(f"{what} {statistics.median(b.values()):{fmt}} -> "
                   f"{statistics.median(a.values()):{fmt}} (paired {statistics.median(ratios):.3f})")
    print(" ".join(out[:1]), "; ".join(out[1:]))
PY
