#!/usr/bin/env bash
# The compatibility table: every engine in the catalogue, tried on this machine.
#
# For each release (OpenSearch 2.x/3.x and Elasticsearch 7.x/8.x by default): start it
# (provisioning it from Maven Central on first use), index 10,000 logs documents, run one
# search, stop it. Writes a Markdown table: whether it starts (or why not), the JDK used, the
# time from launch to healthy, the node's RSS, documents indexed, search hits.
#
#   bench/engines.sh                     # the default range
#   FILTER='^elasticsearch-8' bench/engines.sh
#   BIN=target/release/searchbench OUT=/tmp/engines.md KEEP=1 bench/engines.sh
#   NAMES='elasticsearch-8.15.0 opensearch-3.8.0' bench/engines.sh   # these, in this order
#
# Engines that were not cached before are removed again afterwards (KEEP=1 keeps them), so
# the run does not fill the disk. Traffic: Maven Central (provisioning) and 127.0.0.1.
set -u
cd "$(dirname "$0")/.."

FILTER=${FILTER:-'^(opensearch-[23]\.|elasticsearch-[78]\.)'}
OUT=${OUT:-bench/results/engines.md}
KEEP=${KEEP:-0}
HEAP=${HEAP:-512m}
SRC_BIN=${BIN:-target/release/searchbench}
[ -x "$SRC_BIN" ] || cargo build --release -p searchbench
# A copy: a rebuild during the run must not swap the binary under it.
WORK=$(mktemp -d /tmp/sb-engines.XXXXXX)
BIN="$WORK/searchbench"
cp "$SRC_BIN" "$BIN"
export SEARCHBENCH_STORE="$WORK/results.db"
CACHE=${SEARCHBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/searchbench}
trap 'rm -rf "$WORK"' EXIT

mkdir -p "$(dirname "$OUT")"
"$BIN" engine list --available --json >"$WORK/list.json"
python3 - "$FILTER" "$WORK/list.json" "${NAMES:-}" >"$WORK/names" <<'EOF'
import json, re, sys
pattern, path, names = sys.argv[1], sys.argv[2], sys.argv[3].split()
rows = {r["name"]: r for r in json.load(open(path))}
chosen = names if names else [n for n in rows if re.search(pattern, n)]
for name in chosen:
    row = rows.get(name)
    if row is None:
        sys.exit(f"{name} is not in the catalogue")
    print(row["name"], row["kind"], row["jdk_needed"], "yes" if row["cached"] else "no")
EOF
[ -s "$WORK/names" ] || exit 1

{
  echo "| engine | kind | starts | JDK | healthy after (s) | RSS (MiB) | docs indexed | search hits | note |"
  echo "|---|---|---|---|---|---|---|---|---|"
} >"$OUT"

starts=0
total=0
while read -r name kind jdk_needed cached; do
  total=$((total + 1))
  echo "== $name ($kind, JDK $jdk_needed)" >&2
  start_json="$WORK/start.json"
  if "$BIN" engine start "$name" --heap "$HEAP" --timeout 240 --json >"$start_json" 2>"$WORK/start.err"; then
    read -r url port boot rss jdk < <(python3 - "$start_json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
jdk = s["jdk"].split(" (")[0].replace(" ", "_")
rss = (s.get("rss_bytes") or 0) / 2**20
print(s["url"], s["url"].rsplit(":", 1)[1], f'{s["boot_secs"]:.1f}', f"{rss:.0f}", jdk)
EOF
)
    indexed="-"; hits="-"; note=""
    if "$BIN" ingest logs --url "$url" --docs 10000 --warmup 0 --quiet >"$WORK/ingest.out" 2>"$WORK/ingest.err"; then
      indexed=$(curl -s "$url/searchbench-logs/_count" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("count","-"))' 2>/dev/null || echo "-")
      hits=$(curl -s -H 'content-type: application/json' "$url/searchbench-logs/_search" \
        -d '{"size":0,"track_total_hits":true,"query":{"match":{"message":"error"}}}' |
        python3 -c 'import json,sys; t=json.load(sys.stdin)["hits"]["total"]; print(t["value"] if isinstance(t, dict) else t)' 2>/dev/null || echo "-")
    else
      note="ingest failed: $(grep -m1 -i 'error' "$WORK/ingest.err" | cut -c1-120 | tr '|' '/')"
    fi
    "$BIN" engine stop --port "$port" >/dev/null 2>&1
    starts=$((starts + 1))
    echo "| $name | $kind | yes | ${jdk//_/ } | $boot | $rss | $indexed | $hits | $note |" >>"$OUT"
  else
    # The node's own reason (a line of its log) when it gave one, else our error line.
    why=$(sed -n '/meaningful lines:/,$p' "$WORK/start.err" | tail -n +2 |
      grep -m1 -E 'Caused by|Exception|ERROR|error' | sed 's/^Caused by: //' | cut -c1-160 | tr '|' '/')
    [ -n "$why" ] || why=$(grep -m1 -E 'error|JDK' "$WORK/start.err" | cut -c1-160 | tr '|' '/')
    echo "| $name | $kind | **no** | needs $jdk_needed | - | - | - | - | ${why:-see the log} |" >>"$OUT"
  fi
  if [ "$KEEP" != 1 ] && [ "$cached" = no ]; then
    rm -rf "$CACHE/engines/$name" "/var/tmp/searchbench/engines/$name"
  fi
done <"$WORK/names"

echo "" >>"$OUT"
echo "$starts of $total releases start here ($(date -u +%Y-%m-%d), $(nproc) cores)." >>"$OUT"
cat "$OUT"
