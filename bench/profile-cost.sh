#!/usr/bin/env bash
# What --profile costs, and what reading its recording costs: ROUNDS rounds of two ingests of
# DOCS logs documents into one local OpenSearch 2.19.1 node, profiled (--profile-pid) and not
# (the order alternates per round, so a drift of the node or the machine hits both sides).
# Prints each run's docs/s, then the medians and the profiled/plain ratio (issue 55 asks
# ≤ 3 %), and what stopping, reading and categorising took (the profile's read_secs; ≤ 2 s
# asked for a 1-minute window). The profile counts the steady window only (after the
# warm-up, where Flight Recorder's own start-up falls), as the headline docs/s does.
#
#   bench/profile-cost.sh [ROUNDS] [DOCS]
# FLIP=1 starts with a plain run; PRIME=1 makes a throwaway 1 s recording (the JDK's default
# settings) on the idle node before the rounds.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
DOCS=${2:-1000000}
SB=${SEARCHBENCH_BIN:-target/release/searchbench}
[ -n "${SEARCHBENCH_BIN:-}" ] || cargo build --release -q -p searchbench --bin searchbench
OUT=${OUT:-target/bench-profile}
rm -rf "$OUT" && mkdir -p "$OUT"

START=$("$SB" engine start opensearch-2.19.1 --heap 1g --json)
read -r URL PID < <(python3 -c 'import json,sys; n=json.loads(sys.argv[1]); n=n[0] if isinstance(n,list) else n; print(n["url"], n["pid"])' "$START")
PORT=${URL##*:}
trap '"$SB" engine stop --port "$PORT" >/dev/null 2>&1 || true' EXIT
echo "node at $URL (pid $PID); $ROUNDS rounds of profiled + plain, $DOCS docs each"
"$SB" ingest logs --docs "${WARM:-100000}" --url "$URL" --quiet --no-store >/dev/null
if [ -n "${PRIME:-}" ]; then # a throwaway recording first: Flight Recorder's start-up, idle
  JCMD=$(dirname "$(readlink -f /proc/"$PID"/exe)")/jcmd
  "$JCMD" "$PID" JFR.start name=prime duration=1s >/dev/null && sleep 3
fi

for r in $(seq 1 "$ROUNDS"); do
  if (( (r + ${FLIP:-0}) % 2 )); then order="on off"; else order="off on"; fi
  for side in $order; do
    flag=(); [ "$side" = on ] && flag=(--profile-pid "$PID" --store "$OUT/results.db")
    [ "$side" = off ] && flag=(--no-store)
    json="$OUT/round-$r-$side.json"
    "$SB" ingest logs --docs "$DOCS" --url "$URL" --engine-pid "$PID" --replace --quiet \
      "${flag[@]}" --export-json "$json" >/dev/null 2>&1
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); p=r.get("profile") or {}
print("round %s %-3s %9.0f docs/s  %s CPU samples over %s s, read in %s s" % (sys.argv[2], sys.argv[3], r["docs_per_sec"],
  p.get("cpu_samples", "-"), "%.0f" % p["window_secs"] if p else "-", "%.2f" % p["read_secs"] if p else "-"))' "$json" "$r" "$side"
  done
done
python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
load = lambda r, s: json.load(open(f"{out}/round-{r}-{s}.json"))
on = [load(r, "on")["docs_per_sec"] for r in range(1, rounds + 1)]
off = [load(r, "off")["docs_per_sec"] for r in range(1, rounds + 1)]
pairs = sorted(a / b for a, b in zip(on, off))
reads = [load(r, "on")["profile"]["read_secs"] for r in range(1, rounds + 1)]
windows = [load(r, "on")["profile"]["window_secs"] for r in range(1, rounds + 1)]
print(f"stop + read + categorise: median {statistics.median(reads):.2f} s for a "
      f"{statistics.median(windows):.0f} s window")
print(f"median docs/s: profiled {statistics.median(on):.0f}, plain {statistics.median(off):.0f}; "
      f"median of the paired ratios {statistics.median(pairs):.3f} (each: {', '.join(f'{p:.3f}' for p in pairs)})")
PY
echo "recordings kept under $OUT/profiles (bench/profile-read.sh times reading them)"
