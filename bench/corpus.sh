#!/usr/bin/env bash
# Corpus generator throughput, end to end: `searchbench generate ... --out /dev/null` (and a
# real file on local disk), release build, wall and CPU time from bash's `time`.
# The generate command prints docs/s and MB/s (uncompressed) on stderr at the end.
#
#   bench/corpus.sh            # runs each case 3 times
#   RUNS=5 bench/corpus.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
OUT_DIR=${OUT_DIR:-$(mktemp -d)}
cargo build --release -p searchbench >/dev/null 2>&1 || cargo build --release -p searchbench
BIN=target/release/searchbench

run() {
    local label=$1; shift
    for i in $(seq "$RUNS"); do
        echo "== $label (run $i): $*"
        ( time "$BIN" generate "$@" --no-progress ) 2>&1 | grep -E 'docs/s|real|user|sys'
    done
}

run "logs -> /dev/null"            logs --docs 2000000 --out /dev/null
run "cluster-metrics -> /dev/null" cluster-metrics --epochs 10 --out /dev/null
run "cluster-metrics+truth -> /dev/null" cluster-metrics --epochs 10 --truth "$OUT_DIR/truth.ndjson" --out /dev/null
run "transactions csv -> /dev/null" transactions --docs 2000000 --out /dev/null
run "transactions ndjson -> /dev/null" transactions --docs 2000000 --format ndjson --out /dev/null
run "logs -> file"                 logs --docs 1000000 --out "$OUT_DIR/logs.ndjson"
run "cluster-metrics -> file"      cluster-metrics --epochs 5 --out "$OUT_DIR/metrics.ndjson"
run "logs -> zstd file"            logs --docs 1000000 --compress zstd --out "$OUT_DIR/logs.ndjson.zst"
rm -rf "$OUT_DIR"
