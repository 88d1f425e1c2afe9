#!/usr/bin/env bash
# What publishing costs (issue 78): one local OpenSearch 2.19.1 node plays the team's results
# cluster; a real ingest's run is copied into one-hour runs (3,600 timeline seconds, 3,600
# telemetry samples per node; examples/hour_runs.rs), and `results publish` sends them,
# ROUNDS times, each into fresh indices (which that publish makes first). Prints each
# publish's wall time and the median.
#
#   bench/publish.sh [ROUNDS] [NODES]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
NODES=${2:-1}
cargo build --release -q -p searchbench --bin searchbench --example hour_runs
SB=target/release/searchbench
OUT=${OUT:-target/bench-publish}
rm -rf "$OUT" && mkdir -p "$OUT"

. bench/node.sh
start_node opensearch-2.19.1 1g

"$SB" ingest logs --docs 200000 --url "$URL" --index bench-publish-source --quiet \
  --store "$OUT/source.db" >/dev/null
target/release/examples/hour_runs "$OUT/source.db" "$OUT/hour.db" 1 "$NODES"

times=()
for r in $(seq 1 "$ROUNDS"); do
  prefix="bench-publish-$r"
  start=$(date +%s.%N)
  "$SB" results publish --store "$OUT/hour.db" --publish "$URL" --publish-prefix "$prefix" \
    --json >"$OUT/round-$r.json"
  end=$(date +%s.%N)
  t=$(python3 -c "print(f'{$end - $start:.3f}')")
  docs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sent"][0]["documents"])' "$OUT/round-$r.json")
  echo "round $r: ${t} s, $docs documents"
  times+=("$t")
done
python3 -c 'import statistics,sys; v=[float(x) for x in sys.argv[1:]]; print(f"median {statistics.median(v):.3f} s over {len(v)} publishes (range {min(v):.3f}-{max(v):.3f})")' "${times[@]}"
