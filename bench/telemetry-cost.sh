#!/usr/bin/env bash
# What telemetry costs: ROUNDS rounds of two ingests of DOCS logs documents into one local
# OpenSearch 2.19.1 node, telemetry on and off (the order alternates per round, so a drift
# of the node or the machine hits both sides), the node's pid given so /proc is read too, as
# in a run that starts its node. Prints each run's docs/s and the sampler's own CPU, then
# the medians and the on/off ratio. The index is replaced each time.
#
#   bench/telemetry-cost.sh [ROUNDS] [DOCS]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
DOCS=${2:-1000000}
# SEARCHBENCH_BIN: use this binary instead of building one.
SB=${SEARCHBENCH_BIN:-target/release/searchbench}
[ -n "${SEARCHBENCH_BIN:-}" ] || cargo build --release -q -p searchbench --bin searchbench
OUT=${OUT:-target/bench-telemetry}
mkdir -p "$OUT"

START=$("$SB" engine start opensearch-2.19.1 --heap 1g --json)
read -r URL PID < <(python3 -c 'import json,sys; n=json.loads(sys.argv[1]); n=n[0] if isinstance(n,list) else n; print(n["url"], n["pid"])' "$START")
PORT=${URL##*:}
trap '"$SB" engine stop --port "$PORT" >/dev/null 2>&1 || true' EXIT
echo "node at $URL (pid $PID); $ROUNDS rounds of telemetry on + off, $DOCS docs each"

# One unmeasured run first (WARM docs, default 100000): the JIT warms up across runs too.
"$SB" ingest logs --docs "${WARM:-100000}" --url "$URL" --quiet --no-store --no-telemetry >/dev/null

for r in $(seq 1 "$ROUNDS"); do
  if (( r % 2 )); then order="on off"; else order="off on"; fi
  for side in $order; do
    flag=""; [ "$side" = off ] && flag="--no-telemetry"
    json="$OUT/round-$r-$side.json"
    "$SB" ingest logs --docs "$DOCS" --url "$URL" --engine-pid "$PID" --replace --quiet \
      --no-store $flag --export-json "$json" >/dev/null 2>&1
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); t=r.get("telemetry") or {}
print("round %s %-3s %9.0f docs/s  sampler %s ms/s" % (sys.argv[2], sys.argv[3], r["docs_per_sec"],
  "%.2f" % t["sampler_cpu_ms_per_s"] if t.get("sampler_cpu_ms_per_s") is not None else "-"))' "$json" "$r" "$side"
  done
done
python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
load = lambda r, s: json.load(open(f"{out}/round-{r}-{s}.json"))
on = [load(r, "on") for r in range(1, rounds + 1)]
off = [load(r, "off") for r in range(1, rounds + 1)]
m_on = statistics.median(x["docs_per_sec"] for x in on)
m_off = statistics.median(x["docs_per_sec"] for x in off)
cost = [x["telemetry"]["sampler_cpu_ms_per_s"] for x in on if x.get("telemetry")]
print(f"median docs/s: telemetry on {m_on:.0f}, off {m_off:.0f}, on/off {m_on / m_off:.3f}")
if cost:
    print(f"sampler CPU: median {statistics.median(cost):.2f} ms per second of wall "
          f"({statistics.median(cost) / 10:.3f} % of one core)")
PY
