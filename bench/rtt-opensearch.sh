#!/usr/bin/env bash
# What network distance does to serial and parallel clients: ingest of logs (bulk 100) into
# one local OpenSearch 2.19.1 with 1 and 8 clients, directly and through `--rtt 2ms`; then the
# logs queries (serial `_search` vs one `_msearch`) directly and through `--rtt 2ms`.
#
#   bench/rtt-opensearch.sh [DOCS] [PORT]     default: 200000 docs, port 9431
set -euo pipefail
cd "$(dirname "$0")/.."
DOCS=${1:-200000}
PORT=${2:-9431}
cargo build --release -q -p searchbench --bin searchbench
SB=target/release/searchbench
OUT=${OUT:-target/bench-rate}
mkdir -p "$OUT"
$SB engine start opensearch-2.19.1 --port "$PORT" >/dev/null
trap '$SB engine stop --port "$PORT" >/dev/null 2>&1 || true' EXIT
URL=http://127.0.0.1:$PORT
for clients in 1 8; do
  for rtt in "" 2ms; do
    $SB ingest logs --docs "$DOCS" --bulk-size 100 --clients "$clients" --warmup 5s --url "$URL" \
      ${rtt:+--rtt $rtt} --quiet --no-store --export-json "$OUT/rtt-$clients-${rtt:-0}.json" >/dev/null
    python3 - "$OUT/rtt-$clients-${rtt:-0}.json" "$clients" "${rtt:-0}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["service"]
print(f'clients {sys.argv[2]}  rtt {sys.argv[3]:>3}  {r["docs_per_sec"]:>7.0f} docs/s  service p50/p99 '
      f'{s["p50_ms"]:.1f}/{s["p99_ms"]:.1f} ms')
PY
  done
done
for rtt in "" 2ms; do
  $SB query logs --docs "$DOCS" --url "$URL" --passes 3 --transports serial,msearch ${rtt:+--rtt $rtt} --no-store \
    --export-json "$OUT/rtt-query-${rtt:-0}.json" >/dev/null 2>&1
  python3 - "$OUT/rtt-query-${rtt:-0}.json" "${rtt:-0}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for c in r["cells"]:
    w = c.get("wall_ms") or {}
    print(f'query rtt {sys.argv[2]:>3}  {c["variant"]:<10} {c["transport"]:<8} wall mean {w.get("mean", float("nan")):.1f} ms')
PY
done
