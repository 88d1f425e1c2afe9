#!/usr/bin/env bash
# Two builds of searchbench side by side into one bulk sink (examples/bulk_sink.rs): the
# driver's CPU per million documents of `ingest logs`, the builds alternating run by run, and
# the paired ratio B ÷ A of each pair (the figure to trust on a noisy machine). The runs are
# kept in a store of their own (the store sink and its exporters run as a user's run does).
# The driver is pinned to one core, the sink to the other.
#
#   bench/ingest-sink-pairs.sh BIN_A BIN_B [PAIRS] [DOCS]
#   bench/ingest-sink-pairs.sh /tmp/before/searchbench target/release/searchbench 10 1000000
set -euo pipefail
cd "$(dirname "$0")/.."
A=${1:?the first build}
B=${2:?the second build}
PAIRS=${3:-10}
DOCS=${4:-1000000}
DRIVER_CORE=${DRIVER_CORE:-0}
. bench/sink.sh
start_sink

one() { # BIN NAME RUN -> driver CPU s per million docs
  taskset -c "$DRIVER_CORE" "$1" ingest logs --docs "$DOCS" --clients 2 --url "$URL" --quiet \
    --store "$OUT/$2.db" --export-json "$OUT/$2-$3.json" >/dev/null 2>>"$OUT/runs.log"
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cpu"]["driver_secs_per_million_docs"])' \
    "$OUT/$2-$3.json"
}

for i in $(seq "$PAIRS"); do
  a=$(one "$A" a "$i")
  b=$(one "$B" b "$i")
  echo "$a $b" >>"$OUT/pairs.txt"
  echo "pair $i: A $a, B $b"
done
python3 - "$OUT/pairs.txt" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
a, b = zip(*rows)
ratios = [y / x for x, y in rows]
print("A:", " ".join(f"{v:.3f}" for v in a), f"median {statistics.median(a):.3f}")
print("B:", " ".join(f"{v:.3f}" for v in b), f"median {statistics.median(b):.3f}")
print("B/A:", " ".join(f"{r:.2f}" for r in ratios), f"median {statistics.median(ratios):.3f}")
PY
