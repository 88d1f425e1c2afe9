#!/usr/bin/env bash
# Query driver overhead: client wall − server took per serial `_search`, against a sink that
# answers at once (took 0), release build. Target: p50 ≤ 50 µs.
#   bench/query_overhead.sh [PASSES]
set -euo pipefail
cd "$(dirname "$0")/.."
passes=${1:-20}
cargo build --release -q --bin searchbench --example query_sink
out=$(mktemp -d)
./target/release/examples/query_sink >"$out/url" &
sink=$!
trap 'kill $sink 2>/dev/null || true; rm -rf "$out"' EXIT
for _ in $(seq 50); do [ -s "$out/url" ] && break; sleep 0.1; done
url=$(head -1 "$out/url")
# 5 epochs × 30 nodes = 150 searches per pass; A only, serial only, answers not checked.
./target/release/searchbench query cluster-metrics --url "$url" --no-check \
  --variants A --transports serial --rows-per-epoch 3000 --epochs 5 --passes "$passes" \
  --no-telemetry --no-store --export-json "$out/result.json" >"$out/log" 2>&1 || { cat "$out/log" >&2; exit 1; }
python3 - "$out/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for c in r["cells"]:
    o = c["overhead_hdr"]
    print(f'{c["variant"]} {c["transport"]}: {o["count"]} requests, driver overhead '
          f'p50 {o["p50_us"]} µs, p90 {o["p90_us"]} µs, p99 {o["p99_us"]} µs, max {o["max_us"]} µs; '
          f'errors {c["errors"]}')
PY
