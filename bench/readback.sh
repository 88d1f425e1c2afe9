#!/usr/bin/env bash
# What reading back costs (issue 78): one local OpenSearch 2.19.1 node plays the team's
# results cluster; a real ingest's run is copied into N nightly runs (examples/nightly_runs.rs,
# one a day, 3 % noise, the later half 10 % slower), published, and `history` over them is timed ROUNDS
# times from the store and from the cluster (--from), side by side. Prints each and medians.
#
#   bench/readback.sh [N] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000}
ROUNDS=${2:-5}
cargo build --release -q -p searchbench --bin searchbench --example nightly_runs
SB=target/release/searchbench
OUT=${OUT:-target/bench-readback}
rm -rf "$OUT" && mkdir -p "$OUT"

. bench/node.sh
start_node opensearch-2.19.1 1g

"$SB" ingest logs --docs 20000 --url "$URL" --index bench-readback-source --quiet \
  --store "$OUT/source.db" >/dev/null
target/release/examples/nightly_runs "$OUT/source.db" "$OUT/nightly.db" "$N"
start=$(date +%s.%N)
"$SB" results publish --store "$OUT/nightly.db" --publish "$URL" --publish-prefix bench-readback \
  --json >"$OUT/publish.json"
end=$(date +%s.%N)
echo "published $N runs in $(python3 -c "print(f'{$end - $start:.1f}')") s"

timed() {
  local start end
  start=$(date +%s.%N)
  "$SB" history --workload logs --by time "$@" >"$OUT/history.txt"
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.3f}')"
}
local_t=(); remote_t=()
for r in $(seq 1 "$ROUNDS"); do
  l=$(timed --store "$OUT/nightly.db"); cp "$OUT/history.txt" "$OUT/local.txt"
  f=$(timed --from "$URL" --from-prefix bench-readback); cp "$OUT/history.txt" "$OUT/remote.txt"
  echo "round $r: store ${l} s, --from ${f} s"
  local_t+=("$l"); remote_t+=("$f")
done
cmp -s "$OUT/local.txt" "$OUT/remote.txt" && echo "the same history from both" || echo "THE HISTORIES DIFFER"
python3 -c '
import statistics,sys
n=int(sys.argv[1]); v=[float(x) for x in sys.argv[2:]]; h=len(v)//2
l,f=v[:h],v[h:]
print(f"history over {n} runs: store median {statistics.median(l):.3f} s, --from median {statistics.median(f):.3f} s (range {min(f):.3f}-{max(f):.3f})")
' "$N" "${local_t[@]}" "${remote_t[@]}"
