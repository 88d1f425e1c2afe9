#!/usr/bin/env bash
# How exactly `--rate` holds a set rate: open-loop ingest of the logs generator into the bulk
# sink (examples/bulk_sink.rs, wire speed, indexes nothing) at a few rates, ~SECS seconds each.
# Prints offered vs achieved docs/s, the schedule's lag and late requests, latency from the
# due time, and the driver's CPU. Machine shared with other work: figures are from one run.
#
#   bench/rate-sink.sh [RATES...]      default: 5000 20000 100000 400000
#   SECS=5 BULK=1000 CLIENTS=2 bench/rate-sink.sh 50000
set -euo pipefail
cd "$(dirname "$0")/.."
RATES=${*:-5000 20000 100000 400000}
SECS=${SECS:-5}
BULK=${BULK:-1000}
CLIENTS=${CLIENTS:-2}
cargo build --release -q -p searchbench --bin searchbench --example bulk_sink
OUT=${OUT:-target/bench-rate}
mkdir -p "$OUT"
target/release/examples/bulk_sink >"$OUT/sink.log" 2>&1 &
SINK=$!
trap 'kill $SINK 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q listening "$OUT/sink.log" && break; sleep 0.1; done
URL=$(sed -n 's/^listening on //p' "$OUT/sink.log")
for rate in $RATES; do
  docs=$(( rate * SECS ))
  target/release/searchbench ingest logs --docs "$docs" --rate "$rate" --bulk-size "$BULK" \
    --clients "$CLIENTS" --warmup 0 --url "$URL" --quiet --no-store --export-json "$OUT/rate-$rate.json" >/dev/null
  python3 - "$OUT/rate-$rate.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); x = r["rate"]
f = lambda v: "-" if v is None else f"{v:.1f}"
a = x["achieved_docs_per_sec"]
print(f'offered {x["offered_docs_per_sec"]:>8.0f}  achieved {a:>9.0f} ({100*(a/x["offered_docs_per_sec"]-1):+.2f}%)  '
      f'requests {x["requests"]}  late {x["late_requests"]}  lag p50/p99/max {f(x["schedule_lag"]["p50_ms"])}/'
      f'{f(x["schedule_lag"]["p99_ms"])}/{f(x["schedule_lag"]["max_ms"])} ms  latency p50/p99 '
      f'{f(x["latency"]["p50_ms"])}/{f(x["latency"]["p99_ms"])} ms  driver {100*x["driver_core_share"]:.0f}% of a core  limit {x["limit"]}')
PY
done
