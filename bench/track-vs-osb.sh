#!/usr/bin/env bash
# One real workload, the same node, the same corpus: searchbench and opensearch-benchmark side
# by side, per task, with each tool's client CPU. An opensearch-benchmark-workloads definition
# (pinned in the test data) with its corpora replaced by local files (the byte sizes left out
# of the definition so that neither tool downloads), run with the same workload parameters by
# both tools, one after the other, on one OpenSearch 2.19.1 node started by searchbench.
#
#   WORKLOAD=http_logs  seven 1,000-document plain files (opensearch-benchmark first)
#   WORKLOAD=nyc_taxis  one documents.json.bz2 of DOCS (default 200,000) rides, compressed as it
#                       ships (searchbench first: it reads the .bz2 as it is, its client CPU
#                       includes decompressing it; then the file is unpacked, outside either
#                       tool's CPU, for opensearch-benchmark, which reads the unpacked file)
#
#   bench/track-vs-osb.sh [PARAMS]     (default warmup_iterations:20,iterations:100,target_throughput:20)
#   WORKLOAD=nyc_taxis DOCS=200000 bench/track-vs-osb.sh
#
# Client CPU: each tool runs in a cpuacct cgroup of its own, so every process it starts counts
# (opensearch-benchmark's actors are detached); without a writable cgroup, the CPU of the
# process and the children it waits for (/usr/bin/time). Prints one table: each task's
# throughput, latency p50/p90/p99 and service time p50 from both, then wall and CPU.
#
# Needs opensearch-benchmark: it is installed from the Python registry into $OSB_VENV
# (default /tmp/osbenv) when not there. Takes ~17 minutes for http_logs, ~12 for nyc_taxis.
set -euo pipefail
cd "$(dirname "$0")/.."
PARAMS=${1:-warmup_iterations:20,iterations:100,target_throughput:20}
WORKLOAD=${WORKLOAD:-http_logs}
DOCS=${DOCS:-200000}
SB=${SEARCHBENCH_BIN:-target/release/searchbench}
[ -n "${SEARCHBENCH_BIN:-}" ] || cargo build --release -q -p searchbench --bin searchbench
SB=$(cd "$(dirname "$SB")" && pwd)/$(basename "$SB")
OSB_VENV=${OSB_VENV:-/tmp/osbenv}
[ -x "$OSB_VENV/bin/opensearch-benchmark" ] ||
  { python3 -m venv "$OSB_VENV" && "$OSB_VENV/bin/pip" install -q opensearch-benchmark==2.4.0; }
OUT=${OUT:-target/bench-track-vs-osb-$WORKLOAD}
rm -rf "$OUT" && mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cp -r "crates/searchbench/tests/fixtures/tracks/osb/$WORKLOAD" crates/searchbench/tests/fixtures/tracks/osb/common_operations "$OUT/"
W="$OUT/$WORKLOAD"
case "$WORKLOAD" in
http_logs)
  python3 - "$W" <<'PY'
import re, sys, os
d = sys.argv[1]
s = open(os.path.join(d, "workload.json")).read()
pat = re.compile(r'\{% if use_zstd %\}\s*"source-file": "documents-(\d+)\.json\.zst",\s*"compressed-bytes": \d+,\s*'
                 r'\{% else %\}\s*"source-file": "documents-\1\.json\.bz2",\s*"compressed-bytes": \d+,\s*\{% endif %\}\s*'
                 r'"document-count": \d+,\s*"uncompressed-bytes": \d+')
s, n = pat.subn(lambda m: '"source-file": "documents-%s.json",\n            "document-count": 1000' % m.group(1), s)
assert n == 7, n
open(os.path.join(d, "workload.json"), "w").write(s)
for y in ["181998", "191998", "201998", "211998", "221998", "231998", "241998"]:
    with open(os.path.join(d, "documents-%s.json" % y), "w") as f:
        for i in range(1000):
            f.write('{"@timestamp": %d, "clientip": "10.0.%d.%d", "request": "GET /images/%d.gif HTTP/1.0", "status": %d, "size": %d}\n'
                    % (893964617 + i * 60, i % 250, i % 200, i, 404 if i % 10 == 0 else 200, 100 + i))
    # opensearch-benchmark wants its line-offset table beside each file (empty under 50,000 lines).
    open(os.path.join(d, "documents-%s.json.offset" % y), "w").close()
