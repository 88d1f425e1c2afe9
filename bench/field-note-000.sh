#!/usr/bin/env bash
# Field note 000 checked (issue 61): where an engine's CPU and allocations go while it indexes
# the logs workload. The note ran Elasticsearch 8.11.0 with an 8 GB heap on a 6-core Ryzen
# 5600X and found ~50 % of CPU in Lucene, ~35 % parsing JSON, ~10 % parsing dates, ~30 % of
# allocated bytes in date parsing and ~3 GB/s allocated. Here: each engine a fresh node of its
# own (8 GiB heap), `run logs --docs DOCS --no-query --profile`, one run each, in turn.
#
#   bench/field-note-000.sh [DOCS] [ENGINES]   (ENGINES: comma-separated)
set -euo pipefail
cd "$(dirname "$0")/.."
DOCS=${1:-1000000}
ENGINES=${2:-elasticsearch-8.11.0,opensearch-2.19.1,opensearch-3.3.2}
SB=${SEARCHBENCH_BIN:-target/release/searchbench}
[ -n "${SEARCHBENCH_BIN:-}" ] || cargo build --release -q -p searchbench --bin searchbench
OUT=${OUT:-target/bench-field-note-000}
rm -rf "$OUT" && mkdir -p "$OUT"
for engine in ${ENGINES//,/ }; do
  "$SB" run logs --engine "$engine" --heap 8g --docs "$DOCS" --no-query --profile --quiet \
    --store "$OUT/results.db" --export-json "$OUT/$engine.json" >"$OUT/$engine.log" 2>&1 \
    || { echo "$engine: failed (see $OUT/$engine.log)"; continue; }
done
python3 - "$OUT" "$ENGINES" <<'PY'
import json, os, sys
out, engines = sys.argv[1], sys.argv[2].split(",")
print("| engine | docs/s | CPU: date parsing | JSON / XContent | mapping and document parsing | Lucene indexing | allocations: date parsing | allocated | CPU samples |")
print("|---|---|---|---|---|---|---|---|---|")
print("| field note 000 (8.11.0, Ryzen 5600X) | | ~10 % | ~35 % (the whole document's parse) | | ~50 % | ~30 % | ~3 GB/s | |")
for e in engines:
    path = f"{out}/{e}.json"
    if not os.path.exists(path):
        print(f"| {e} | (failed) | | | | | | | |")
        continue
    r = json.load(open(path))
    p = r["profile"]
    share = {c["category"]: c for c in p["categories"]}
    cpu = lambda k: "%.1f %% [%.1f, %.1f]" % (share[k]["cpu_pct"], share[k]["cpu_low_pct"], share[k]["cpu_high_pct"])
    rate = (p.get("alloc_bytes_per_sec") or 0) / 1e9
    print(f"| {e} | {r['docs_per_sec']:,.0f} | {cpu('date_parsing')} | {cpu('json_parsing')} | {cpu('document_parsing')} | {cpu('lucene_indexing')} | {share['date_parsing']['alloc_pct']:.1f} % | {rate:.2f} GB/s | {p['cpu_samples']:,} |")
PY
