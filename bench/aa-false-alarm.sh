#!/usr/bin/env bash
# A/A false-alarm rate of `compare` on groups of repeated runs: ROUNDS rounds, each with
# 2 + 2 short ingests of the SAME configuration into one local OpenSearch node (interleaved
# A B A B so a drift of the node hits both sides), then `compare a b` on the throughput
# headline. Every "better" or "worse" is a false alarm; at 95 % confidence about 1 round in
# 20 is expected. Prints each round's verdict and the rate. Takes ~10 min with the defaults.
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
for r in $(seq 1 "$ROUNDS"); do
  for side in a b a b; do
    "$SB" ingest logs --docs "$DOCS" --url "$URL" --quiet --warmup 1s \
      --tag "aa=$r-$side" >/dev/null 2>&1
  done
  verdict=$("$SB" compare "aa=$r-a" "aa=$r-b" --json |
    python3 -c 'import json,sys; c=json.load(sys.stdin); r=[x for x in c["rows"] if x["key"]=="docs_per_sec"][0]["contenders"][0]; print(r["verdict"], "%+.1f%%" % r["diff_pct"], "mde=%s" % (None if r["min_detectable_pct"] is None else "%.1f%%" % r["min_detectable_pct"]))')
  echo "round $r: $verdict"
  case "$verdict" in better*|worse*) alarms=$((alarms + 1)) ;; esac
done
echo "false alarms: $alarms of $ROUNDS ($(( alarms * 100 / ROUNDS )) %)"
