#!/usr/bin/env bash
# What running a track's own Python costs here against what it costs in esrally (issue 101):
# one search task whose parameters come from a param source of the track's `track.py`, run by
# searchbench (the source in its worker, esrally 2.13.0's library; the requests sent by the
# Rust driver) and by esrally 2.13.0 itself (`race --pipeline=benchmark-only`), side by side,
# into the bulk sink (examples/bulk_sink.rs --as-elasticsearch: every search answered at once
# with no hits, and `GET /` saying Elasticsearch so that esrally talks to it), so that what is
# measured is each tool's own cost.
#
# Each round runs each tool twice, with N and with 2N searches, in a cpuacct cgroup of its own
# (esrally's actors are processes of their own): the CPU per search is the difference of the
# two runs' CPU over N, which leaves out what each tool spends once (esrally's actor system and
# Python start-up, searchbench's worker start-up). The throughput is each tool's own figure for
# the task (ops/s, its mean) in the 2N run. Prints each round, then the medians and the paired
# ratios esrally ÷ searchbench.
#
#   bench/python-vs-esrally.sh [ROUNDS] [N]      (default 3 rounds, N = 10000 searches, 1 client)
#   CLIENTS=2 bench/python-vs-esrally.sh
#
# Needs a writable /sys/fs/cgroup/cpuacct (else it stops), Python 3 with venv, and the Python
# registry once: esrally's environment is the one searchbench makes for a track's Python.
# Takes ~5 minutes with the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/python-track.sh
ROUNDS=${1:-3}
N=${2:-10000}
CLIENTS=${CLIENTS:-1}
CG=/sys/fs/cgroup/cpuacct
[ -w "$CG" ] || { echo "needs a writable $CG to count esrally's detached actors" >&2; exit 1; }
cargo build --release -q -p searchbench --bin searchbench --example bulk_sink
SB=$PWD/target/release/searchbench
OUT=${OUT:-target/bench-python-vs-esrally}
rm -rf "$OUT" && mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
target/release/examples/bulk_sink --as-elasticsearch >"$OUT/sink.log" 2>&1 &
SINK=$!
trap 'kill $SINK 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q listening "$OUT/sink.log" && break; sleep 0.1; done
URL=$(sed -n 's/^listening on //p' "$OUT/sink.log")
BODY='{"query": {"term": {"status": 200}}, "size": 10}'
for n in "$N" $((2 * N)); do
  write_python_track "$OUT/track-$n" "$n" "$CLIENTS" "$BODY"
done
# The worker's environment (esrally 2.13.0) made before the first timed round; esrally itself
# is run from it, by its module (the environment is made in one folder and renamed into place,
# so its scripts' first lines name the folder it was made in).
"$SB" run --url "$URL" --quiet --no-store --workload-file "$OUT/track-$N/track.json" >/dev/null
CACHE=${SEARCHBENCH_CACHE:-${XDG_CACHE_HOME:+$XDG_CACHE_HOME/searchbench}}
PY=${CACHE:-$HOME/.cache/searchbench}/python/esrally-2.13.0/bin/python
export RALLY_HOME="$OUT/rally-home"

# <name> <command...>: runs the command in a cgroup of its own, writing its CPU seconds.
measured() {
  local name=$1 rc=0; shift
  rmdir "$CG/sb-bench-$name" 2>/dev/null || true
  mkdir "$CG/sb-bench-$name"
  sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CG/sb-bench-$name" "$@" || rc=$?
  sleep 2 # detached children finish
  python3 -c "print($(cat "$CG/sb-bench-$name/cpuacct.usage") / 1e9)" >"$OUT/$name.cpu"
  for p in $(cat "$CG/sb-bench-$name/cgroup.procs"); do echo "$p" >"$CG/cgroup.procs"; done
  rmdir "$CG/sb-bench-$name"
  return "$rc"
}
HOSTPORT=${URL#http://}
for round in $(seq "$ROUNDS"); do
  for n in "$N" $((2 * N)); do
    measured "sb-$round-$n" "$SB" run --url "$URL" --quiet --no-store \
      --workload-file "$OUT/track-$n/track.json" --json "$OUT/sb-$round-$n.json" >/dev/null
    measured "esrally-$round-$n" "$PY" -c \
      "import sys; from esrally.rally import main; sys.argv[0] = 'esrally'; sys.exit(main())" \
      race --track-path="$OUT/track-$n" --pipeline=benchmark-only --target-hosts="$HOSTPORT" \
      --offline --kill-running-processes --on-error=abort --report-format=csv \
      --report-file="$OUT/esrally-$round-$n.csv" >"$OUT/esrally-$round-$n.log" 2>&1
  done
done
python3 - "$OUT" "$ROUNDS" "$N" "$CLIENTS" <<'PY'
import csv, json, statistics, sys
out, rounds, n, clients = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def cpu(name):
    return float(open(f"{out}/{name}.cpu").read())
def ops(tool, r):
    if tool == "sb":
        task = json.load(open(f"{out}/sb-{r}-{2 * n}.json"))["tasks"][0]
        assert task["errors"] == 0 and task["ops"] == 2 * n * clients, task
        return task["throughput_mean"]
    rows = {(row[0], row[1]): row[2] for row in csv.reader(open(f"{out}/esrally-{r}-{2 * n}.csv"))}
    assert float(rows[("error rate", "searches")]) == 0.0, rows
    return float(rows[("Mean Throughput", "searches")])
rows = {"sb": [], "esrally": []}
for r in range(1, rounds + 1):
    for tool in rows:
        marginal = (cpu(f"{tool}-{r}-{2 * n}") - cpu(f"{tool}-{r}-{n}")) / (n * clients) * 1e6
        rows[tool].append((ops(tool, r), marginal))
        print(f"round {r} {tool:8}: {rows[tool][-1][0]:8.0f} ops/s, {marginal:6.1f} µs CPU per search "
              f"(runs of {n * clients} and {2 * n * clients} searches: {cpu(f'{tool}-{r}-{n}'):.1f} s "
              f"and {cpu(f'{tool}-{r}-{2 * n}'):.1f} s CPU)")
med = {k: (statistics.median(v[0] for v in vs), statistics.median(v[1] for v in vs)) for k, vs in rows.items()}
ops_pairs = [e[0] / s[0] for s, e in zip(rows["sb"], rows["esrally"])]
cpu_pairs = [e[1] / s[1] for s, e in zip(rows["sb"], rows["esrally"])]
print(f"medians: searchbench {med['sb'][0]:.0f} ops/s, {med['sb'][1]:.1f} µs CPU per search; "
      f"esrally {med['esrally'][0]:.0f} ops/s, {med['esrally'][1]:.1f} µs CPU per search")
print(f"paired esrally ÷ searchbench: ops/s median {statistics.median(ops_pairs):.2f} "
      f"({min(ops_pairs):.2f}–{max(ops_pairs):.2f}), CPU per search median "
      f"{statistics.median(cpu_pairs):.2f} ({min(cpu_pairs):.2f}–{max(cpu_pairs):.2f}); "
      f"{clients} client(s)")
PY
