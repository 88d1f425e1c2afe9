#!/usr/bin/env bash
# What `site` and the dashboards cost (issue 81): one local OpenSearch 2.19.1 node makes one
# real ingest run, copied into N nightly runs (examples/nightly_runs.rs: one a day,
# build=nightly-I, 3 % noise, the later half 10 % slower), published to the same node playing
# the team's results cluster. `site --out` is timed ROUNDS times from the store and from the
# cluster (--from), with and without the runs' own reports; then every query of the exported
# dashboards (`dashboards export --for opensearch`) is sent ROUNDS times as the app sends it,
# over all the published nights. Prints each, the medians, the pages and the largest page.
#
#   bench/site.sh [N] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000}
ROUNDS=${2:-5}
cargo build --release -q -p searchbench --bin searchbench --example nightly_runs
SB=target/release/searchbench
OUT=${OUT:-target/bench-site}
PREFIX=bench-site
rm -rf "$OUT" && mkdir -p "$OUT"

. bench/node.sh
start_node opensearch-2.19.1 1g
"$SB" ingest logs --docs 20000 --url "$URL" --index bench-site-source --quiet \
  --store "$OUT/source.db" >/dev/null
target/release/examples/nightly_runs "$OUT/source.db" "$OUT/nightly.db" "$N"
start=$(date +%s.%N)
"$SB" results publish --store "$OUT/nightly.db" --publish "$URL" --publish-prefix "$PREFIX" \
  --json >"$OUT/publish.json"
end=$(date +%s.%N)
echo "published $N runs in $(python3 -c "print(f'{$end - $start:.1f}')") s"

timed() {
  local start end
  rm -rf "$OUT/site"
  start=$(date +%s.%N)
  "$SB" site --out "$OUT/site" --json "$@" >"$OUT/site.json"
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.3f}')"
}
STORE=(--store "$OUT/nightly.db")
FROM=(--from "$URL" --from-prefix "$PREFIX")
whole=(); pages_only=(); from_whole=(); from_pages=()
for r in $(seq 1 "$ROUNDS"); do
  w=$(timed "${STORE[@]}"); cp "$OUT/site.json" "$OUT/whole.json"
  p=$(timed "${STORE[@]}" --no-run-pages); cp "$OUT/site.json" "$OUT/pages-only.json"
  fw=$(timed "${FROM[@]}"); cp "$OUT/site.json" "$OUT/from-whole.json"
  fp=$(timed "${FROM[@]}" --no-run-pages)
  echo "round $r: from the store ${w} s (${p} s without the runs' reports), from the cluster ${fw} s (${fp} s)"
  whole+=("$w"); pages_only+=("$p"); from_whole+=("$fw"); from_pages+=("$fp")
done
python3 - "$N" "$OUT" "${whole[@]}" "${pages_only[@]}" "${from_whole[@]}" "${from_pages[@]}" <<'PY'
import json, statistics, sys
n, out = int(sys.argv[1]), sys.argv[2]
v = [float(x) for x in sys.argv[3:]]
q = len(v) // 4
med = [statistics.median(v[i * q:(i + 1) * q]) for i in range(4)]
site = json.load(open(f"{out}/whole.json"))
remote = json.load(open(f"{out}/from-whole.json"))
assert (site["pages"], site["runs"]) == (remote["pages"], remote["runs"]), (site, remote)
print(f"site over {n} runs: median {med[0]:.2f} s from the store with every run's report "
      f"({site['pages']} pages, the largest {site['largest_page_bytes'] / 1e6:.2f} MB), "
      f"{med[1]:.2f} s without; from the cluster {med[2]:.2f} s and {med[3]:.2f} s")
PY

# The dashboards' queries, as OpenSearch Dashboards sends them: no filter, every night.
"$SB" dashboards export --for opensearch --prefix "$PREFIX" --out "$OUT/dashboards.ndjson" >/dev/null
python3 - "$URL" "$OUT/dashboards.ndjson" "$ROUNDS" <<'PY'
import json, statistics, sys, time, urllib.request
url, path, rounds = sys.argv[1].rstrip("/"), sys.argv[2], int(sys.argv[3])

def as_sent(v):
    if isinstance(v, list):
        return [as_sent(i) for i in v if not (isinstance(i, str) and i.startswith("%dashboard_context-"))]
    if isinstance(v, dict):
        if "%timefilter%" in v:
            return {"gte": "2000-01-01T00:00:00Z", "lte": "now", "format": "strict_date_optional_time"}
        return {k: as_sent(x) for k, x in v.items()}
    return v

rows = []
for line in open(path):
    o = json.loads(line)
    if o["type"] != "visualization":
        continue
    spec = json.loads(json.loads(o["attributes"]["visState"])["params"]["spec"])
    for layer, name in zip(spec["layer"], ["points", "changes"]):
        u = layer["data"]["url"]
        body = json.dumps(as_sent(u["body"])).encode()
        took, wall = [], []
        for _ in range(rounds):
            req = urllib.request.Request(f"{url}/{u['index']}/_search", body, {"Content-Type": "application/json"})
            t = time.perf_counter()
            answer = json.load(urllib.request.urlopen(req, timeout=60))
            wall.append((time.perf_counter() - t) * 1000)
            took.append(answer["took"])
        found = answer
        for part in layer["data"]["format"]["property"].split("."):
            found = found[part]
        rows.append((o["id"], name, len(found), statistics.median(took), statistics.median(wall)))
for chart, layer, n, took, wall in rows:
    print(f"{chart} {layer}: {n} rows, took {took:.0f} ms, wall {wall:.0f} ms (medians)")
points = [r for r in rows if r[1] == "points"]
print(f"dashboards: {len(rows)} queries; points: median took {statistics.median(r[3] for r in points):.0f} ms, "
      f"the slowest {max(r[3] for r in points):.0f} ms; the slowest wall {max(r[4] for r in rows):.0f} ms")
PY
