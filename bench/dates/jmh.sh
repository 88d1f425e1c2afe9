#!/usr/bin/env bash
# JMH benchmark of the Java date parsers crates/isodate is compared with (see
# launcher/datebench/pom.xml): OpenSearch 2.19.1 strict_date_optional_time (java.time),
# Elasticsearch 8.17.2 strict_date_optional_time (Iso8601Parser fast path) and ethlo ITU,
# each on the two reference strings. Defaults: 2 forks x (4 x 1 s warm-up + 5 x 1 s
# measurement) per benchmark and input, about 3 minutes on 2 cores. Prints ns/op.
#
#   bench/dates/jmh.sh [extra JMH args, e.g. -f 1 -wi 2 -i 3]
# JAVA (default: java on PATH) selects the JDK.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
java=${JAVA:-java}
mvn_log=$(mktemp)
if ! (cd "$root/launcher/datebench" && mvn -B -q -Dstyle.color=never package -DskipTests) > "$mvn_log" 2>&1; then
  cat "$mvn_log" >&2
  exit 1
fi
rm -f "$mvn_log"
cp="$root/launcher/datebench/target/classes:$root/launcher/datebench/target/lib/*"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$java" -version 2>&1 | sed -n 1p
"$java" -cp "$cp" org.openjdk.jmh.Main DateParseBench -rf csv -rff "$out" "$@" | grep -E "^(Benchmark|DateParseBench)"
echo
echo "ns/op (JMH mean; csv: benchmark,input,score,error):"
awk -F, 'NR>1 {gsub(/"/,""); printf "%s,%s,%.1f,%.1f\n", $1, $NF, $5, $6}' "$out"
