#!/usr/bin/env bash
# Issue 62: how often does `compare` see a known 10 % slowdown, and how often does it cry wolf?
# TRIALS trials on one local node, each of ROUNDS rounds (3); each round runs three ingests of the same
# logs corpus in a shuffled order: A, B (A behind a --rtt that slows it by about 10 %) and C
# (A again: the A/A control), each tagged with its trial and round. Then, per trial, `compare`
# A against B and A against C, as the rounds pair them (paired t) and as independent groups
# (`--unpaired`, Welch's t: what compare did before rounds were paired). A trial detects the
# slowdown when B is "worse" on throughput; it false-alarms when C is "better" or "worse".
# The same for the engine's CPU per document (a --rtt does not change the engine's work: any
# verdict there is a false alarm too), and the run-to-run CV of A's runs of throughput, CPU
# per document, service-time p50/p99 and other processes' CPU.
#
# COTENANT=1: a co-tenant that comes and goes between rounds (one core spinning, `yes`, in
# every other round, which rounds alternating from trial to trial): the machine's level moves
# between rounds and stays within one, the drift that pairing is for.
#
# ROUNDS=N: rounds a trial (default 3): what more rounds buy at the same spread.
#
#   bench/power.sh [TRIALS] [DOCS] [RTT]        defaults: 20 200000 8ms
#   COTENANT=1 OUT=target/bench-power-cotenant bench/power.sh
#   ROUNDS=5 OUT=target/bench-power-5 bench/power.sh 10
set -euo pipefail
cd "$(dirname "$0")/.."
TRIALS=${1:-20}
DOCS=${2:-200000}
RTT=${3:-8ms}
ROUNDS=${ROUNDS:-3}
ENGINE=${ENGINE:-opensearch-2.19.1}
SB=${SEARCHBENCH_BIN:-target/release/searchbench}
[ -n "${SEARCHBENCH_BIN:-}" ] || cargo build --release -q -p searchbench --bin searchbench
OUT=${OUT:-target/bench-power}
rm -rf "$OUT" && mkdir -p "$OUT"
DB="$OUT/power.db"

"$SB" engine start "$ENGINE" --heap 1g --json >"$OUT/node.json"
read -r URL PID < <(python3 -c 'import json,sys; n=json.load(open(sys.argv[1])); print(n["url"], n["pid"])' "$OUT/node.json")
PORT=${URL##*:}
COTENANT=${COTENANT:-0}
BURNER=""
burn() { # on|off
  if [ "$1" = on ] && [ -z "$BURNER" ]; then
    yes >/dev/null &
    BURNER=$!
  elif [ "$1" = off ] && [ -n "$BURNER" ]; then
    kill "$BURNER" 2>/dev/null || true
    wait "$BURNER" 2>/dev/null || true
    BURNER=""
  fi
}
trap 'burn off; "$SB" engine stop --port "$PORT" >/dev/null 2>&1 || true' EXIT
echo "node $ENGINE at $URL (pid $PID); $TRIALS trials × $ROUNDS rounds × A, B (--rtt $RTT), C; $DOCS docs a run"

ingest() { # cfg trial round [extra...]
  local cfg=$1 trial=$2 round=$3
  shift 3
  "$SB" ingest logs --url "$URL" --engine-pid "$PID" --docs "$DOCS" --index power --replace \
    --quiet --store "$DB" --tag "trial=$trial" --tag "cfg=$cfg" --round "$round" \
    --tag "early=$([ "$round" -le 3 ] && echo yes || echo no)" "$@" \
    >>"$OUT/runs.log" 2>&1 || echo "trial $trial round $round $cfg: failed (see $OUT/runs.log)"
}

# Unmeasured runs first: the node's JIT warms up across runs too (here from 12k to 30k docs/s
# over the first four).
for _ in 1 2 3 4; do
  "$SB" ingest logs --url "$URL" --docs "$DOCS" --index power --replace --quiet --no-store >/dev/null
done

start=$(date +%s)
for t in $(seq 1 "$TRIALS"); do
  for r in $(seq 1 "$ROUNDS"); do
    if [ "$COTENANT" = 1 ] && [ $(( (t + r) % 2 )) = 0 ]; then burn on; else burn off; fi
    for cfg in $(python3 -c 'import random,sys; x=["a","b","c"]; random.Random(int(sys.argv[1])).shuffle(x); print(*x)' "$((t * 10 + r))"); do
      case $cfg in
        b) ingest b "$t" "$r" --rtt "$RTT" ;;
        *) ingest "$cfg" "$t" "$r" ;;
      esac
    done
  done
  burn off
  echo "trial $t done ($(( $(date +%s) - start )) s)"
done

for t in $(seq 1 "$TRIALS"); do
  for other in b c; do
    "$SB" compare "trial=$t,cfg=a" "trial=$t,cfg=$other" --store "$DB" --json \
      >"$OUT/paired-$t-$other.json" 2>/dev/null || true
    "$SB" compare "trial=$t,cfg=a" "trial=$t,cfg=$other" --store "$DB" --json --unpaired \
      >"$OUT/welch-$t-$other.json" 2>/dev/null || true
    # With more rounds, the same trial's first three alone, side by side.
    if [ "$ROUNDS" -gt 3 ]; then
      "$SB" compare "trial=$t,cfg=a,early=yes" "trial=$t,cfg=$other,early=yes" --store "$DB" \
        --json >"$OUT/paired3-$t-$other.json" 2>/dev/null || true
    fi
  done
done

python3 - "$OUT" "$TRIALS" "$ROUNDS" <<'PY'
import json, statistics, sys
out, trials, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def cell(test, t, other, key):
    try:
        c = json.load(open(f"{out}/{test}-{t}-{other}.json"))
    except Exception:
        return None
    for r in c["rows"]:
        if r["key"] == key:
            return r["contenders"][0]
    return None
med = lambda v, f: f % statistics.median(v) if v else "-"
print("| test | metric | B (slowed) seen | A/A false alarms | B's change, median | spread, median |")
print("|---|---|---|---|---|---|")
tests = [("paired", f"paired t, {rounds} rounds"), ("welch", f"Welch's t, {rounds} vs {rounds} runs")]
if rounds > 3:
    tests.append(("paired3", "paired t, the same trials' first 3 rounds"))
for test, name in tests:
    for key in ["docs_per_sec", "engine_cpu_us_per_doc"]:
        seen = fa = n_b = n_c = 0
        diffs, spreads = [], []
        for t in range(1, trials + 1):
            b, c = cell(test, t, "b", key), cell(test, t, "c", key)
            if b:
                n_b += 1
                seen += b["verdict"] in ("better", "worse")
                if b.get("diff_pct") is not None:
                    diffs.append(b["diff_pct"])
                s = b.get("spread_pair_pct") if test.startswith("paired") else b.get("spread_base_pct")
                if s is not None:
                    spreads.append(s)
            if c:
                n_c += 1
                fa += c["verdict"] in ("better", "worse")
        print(f"| {name} | {key} | {seen} of {n_b} | {fa} of {n_c} | {med(diffs, '%+.1f %%')} | {med(spreads, '%.1f %%')} |")
print()
print("Run-to-run CV of A's runs in a trial (median over trials):")
for key in ["docs_per_sec", "engine_cpu_us_per_doc", "service_p50_ms", "service_p99_ms", "machine.other_cpu_pct"]:
    cv = [c["spread_base_pct"] for t in range(1, trials + 1) if (c := cell("welch", t, "c", key)) and c.get("spread_base_pct") is not None]
    print(f"  {key}: {med(cv, '%.1f %%')}")
PY
