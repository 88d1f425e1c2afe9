#!/usr/bin/env bash
# Recall against ops/s of the `vectors` workload (issue 82): a local Elasticsearch 8.17.4
# node (dense_vector, HNSW m=16 ef_construction=100, no quantization) loaded with DOCS
# vectors of DIMS dimensions, then every variant (k, num_candidates, filters leaving out
# 50/90/99/99.9 %) measured at 1 and at 4 search clients, PASSES passes each, every answer's
# recall@k against the exact neighbours. Prints a row per variant and client count.
#
#   bench/vectors.sh [DOCS] [DIMS] [PASSES]
set -euo pipefail
cd "$(dirname "$0")/.."
DOCS=${1:-100000}
DIMS=${2:-128}
PASSES=${3:-3}
cargo build --release -q -p searchbench --bin searchbench
SB=target/release/searchbench
OUT=${OUT:-target/bench-vectors}
rm -rf "$OUT" && mkdir -p "$OUT"

. bench/node.sh
start_node elasticsearch-8.17.4 2g

start=$(date +%s.%N)
"$SB" ingest vectors --docs "$DOCS" --dims "$DIMS" --url "$URL" --quiet --no-store >/dev/null
end=$(date +%s.%N)
echo "loaded $DOCS vectors of $DIMS dims in $(python3 -c "print(f'{$end - $start:.1f}')") s"
for clients in 1 4; do
  "$SB" query vectors --docs "$DOCS" --dims "$DIMS" --url "$URL" --search-clients "$clients" \
    --passes "$PASSES" --no-store --json >"$OUT/c$clients.json"
done
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
print(f"{'variant':<16} {'clients':>7} {'recall@k':>9} {'lowest':>7} {'ops/s':>8} {'took median ms':>14} {'wall median ms':>14}")
for clients in (1, 4):
    q = json.load(open(f"{out}/c{clients}.json"))
    cells = q["cells"]
    busy = [c["wall_ms"]["mean"] * c["wall_ms"]["n"] for c in cells]
    total = sum(busy)
    acc = {a["variant"]: a for a in q["accuracy"]}
    for c, b in zip(cells, busy):
        secs = q["measured_secs"] * b / total
        rate = c["wall_ms"]["n"] / secs
        a = acc[c["variant"]]
        recall = a["recall_sum"] / a["recall_answers"]
        print(f"{c['variant']:<16} {clients:>7} {recall:>9.4f} {a['recall_min']:>7.2f} {rate:>8.0f} "
              f"{c['took_ms']['median']:>14.1f} {c['wall_ms']['median']:>14.1f}")
PY
