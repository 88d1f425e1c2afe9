#!/usr/bin/env bash
# Their recall beside ours (issue 82): opensearch-benchmark's `vectorsearch` workload as
# written (tests/fixtures/tracks/osb/vectorsearch, unchanged) run by searchbench on bigann
# files it lays down (`generate vectors --format bigann`), against searchbench's own `vectors`
# workload, on one local OpenSearch 2.19.1 node with its k-NN plugin (the Lucene engine, HNSW
# m=16 ef_construction=100 in both). DOCS vectors of DIMS dimensions, the same vectors,
# queries and exact neighbours on both sides.
#
# 1. Their procedure `no-train-test`: their index (2 bulk clients), force-merged to one
#    segment, warmed, then every query REPS times at 1 search client; then `search-only` at 4
#    clients (where opensearch-benchmark, on this 2-core machine, would skip recall).
# 2. Ours on our index (`ingest vectors`, as many segments as the load leaves): every variant
#    at 1 and 4 clients.
# 3. Their `vector-search` (k 100) on our index, at 1 and 4 clients: the same searches judged
#    by both tools' recall on one index.
#
#   bench/vectors-osb.sh [DOCS] [DIMS] [REPS]
set -euo pipefail
cd "$(dirname "$0")/.."
DOCS=${1:-100000}
DIMS=${2:-128}
REPS=${3:-2}
cargo build --release -q -p searchbench --bin searchbench
SB=target/release/searchbench
OUT=${OUT:-target/bench-vectors-osb}
WORKLOAD=crates/searchbench/tests/fixtures/tracks/osb/vectorsearch/workload.json
rm -rf "$OUT" && mkdir -p "$OUT"
"$SB" generate vectors --docs "$DOCS" --dims "$DIMS" --seed 1 --format bigann --out "$OUT/data"
DATA=$(cd "$OUT/data" && pwd)

. bench/node.sh
start_node opensearch-2.19.1 2g --knn

# Their parameters, as their params/lucene-sift-128-l2.json gives them, on our files.
params() { # INDEX FIELD CLIENTS
  cat <<EOF
{"target_index_name": "$1", "target_field_name": "$2", "target_index_body": "indices/lucene-index.json",
 "target_index_primary_shards": 1, "target_index_dimension": $DIMS, "target_index_space_type": "l2",
 "target_index_bulk_size": 100, "target_index_bulk_index_data_set_format": "bigann",
 "target_index_bulk_index_data_set_path": "$DATA/base.fbin", "target_index_bulk_indexing_clients": 2,
 "target_index_max_num_segments": 1, "hnsw_ef_construction": 100, "hnsw_m": 16,
 "query_k": 100, "query_body": {"docvalue_fields": ["_id"], "stored_fields": "_none_", "_source": false},
 "query_data_set_format": "bigann", "query_data_set_path": "$DATA/queries.fbin",
 "neighbors_data_set_format": "bigann", "neighbors_data_set_path": "$DATA/neighbors.bin",
 "query_count": -1, "number_of_repetitions": $REPS, "search_clients": $3}
EOF
}
theirs() { # NAME INDEX FIELD CLIENTS PROCEDURE
  params "$2" "$3" "$4" >"$OUT/$1.params.json"
  "$SB" run --url "$URL" --workload-file "$WORKLOAD" --track-params "$OUT/$1.params.json" \
    --challenge "$5" --corpus-dir "$DATA" --no-store --quiet --json "$OUT/$1.json" >/dev/null
}
theirs their-index-c1 osb-target target_field 1 no-train-test
theirs their-index-c4 osb-target target_field 4 search-only
curl -s "$URL/_cat/segments/osb-target?h=segment" | wc -l >"$OUT/their-segments.txt"

"$SB" ingest vectors --docs "$DOCS" --dims "$DIMS" --url "$URL" --quiet --no-store >/dev/null
curl -s -X POST "$URL/searchbench-vectors/_refresh" >/dev/null
curl -s "$URL/_cat/segments/searchbench-vectors?h=segment" | wc -l >"$OUT/our-segments.txt"
# Our ids are the rows' numbers, as theirs are: document 0 is row 0 of base.fbin.
python3 - "$URL" "$DATA/base.fbin" <<'PY'
import json, struct, sys, urllib.request
url, base = sys.argv[1:]
with open(base, "rb") as f:
    rows, dims = struct.unpack("<II", f.read(8))
    row0 = list(struct.unpack(f"<{dims}f", f.read(4 * dims)))
doc = json.load(urllib.request.urlopen(f"{url}/searchbench-vectors/_doc/0"))
stored = doc["_source"]["v"]
assert all(abs(a - b) < 1e-6 for a, b in zip(row0, stored)), "document 0 is not row 0"
PY
for clients in 1 4; do
  "$SB" query vectors --docs "$DOCS" --dims "$DIMS" --url "$URL" --search-clients "$clients" \
    --passes "$REPS" --no-store --json --quiet >"$OUT/ours-c$clients.json"
  theirs "their-search-our-index-c$clients" searchbench-vectors v "$clients" search-only
done
stop_node

python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
segments = {k: open(f"{out}/{k}-segments.txt").read().strip() for k in ("their", "our")}
print(f"their index: {segments['their']} segment(s); ours: {segments['our']}")
print(f"{'who measures':<44} {'search':<16} {'clients':>7} {'answers':>8} {'recall@k':>9} {'recall@1':>9} {'worst':>6} {'ops/s':>7} {'p50 ms':>7}")
def task(name):
    r = json.load(open(f"{out}/{name}.json"))
    return next(t for t in r["tasks"] if t["task"] == "prod-queries")
for name, who, c in [("their-index-c1", "their workload, their index (1 segment)", 1),
                     ("their-index-c4", "their workload, their index (1 segment)", 4),
                     ("their-search-our-index-c1", "their vector-search, our index", 1),
                     ("their-search-our-index-c4", "their vector-search, our index", 4)]:
    t = task(name)
    r = t["recall"]
    print(f"{who:<44} {'k100 (nc = k)':<16} {c:>7} {r['answers']:>8} {r['mean_at_k']:>9.4f} {r['mean_at_1']:>9.4f} "
          f"{r['min_at_k']:>6.2f} {t['throughput_mean']:>7.0f} {t['service_time_ms'][0]:>7.1f}")
for c in (1, 4):
    q = json.load(open(f"{out}/ours-c{c}.json"))
    cells = q["cells"]
    busy = [x["wall_ms"]["mean"] * x["wall_ms"]["n"] for x in cells]
    total = sum(busy)
    acc = {a["variant"]: a for a in q["accuracy"]}
    for x, b in zip(cells, busy):
        if x["variant"] not in ("k100_nc200", "k10_nc100", "k10_nc20"):
            continue
        a = acc[x["variant"]]
        rate = x["wall_ms"]["n"] / (q["measured_secs"] * b / total)
        print(f"{'searchbench vectors, our index':<44} {x['variant']:<16} {c:>7} {a['recall_answers']:>8} "
              f"{a['recall_sum'] / a['recall_answers']:>9.4f} {'':>9} {a['recall_min']:>6.2f} {rate:>7.0f} {x['wall_ms']['median']:>7.1f}")
PY
