#!/usr/bin/env bash
# Speed of a synthesized corpus (issue 83): `generate --mapping` with an http_logs-like
# mapping (Rally's http_logs fields: @timestamp in epoch seconds, clientip, a match_only_text
# request with its keyword, status, size, geoip) learned from a 5,000-document sample made here
# with a fixed seed, DOCS documents written to /dev/null on one thread, RUNS times; then the
# same mapping without a sample (each type's defaults). Prints each run's docs/s and the median.
# Then fidelity: the `logs` workload's corpus stands for the real data (REAL documents), its
# first SAMPLE documents are the sample, and as many documents are synthesized from the logs
# mapping and that sample, compared field by field with the real ones (`--fidelity-against`).
#
#   bench/synth.sh [DOCS] [RUNS] [REAL] [SAMPLE]
set -euo pipefail
cd "$(dirname "$0")/.."
DOCS=${1:-5000000}
RUNS=${2:-3}
REAL=${3:-1000000}
SAMPLE=${4:-10000}
cargo build --release -q -p searchbench --bin searchbench
SB=target/release/searchbench
OUT=${OUT:-target/bench-synth}
rm -rf "$OUT" && mkdir -p "$OUT"
python3 - "$OUT" <<'PY'
import json, random, sys
out = sys.argv[1]
random.seed(5)
json.dump({"mappings": {"dynamic": "strict", "properties": {
    "@timestamp": {"type": "date", "format": "strict_date_optional_time||epoch_second"},
    "clientip": {"type": "ip"},
    "request": {"type": "match_only_text", "fields": {"raw": {"type": "keyword", "ignore_above": 256}}},
    "status": {"type": "integer"},
    "size": {"type": "integer"},
    "geoip": {"properties": {"country_name": {"type": "keyword"}, "city_name": {"type": "keyword"},
                             "location": {"type": "geo_point"}}}}}}, open(f"{out}/index.json", "w"))
pages = ["/images/102384.gif", "/english/index.html", "/french/splash_inet.html", "/images/hm_bg.jpg"] + \
        [f"/english/news/{i}.htm" for i in range(300)]
countries = ["France", "United States", "Germany", "Brazil", "Japan", "Spain", "Italy", "Canada"]
with open(f"{out}/sample.ndjson", "w") as f:
    for i in range(5000):
        page = random.choice(pages) if random.random() < 0.8 else f"/english/images/x{random.randint(0, 99999)}.gif"
        d = {"@timestamp": 893964617 + i * 3 + random.randint(0, 2),
             "clientip": ".".join(str(random.randint(1, 250)) for _ in range(4)),
             "request": f"GET {page} HTTP/1.0",
             "status": random.choice([200] * 90 + [304] * 7 + [404] * 3),
             "size": int(random.lognormvariate(8, 1.5))}
        if random.random() < 0.6:
            d["geoip"] = {"country_name": random.choice(countries), "city_name": f"city{random.randint(0, 400)}",
                          "location": [round(random.uniform(-120, 140), 4), round(random.uniform(-40, 60), 4)]}
        f.write(json.dumps(d) + "\n")
PY
rate() { # extra flags...
  "$SB" generate --mapping "$OUT/index.json" "$@" --docs "$DOCS" --out /dev/null --no-progress 2>&1 |
    sed -E 's/.* ([0-9]+) docs\/s.*/\1/'
}
for what in sample defaults; do
  rates=()
  for _ in $(seq "$RUNS"); do
    if [ "$what" = sample ]; then r=$(rate --sample "$OUT/sample.ndjson"); else r=$(rate); fi
    rates+=("$r")
  done
  median=$(printf '%s\n' "${rates[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p")
  echo "$what: ${rates[*]} docs/s; median $median docs/s"
done
"$SB" generate --mapping "$OUT/index.json" --sample "$OUT/sample.ndjson" --docs 3 --out - 2>/dev/null

"$SB" workload info logs --json | python3 -c 'import json,sys; json.dump(json.load(sys.stdin)["index_body"], sys.stdout)' >"$OUT/logs-index.json"
"$SB" generate logs --docs "$REAL" --out "$OUT/real.ndjson" 2>/dev/null
head -n "$SAMPLE" "$OUT/real.ndjson" >"$OUT/logs-sample.ndjson"
"$SB" generate --mapping "$OUT/logs-index.json" --sample "$OUT/logs-sample.ndjson" --docs "$REAL" \
  --out "$OUT/synthesized.ndjson" --fidelity "$OUT/fidelity.json" --fidelity-against "$OUT/real.ndjson" --no-progress

