#!/usr/bin/env bash
# The many-shards and snapshots scenarios at their default sizes (500 indices of 100
# auditbeat documents; many-shards: 100,000 logs documents at bulk 1,000 with 2 searching
# clients, 50 field-caps requests from 2 clients; snapshots: 20 sequential snapshots), each on
# a fresh node we start (1 GB heap), on OpenSearch 2.19.1 and a second engine.
#
#   bench/shards.sh
#   ENGINES='opensearch-2.19.1' SCENARIOS=snapshots bench/shards.sh
#   EXTRA='--indices 200' bench/shards.sh          # smaller
#
# Results: one JSON per (engine, scenario) in $OUT_DIR, and the runs in the results store
# ($SEARCHBENCH_STORE, or the default one) with their HTML reports. Traffic: 127.0.0.1 only
# (and Maven Central for an engine not cached yet).
set -eu
cd "$(dirname "$0")/.."

ENGINES=${ENGINES:-'opensearch-2.19.1 elasticsearch-8.17.4'}
SCENARIOS=${SCENARIOS:-'many-shards snapshots'}
OUT_DIR=${OUT_DIR:-bench/results/shards}
HEAP=${HEAP:-1g}
SRC_BIN=${BIN:-target/release/searchbench}
[ -x "$SRC_BIN" ] || cargo build --release -p searchbench
# A copy: a rebuild during the run must not swap the binary under it.
WORK=$(mktemp -d /tmp/sb-shards.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
BIN="$WORK/searchbench"
cp "$SRC_BIN" "$BIN"
mkdir -p "$OUT_DIR"

for engine in $ENGINES; do
  for scenario in $SCENARIOS; do
    out="$OUT_DIR/$scenario-$engine.json"
    echo "== $scenario on $engine"
    start=$(date +%s)
    # shellcheck disable=SC2086
    "$BIN" run "$scenario" --engine "$engine" --heap "$HEAP" --tag bench=shards \
      --export-json "$out" ${EXTRA:-} || echo "exit $? ($scenario on $engine)"
    echo "   wall $(( $(date +%s) - start )) s -> $out"
  done
done

# One summary line per result.
python3 - "$OUT_DIR" <<'PY'
import json, pathlib, sys
for p in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    r = json.loads(p.read_text())
    c = r["creation"]
    line = (f"{p.stem}: {c['indices_created']} indices in {c['secs']:.0f} s = "
            f"{c['indices_per_sec']:.2f} indices/s ({c['first_tenth_indices_per_sec']:.2f} first "
            f"tenth, {c['last_tenth_indices_per_sec']:.2f} last), {c['docs_per_sec']:.0f} docs/s, "
            f"state {c['cluster_state'][0]['bytes']/1e6:.2f} -> {c['cluster_state'][-1]['bytes']/1e6:.2f} MB")
    if r.get("indexing"):
        i = r["indexing"]; b = i.get("searches_beside") or {}
        lat = b.get("latency", {})
        line += (f"; logs {i['docs_per_sec']:.0f} docs/s with {b.get('requests', 0)} searches "
                 f"p50 {lat.get('p50_us', 0)/1000:.0f} ms p99 {lat.get('p99_us', 0)/1000:.0f} ms")
    if r.get("field_caps"):
        f = r["field_caps"]
        line += f"; field caps p50 {f['p50_ms']:.0f} ms p99 {f['p99_ms']:.0f} ms"
    if r.get("snapshots"):
        s = r["snapshots"]; k = s["create"]
        line += (f"; {s['requested']} snapshots: create mean {k['mean_ms']:.0f} ms p50 "
                 f"{k['p50_ms']:.0f} p99 {k['p99_ms']:.0f}, total {s['total_secs']:.1f} s, wait "
                 f"{s['wait_secs']:.1f} s, states {s['states']}, GC {s['gc_ms']} ms, "
                 f"error rate {s['error_rate']:.2f}")
    print(line)
PY
