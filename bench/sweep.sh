#!/usr/bin/env bash
# The bulk size × clients grid of a hand-tuned CSV loader (bulk 10/100/1000 × 1/4/8/16 client
# threads, hours of runs, one number per cell), as one `searchbench sweep`: the transactions
# workload against a local OpenSearch 2.19.1 node that the sweep starts once. Each cell's runs
# are sized to measure RUN_SECS after a 1 s warm-up (sizing runs of DOCS documents, re-sized
# until the size settles), repeated until each cell's 95 % interval is within ±5 % of its
# median (3 to MAX_REPEATS runs). Prints the heatmap, every cell, the knees, the USL fit and
# the recommendation; the page and the JSON go to $OUT. Prints the wall time at the end.
#
#   bench/sweep.sh [RUN_SECS] [MAX_REPEATS] [DOCS]      default: 3s 12 100000
set -euo pipefail
cd "$(dirname "$0")/.."
RUN_SECS=${1:-3s}
MAX_REPEATS=${2:-12}
DOCS=${3:-100000}
# SEARCHBENCH_BIN: use this binary instead of building one.
SB=${SEARCHBENCH_BIN:-target/release/searchbench}
[ -n "${SEARCHBENCH_BIN:-}" ] || cargo build --release -q -p searchbench --bin searchbench
OUT=${OUT:-target/bench-sweep}
mkdir -p "$OUT"
export SEARCHBENCH_STORE="$OUT/sweep.db"

start=$(date +%s)
"$SB" sweep transactions --engine opensearch-2.19.1 --heap 1g \
  --bulk-size 10,100,1000 --clients 1,4,8,16 \
  --docs "$DOCS" --run-secs "$RUN_SECS" --warmup 1s --warmup-runs 1 \
  --ci 5% --min-repeats 3 --max-repeats "$MAX_REPEATS" \
  --html "$OUT/sweep.html" --tag bench=sweep
end=$(date +%s)
echo "wall: $(( (end - start) / 60 )) min $(( (end - start) % 60 )) s (engine start included)"
