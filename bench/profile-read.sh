#!/usr/bin/env bash
# Which reader for the engine profile's recordings (issue 55): the JDK's `jfr print --json`
# (every recorded frame) against searchbench's reader (launcher/profile-reader, the JDK's
# jdk.jfr.consumer API summing by stack), on one kept recording and on a 100 MB recording made
# of copies of it (a recording is a sequence of self-contained chunks, so copies concatenated
# are a valid recording: `jfr summary` reads it). Prints the median of ROUNDS timings of each,
# and the bytes each writes.
#
#   bench/profile-read.sh [RECORDING] [ROUNDS]
# RECORDING defaults to the largest under target/bench-profile (bench/profile-cost.sh keeps
# its recordings there).
set -euo pipefail
cd "$(dirname "$0")/.."
REC=${1:-$(ls -S target/bench-profile/profiles/*/*.jfr 2>/dev/null | head -1)}
ROUNDS=${2:-3}
[ -f "$REC" ] || { echo "no recording: run bench/profile-cost.sh first or name one" >&2; exit 2; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
javac -d "$WORK" launcher/profile-reader/ProfileReader.java
copies=$(( 100 * 1024 * 1024 / $(stat -c %s "$REC") + 1 ))
for _ in $(seq 1 "$copies"); do cat "$REC"; done > "$WORK/big.jfr"
jfr summary "$WORK/big.jfr" | grep -E "Chunks|Duration" | tr -s ' ' | paste -sd' '
EVENTS=jdk.ExecutionSample,jdk.ObjectAllocationSample,jdk.GarbageCollection

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_of() { # command... -> "seconds bytes"
  local start end bytes
  start=$(date +%s.%N)
  bytes=$("$@" | wc -c)
  end=$(date +%s.%N)
  echo "$(echo "$end - $start" | bc) $bytes"
}
for file in "$REC" "$WORK/big.jfr"; do
  size=$(( $(stat -c %s "$file") / 1024 / 1024 ))
  for reader in reader jfr-print; do
    : > "$WORK/times"
    for _ in $(seq 1 "$ROUNDS"); do
      if [ "$reader" = reader ]; then
        time_of java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$WORK" ProfileReader "$file"
      else
        time_of jfr print --json --stack-depth 64 --events "$EVENTS" "$file"
      fi >> "$WORK/times"
    done
    secs=$(cut -d' ' -f1 "$WORK/times" | median)
    bytes=$(head -1 "$WORK/times" | cut -d' ' -f2)
    printf '%-9s %4d MB recording: median %6.2f s of %d, %d bytes out\n' "$reader" "$size" "$secs" "$ROUNDS" "$bytes"
  done
done