PY
  ORDER="osb searchbench" ;;
nyc_taxis)
  python3 - "$W" "$DOCS" <<'PY'
import bz2, random, re, sys, os
d, n = sys.argv[1], int(sys.argv[2])
s = open(os.path.join(d, "workload.json")).read()
pat = re.compile(r'\{% if use_zstd %\}.*?\{% endif %\}\s*"#COMMENT": "[^"]*",\s*"document-count": \d+,\s*"uncompressed-bytes": \d+', re.S)
s, k = pat.subn('"source-file": "documents.json.bz2",\n          "document-count": %d' % n, s)
assert k == 1, k
open(os.path.join(d, "workload.json"), "w").write(s)
rng = random.Random(1)
# opensearch-benchmark, offline, wants the line-offset table of the file it unpacks: the byte
# offset after every 50,000th line.
offsets, at = open(os.path.join(d, "documents.json.offset"), "w"), 0
with bz2.open(os.path.join(d, "documents.json.bz2"), "wt", compresslevel=9) as f:
    for i in range(n):
        day, sec = rng.randrange(1, 29), rng.randrange(86400)
        dur = rng.randrange(120, 3600)
        t0 = "2015-01-%02d %02d:%02d:%02d" % (day, sec // 3600, sec // 60 % 60, sec % 60)
        e = sec + dur
        t1 = "2015-01-%02d %02d:%02d:%02d" % (day + e // 86400, e // 3600 % 24, e // 60 % 60, e % 60)
        fare = round(2.5 + dur / 60 * rng.uniform(0.3, 0.9), 2)
        tip = round(fare * rng.choice([0, 0, 0.1, 0.15, 0.2]), 2)
        line = ('{"total_amount": %.2f, "improvement_surcharge": 0.3, "pickup_location": [%.5f, %.5f], '
                '"pickup_datetime": "%s", "trip_type": "1", "dropoff_datetime": "%s", "rate_code_id": "1", '
                '"tolls_amount": 0.0, "dropoff_location": [%.5f, %.5f], "passenger_count": %d, '
                '"fare_amount": %.2f, "extra": 0.5, "trip_distance": %.2f, "tip_amount": %.2f, '
                '"store_and_fwd_flag": "N", "payment_type": "%d", "mta_tax": 0.5, "vendor_id": "%d"}\n'
                % (fare + tip + 1.3, rng.uniform(-74.05, -73.75), rng.uniform(40.6, 40.9), t0, t1,
                   rng.uniform(-74.05, -73.75), rng.uniform(40.6, 40.9), rng.randrange(1, 7), fare,
                   dur / 300, tip, rng.randrange(1, 3), rng.randrange(1, 3)))
        f.write(line)
        at += len(line)
        if (i + 1) % 50000 == 0:
            offsets.write("%d;%d\n" % (i + 1, at))
offsets.close()
PY
  ORDER="searchbench osb" ;;
*) echo "WORKLOAD is http_logs or nyc_taxis" >&2; exit 2 ;;
esac
URL=$("$SB" engine start opensearch-2.19.1 2>/dev/null | tail -1)
PORT=${URL##*:}
trap '"$SB" engine stop --port "$PORT" >/dev/null 2>&1 || true' EXIT

# <name> <command...>: runs the command, writing its wall and client CPU seconds to $OUT/<name>.cpu
CG=/sys/fs/cgroup/cpuacct
measured() {
  local name=$1 t0 t1 rc=0; shift
  t0=$(date +%s.%N)
  rmdir "$CG/sb-bench-$name" 2>/dev/null || true
  if mkdir "$CG/sb-bench-$name" 2>/dev/null; then
    sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CG/sb-bench-$name" "$@" || rc=$?
    t1=$(date +%s.%N)
    sleep 2 # detached children finish
    echo "$(python3 -c "print($t1 - $t0)") $(python3 -c "print($(cat "$CG/sb-bench-$name/cpuacct.usage") / 1e9)") cgroup" >"$OUT/$name.cpu"
    for p in $(cat "$CG/sb-bench-$name/cgroup.procs"); do echo "$p" >"$CG/cgroup.procs"; done
    rmdir "$CG/sb-bench-$name"
  else
    /usr/bin/time -f "%e %U %S" -o "$OUT/$name.time" "$@" || rc=$?
    read -r wall user sys <"$OUT/$name.time"
    echo "$wall $(python3 -c "print($user + $sys)") process" >"$OUT/$name.cpu"
  fi
  return "$rc"
}
for tool in $ORDER; do
  if [ "$tool" = osb ]; then
    if [ -f "$W/documents.json.bz2" ]; then
      # Unpacked here, not by opensearch-benchmark: offline, it takes a line-offset table older
      # than the file it has just unpacked for a stale one and wants to download another.
      bzip2 -dkf "$W/documents.json.bz2" && touch "$W/documents.json.offset"
    fi
    measured osb "$OSB_VENV/bin/opensearch-benchmark" run --pipeline=benchmark-only --target-hosts="127.0.0.1:$PORT" \
      --workload-path="$W" --workload-params="$PARAMS" --kill-running-processes \
      --results-format=markdown --results-file="$OUT/osb.md" > "$OUT/osb.out" 2>&1
  else
    measured searchbench "$SB" run --url "$URL" --workload-file "$W/workload.json" --track-params "$PARAMS" \
      --json "$OUT/searchbench.json" --no-store > "$OUT/searchbench.out" 2>&1
  fi
done
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
osb = {}
for line in open(out + "/osb.md"):
    p = [x.strip() for x in line.strip().strip("|").split("|")]
    if len(p) == 4 and p[1] and p[1] != "Task":
        osb.setdefault(p[1], {})[p[0]] = (p[2], p[3])
sb = json.load(open(out + "/searchbench.json"))
print("| task | searchbench: throughput · latency p50 / p90 / p99 · service p50 (ms) | opensearch-benchmark: the same |")
print("|---|---|---|")
for t in sb["tasks"]:
    o = osb.get(t["task"], {})
    lat, sv = t["latency_ms"] or [0] * 4, t["service_time_ms"] or [0] * 4
    ours = "%.2f %s · %.1f / %.1f / %.1f · %.1f" % (t["throughput_mean"] or 0, t["throughput_unit"], lat[0], lat[1], lat[2], sv[0])
    g = lambda k: o.get(k, ("–", ""))
    theirs = "%s %s · %s / %s / %s · %s" % (g("Mean Throughput")[0], g("Mean Throughput")[1], g("50th percentile latency")[0],
                                            g("90th percentile latency")[0], g("99th percentile latency")[0], g("50th percentile service time")[0])
    print("| %s (%s) | %s | %s |" % (t["task"], t["operation_type"], ours, theirs))
ran_sb = sum(1 for t in sb["tasks"] if t["ops"] > 0 and t["errors"] == 0)
ran_osb = sum(1 for t in osb if "50th percentile service time" in osb[t] or "Mean Throughput" in osb[t])
cpu = {n: open("%s/%s.cpu" % (out, n)).read().split() for n in ("searchbench", "osb")}
print()
print("| | searchbench | opensearch-benchmark |")
print("|---|---|---|")
print("| tasks run without error (of %d) | %d | %d with figures |" % (len(sb["tasks"]), ran_sb, ran_osb))
print("| not run | %d | – |" % len(sb["not_run"]))
print("| wall (s) | %.0f | %.0f |" % (float(cpu["searchbench"][0]), float(cpu["osb"][0])))
print("| client CPU (s, %s) | %.1f | %.1f |" % (cpu["osb"][2], float(cpu["searchbench"][1]), float(cpu["osb"][1])))
PY
