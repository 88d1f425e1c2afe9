#!/usr/bin/env bash
# What a bulk's id conflicts (Rally's `conflicts`) cost the driver: one track's bulk of DOCS
# documents into the bulk sink (examples/bulk_sink.rs), run as written (no conflicts), with
# geonames' own (`random`, 25 %, `index`) and with updates (`random`, 25 %, `update`), the
# three alternating round by round. The figure is the searchbench process's CPU (user + sys)
# per million documents, each run pinned to one core, the sink to the other; the paired ratio
# of each variant to the plain run of its round is the figure to trust on a noisy machine.
# (The sink counts every document it is sent, so a run with conflicts does not reconcile its
# counts there and exits 3: its cost is what is measured, not its verdict.)
#
#   bench/conflicts-sink.sh [ROUNDS] [DOCS] [BIN]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
DOCS=${2:-1000000}
BIN=${3:-target/release/searchbench}
DRIVER_CORE=${DRIVER_CORE:-0}
if [ "$BIN" = target/release/searchbench ]; then cargo build --release -q -p searchbench; fi
. bench/sink.sh
start_sink

python3 - "$OUT/docs.json" "$DOCS" <<'PY'
import sys
n = int(sys.argv[2])
with open(sys.argv[1], "w") as f:
    for i in range(n):
        f.write('{"@timestamp":"2026-01-01T00:%02d:%02dZ","host":"web-%d","status":%d,'
                '"bytes":%d,"message":"GET /shop/item/%d HTTP/1.1"}\n'
                % (i // 60 % 60, i % 60, i % 50, 200 + i % 7, 100 + i * 7 % 9000, i))
PY
track() { # NAME EXTRA-PARAMS
  cat >"$OUT/$1.json" <<JSON
{"version": 2, "indices": [{"name": "bench"}],
 "corpora": [{"name": "docs", "documents": [{"source-file": "docs.json", "document-count": $DOCS}]}],
 "schedule": [{"operation": {"name": "load", "operation-type": "bulk", "bulk-size": 5000$2},
   "clients": 2}]}
JSON
}
track plain ""
track index ', "conflicts": "random", "conflict-probability": 25, "on-conflict": "index"'
track update ', "conflicts": "random", "conflict-probability": 25, "on-conflict": "update"'

one() { # VARIANT -> CPU s per million documents
  taskset -c "$DRIVER_CORE" /usr/bin/time -f "%U %S" -o "$OUT/time" \
    "$BIN" run --workload-file "$OUT/$1.json" --url "$URL" --store "$OUT/runs.db" --quiet \
    >/dev/null 2>>"$OUT/runs.log" || true
  python3 -c 'import sys; u, s = open(sys.argv[1]).read().split()[-2:]; print(f"{(float(u) + float(s)) * 1e6 / int(sys.argv[2]):.3f}")' \
    "$OUT/time" "$DOCS"
}

for i in $(seq "$ROUNDS"); do
  p=$(one plain)
  x=$(one index)
  u=$(one update)
  echo "$p $x $u" >>"$OUT/rounds.txt"
  echo "round $i: plain $p, conflicts (index) $x, conflicts (update) $u"
done
python3 - "$OUT/rounds.txt" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
for k, name in enumerate(["plain", "conflicts, index", "conflicts, update"]):
    print(f"{name}: median {statistics.median(r[k] for r in rows):.3f} CPU s per million documents")
for k, name in [(1, "index"), (2, "update")]:
    ratios = [r[k] / r[0] for r in rows]
    print(f"{name} / plain, paired: " + " ".join(f"{x:.2f}" for x in ratios)
          + f", median {statistics.median(ratios):.2f}")
PY
