#!/usr/bin/env bash
# Field note 002's three unmeasured caveats on its own workload (cluster-metrics, 5 epochs ×
# 1M rows, 30 nodes, one shard): HDR and t-digest at other precisions with their error
# against the exact truth; cold caches against warm; the index at 1, 2 and 4 shards, serial
# against _msearch. One node we start (Elasticsearch 8.17.4, as near the note's 8.17.2 as is
# cached), loaded once; three `searchbench query` runs on it, each keeping its --json.
#
#   bench/query-axes.sh                    # the note's size: about 25 minutes
#   ROWS=100000 bench/query-axes.sh        # a quick look
#
# Knobs (environment):
#   ROWS=1000000 EPOCHS=5   rows per epoch, epochs
#   ENGINE=elasticsearch-8.17.4  HEAP=2g  PASSES=3
#   OUT=bench/out/query-axes   where the three results go
#   BIN=target/release/searchbench
#   STEPS='precision cold shards'   which to run after the load
#   READAHEAD_KB=               set the data disk's read-ahead for the run (restored after):
#                               what an engine reads to open an index grows with it
#
# --cold needs root (it drops the page cache). Traffic: 127.0.0.1 only.
set -eu
cd "$(dirname "$0")/.."

ROWS=${ROWS:-1000000}
EPOCHS=${EPOCHS:-5}
ENGINE=${ENGINE:-elasticsearch-8.17.4}
HEAP=${HEAP:-2g}
PASSES=${PASSES:-3}
OUT=${OUT:-bench/out/query-axes}
STEPS=${STEPS:-precision cold shards}
READAHEAD_KB=${READAHEAD_KB:-}
SRC_BIN=${BIN:-target/release/searchbench}
[ -x "$SRC_BIN" ] || cargo build --release -q -p searchbench --bin searchbench
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/sb-query-axes.XXXXXX)
BIN="$WORK/searchbench"
cp "$SRC_BIN" "$BIN"
export SEARCHBENCH_STORE="$WORK/store.db"

started=$("$BIN" engine start "$ENGINE" --heap "$HEAP" --json)
URL=$(printf '%s' "$started" | python3 -c 'import json,sys; print(json.load(sys.stdin)["url"])')
PORT=${URL##*:}
PORT=${PORT%/}
# The disk under the node's data (the engines' cache in $HOME): a partition's parent, or itself.
DEV=$(df --output=source "$HOME" | tail -1)
PARENT=$(lsblk -no pkname "$DEV" 2>/dev/null | head -1)
DISK=/sys/block/${PARENT:-$(basename "$DEV")}/queue/read_ahead_kb
WAS_KB=$(cat "$DISK" 2>/dev/null || true)
restore() {
    "$BIN" engine stop --port "$PORT" >/dev/null 2>&1
    if [ -n "$READAHEAD_KB" ] && [ -n "$WAS_KB" ]; then echo "$WAS_KB" > "$DISK"; fi
    rm -rf "$WORK"
}
trap restore EXIT
if [ -n "$READAHEAD_KB" ]; then echo "$READAHEAD_KB" > "$DISK"; fi
echo "== read-ahead of $DISK: $(cat "$DISK" 2>/dev/null || echo unknown) KB (was ${WAS_KB:-unknown})"
INDEX=cluster-metrics-axes
CORPUS=(--rows-per-epoch "$ROWS" --epochs "$EPOCHS")

echo "== load: $EPOCHS × $ROWS rows into $INDEX on $ENGINE ($HEAP heap)"
"$BIN" query cluster-metrics --url "$URL" --index "$INDEX" "${CORPUS[@]}" --load \
    --passes 1 --variants A --transports serial -q > "$OUT/load.txt"

step() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

if step precision; then
echo "== precision: HDR at 2/3/4 digits, t-digest at compression 100/1000 (serial)"
"$BIN" query cluster-metrics --url "$URL" --index "$INDEX" "${CORPUS[@]}" --passes "$PASSES" \
    --variants C_hdr2,C_hdr,C_hdr4,C_td,C_td1000 --transports serial \
    --json "$OUT/precision.json" -q | tee "$OUT/precision.txt"
fi

if step cold; then
echo "== cold vs warm: A, D_td, D_hdr over both transports"
"$BIN" query cluster-metrics --url "$URL" --index "$INDEX" "${CORPUS[@]}" --passes "$PASSES" \
    --variants A,D_td,D_hdr --cold --json "$OUT/cold$READAHEAD_KB.json" -q | tee "$OUT/cold$READAHEAD_KB.txt"
fi

if step shards; then
echo "== shards 1, 2, 4 (the index force-merged to one segment first: one per shard at each)"
curl -sf -XPOST "$URL/$INDEX/_forcemerge?max_num_segments=1" > /dev/null
"$BIN" query cluster-metrics --url "$URL" --index "$INDEX" "${CORPUS[@]}" --passes "$PASSES" \
    --variants A,D_td,D_hdr --shards 1,2,4 --json "$OUT/shards.json" -q | tee "$OUT/shards.txt"
fi
echo "results in $OUT"
