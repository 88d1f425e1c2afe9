#!/usr/bin/env bash
# A track's bulk and `ingest` measure time to searchable with one probe, so the same documents
# at the same pace give the same figure. On one node per engine, at refresh 1s and 5s: a track
# of one bulk task (2 clients, bulk-size 100, target-throughput 40 requests/s = 4,000 docs/s)
# of DOCS documents (default 80,000: 20 s), then `ingest --file` of the same file at
# --rate 4000 with the same clients and bulk size; each one's p50 / p99 / max lag, REPEATS
# times (default 1) at each of REFRESH (default "1s 5s").
# Then PAIRS pairs (default 10) of the track unpaced over FAST documents (default 1,000,000),
# with the probe and without (--no-freshness), the order alternating, telemetry off on both
# sides: the track's docs/s on ÷ off, and its paired median (INGEST=1: `ingest --file` of the
# same documents paired the same way in each round, beside). One unmeasured run warms each
# node first.
#
#   bench/freshness-track.sh [ENGINE...]    # default: opensearch-2.19.1 elasticsearch-8.17.4
set -euo pipefail
cd "$(dirname "$0")/.."
SB=${SEARCHBENCH_BIN:-target/release/searchbench}
[ -n "${SEARCHBENCH_BIN:-}" ] || cargo build --release -q -p searchbench --bin searchbench
DOCS=${DOCS:-80000}
FAST=${FAST:-1000000}
PAIRS=${PAIRS:-10}
REPEATS=${REPEATS:-1}
REFRESH=${REFRESH:-1s 5s}
ENGINES=("$@")
[ ${#ENGINES[@]} -gt 0 ] || ENGINES=(opensearch-2.19.1 elasticsearch-8.17.4)
OUT=$(mktemp -d)
. bench/node.sh
python3 - "$OUT" "$DOCS" "$FAST" <<'PY'
import json, sys
out, docs, fast = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for name, n in (("paced", docs), ("fast", fast)):
    with open(f"{out}/{name}.json", "w") as f:
        for i in range(n):
            f.write(json.dumps({"@timestamp": 1700000000000 + i, "n": i,
                                "level": ["info", "warn", "error"][i % 3],
                                "message": f"request {i} served in {i % 997} ms"}) + "\n")
PY
# The track of one bulk of `file` (n documents) at refresh `refresh`, paced or not.
track() {
  local file=$1 n=$2 refresh=$3 pace=$4
  cat > "$OUT/track.json" <<JSON
{"version": 2, "indices": [{"name": "sb-fresh-track"}],
 "corpora": [{"name": "c", "documents": [{"source-file": "$file", "document-count": $n}]}],
 "schedule": [
   {"operation": "delete-index"},
   {"operation": {"operation-type": "create-index",
     "settings": {"index.number_of_replicas": 0, "index.refresh_interval": "$refresh"}}},
   {"name": "load", "operation": {"operation-type": "bulk", "bulk-size": 100}, "clients": 2 $pace}
 ]}
JSON
}
said() {
  python3 - "$@" <<'PY'
import json, sys
path, what = sys.argv[1], sys.argv[2]
r = json.load(open(path))
if "tasks" in r:
    t = next(t for t in r["tasks"] if t["task"] == "load")
    f, rate = t.get("freshness"), t["throughput_mean"]
else:
    f, rate = r.get("freshness"), r["docs_per_sec"]
fmt = lambda v: "-" if v is None else f"{v:.2f}"
if f is None:
    print(f"  {what:28} {rate:8.0f} docs/s, not probed")
else:
    print(f"  {what:28} {rate:8.0f} docs/s, lag p50 {fmt(f['p50_secs'])} p99 {fmt(f['p99_secs'])} "
          f"max {fmt(f['max_secs'])} s, {f['unseen']} of {f['docs']} not searchable")
PY
}
for engine in "${ENGINES[@]}"; do
  start_node "$engine" 1g
  trap '"$SB" engine stop --port "$PORT" >/dev/null 2>&1 || true; rm -rf "$OUT"' EXIT
  echo "$engine"
  # One unmeasured run first: the engine's JIT warms up across runs (the first run on a node
  # just started is slower, its lags longer, whichever side it is).
  track fast.json "$FAST" 1s ''
  "$SB" run --workload-file "$OUT/track.json" --url "$URL" --quiet --no-store --no-telemetry \
    --no-freshness >/dev/null 2>>"$OUT/runs.log"
  for refresh in $REFRESH $(for _ in $(seq 2 "$REPEATS"); do echo "$REFRESH"; done); do
    track paced.json "$DOCS" "$refresh" ', "target-throughput": 40'
    "$SB" run --workload-file "$OUT/track.json" --url "$URL" --quiet --no-store \
      --export-json "$OUT/t.json" >/dev/null 2>>"$OUT/runs.log"
    said "$OUT/t.json" "track bulk, refresh $refresh"
    "$SB" ingest --file "$OUT/paced.json" --index sb-fresh-ingest --replace --rate 4000 \
      --clients 2 --bulk-size 100 --warmup 0 --refresh-interval="$refresh" --url "$URL" \
      --quiet --no-store --export-json "$OUT/i.json" >/dev/null 2>>"$OUT/runs.log"
    said "$OUT/i.json" "ingest, refresh $refresh"
  done
  track fast.json "$FAST" 1s ''
  : > "$OUT/pairs"; : > "$OUT/ipairs"
  for k in $(seq 1 "$PAIRS"); do
    for side in $( ((k % 2)) && echo "on off" || echo "off on"); do
      flag=()
      [ "$side" = off ] && flag=(--no-freshness)
      "$SB" run --workload-file "$OUT/track.json" --url "$URL" --quiet --no-store --no-telemetry \
        "${flag[@]}" \
        --export-json "$OUT/$side.json" >/dev/null 2>>"$OUT/runs.log"
    done
    python3 - "$OUT" "$k" >> "$OUT/pairs" <<'PY'
import json, sys
rate = lambda side: next(t for t in json.load(open(f"{sys.argv[1]}/{side}.json"))["tasks"]
                         if t["task"] == "load")["throughput_mean"]
print(f"{rate('on') / rate('off'):.4f} {rate('on'):.0f} {rate('off'):.0f}")
PY
    # INGEST=1: the same pair by `ingest --file` of the same documents, in the same round.
    if [ -n "${INGEST:-}" ]; then
      for side in $( ((k % 2)) && echo "on off" || echo "off on"); do
        flag=()
        [ "$side" = off ] && flag=(--no-freshness)
        "$SB" ingest --file "$OUT/fast.json" --index sb-fresh-ingest --replace --clients 2 \
          --bulk-size 100 --warmup 0 --refresh-interval=1s --url "$URL" --quiet --no-store \
          --no-telemetry "${flag[@]}" --export-json "$OUT/i$side.json" >/dev/null 2>>"$OUT/runs.log"
      done
      python3 - "$OUT" >> "$OUT/ipairs" <<'PY'
import json, sys
rate = lambda side: json.load(open(f"{sys.argv[1]}/i{side}.json"))["docs_per_sec"]
print(f"{rate('on') / rate('off'):.4f} {rate('on'):.0f} {rate('off'):.0f}")
PY
    fi
  done
  for kind in pairs ipairs; do
    [ -s "$OUT/$kind" ] || continue
    python3 - "$OUT/$kind" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
ratios = [float(r[0]) for r in rows]
what = "track" if sys.argv[1].endswith("/pairs") else "ingest"
print(f"  unpaced {what} pairs, docs/s on ÷ off: " + ", ".join(f"{r:.3f}" for r in ratios)
      + f"; median {statistics.median(ratios):.3f}"
      + f" ({statistics.median(float(r[1]) for r in rows):.0f} vs "
      + f"{statistics.median(float(r[2]) for r in rows):.0f} docs/s)")
PY
  done
  stop_node
done
