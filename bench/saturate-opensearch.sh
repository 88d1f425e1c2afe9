#!/usr/bin/env bash
# The highest logs ingest rate a local OpenSearch 2.19.1 (1 node, 1 GB heap, started for the
# search) sustains with p99 latency under P99: `searchbench saturate`. The machine is shared
# (2 cores, other agents' builds): the figure moves with the load on it.
#
#   bench/saturate-opensearch.sh [P99] [extra saturate flags...]    default P99: 500ms
set -euo pipefail
cd "$(dirname "$0")/.."
P99=${1:-500ms}
shift $(( $# > 0 ? 1 : 0 ))
cargo build --release -q -p searchbench --bin searchbench
OUT=${OUT:-target/bench-rate}
mkdir -p "$OUT"
target/release/searchbench saturate logs --p99 "$P99" --clients 4 --bulk-size 1000 \
  --start-rate 2000 --step-seconds 10 --warmup 0 --quiet --export-json "$OUT/saturate.json" "$@"
