#!/usr/bin/env bash
# Time to searchable on the primaries and on the replicas, on a two-node cluster of each
# engine started here (heap 768m each): a paced `ingest logs` (RATE docs/s, default 4000, for
# SECS seconds, default 20) into an index of one shard and one replica at refresh 1 s. The
# probe reads what a reader sees, and each copy on its own node (search preference).
#
#   bench/freshness-copies.sh [ENGINE...]    # default: opensearch-2.19.1 elasticsearch-8.17.4
set -euo pipefail
cd "$(dirname "$0")/.."
SB=${SEARCHBENCH_BIN:-target/release/searchbench}
[ -n "${SEARCHBENCH_BIN:-}" ] || cargo build --release -q -p searchbench --bin searchbench
RATE=${RATE:-4000}
SECS=${SECS:-20}
ENGINES=("$@")
[ ${#ENGINES[@]} -gt 0 ] || ENGINES=(opensearch-2.19.1 elasticsearch-8.17.4)
OUT=$(mktemp -d)
. bench/node.sh
for engine in "${ENGINES[@]}"; do
  start_node "$engine" 768m --nodes 2
  trap '"$SB" engine stop --port "$PORT" >/dev/null 2>&1 || true; rm -rf "$OUT"' EXIT
  for round in 1 2 3; do
    "$SB" ingest logs --docs $(( RATE * SECS )) --rate "$RATE" --clients 2 --url "$URL" \
      --quiet --no-store --index sb-fresh-copies --replace --warmup 0 --replicas 1 \
      --refresh-interval 1s --export-json "$OUT/r.json" >/dev/null 2>>"$OUT/runs.log"
    python3 - "$OUT/r.json" "$engine" "$round" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["freshness"]
fmt = lambda v: "-" if v is None else f"{v:.2f}"
line = f"{sys.argv[2]:22} round {sys.argv[3]}: reader p50 {fmt(f['p50_secs'])} p99 {fmt(f['p99_secs'])} s"
for c in f.get("copies", []):
    line += f"; {c['copies']} p50 {fmt(c['p50_secs'])} p99 {fmt(c['p99_secs'])} max {fmt(c['max_secs'])} s, unseen {c['unseen']}"
if not f.get("copies"):
    line += "; copies not read apart"
print(line + f"; {f['counts_asked']} counts asked")
PY
  done
  stop_node
done
