#!/usr/bin/env bash
# The driver's own cost for a track's tasks without Python, two builds side by side: one
# search task written in the track (no param source, no scheduler), run by BEFORE and AFTER in
# alternate rounds into the bulk sink (examples/bulk_sink.rs: every search answered at once with
# no hits), so that what is measured is the driver. Each round prints both builds' CPU per
# thousand searches (user + system of the whole command) and ops/s; then the medians and the
# paired median of AFTER ÷ BEFORE (CPU and ops/s). The driver runs on DRIVER_CORE (default 0),
# the sink on SINK_CORE (default 1).
#
#   bench/task-sink-pairs.sh BEFORE_BIN AFTER_BIN [ROUNDS] [ITERATIONS]
#                                              (default 7 rounds of 20000 searches, 1 client)
#   CLIENTS=2 bench/task-sink-pairs.sh ...
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/sink.sh
BEFORE=$1
AFTER=$2
ROUNDS=${3:-7}
N=${4:-20000}
CLIENTS=${CLIENTS:-1}
DRIVER_CORE=${DRIVER_CORE:-0}
start_sink
cat >"$OUT/track.json" <<JSON
{"version": 2, "indices": [{"name": "logs"}], "schedule": [
  {"operation": {"name": "searches", "operation-type": "search", "index": "logs",
                 "body": {"query": {"term": {"status": 200}}, "size": 10}},
   "clients": $CLIENTS, "iterations": $N}]}
JSON
for round in $(seq "$ROUNDS"); do
  for side in before after; do
    bin=$BEFORE
    [ "$side" = after ] && bin=$AFTER
    taskset -c "$DRIVER_CORE" /usr/bin/time -f "%U %S" -o "$OUT/$side-$round.cpu" "$bin" run --url "$URL" --quiet \
      --no-store --workload-file "$OUT/track.json" --json "$OUT/$side-$round.json" >/dev/null
  done
done
python3 - "$OUT" "$ROUNDS" "$N" "$CLIENTS" <<'PY'
import json, statistics, sys
out, rounds, n, clients = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def of(side, r):
    task = json.load(open(f"{out}/{side}-{r}.json"))["tasks"][0]
    assert task["errors"] == 0 and task["ops"] == n * clients, task
    user, system = map(float, open(f"{out}/{side}-{r}.cpu").read().split())
    return (user + system) / (n * clients) * 1000, task["throughput_mean"]
rows = [(of("before", r), of("after", r)) for r in range(1, rounds + 1)]
for r, ((cb, ob), (ca, oa)) in enumerate(rows, 1):
    print(f"round {r}: before {cb * 1000:.1f} ms CPU per 1000 searches, {ob:.0f} ops/s; "
          f"after {ca * 1000:.1f} ms, {oa:.0f} ops/s")
med = lambda xs: statistics.median(xs)
print(f"medians: CPU per 1000 searches before {med([b[0] for b, _ in rows]) * 1000:.1f} ms, "
      f"after {med([a[0] for _, a in rows]) * 1000:.1f} ms; ops/s before "
      f"{med([b[1] for b, _ in rows]):.0f}, after {med([a[1] for _, a in rows]):.0f}")
print(f"paired median after / before: CPU {med([a[0] / b[0] for b, a in rows]):.3f}, "
      f"ops/s {med([a[1] / b[1] for b, a in rows]):.3f}")
PY
