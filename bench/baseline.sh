#!/usr/bin/env bash
# Field note 002's comparison: the cluster-metrics workload (5 epochs × 1M rows, the note's
# size) on Elasticsearch 8.17.x, OpenSearch 2.19.1 and the sketch store built into searchbench,
# interleaved in one `searchbench matrix`, which prints the note's tables side by side (the
# load, its time split, the query wall per coverage serial and in one request, each
# algorithm's accuracy against the ground truth, the data kept). Then the sketch store alone
# over the wire, ROUNDS times: 5M rows in, a coverage answered serially and in one request.
#
#   bench/baseline.sh                                 # the note's size: about 15 minutes
#   ROWS=100000 bench/baseline.sh                     # a quick look
#
# Knobs (environment):
#   ROWS=1000000  EPOCHS=5      rows per epoch, epochs
#   ENGINES='elasticsearch-8.17.x,opensearch-2.19.1,sketch'
#   REPEATS=1                   matrix rounds
#   ROUNDS=3                    runs of the sketch store alone
#   HEAP=1g  CLIENTS=2  BULK=1000
#   OUT=bench/out/baseline      where the store, the tables and the JSON go
#   BIN=target/release/searchbench
#
# Traffic: 127.0.0.1 only (the engines must be cached: `searchbench engine start` once).
set -u
cd "$(dirname "$0")/.."

ROWS=${ROWS:-1000000}
EPOCHS=${EPOCHS:-5}
ENGINES=${ENGINES:-elasticsearch-8.17.x,opensearch-2.19.1,sketch}
REPEATS=${REPEATS:-1}
ROUNDS=${ROUNDS:-3}
HEAP=${HEAP:-1g}
CLIENTS=${CLIENTS:-2}
BULK=${BULK:-1000}
OUT=${OUT:-bench/out/baseline}
SRC_BIN=${BIN:-target/release/searchbench}
[ -x "$SRC_BIN" ] || cargo build --release -q -p searchbench --bin searchbench
mkdir -p "$OUT"
# A copy: a rebuild during the run must not swap the binary under it.
WORK=$(mktemp -d /tmp/sb-baseline.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
BIN="$WORK/searchbench"
cp "$SRC_BIN" "$BIN"
STORE="$OUT/store.db"
rm -f "$STORE"

echo "== matrix: $ENGINES, $EPOCHS × $ROWS rows, $REPEATS round(s)"
"$BIN" matrix cluster-metrics --engines "$ENGINES" --repeats "$REPEATS" \
    --rows-per-epoch "$ROWS" --epochs "$EPOCHS" --heap "$HEAP" --clients "$CLIENTS" \
    --bulk-size "$BULK" --store "$STORE" -q | tee "$OUT/matrix.txt"
id=$(sed -n 's/^matrix \([0-9a-f]*\): .*/\1/p' "$OUT/matrix.txt" | tail -1)

echo "== the sketch store alone, $ROUNDS run(s)"
: > "$OUT/sketch.jsonl"
for i in $(seq "$ROUNDS"); do
    "$BIN" run cluster-metrics --engine sketch --rows-per-epoch "$ROWS" --epochs "$EPOCHS" \
        --clients "$CLIENTS" --bulk-size "$BULK" --store "$STORE" --tag bench=sketch-alone \
        --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
q = d["query"]
cells = {c["transport"]: c["wall_ms"] for c in q["cells"]}
a = q["accuracy"][0]
row = {
    "rows": d["counts"]["indexed"], "reconciled": d["counts"]["reconciled"],
    "load_wall_s": round(d["wall_secs"], 3),
    "driver_cpu_s": round(d["cpu"]["driver_secs"], 3),
    "serial_ms": round(cells["serial"]["mean"], 3),
    "coverage_ms": round(cells["msearch"]["mean"], 3),
    "coverage_p90_ms": round(cells["msearch"]["p90"], 3),
    "pct_max_err": round(a["pct_max_err"] * 100, 3),
    "pct_mean_err": round(a["pct_mean_err"] * 100, 3),
    "kept_mb": round(d["server_stats"]["store_bytes"] / 1e6, 3),
}
print(json.dumps(row))' | tee -a "$OUT/sketch.jsonl"
done
echo "matrix $id; its runs again with: searchbench history --tag matrix=$id --store $STORE"
