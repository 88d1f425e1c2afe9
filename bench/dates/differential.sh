#!/usr/bin/env bash
# Full differential run of crates/isodate against OpenSearch 2.19.1's own date parsing
# (launcher/dateoracle): generates COUNT strings (default 1,200,000), parses them with both,
# and prints the agreement figure, the explained (tzdb) exclusions and any unexplained
# difference. Exits non-zero on an unexplained difference.
#
#   bench/dates/differential.sh [COUNT] [SEED] [FORMAT]
set -euo pipefail
count=${1:-1200000}
seed=${2:-42}
format=${3:-strict_date_optional_time||epoch_millis}
root=$(cd "$(dirname "$0")/../.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mvn_log=$(mktemp)
if ! (cd "$root/launcher/dateoracle" && mvn -B -q -Dstyle.color=never package -DskipTests) > "$mvn_log" 2>&1; then
  cat "$mvn_log" >&2
  exit 1
fi
rm -f "$mvn_log"
cargo build -q --release -p isodate --manifest-path "$root/Cargo.toml" --example gen_dates --example differential
"$CARGO_TARGET_DIR/release/examples/gen_dates" "$seed" "$count" > "$work/in.txt"
oracle_cp="$root/launcher/dateoracle/target/classes:$root/launcher/dateoracle/target/lib/*"
start=$(date +%s)
java -cp "$oracle_cp" dev.searchbench.dateoracle.DateOracle "$format" < "$work/in.txt" > "$work/oracle.txt"
echo "oracle: $count lines in $(( $(date +%s) - start )) s"
"$CARGO_TARGET_DIR/release/examples/differential" "$work/in.txt" "$work/oracle.txt" "$format"

# Years near and beyond ±292 million: the exact instant, and what a millisecond `date` field
# stores (clamped to the range of i64 milliseconds by DateFieldMapper.Resolution.MILLISECONDS).
extreme=$(( count / 20 > 1000 ? count / 20 : 1000 ))
"$CARGO_TARGET_DIR/release/examples/gen_dates" "$seed" "$extreme" extreme > "$work/extreme.txt"
java -cp "$oracle_cp" dev.searchbench.dateoracle.DateOracle "$format" < "$work/extreme.txt" > "$work/extreme-oracle.txt"
java -cp "$oracle_cp" dev.searchbench.dateoracle.DateOracle field-millis "$format" < "$work/extreme.txt" > "$work/extreme-field.txt"
echo "extreme years ($extreme lines), exact instant:"
"$CARGO_TARGET_DIR/release/examples/differential" "$work/extreme.txt" "$work/extreme-oracle.txt" "$format"
echo "extreme years, what a date field stores:"
"$CARGO_TARGET_DIR/release/examples/differential" "$work/extreme.txt" "$work/extreme-field.txt" "$format" field-millis
