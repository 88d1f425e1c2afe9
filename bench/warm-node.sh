#!/usr/bin/env bash
# Issue 76: what warming a node we start buys and costs. NODES fresh OpenSearch nodes cold
# (measured as they come up) and NODES warmed (`run`'s default), alternating cold/warm so the
# machine's drift falls on both; on each, three loads of DOCS logs documents into a fresh
# index. Prints each node's line and, per mode, the median of first-vs-third (how far the
# first measured run is from the same node's third) and the warm-up's wall time.
#
#   bench/warm-node.sh [DOCS] [NODES]
set -euo pipefail
cd "$(dirname "$0")/.."
DOCS=${1:-200000}
NODES=${2:-3}
cargo build --release -q -p searchbench --example warm_node
BIN=target/release/examples/warm_node
OUT=${OUT:-target/bench-warm-node}
mkdir -p "$OUT"
LINES="$OUT/lines-$$.ndjson"
: > "$LINES"
for i in $(seq 1 "$NODES"); do
  for mode in cold warm; do
    "$BIN" "$mode" "$DOCS" 1 | tee -a "$LINES"
  done
done
python3 - "$LINES" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
for mode in ("cold", "warm"):
    r = [x for x in rows if x["mode"] == mode]
    gap = float(statistics.median(abs(x["first_vs_third_pct"]) for x in r))
    first = float(statistics.median(x["docs_per_sec"][0] for x in r))
    third = float(statistics.median(x["docs_per_sec"][2] for x in r))
    line = f"{mode}: first run {first:.0f} docs/s, third {third:.0f}; |first vs third| median {gap:.1f} %"
    if mode == "warm":
        secs = float(statistics.median(x["warm_up"]["secs"] for x in r))
        lev = sum(1 for x in r if x["warm_up"]["levelled"])
        slices = float(statistics.median(len(x["warm_up"]["slices"]) for x in r))
        line += f"; warm-up {secs:.0f} s median ({slices:.0f} slices), levelled on {lev} of {len(r)}"
    print(line)
PY
