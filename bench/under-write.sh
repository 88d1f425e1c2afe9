#!/usr/bin/env bash
# Search under write beside idle on one OpenSearch and one Elasticsearch node started here:
# the logs corpus (DOCS, default 200000) loaded, then `query logs --beside-idle` with 1 and 2
# rewrite clients writing the corpus over itself during half of every pass (PASSES, default
# 6): per variant the idle and under-write p50 / p99 wall and the change of the mean, paired
# pass by pass (95 %), with the writes' docs/s. Every answer is checked on both sides.
#
#   bench/under-write.sh [ENGINE...]    # default: opensearch-2.19.1 elasticsearch-8.17.4
set -euo pipefail
cd "$(dirname "$0")/.."
SB=${SEARCHBENCH_BIN:-target/release/searchbench}
[ -n "${SEARCHBENCH_BIN:-}" ] || cargo build --release -q -p searchbench --bin searchbench
DOCS=${DOCS:-200000}
PASSES=${PASSES:-6}
ENGINES=("$@")
[ ${#ENGINES[@]} -gt 0 ] || ENGINES=(opensearch-2.19.1 elasticsearch-8.17.4)
OUT=$(mktemp -d)
. bench/node.sh
for engine in "${ENGINES[@]}"; do
  start_node "$engine" 1g
  trap '"$SB" engine stop --port "$PORT" >/dev/null 2>&1 || true; rm -rf "$OUT"' EXIT
  "$SB" ingest logs --docs "$DOCS" --url "$URL" --index sb-under-write --replace --quiet \
    --no-store >/dev/null 2>>"$OUT/runs.log"
  for clients in 1 2; do
    "$SB" query logs --docs "$DOCS" --url "$URL" --index sb-under-write --passes "$PASSES" \
      --rewrite-clients "$clients" --beside-idle --quiet --no-store --no-telemetry \
      --json "$OUT/q.json" >"$OUT/q.out" 2>>"$OUT/runs.log"
    python3 - "$OUT/q.json" "$engine" "$clients" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
w = r["rewrites"]
print(f"{sys.argv[2]}, {sys.argv[3]} rewrite client(s): {w['docs_per_sec']:.0f} docs/s written "
      f"for half of each of {r['passes']} passes; wrong answers {r['failures_total']}")
idle = {c["variant"]: c for c in r["cells"]}
changes = []
for c in r["write_cells"]:
    i = idle[c["variant"]]
    ratio = c["wall_ms"]["mean"] / i["wall_ms"]["mean"]
    changes.append(ratio)
changes.sort()
print(f"  median over the variants: ×{changes[len(changes) // 2]:.2f} the idle mean wall")
PY
    # The report's own table: the change with its interval, paired pass by pass.
    sed -n '/^Under write beside idle/,/^each pass ran/p' "$OUT/q.out"
  done
  stop_node
done
