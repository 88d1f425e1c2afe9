#!/usr/bin/env bash
# The version matrix: one workload and configuration over many engine releases, interleaved
# (`searchbench matrix`), one matrix per entry of ENGINES, then each matrix's history with its
# change points (table, JSON and HTML under OUT).
#
#   bench/matrix.sh                                   # the real one: hours
#   DOCS=20000 REPEATS=1 ENGINES='opensearch-2.11.0,opensearch-2.18.0,opensearch-2.19.1' bench/matrix.sh
#
# Knobs (environment):
#   DOCS=1000000        documents per run (logs workload)
#   REPEATS=3           rounds (runs per engine), each a fresh seeded permutation
#   ENGINES='…'         space-separated matrices, each an --engines value: A,B,C or FROM..TO.
#                       Default: every OpenSearch minor 2.0..3.8 and every Elasticsearch minor
#                       7.0..8.19 (newest patch of each, --per-minor), one matrix per product.
#   PER_MINOR=1         pass --per-minor (FROM..TO ranges only)
#   WORKLOAD=logs  HEAP=1g  CLIENTS=2  BULK=1000  EXTRA='--no-query'
#   OUT=bench/results/matrix   where the store, the tables, JSON and pages go
#   BIN=target/release/searchbench
#   KEEP=1              keep the engines this script had to download (default: remove them)
#
# Traffic: Maven Central (provisioning releases not yet cached) and 127.0.0.1.
set -u
cd "$(dirname "$0")/.."

DOCS=${DOCS:-1000000}
REPEATS=${REPEATS:-3}
ENGINES=${ENGINES:-'opensearch-2.0.0..opensearch-3.8.0 elasticsearch-7.0.0..elasticsearch-8.19.21'}
PER_MINOR=${PER_MINOR:-1}
WORKLOAD=${WORKLOAD:-logs}
HEAP=${HEAP:-1g}
CLIENTS=${CLIENTS:-2}
BULK=${BULK:-1000}
EXTRA=${EXTRA:-}
OUT=${OUT:-bench/results/matrix}
KEEP=${KEEP:-0}
SRC_BIN=${BIN:-target/release/searchbench}
[ -x "$SRC_BIN" ] || cargo build --release -q -p searchbench --bin searchbench
mkdir -p "$OUT"
# A copy: a rebuild during the run must not swap the binary under it.
WORK=$(mktemp -d /tmp/sb-matrix.XXXXXX)
BIN="$WORK/searchbench"
cp "$SRC_BIN" "$BIN"
trap 'rm -rf "$WORK"' EXIT
export SEARCHBENCH_STORE="$OUT/results.db"
CACHE=${SEARCHBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/searchbench}
ls "$CACHE/engines" 2>/dev/null | sort >"$WORK/cached-before"

minor=()
[ "$PER_MINOR" = 1 ] && minor=(--per-minor)
status=0
for engines in $ENGINES; do
  echo "== matrix $engines: $WORKLOAD, $DOCS docs, $REPEATS repeat(s)" >&2
  log="$WORK/matrix.out"
  # shellcheck disable=SC2086 # EXTRA is a list of flags
  "$BIN" matrix "$WORKLOAD" --engines "$engines" "${minor[@]}" --repeats "$REPEATS" \
    --docs "$DOCS" --heap "$HEAP" --clients "$CLIENTS" --bulk-size "$BULK" --quiet \
    --tag bench=matrix $EXTRA 2> >(tee "$WORK/matrix.err" >&2) | tee "$log"
  code=${PIPESTATUS[0]}
  # The engines this matrix used (its order, on stderr): the only ones cleaned up below.
  sed -n 's/^  round [0-9]*: //p' "$WORK/matrix.err" | tr ' ' '\n' >>"$WORK/used"
  [ "$code" = 0 ] || status=$code
  id=$(sed -n 's/^matrix \([0-9a-f]*\): .*/\1/p' "$log" | tail -1)
  if [ -n "$id" ]; then
    cp "$log" "$OUT/matrix-$id.txt"
    "$BIN" history --tag "matrix=$id" --json >"$OUT/matrix-$id.json" || status=1
    "$BIN" history --tag "matrix=$id" --html "$OUT/matrix-$id.html" >/dev/null || status=1
    echo "== matrix $id: $OUT/matrix-$id.txt, .json, .html" >&2
  fi
  [ "$code" = 130 ] && break
done

# Engines this script provisioned (used by a matrix, not cached before); never one that
# another job provisioned meanwhile.
if [ "$KEEP" != 1 ] && [ -s "$WORK/used" ]; then
  sort -u "$WORK/used" | comm -23 - "$WORK/cached-before" | while read -r name; do
    rm -rf "${CACHE:?}/engines/$name" "/var/tmp/searchbench/engines/$name"
  done
fi
exit "$status"
