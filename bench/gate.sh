#!/usr/bin/env bash
# Issue 79: minutes to a verdict. TRIALS trials of `searchbench gate` on one local node, each
# scenario's trials interleaved with the others' (trial 1 of every scenario, then trial 2, ...),
# so that the machine's hour weighs on each alike:
#   s10, s15, s5: B is A behind a --rtt that slows the logs ingest by about 10, 15 and 5 %
#                 (a proxy holding each chunk RTT/2 each way);
#   aa:           B is A again (the A/A control: any "worse" or "better" is a false alarm).
# Each gate runs rounds (A B, B A, ...) until the sequential verdict or --max-rounds. Per
# scenario: how often the slowdown was found ("worse"), the false alarms, the rounds and
# minutes to the verdict (median and 90th percentile), and, from the same trials' first 5
# rounds, what today's fixed 5 rounds would have said (paired t at the headline's Holm share,
# p < 2.5 %, as `compare` judges it).
#
# EXTRA scenarios run in odd trials only (half as many trials, for the slower figures).
# SUMMARY_ONLY=1 summarises what OUT holds (the trials done so far) without running any.
#
#   bench/gate.sh [TRIALS] [DOCS]          defaults: 16 100000
#   SCENARIOS="s10:6ms aa:0" EXTRA="s15:9ms s5:3ms" MAX_ROUNDS=30 OUT=target/bench-gate bench/gate.sh
set -euo pipefail
cd "$(dirname "$0")/.."
TRIALS=${1:-16}
DOCS=${2:-100000}
SCENARIOS=${SCENARIOS:-"s10:6ms aa:0"}
EXTRA=${EXTRA:-"s15:9ms s5:3ms"}
MAX_ROUNDS=${MAX_ROUNDS:-30}
ENGINE=${ENGINE:-opensearch-2.19.1}
SB=${SEARCHBENCH_BIN:-target/release/searchbench}
[ -n "${SEARCHBENCH_BIN:-}" ] || cargo build --release -q -p searchbench --bin searchbench
OUT=${OUT:-target/bench-gate}
DB="$OUT/gate.db"
if [ "${SUMMARY_ONLY:-0}" != 1 ]; then
rm -rf "$OUT" && mkdir -p "$OUT"

"$SB" engine start "$ENGINE" --heap 1g --json >"$OUT/node.json"
read -r URL PID < <(python3 -c 'import json,sys; n=json.load(open(sys.argv[1])); print(n["url"], n["pid"])' "$OUT/node.json")
PORT=${URL##*:}
trap '"$SB" engine stop --port "$PORT" >/dev/null 2>&1 || true' EXIT
echo "node $ENGINE at $URL (pid $PID); $TRIALS trials of: $SCENARIOS; $DOCS docs a run, at most $MAX_ROUNDS rounds"

# Unmeasured runs first: the node's JIT warms up across runs.
for _ in 1 2 3 4; do
  "$SB" ingest logs --url "$URL" --docs "$DOCS" --index gate --replace --quiet --no-store >/dev/null
done

start=$(date +%s)
for t in $(seq 1 "$TRIALS"); do
  these=$SCENARIOS
  [ $((t % 2)) = 0 ] || these="$SCENARIOS $EXTRA"
  for scenario in $these; do
    name=${scenario%%:*}
    rtt=${scenario#*:}
    b=""
    [ "$rtt" = 0 ] || b="--rtt $rtt"
    set +e
    "$SB" gate --url "$URL" --warm-runs 0 --max-rounds "$MAX_ROUNDS" --json --store "$DB" \
      --b "$b" -- ingest logs --docs "$DOCS" --index gate --replace --engine-pid "$PID" \
      --tag "scenario=$name" --tag "trial=$t" >"$OUT/$name-$t.json" 2>"$OUT/$name-$t.err"
    echo $? >"$OUT/$name-$t.rc"
    set -e
    echo "trial $t $name: exit $(cat "$OUT/$name-$t.rc") ($(( $(date +%s) - start )) s)"
  done
done
"$SB" engine stop --port "$PORT" >/dev/null 2>&1 || true
fi

# Each run's rate, for the fixed 5 rounds computed from the same trials' first rounds.
"$SB" results list --store "$DB" --json --limit 100000 >"$OUT/runs.json"
python3 - "$OUT" "$SB" "$DB" <<'PY' >"$OUT/rates.json"
import json, subprocess, sys
out, sb, db = sys.argv[1:4]
rates = {}
for r in json.load(open(f"{out}/runs.json")):
    t = r["tags"]
    if int(t.get("round", "99")) > 5:
        continue
    shown = json.loads(subprocess.run([sb, "results", "show", r["id"], "--store", db, "--json"],
                                      capture_output=True, text=True).stdout or "{}")
    rate = (shown.get("result") or {}).get("docs_per_sec")
    rates[r["id"]] = {"ab": t["ab"], "side": t["ab_side"], "round": int(t["round"]), "rate": rate}
json.dump(rates, sys.stdout)
PY

python3 - "$OUT" "$TRIALS" "$SCENARIOS $EXTRA" <<'PY'
import json, math, statistics, sys
out, trials, scenarios = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
rates = json.load(open(f"{out}/rates.json"))
# Student's t quantile at 1 − 0.025/2 for 4 degrees of freedom: the headline's Holm share.
T4 = 3.495
def fixed5(ab):
    by = {}
    for r in rates.values():
        if r["ab"] == ab and r["rate"]:
            by.setdefault(r["round"], {})[r["side"]] = r["rate"]
    d = [math.log(v["b"] / v["a"]) for k, v in sorted(by.items()) if "a" in v and "b" in v]
    if len(d) < 5:
        return None
    m, s = statistics.mean(d), statistics.stdev(d)
    t = m / (s / math.sqrt(5))
    return "worse" if t < -T4 else "better" if t > T4 else "none"
def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))] if v else float("nan")
print("| B against A | trials | verdict: worse / better / no change ≥ 5 % / cannot tell | rounds, median (p90) | minutes, median (p90) | B's change, median | fixed 5 rounds: worse / better |")
print("|---|---|---|---|---|---|---|")
for scenario in scenarios:
    name = scenario.split(":")[0]
    seen = {"worse": 0, "better": 0, "no_change_as_large": 0, "undecided": 0}
    rounds, minutes, changes, five = [], [], [], {"worse": 0, "better": 0, "none": 0, None: 0}
    n = 0
    for t in range(1, trials + 1):
        try:
            v = json.load(open(f"{out}/{name}-{t}.json"))
        except Exception:
            continue
        n += 1
        s = v["sequential"]
        seen[s["decision"]] += 1
        rounds.append(s["rounds"])
        minutes.append(s["minutes"])
        if s.get("rate"):
            changes.append(s["rate"]["change_pct"])
        five[fixed5(v["gate"])] += 1
    fmt = lambda v, f: f"{f % statistics.median(v)} ({f % q(v, 0.9)})" if v else "-"
    print(f"| {scenario} | {n} | {seen['worse']} / {seen['better']} / {seen['no_change_as_large']} / {seen['undecided']} | "
          f"{fmt(rounds, '%d')} | {fmt(minutes, '%.1f')} | "
          f"{'%+.1f %%' % statistics.median(changes) if changes else '-'} | {five['worse']} / {five['better']} (of {n - five[None]}) |")
PY
