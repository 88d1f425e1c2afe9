#!/usr/bin/env bash
# A/A false-alarm rate of the gate `compare --fail-on-worse` on groups of repeated runs:
# ROUNDS rounds, each with 2 + 2 short ingests of the SAME configuration into one local
# OpenSearch node (interleaved A B A B so a drift of the node hits both sides), then
# `compare a b --fail-on-worse` over every metric the runs have (about 80). The gate fires
# (exit 3) when any metric is called worse: with Holm's correction over the metrics it should
# fire in at most 5 % of the rounds (uncorrected, 4 of 78 metrics at 5 % each made it fire
# most nights). Prints each round's exit code, how many metrics were called better or worse,
# the headline's verdict, and the rates. Takes ~10 min with the defaults.
#
#   bench/aa-false-alarm.sh [ROUNDS] [DOCS]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-20}
DOCS=${2:-5000}
# SEARCHBENCH_BIN: use this binary instead of building one.
SB=${SEARCHBENCH_BIN:-target/release/searchbench}
[ -n "${SEARCHBENCH_BIN:-}" ] || cargo build --release -q -p searchbench --bin searchbench
OUT=${OUT:-target/bench-aa}
mkdir -p "$OUT"
DB="$OUT/aa-$$.db"
export SEARCHBENCH_STORE="$DB"

URL=$("$SB" engine start opensearch-2.19.1 --heap 1g | grep -o 'http://[0-9.:]*' | head -1)
PORT=${URL##*:}
trap '"$SB" engine stop --port "$PORT" >/dev/null 2>&1 || true' EXIT
echo "node at $URL; $ROUNDS rounds of 2 + 2 runs of $DOCS docs"

# One unmeasured run first: the node's JIT warms up across runs too.
"$SB" ingest logs --docs "$DOCS" --url "$URL" --quiet --no-store >/dev/null

alarms=0
changes=0
for r in $(seq 1 "$ROUNDS"); do
  for side in a b a b; do
    "$SB" ingest logs --docs "$DOCS" --url "$URL" --quiet --warmup 1s \
      --tag "aa=$r-$side" >/dev/null 2>&1
  done
  set +e
  "$SB" compare "aa=$r-a" "aa=$r-b" --fail-on-worse --json >"$OUT/compare-$r.json" 2>/dev/null
  code=$?
  set -e
  said=$(python3 - "$OUT/compare-$r.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
cells = [(row["key"], row["contenders"][0]) for row in c["rows"] if row["contenders"][0]]
moved = [k for k, x in cells if x["verdict"] in ("better", "worse")]
raw = [k for k, x in cells if x.get("p_value") is not None and x["p_value"] <= 0.05]
head = [x for k, x in cells if k == "docs_per_sec"][0]
print(len(moved), "metrics moved of", c["correction"]["family"][0], "tested;",
      len(raw), "at p <= 0.05 uncorrected; headline", head["verdict"], "%+.1f%%" % head["diff_pct"])
PY
)
  echo "round $r: exit $code; $said"
  [ "$code" = 3 ] && alarms=$((alarms + 1))
  case "$said" in 0\ *) ;; *) changes=$((changes + 1)) ;; esac
done
echo "gate fired (exit 3): $alarms of $ROUNDS ($(( alarms * 100 / ROUNDS )) %); a metric called better or worse: $changes of $ROUNDS"
