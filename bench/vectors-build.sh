#!/usr/bin/env bash
# The build cost of the vector field on its own (issue 82): on each engine, the `vectors`
# corpus (DOCS vectors of DIMS dimensions, 1 shard) ingested with the field kept without a
# graph (`--vector-index none`) and with each graph the engine builds (hnsw; Elasticsearch's
# int8_hnsw and bbq_hnsw too), the index's own indexing, refresh and merge times read from
# `_stats`; then, for each graph, the searches measured on the segments the load left,
# a force-merge to one segment timed, and the searches measured again (recall@k and took
# of every variant, PASSES passes). Prints a row per engine and graph.
#
#   bench/vectors-build.sh [DOCS] [DIMS] [PASSES]
#   ENGINES="opensearch-2.19.1" bench/vectors-build.sh      # one engine
set -euo pipefail
cd "$(dirname "$0")/.."
DOCS=${1:-100000}
DIMS=${2:-128}
PASSES=${3:-2}
ENGINES=${ENGINES:-"elasticsearch-8.17.4 opensearch-2.19.1"}
cargo build --release -q -p searchbench --bin searchbench
SB=target/release/searchbench
OUT=${OUT:-target/bench-vectors-build}
rm -rf "$OUT" && mkdir -p "$OUT"
INDEX=searchbench-vectors

. bench/node.sh
stats() {
  curl -s --max-time 60 "$URL/$INDEX/_stats/indexing,refresh,merge,segments" >"$1"
}
for engine in $ENGINES; do
  start_node "$engine" 2g --knn
  kinds="none hnsw"
  case $engine in elasticsearch-*) kinds="none hnsw int8_hnsw bbq_hnsw" ;; esac
  for kind in $kinds; do
    tag="$OUT/$engine-$kind"
    "$SB" ingest vectors --docs "$DOCS" --dims "$DIMS" --vector-index "$kind" --url "$URL" \
      --index "$INDEX" --replace --quiet --no-store --json >"$tag-ingest.json"
    stats "$tag-stats-loaded.json"
    [ "$kind" = none ] && continue
    "$SB" query vectors --docs "$DOCS" --dims "$DIMS" --vector-index "$kind" --url "$URL" \
      --index "$INDEX" --passes "$PASSES" --no-store --json >"$tag-query-loaded.json"
    start=$(date +%s.%N)
    curl -s --max-time 3600 -X POST "$URL/$INDEX/_forcemerge?max_num_segments=1" >/dev/null
    end=$(date +%s.%N)
    python3 -c "print($end - $start)" >"$tag-forcemerge-secs"
    stats "$tag-stats-merged.json"
    "$SB" query vectors --docs "$DOCS" --dims "$DIMS" --vector-index "$kind" --url "$URL" \
      --index "$INDEX" --passes "$PASSES" --no-store --json >"$tag-query-merged.json"
  done
  stop_node
done
python3 - "$OUT" "$INDEX" $ENGINES <<'PY'
import json, os, sys
out, index, engines = sys.argv[1], sys.argv[2], sys.argv[3:]

def stats(path):
    s = json.load(open(path))["indices"][index]["primaries"]
    return {
        "index_s": s["indexing"]["index_time_in_millis"] / 1000,
        "refresh_s": s["refresh"]["total_time_in_millis"] / 1000,
        "merge_s": s["merges"]["total_time_in_millis"] / 1000,
        "segments": s["segments"]["count"],
        "bytes": s["segments"].get("memory_in_bytes", 0),
    }

def query(path):
    q = json.load(open(path))
    acc = {a["variant"]: a["recall_sum"] / a["recall_answers"] for a in q["accuracy"]}
    took = {c["variant"]: c["took_ms"]["median"] for c in q["cells"]}
    return acc, took

print(f"{'engine':<22} {'graph':<10} {'docs/s':>8} {'load s':>7} {'index s':>8} {'refresh s':>9} {'merge s':>8} {'segments':>8} {'force-merge s':>13}")
rows = []
for engine in engines:
    for kind in ("none", "hnsw", "int8_hnsw", "bbq_hnsw"):
        tag = f"{out}/{engine}-{kind}"
        if not os.path.exists(f"{tag}-ingest.json"):
            continue
        i = json.load(open(f"{tag}-ingest.json"))
        secs = i["wall_secs"]
        rate = i["docs_per_sec"]
        st = stats(f"{tag}-stats-loaded.json")
        fm = open(f"{tag}-forcemerge-secs").read().strip() if os.path.exists(f"{tag}-forcemerge-secs") else "-"
        fm = f"{float(fm):.1f}" if fm != "-" else fm
        print(f"{engine:<22} {kind:<10} {rate:>8.0f} {secs:>7.1f} {st['index_s']:>8.1f} {st['refresh_s']:>9.1f} {st['merge_s']:>8.1f} {st['segments']:>8} {fm:>13}")
        if os.path.exists(f"{tag}-query-loaded.json"):
            rows.append((engine, kind, st["segments"], query(f"{tag}-query-loaded.json"), query(f"{tag}-query-merged.json")))
print()
print(f"{'engine':<22} {'graph':<10} {'variant':<16} {'recall (N segs)':>15} {'took ms':>8} {'recall (1 seg)':>14} {'took ms':>8}")
for engine, kind, segs, (ra, ta), (rb, tb) in rows:
    for v in ra:
        print(f"{engine:<22} {kind:<10} {v:<16} {ra[v]:>15.4f} {ta[v]:>8.1f} {rb[v]:>14.4f} {tb[v]:>8.1f}   ({segs} segments before)")
PY
