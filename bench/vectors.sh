#!/usr/bin/env bash
# Recall against ops/s of the `vectors` workload (issue 82), on both engines: a local
# Elasticsearch 8.17.4 node (dense_vector) and a local OpenSearch 2.19.1 node with its k-NN
# plugin (knn_vector, the Lucene engine), each HNSW m=16 ef_construction=100 without
# quantization, loaded with DOCS vectors of DIMS dimensions. Every variant (k, candidates,
# filters leaving out 50/90/99/99.9 %) is measured at 1 and at 4 search clients, PASSES passes
# each, idle and then during an ingest (REWRITE_RATE docs/s written over the corpus by one
# client, `query --rewrite-clients 1 --rewrite-rate`), every answer's recall@k against the
# exact neighbours. The node first settles (no merge running for 5 s); then two rounds, each
# idle then during the writes at each client count, side by side. Prints a row per engine,
# mode, variant and client count: recall over both rounds' answers, the medians of the two
# rounds' ops/s, took and wall.
#
#   bench/vectors.sh [DOCS] [DIMS] [PASSES] [REWRITE_RATE]
#   ENGINES="elasticsearch-8.17.4" bench/vectors.sh      # one engine
set -euo pipefail
cd "$(dirname "$0")/.."
DOCS=${1:-100000}
DIMS=${2:-128}
PASSES=${3:-3}
RATE=${4:-1000}
ENGINES=${ENGINES:-"elasticsearch-8.17.4 opensearch-2.19.1"}
cargo build --release -q -p searchbench --bin searchbench
SB=target/release/searchbench
OUT=${OUT:-target/bench-vectors}
rm -rf "$OUT" && mkdir -p "$OUT"

. bench/node.sh
# Waits until the index has no merge running (the load's, the writes') for 5 s in a row.
settle() {
  local quiet=0
  while [ $quiet -lt 5 ]; do
    current=$(curl -s --max-time 10 "$URL/searchbench-vectors/_stats/merge" |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["_all"]["primaries"]["merges"]["current"])')
    if [ "$current" = 0 ]; then quiet=$((quiet + 1)); else quiet=0; fi
    sleep 1
  done
}
for engine in $ENGINES; do
  start_node "$engine" 2g --knn
  start=$(date +%s.%N)
  "$SB" ingest vectors --docs "$DOCS" --dims "$DIMS" --url "$URL" --quiet --no-store >/dev/null
  end=$(date +%s.%N)
  echo "$engine: loaded $DOCS vectors of $DIMS dims in $(python3 -c "print(f'{$end - $start:.1f}')") s"
  settle
  # Side by side: each round measures idle and during the writes at each client count.
  for round in 1 2; do
    for clients in 1 4; do
      "$SB" query vectors --docs "$DOCS" --dims "$DIMS" --url "$URL" --search-clients "$clients" \
        --passes "$PASSES" --no-store --json --quiet >"$OUT/$engine-idle-c$clients-r$round.json"
      "$SB" query vectors --docs "$DOCS" --dims "$DIMS" --url "$URL" --search-clients "$clients" \
        --passes "$PASSES" --rewrite-clients 1 --rewrite-rate "$RATE" --no-store --json --quiet \
        >"$OUT/$engine-ingest-c$clients-r$round.json"
      settle
    done
  done
  curl -s "$URL/_cat/segments?h=segment,docs.count,docs.deleted" >"$OUT/$engine-segments.txt" || true
  stop_node
done
python3 - "$OUT" $ENGINES <<'PY'
import json, sys
out, engines = sys.argv[1], sys.argv[2:]
print(f"{'engine':<22} {'mode':<7} {'variant':<16} {'clients':>7} {'recall@k':>9} {'lowest':>7} {'ops/s':>8} {'took median ms':>14} {'wall median ms':>14}")
for engine in engines:
    for mode in ("idle", "ingest"):
        for clients in (1, 4):
            rows = {}
            writes = []
            for r in (1, 2):
                q = json.load(open(f"{out}/{engine}-{mode}-c{clients}-r{r}.json"))
                cells = q["cells"]
                busy = [c["wall_ms"]["mean"] * c["wall_ms"]["n"] for c in cells]
                total = sum(busy)
                acc = {a["variant"]: a for a in q["accuracy"]}
                for c, b in zip(cells, busy):
                    secs = q["measured_secs"] * b / total
                    a = acc[c["variant"]]
                    row = rows.setdefault(c["variant"], {"rates": [], "sum": 0, "n": 0, "min": 1, "took": [], "wall": []})
                    row["rates"].append(c["wall_ms"]["n"] / secs)
                    row["sum"] += a["recall_sum"]
                    row["n"] += a["recall_answers"]
                    row["min"] = min(row["min"], a["recall_min"])
                    row["took"].append(c["took_ms"]["median"])
                    row["wall"].append(c["wall_ms"]["median"])
                if q.get("rewrites"):
                    writes.append(q["rewrites"])
            for v, row in rows.items():
                med = lambda xs: sorted(xs)[len(xs) // 2] if len(xs) % 2 else sum(sorted(xs)[len(xs)//2 - 1:len(xs)//2 + 1]) / 2
                print(f"{engine:<22} {mode:<7} {v:<16} {clients:>7} {row['sum'] / row['n']:>9.4f} {row['min']:>7.2f} "
                      f"{med(row['rates']):>8.0f} {med(row['took']):>14.1f} {med(row['wall']):>14.1f}")
            for w in writes:
                print(f"  {engine} {mode} c{clients}: rewrites {w['docs']} docs in {w['secs']:.1f} s ({w['docs_per_sec']:.0f} docs/s), {w['failed']} refused")
PY
