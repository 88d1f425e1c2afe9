#!/usr/bin/env bash
# What `site` costs (issue 81): one local OpenSearch 2.19.1 node makes one real ingest run,
# copied into N nightly runs (examples/nightly_runs.rs: one a day, build=nightly-I, 3 % noise,
# the later half 10 % slower); `site --out` over them is timed ROUNDS times, with and without
# the runs' own reports. Prints each, the medians, the pages and the largest page.
#
#   bench/site.sh [N] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000}
ROUNDS=${2:-5}
cargo build --release -q -p searchbench --bin searchbench --example nightly_runs
SB=target/release/searchbench
OUT=${OUT:-target/bench-site}
rm -rf "$OUT" && mkdir -p "$OUT"

START=$("$SB" engine start opensearch-2.19.1 --heap 1g --json)
URL=$(python3 -c 'import json,sys; n=json.loads(sys.argv[1]); n=n[0] if isinstance(n,list) else n; print(n["url"])' "$START")
PORT=${URL##*:}
PORT=${PORT%%/*}
trap '"$SB" engine stop --port "$PORT" >/dev/null 2>&1 || true' EXIT
"$SB" ingest logs --docs 20000 --url "$URL" --index bench-site-source --quiet \
  --store "$OUT/source.db" >/dev/null
"$SB" engine stop --port "$PORT" >/dev/null
target/release/examples/nightly_runs "$OUT/source.db" "$OUT/nightly.db" "$N"

timed() {
  local start end
  rm -rf "$OUT/site"
  start=$(date +%s.%N)
  "$SB" site --store "$OUT/nightly.db" --out "$OUT/site" --json "$@" >"$OUT/site.json"
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.3f}')"
}
whole=(); pages_only=()
for r in $(seq 1 "$ROUNDS"); do
  w=$(timed); cp "$OUT/site.json" "$OUT/whole.json"
  p=$(timed --no-run-pages); cp "$OUT/site.json" "$OUT/pages-only.json"
  echo "round $r: with the runs' reports ${w} s, without ${p} s"
  whole+=("$w"); pages_only+=("$p")
done
python3 - "$N" "$OUT" "${whole[@]}" "${pages_only[@]}" <<'PY'
import json, statistics, sys
n, out = int(sys.argv[1]), sys.argv[2]
v = [float(x) for x in sys.argv[3:]]
h = len(v) // 2
site = json.load(open(f"{out}/whole.json"))
print(f"site over {n} runs: median {statistics.median(v[:h]):.2f} s with every run's report "
      f"({site['pages']} pages, the largest {site['largest_page_bytes'] / 1e6:.2f} MB), "
      f"{statistics.median(v[h:]):.2f} s without")
PY
