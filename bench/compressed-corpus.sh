#!/usr/bin/env bash
# What reading a corpus as Rally and OSB ship it costs: the same documents loaded from the
# plain file, its .bz2 (bzip2 -9, as the tools' corpora are made) and its .zst, into one local
# OpenSearch node, in rounds whose order rotates so the machine's drift falls on all alike.
# Per format: median docs/s, wall seconds, and the driver's CPU seconds (user + sys, the
# decompressing thread included). The claim it checks: the .bz2 load is slower than the plain
# one by no more than the CPU its decompression costs (wall gap <= extra driver CPU).
#
#   bench/compressed-corpus.sh [DOCS]          (default 500000 logs documents, ~1 KB each)
#   ROUNDS=5 bench/compressed-corpus.sh 1000000
set -euo pipefail
cd "$(dirname "$0")/.."
DOCS=${1:-500000}
ROUNDS=${ROUNDS:-3}
CLIENTS=${CLIENTS:-2}
ENGINE=${ENGINE:-opensearch-2.19.1}
OUT=${OUT:-target/bench-compressed}
BIN=${BIN:-target/release/searchbench}
mkdir -p "$OUT"
[ -n "${NO_BUILD:-}" ] || cargo build --release -q -p searchbench --bin searchbench
PLAIN="$OUT/logs-$DOCS.json"
[ -s "$PLAIN" ] || "$BIN" generate logs --docs "$DOCS" --out "$PLAIN" --no-progress
[ -s "$PLAIN.bz2" ] || bzip2 -9 -k -c "$PLAIN" >"$PLAIN.bz2"
[ -s "$PLAIN.zst" ] || zstd -q -3 -c "$PLAIN" >"$PLAIN.zst"
ls -l "$PLAIN" "$PLAIN.bz2" "$PLAIN.zst" | awk '{print $5, $9}'
cat "$PLAIN" "$PLAIN.bz2" "$PLAIN.zst" >/dev/null # page cache

"$BIN" engine start "$ENGINE" --heap 1g --json >"$OUT/node.json"
URL=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' "$OUT/node.json")
PORT=${URL##*:}
PORT=${PORT%%/*}
trap '"$BIN" engine stop --port "$PORT" >/dev/null 2>&1 || true' EXIT

rm -f "$OUT/rows.tsv"
one() { # <format> <file> <round>
  local json="$OUT/$1-$3.json"
  /usr/bin/time -f "%U %S %e" -o "$OUT/time.txt" "$BIN" ingest --file "$2" --index compressed \
    --clients "$CLIENTS" --bulk-size 1000 --url "$URL" --replace --quiet --no-store \
    --export-json "$json" >/dev/null
  read -r user sys wall <"$OUT/time.txt"
  python3 - "$json" "$1" "$3" "$user" "$sys" "$wall" >>"$OUT/rows.tsv" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["counts"]["indexed"] == r["counts"]["read"], r["counts"]
print(sys.argv[2], sys.argv[3], r["docs_per_sec"], float(sys.argv[4]) + float(sys.argv[5]), sys.argv[6],
      r["counts"]["indexed"], sep="\t")
PY
}
formats=(plain bz2 zst)
files=("$PLAIN" "$PLAIN.bz2" "$PLAIN.zst")
for round in $(seq "$ROUNDS"); do
  for k in 0 1 2; do
    i=$(( (k + round) % 3 ))
    one "${formats[$i]}" "${files[$i]}" "$round"
  done
  echo "round $round of $ROUNDS done"
done

python3 - "$OUT/rows.tsv" "$ROUNDS" "$DOCS" <<'PY'
import statistics as st, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
med = lambda f, c: st.median(float(r[c]) for r in rows if r[0] == f)
print(f"{sys.argv[2]} rounds of {int(sys.argv[3]):,} documents, medians:")
print("| corpus file | docs/s | wall s | driver CPU s | vs plain: wall | vs plain: driver CPU |")
print("|---|---|---|---|---|---|")
for f in ("plain", "bz2", "zst"):
    dw, dc = med(f, 4) - med("plain", 4), med(f, 3) - med("plain", 3)
    print(f"| {f} | {med(f, 2):,.0f} | {med(f, 4):.1f} | {med(f, 3):.1f} | {dw:+.1f} s | {dc:+.1f} s |")
PY
