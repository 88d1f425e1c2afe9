#!/usr/bin/env bash
# The driver's CPU cost on the file path: `searchbench ingest --file` of 1M logs documents
# (~1 KB each, generated once to a file) into the bulk sink (examples/bulk_sink.rs, which
# answers with one item per document like a real engine), so the engine's own CPU is out.
# Reports user+sys CPU seconds of the searchbench process per million documents and its
# peak resident memory (/usr/bin/time), median of RUNS runs. The file stays in the page cache
# between runs.
#
#   bench/ingest-file-cost.sh [DOCS] [extra ingest flags...]
#   RUNS=5 bench/ingest-file-cost.sh 1000000 --bulk-size 1000
#   bench/ingest-file-cost.sh 1000000 --check-lines          # with the full line check
#   BIN=/tmp/before/searchbench bench/ingest-file-cost.sh   # another build, side by side
#   URL=http://127.0.0.1:9200 bench/ingest-file-cost.sh     # into a real node instead of the sink
set -euo pipefail
cd "$(dirname "$0")/.."
DOCS=${1:-1000000}
shift $(( $# > 0 ? 1 : 0 ))
RUNS=${RUNS:-3}
OUT=${OUT:-target/bench-ingest}
BIN=${BIN:-target/release/searchbench}
mkdir -p "$OUT"
cargo build --release -q -p searchbench --bin searchbench --example bulk_sink
FILE="$OUT/logs-$DOCS.ndjson"
[ -s "$FILE" ] || target/release/searchbench generate logs --docs "$DOCS" --out "$FILE" --no-progress
if [ -z "${URL:-}" ]; then
  target/release/examples/bulk_sink >"$OUT/sink.log" 2>&1 &
  SINK=$!
  trap 'kill $SINK 2>/dev/null || true' EXIT
  for _ in $(seq 50); do grep -q listening "$OUT/sink.log" && break; sleep 0.1; done
  URL=$(sed -n 's/^listening on //p' "$OUT/sink.log")
fi
cat "$FILE" >/dev/null # page cache
rm -f "$OUT/file-cost.txt"
for run in $(seq "$RUNS"); do
  /usr/bin/time -f "%U %S %e %M" -o "$OUT/time-$run.txt" "$BIN" ingest \
    --file "$FILE" --index file-cost --url "$URL" --quiet --no-store --bulk-size 1000 "$@" \
    >/dev/null
  read -r user sys wall rss <"$OUT/time-$run.txt"
  python3 -c "
u, s, w, d, m = $user, $sys, $wall, $DOCS, $rss / 1024
print(f'run: user {u:.2f} s + sys {s:.2f} s = {(u + s) * 1e6 / d:.3f} CPU s per million docs, wall {w:.2f} s, max RSS {m:.0f} MiB')
open('$OUT/file-cost.txt', 'a').write(f'{(u + s) * 1e6 / d} {u * 1e6 / d} {s * 1e6 / d} {m}\n')"
done
python3 - "$OUT/file-cost.txt" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
m = [statistics.median(c) for c in zip(*rows)]
print(f'median of {len(rows)}: {m[0]:.3f} CPU s per million docs (user {m[1]:.3f} + sys {m[2]:.3f}), max RSS {m[3]:.0f} MiB')
PY
