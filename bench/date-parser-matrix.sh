#!/usr/bin/env bash
# Issue 61: did the date-parsing share of an Elasticsearch node's CPU fall with 8.15's
# hand-written ISO parser? `matrix --profile` over the two releases, interleaved, three rounds,
# each run a fresh node (8 GiB heap, as field note 000 ran) indexing the logs workload; then
# the profile's category shares as history metrics, each release's median with the 95 %
# interval of its mean and each step's difference with its interval.
#
#   bench/date-parser-matrix.sh [DOCS] [ENGINES] [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
DOCS=${1:-1000000}
ENGINES=${2:-elasticsearch-8.14.3,elasticsearch-8.15.0}
REPEATS=${3:-3}
SB=${SEARCHBENCH_BIN:-target/release/searchbench}
[ -n "${SEARCHBENCH_BIN:-}" ] || cargo build --release -q -p searchbench --bin searchbench
OUT=${OUT:-target/bench-date-parser-matrix}
rm -rf "$OUT" && mkdir -p "$OUT"
"$SB" matrix logs --engines "$ENGINES" --repeats "$REPEATS" --docs "$DOCS" --heap 8g \
  --no-query --profile --quiet --color never --store "$OUT/results.db" | tee "$OUT/matrix.txt"
id=$(sed -n 's/^matrix \([0-9a-f]*\): .*again with.*/\1/p' "$OUT/matrix.txt")
"$SB" history --store "$OUT/results.db" --tag "matrix=$id" --color never \
  --metric docs_per_sec --metric profile.cpu.date_parsing --metric profile.alloc.date_parsing \
  --metric profile.cpu.json_parsing --metric profile.cpu.lucene_indexing \
  --metric profile.alloc_mb_per_sec
