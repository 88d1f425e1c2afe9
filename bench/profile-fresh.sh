#!/usr/bin/env bash
# What `run --profile` costs where it is used most: each run on a fresh node of its own.
# ROUNDS rounds of two `run logs --docs DOCS --no-query` (OpenSearch 2.19.1, 1 GiB heap), one
# with --profile and one without, the order alternating per round; prints each run's docs/s
# (the headline: after the 10 s warm-up) and the median of the paired profiled/plain ratios.
#
#   bench/profile-fresh.sh [ROUNDS] [DOCS]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
DOCS=${2:-1000000}
SB=${SEARCHBENCH_BIN:-target/release/searchbench}
[ -n "${SEARCHBENCH_BIN:-}" ] || cargo build --release -q -p searchbench --bin searchbench
OUT=${OUT:-target/bench-profile-fresh}
rm -rf "$OUT" && mkdir -p "$OUT"
for r in $(seq 1 "$ROUNDS"); do
  if (( r % 2 )); then order="on off"; else order="off on"; fi
  for side in $order; do
    flag=(); [ "$side" = on ] && flag=(--profile)
    json="$OUT/round-$r-$side.json"
    "$SB" run logs --docs "$DOCS" --no-query --heap 1g --no-store --quiet "${flag[@]}" \
      --export-json "$json" >/dev/null 2>&1
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); p=r.get("profile") or {}
print("round %s %-3s %9.0f docs/s  %s" % (sys.argv[2], sys.argv[3], r["docs_per_sec"],
  "%d CPU samples over %.0f s after %.1f s, read in %.2f s" % (p["cpu_samples"], p["window_secs"], p["warmup_secs"], p["read_secs"]) if p else ""))' "$json" "$r" "$side"
  done
done
python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
load = lambda r, s: json.load(open(f"{out}/round-{r}-{s}.json"))["docs_per_sec"]
pairs = sorted(load(r, "on") / load(r, "off") for r in range(1, rounds + 1))
print(f"median of the paired ratios {statistics.median(pairs):.3f} (each: {', '.join(f'{p:.3f}' for p in pairs)})")
PY
