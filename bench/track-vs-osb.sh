#!/usr/bin/env bash
# One real track, the same node, the same corpus: searchbench and opensearch-benchmark side by
# side, per task. opensearch-benchmark-workloads' http_logs (pinned in the test data) with its
# seven corpora replaced by local 1,000-document files (the sizes left out of the definition so
# that neither tool downloads), run with the same workload parameters by both tools, one after
# the other, on one OpenSearch 2.19.1 node started by searchbench. Prints one table: each
# task's throughput, latency p50/p90/p99 and service time p50 from both.
#
#   bench/track-vs-osb.sh [PARAMS]     (default warmup_iterations:20,iterations:100,target_throughput:20)
#
# Needs opensearch-benchmark: it is installed from the Python registry into $OSB_VENV
# (default /tmp/osbenv) when not there. Takes ~17 minutes (10 for opensearch-benchmark).
set -euo pipefail
cd "$(dirname "$0")/.."
PARAMS=${1:-warmup_iterations:20,iterations:100,target_throughput:20}
SB=${SEARCHBENCH_BIN:-target/release/searchbench}
[ -n "${SEARCHBENCH_BIN:-}" ] || cargo build --release -q -p searchbench --bin searchbench
OSB_VENV=${OSB_VENV:-/tmp/osbenv}
[ -x "$OSB_VENV/bin/opensearch-benchmark" ] ||
  { python3 -m venv "$OSB_VENV" && "$OSB_VENV/bin/pip" install -q opensearch-benchmark==2.4.0; }
OUT=${OUT:-target/bench-track-vs-osb}
rm -rf "$OUT" && mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cp -r crates/searchbench/tests/fixtures/tracks/osb/http_logs crates/searchbench/tests/fixtures/tracks/osb/common_operations "$OUT/"
python3 - "$OUT/http_logs" <<'PY'
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
URL=$("$SB" engine start opensearch-2.19.1 2>/dev/null | tail -1)
PORT=${URL##*:}
trap '"$SB" engine stop --port "$PORT" >/dev/null 2>&1 || true' EXIT
"$OSB_VENV/bin/opensearch-benchmark" run --pipeline=benchmark-only --target-hosts="127.0.0.1:$PORT" \
  --workload-path="$OUT/http_logs" --workload-params="$PARAMS" --kill-running-processes \
  --results-format=markdown --results-file="$OUT/osb.md" > "$OUT/osb.out" 2>&1
"$SB" run --url "$URL" --workload-file "$OUT/http_logs/workload.json" --track-params "$PARAMS" \
  --json "$OUT/searchbench.json" --no-store > "$OUT/searchbench.out" 2>&1
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
PY
