#!/usr/bin/env bash
# The driver's own ceiling: `searchbench ingest` from the in-process logs generator into a bulk
# sink (examples/bulk_sink.rs) that reads every byte and indexes nothing. The driver is pinned
# to one core, the sink to the other, so the figure is "what one client core can push".
#
#   bench/ingest-sink.sh [DOCS] [CLIENTS] [extra ingest flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
DOCS=${1:-5000000}
CLIENTS=${2:-2}
shift $(( $# > 2 ? 2 : $# ))
cargo build --release -q -p searchbench --bin searchbench --example bulk_sink
OUT=${OUT:-target/bench-ingest}
mkdir -p "$OUT"
taskset -c 1 target/release/examples/bulk_sink --threads 1 >"$OUT/sink.log" 2>&1 &
SINK=$!
trap 'kill $SINK 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q listening "$OUT/sink.log" && break; sleep 0.1; done
URL=$(sed -n 's/^listening on //p' "$OUT/sink.log")
for run in 1 2 3; do
  taskset -c 0 target/release/searchbench ingest logs --docs "$DOCS" --clients "$CLIENTS" \
    --url "$URL" --quiet --json "$OUT/sink-$run.json" "$@" >/dev/null
  python3 - "$OUT/sink-$run.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["cpu"]
print(f'run: {r["counts"]["indexed"]} docs in {r["wall_secs"]:.2f} s = {r["docs_per_sec"]:,.0f} docs/s, '
      f'{r["mb_per_sec"]:.0f} MB/s; driver CPU {c["driver_secs"]:.2f} s = '
      f'{c["driver_secs_per_million_docs"]:.3f} s per million docs; reconciled={r["counts"]["reconciled"]}; '
      f'buffers allocated={r["buffers"]["allocated"]} reused={r["buffers"]["reused"]} lost={r["buffers"]["body_lost"]}')
PY
done
