#!/usr/bin/env bash
# Ingest into a local OpenSearch 2.19.1 started for the run: 1M logs documents, 2 clients,
# bulk 1000 (the seeds/002 shape). Prints the summary and the attribution table.
#
#   bench/ingest-opensearch.sh [DOCS] [CLIENTS] [extra run flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
DOCS=${1:-1000000}
CLIENTS=${2:-2}
shift $(( $# > 2 ? 2 : $# ))
cargo build --release -q -p searchbench --bin searchbench
OUT=${OUT:-target/bench-ingest}
mkdir -p "$OUT"
target/release/searchbench run logs --docs "$DOCS" --clients "$CLIENTS" --bulk-size 1000 \
  --quiet --export-json "$OUT/opensearch-$DOCS.json" "$@"
