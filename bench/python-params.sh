#!/usr/bin/env bash
# What the worker costs (issue 101): one search task whose body the track writes, against the
# same task whose parameters come from a param source of the track's `track.py` (esrally 2.13.0
# in the worker), side by side, into the bulk sink (examples/bulk_sink.rs: every search answered
# at once with no hits), so that what is measured is the driver's own cost and the worker's.
# Rounds alternate the two; each prints the task's ops/s and the CPU of the whole command (the
# worker included: searchbench waits for it), then the medians and the ratio Python ÷ JSON.
#
#   bench/python-params.sh [ROUNDS] [ITERATIONS]     (default 5 rounds of 20000 searches, 1 client)
#   CLIENTS=2 bench/python-params.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/python-track.sh
ROUNDS=${1:-5}
N=${2:-20000}
CLIENTS=${CLIENTS:-1}
cargo build --release -q -p searchbench --bin searchbench --example bulk_sink
OUT=${OUT:-target/bench-python}
rm -rf "$OUT" && mkdir -p "$OUT/json" "$OUT/python"
target/release/examples/bulk_sink >"$OUT/sink.log" 2>&1 &
SINK=$!
trap 'kill $SINK 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q listening "$OUT/sink.log" && break; sleep 0.1; done
URL=$(sed -n 's/^listening on //p' "$OUT/sink.log")
BODY='{"query": {"term": {"status": 200}}, "size": 10}'
cat >"$OUT/json/track.json" <<JSON
{"version": 2, "indices": [{"name": "logs"}], "schedule": [
  {"operation": {"name": "searches", "operation-type": "search", "index": "logs", "body": $BODY},
   "clients": $CLIENTS, "iterations": $N}]}
JSON
write_python_track "$OUT/python" "$N" "$CLIENTS" "$BODY"
# The worker's environment made before the first timed round (a run makes it; a check does not).
target/release/searchbench run --url "$URL" --quiet --no-store --workload-file "$OUT/python/track.json" >/dev/null
for round in $(seq "$ROUNDS"); do
  for kind in json python; do
    /usr/bin/time -f "%U %S" -o "$OUT/$kind-$round.cpu" target/release/searchbench run --url "$URL" \
      --quiet --no-store --workload-file "$OUT/$kind/track.json" --json "$OUT/$kind-$round.json" >/dev/null
  done
done
python3 - "$OUT" "$ROUNDS" "$N" "$CLIENTS" <<'PY'
import json, statistics, sys
out, rounds, n, clients = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rows = {"json": [], "python": []}
for r in range(1, rounds + 1):
    for kind in rows:
        task = json.load(open(f"{out}/{kind}-{r}.json"))["tasks"][0]
        user, sys_ = map(float, open(f"{out}/{kind}-{r}.cpu").read().split()[-2:])
        ops = task["ops"]
        assert task["errors"] == 0, task
        rows[kind].append((task["throughput_mean"], (user + sys_) / ops * 1e6))
        print(f"round {r} {kind:6}: {task['throughput_mean']:8.0f} ops/s, CPU {rows[kind][-1][1]:6.1f} µs per search ({ops} searches)")
med = {k: (statistics.median(v[0] for v in vs), statistics.median(v[1] for v in vs)) for k, vs in rows.items()}
pairs = [p[1] / j[1] for j, p in zip(rows["json"], rows["python"])]
print(f"medians: JSON {med['json'][0]:.0f} ops/s, {med['json'][1]:.1f} µs CPU per search; "
      f"Python {med['python'][0]:.0f} ops/s, {med['python'][1]:.1f} µs CPU per search")
print(f"ops/s Python ÷ JSON {med['python'][0] / med['json'][0]:.2f}; CPU per search, paired Python ÷ JSON: "
      f"median {statistics.median(pairs):.2f} ({min(pairs):.2f}–{max(pairs):.2f}); "
      f"{clients} client(s), {n} searches a run")
PY
