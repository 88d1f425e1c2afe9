#!/usr/bin/env bash
# The driver's own ceiling: `searchbench ingest` from the in-process logs generator into a bulk
# sink (examples/bulk_sink.rs: blocking sockets, reads and counts every byte, indexes nothing).
# The driver is pinned to one core, the sink to the other, so the figure is "what one client
# core can push". Each run also prints how busy each side was: the process's CPU seconds over
# the run's wall time (driver from its own report, sink from /proc/PID/stat), and each core's
# busy share from /proc/stat (that one includes anything else running on the core: the
# difference is other work on a shared machine). The last line is the median of the runs.
#
#   bench/ingest-sink.sh [DOCS] [CLIENTS] [extra ingest flags...]
#   RUNS=5 DRIVER_CORE=0 SINK_CORE=1 bench/ingest-sink.sh 5000000 2
set -euo pipefail
cd "$(dirname "$0")/.."
DOCS=${1:-5000000}
CLIENTS=${2:-2}
shift $(( $# > 2 ? 2 : $# ))
RUNS=${RUNS:-3}
DRIVER_CORE=${DRIVER_CORE:-0}
SINK_CORE=${SINK_CORE:-1}
cargo build --release -q -p searchbench --bin searchbench --example bulk_sink
OUT=${OUT:-target/bench-ingest}
mkdir -p "$OUT"
taskset -c "$SINK_CORE" target/release/examples/bulk_sink >"$OUT/sink.log" 2>&1 &
SINK=$!
trap 'kill $SINK 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q listening "$OUT/sink.log" && break; sleep 0.1; done
URL=$(sed -n 's/^listening on //p' "$OUT/sink.log")

# "<sink utime+stime ticks> <cpuN busy ticks> <cpuN total ticks> ..." (driver core, sink core).
snapshot() {
  awk '{ print $14 + $15 }' "/proc/$SINK/stat" | tr -d '\n'
  for core in "$DRIVER_CORE" "$SINK_CORE"; do
    awk -v c="cpu$core" '$1 == c { t = 0; for (i = 2; i <= NF; i++) t += $i;
      printf " %d %d", t - $5 - $6, t }' /proc/stat
  done
  echo
}

rm -f "$OUT"/sink-summary.txt
for run in $(seq "$RUNS"); do
  before=$(snapshot)
  taskset -c "$DRIVER_CORE" target/release/searchbench ingest logs --docs "$DOCS" \
    --clients "$CLIENTS" --url "$URL" --quiet --no-store --export-json "$OUT/sink-$run.json" "$@" >/dev/null
  after=$(snapshot)
  python3 - "$OUT/sink-$run.json" "$(getconf CLK_TCK)" "$before" "$after" \
    "$OUT/sink-summary.txt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
tck = float(sys.argv[2])
b, a = [list(map(int, s.split())) for s in sys.argv[3:5]]
wall = r["wall_secs"]
sink_cpu = (a[0] - b[0]) / tck
core = lambda i: 100.0 * (a[i] - b[i]) / max(1, a[i + 1] - b[i + 1])
c = r["cpu"]
driver_busy = 100 * c["driver_secs"] / wall
print(f'run: {r["counts"]["indexed"]} docs in {wall:.2f} s = {r["docs_per_sec"]:,.0f} docs/s, '
      f'{r["mb_per_sec"]:.0f} MB/s; driver CPU {c["driver_secs"]:.2f} s = '
      f'{c["driver_secs_per_million_docs"]:.3f} s per million docs = {driver_busy:.0f}% of its '
      f'core; sink CPU {sink_cpu:.2f} s = '
      f'{100 * sink_cpu / wall:.0f}% of its core; cores busy (any process) driver\'s '
      f'{core(1):.0f}% sink\'s {core(3):.0f}%; reconciled={r["counts"]["reconciled"]}; '
      f'buffers allocated={r["buffers"]["allocated"]} reused={r["buffers"]["reused"]} '
      f'lost={r["buffers"]["body_lost"]}')
with open(sys.argv[5], "a") as f:
    print(r["docs_per_sec"], r["mb_per_sec"], c["driver_secs_per_million_docs"], driver_busy,
          100 * sink_cpu / wall, core(1), file=f)
PY
done
python3 - "$OUT/sink-summary.txt" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
m = [statistics.median(col) for col in zip(*rows)]
print(f'median of {len(rows)}: {m[0]:,.0f} docs/s, {m[1]:.0f} MB/s, driver {m[2]:.3f} s CPU per '
      f'million docs, driver {m[3]:.0f}% of its core, sink {m[4]:.0f}% of its core, '
      f'driver\'s core {m[5]:.0f}% busy with any process')
PY
