#!/usr/bin/env bash
# The engine on a synthesized corpus against the real one (issue 83): the `logs` workload's
# corpus stands for the real data (DOCS documents, seed 1); a track of one index with the logs
# mapping loads it as written (`real/`), and the same track with only a download of it cut
# short beside it (its first SAMPLE documents as `logs.json.tmp`) loads the corpus
# `--synthesize` makes from the mapping and those documents (`synthesized/`). Both on one
# local OpenSearch 2.19.1 node, alternating, ROUNDS times each: the bulk task's docs/s
# (the documents over the task's seconds), then the index's size on disk after a
# flush (as loaded: the merges still running make it move from run to run) and after a
# force-merge to one segment. Prints each run and the medians.
#
#   bench/synth-engine.sh [DOCS] [SAMPLE] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
DOCS=${1:-1000000}
SAMPLE=${2:-10000}
ROUNDS=${3:-3}
cargo build --release -q -p searchbench --bin searchbench
SB=$(pwd)/target/release/searchbench
OUT=${OUT:-target/bench-synth-engine}
rm -rf "$OUT" && mkdir -p "$OUT/real" "$OUT/synthesized"

"$SB" workload info logs --json | python3 -c 'import json,sys; json.dump(json.load(sys.stdin)["index_body"], sys.stdout)' >"$OUT/real/index.json"
cp "$OUT/real/index.json" "$OUT/synthesized/index.json"
for side in real synthesized; do
  cat >"$OUT/$side/track.json" <<JSON
{"version": 2,
 "indices": [{"name": "logs-bench", "body": "index.json"}],
 "corpora": [{"name": "logs", "documents": [{"source-file": "logs.json", "document-count": $DOCS, "target-index": "logs-bench"}]}],
 "schedule": [
   {"operation": {"operation-type": "delete-index"}},
   {"operation": {"operation-type": "create-index"}},
   {"operation": {"operation-type": "bulk", "bulk-size": 1000}, "clients": 2}
 ]}
JSON
done
"$SB" generate logs --docs "$DOCS" --seed 1 --out "$OUT/real/logs.json" 2>/dev/null
head -n "$SAMPLE" "$OUT/real/logs.json" >"$OUT/synthesized/logs.json.tmp"

. bench/node.sh
start_node opensearch-2.19.1 2g

size() { # bytes of the index's primary store
  curl -s "$URL/logs-bench/_stats/store" | python3 -c 'import json,sys; print(json.load(sys.stdin)["_all"]["primaries"]["store"]["size_in_bytes"])'
}
one() { # SIDE ROUND
  local more=()
  [ "$1" = synthesized ] && more=(--synthesize)
  SEARCHBENCH_CACHE="$OUT/cache" "$SB" run --url "$URL" --workload-file "$OUT/$1/track.json" "${more[@]}" \
    --no-store --quiet --json "$OUT/$1-$2.json" >/dev/null
  curl -s -X POST "$URL/logs-bench/_refresh" >/dev/null
  curl -s -X POST "$URL/logs-bench/_flush" >/dev/null
  local flushed count merged
  flushed=$(size)
  count=$(curl -s "$URL/logs-bench/_count" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])')
  curl -s -X POST "$URL/logs-bench/_forcemerge?max_num_segments=1" >/dev/null
  # The merged-away segments are deleted once no reader holds them: after a refresh and a flush.
  curl -s -X POST "$URL/logs-bench/_refresh" >/dev/null
  curl -s -X POST "$URL/logs-bench/_flush?force=true" >/dev/null
  merged=$(size)
  python3 - "$OUT/$1-$2.json" "$1" "$flushed" "$merged" "$count" <<'PY' | tee -a "$OUT/runs.tsv"
import json, sys
r = json.load(open(sys.argv[1]))
bulk = next(t for t in r["tasks"] if t["operation_type"] == "bulk")
print("\t".join([sys.argv[2], f'{bulk["throughput_mean"]:.0f}', sys.argv[3], sys.argv[4], sys.argv[5]]))
PY
}
printf 'side\tdocs/s\tflushed bytes\tmerged bytes\tdocs\n' | tee "$OUT/runs.tsv"
for round in $(seq "$ROUNDS"); do
  one real "$round"
  one synthesized "$round"
done
python3 - "$OUT/runs.tsv" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])][1:]
med = {}
for side in ("real", "synthesized"):
    got = [r for r in rows if r[0] == side]
    med[side] = [statistics.median(float(r[i]) for r in got) for i in (1, 2, 3)]
    print(f"{side}: median {med[side][0]:.0f} docs/s, {med[side][1] / 1e6:.1f} MB flushed, {med[side][2] / 1e6:.1f} MB merged")
for i, what in enumerate(("docs/s", "flushed size", "merged size")):
    print(f"synthesized / real, {what}: {med['synthesized'][i] / med['real'][i]:.3f}")
PY
