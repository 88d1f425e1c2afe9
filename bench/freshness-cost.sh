#!/usr/bin/env bash
# What the freshness probe (time to searchable, on by default) costs a load: PAIRS pairs of
# `ingest logs`, the probe on and off (the order alternating per pair, so a drift of the
# machine hits both sides), into the bulk sink (the driver's own CPU, the ceiling) or, with
# ENGINE set, into one real node of that engine started here. Prints each pair's docs/s and
# the driver's CPU per million documents, then the medians of the paired ratios on ÷ off.
#
#   bench/freshness-cost.sh [PAIRS] [DOCS]                        # into the sink
#   ENGINE=opensearch-2.19.1 bench/freshness-cost.sh [PAIRS] [DOCS]   # into a real node
#   ARGS="--refresh-interval 1s" ENGINE=... bench/freshness-cost.sh     # more flags, both sides
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${1:-10}
DOCS=${2:-1000000}
# SEARCHBENCH_BIN: use this binary instead of building one.
SB=${SEARCHBENCH_BIN:-target/release/searchbench}
[ -n "${SEARCHBENCH_BIN:-}" ] || cargo build --release -q -p searchbench --bin searchbench
if [ -n "${ENGINE:-}" ]; then
  OUT=$(mktemp -d)
  . bench/node.sh
  start_node "$ENGINE" 1g
  trap '"$SB" engine stop --port "$PORT" >/dev/null 2>&1 || true; rm -rf "$OUT"' EXIT
  PIN=()
  # One unmeasured load first: the engine's JIT warms up across runs too.
  "$SB" ingest logs --docs "${WARM:-200000}" --url "$URL" --quiet --no-store --no-telemetry \
    --index sb-fresh-cost --replace >/dev/null
else
  . bench/sink.sh
  start_sink
  PIN=(taskset -c "${DRIVER_CORE:-0}")
fi
echo "into $URL: $PAIRS pairs of the probe on and off, $DOCS docs each"

one() { # SIDE PAIR -> "docs/s driver-s-per-million p50 p99 counts-asked"
  local flag=()
  [ "$1" = off ] && flag=(--no-freshness)
  "${PIN[@]}" "$SB" ingest logs --docs "$DOCS" --clients 2 --url "$URL" --quiet --no-store \
    --no-telemetry --index sb-fresh-cost --replace "${flag[@]}" ${ARGS:-} \
    --export-json "$OUT/$1-$2.json" >/dev/null 2>>"$OUT/runs.log"
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); f=r.get("freshness") or {}; print(r["docs_per_sec"], r["cpu"]["driver_secs_per_million_docs"], f.get("p50_secs"), f.get("p99_secs"), f.get("counts_asked"))' \
    "$OUT/$1-$2.json"
}

for i in $(seq "$PAIRS"); do
  if (( i % 2 )); then order="on off"; else order="off on"; fi
  for side in $order; do
    read -r rate cpu p50 p99 asked < <(one "$side" "$i")
    echo "$i $side $rate $cpu $p50 $p99 $asked" | tee -a "$OUT/pairs.txt"
  done
done
python3 - "$OUT/pairs.txt" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
by = {}
for pair, side, rate, cpu, p50, p99, asked in rows:
    by.setdefault(pair, {})[side] = (float(rate), float(cpu), p50, p99, asked)
on = [v["on"] for v in by.values()]
off = [v["off"] for v in by.values()]
med = statistics.median
print(f"docs/s: on {med(r for r, *_ in on):.0f}, off {med(r for r, *_ in off):.0f}")
print(f"driver CPU s per million docs: on {med(c for _, c, *_ in on):.3f}, off {med(c for _, c, *_ in off):.3f}")
print(f"paired on/off: docs/s {med(v['on'][0] / v['off'][0] for v in by.values()):.3f}, "
      f"driver CPU {med(v['on'][1] / v['off'][1] for v in by.values()):.3f}")
print("time to searchable with the probe on, p50 / p99 s (counts asked):",
      ", ".join(f"{p50}/{p99} ({asked})" for _, _, p50, p99, asked in on))
PY
