#!/usr/bin/env bash
# Time to searchable at refresh intervals 1s, 5s, 30s and off, on one OpenSearch and one
# Elasticsearch node started here: a paced `ingest logs` (RATE docs/s, default 4000) lasting
# about three intervals (at least 20 s) at each interval, the probe's p50 / p90 / p99 / max lag
# and the share not searchable within the bound. A refresh of `-1` says never, not a number.
#
#   bench/freshness-lag.sh [ENGINE...]    # default: opensearch-2.19.1 elasticsearch-8.17.4
set -euo pipefail
cd "$(dirname "$0")/.."
SB=${SEARCHBENCH_BIN:-target/release/searchbench}
[ -n "${SEARCHBENCH_BIN:-}" ] || cargo build --release -q -p searchbench --bin searchbench
RATE=${RATE:-4000}
ENGINES=("$@")
[ ${#ENGINES[@]} -gt 0 ] || ENGINES=(opensearch-2.19.1 elasticsearch-8.17.4)
OUT=$(mktemp -d)
. bench/node.sh
for engine in "${ENGINES[@]}"; do
  start_node "$engine" 1g
  trap '"$SB" engine stop --port "$PORT" >/dev/null 2>&1 || true; rm -rf "$OUT"' EXIT
  for refresh in 1s 5s 30s -1; do
    case $refresh in
      1s) secs=20 ;; 5s) secs=20 ;; 30s) secs=90 ;; *) secs=5 ;;
    esac
    docs=$(( RATE * secs ))
    "$SB" ingest logs --docs "$docs" --rate "$RATE" --clients 2 --url "$URL" --quiet --no-store \
      --index sb-fresh-lag --replace --warmup 0 --refresh-interval="$refresh" \
      --export-json "$OUT/r.json" >/dev/null 2>>"$OUT/runs.log"
    python3 - "$OUT/r.json" "$engine" "$refresh" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f = r["freshness"]
fmt = lambda v: "-" if v is None else f"{v:.2f}"
share = 100.0 * f["unseen"] / f["docs"] if f["docs"] else 0.0
print(f"{sys.argv[2]:22} refresh {sys.argv[3]:>3}: {r['docs_per_sec']:7.0f} docs/s, "
      f"lag p50 {fmt(f['p50_secs'])} p90 {fmt(f['p90_secs'])} p99 {fmt(f['p99_secs'])} "
      f"max {fmt(f['max_secs'])} s; {share:.1f} % of {f['docs']} not searchable within "
      f"{f['bound_secs']:.0f} s")
PY
  done
  stop_node
done
