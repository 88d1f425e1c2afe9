#!/usr/bin/env bash
# What engines do with NDJSON lines that are not strict JSON: each case is sent as one
# document of one `_bulk` request, and the item's answer (refused, or accepted and what
# `_source` then holds) is printed. This is what `ingest --file`'s default line check
# (brackets + UTF-8 here, the JSON left to the engine) rests on; see BENCHMARKS.md.
#
#   bench/line-leniency.sh                                  # the four engines below
#   NAMES='opensearch-2.19.1' bench/line-leniency.sh
set -euo pipefail
cd "$(dirname "$0")/.."
NAMES=${NAMES:-opensearch-2.19.1 opensearch-3.8.0 elasticsearch-7.10.2 elasticsearch-8.19.21}
SB=${SB:-target/release/searchbench}
cargo build --release -q -p searchbench --bin searchbench
PORT=${PORT:-19291}
for name in $NAMES; do
  $SB engine start "$name" --port "$PORT" >/dev/null
  trap '$SB engine stop --port "$PORT" >/dev/null 2>&1 || true' EXIT
  echo "== $name"
  python3 - "http://127.0.0.1:$PORT" <<'PY'
import json, sys, urllib.request
url = sys.argv[1]
cases = [
    ("valid", b'{"a":1,"s":"x"}'),
    ("trailing content", b'{"a":1} x}'),
    ("two objects", b'{"a":1}{"b":2}'),
    ("duplicate key", b'{"a":1,"a":2}'),
    ("block comment", b'{"a":1 /* c */}'),
    ("line comment at the end", b'{"a":1} //}'),
    ("NaN", b'{"a":NaN}'),
    ("single quotes", b"{'a':1}"),
    ("unquoted key", b'{a:1}'),
    ("trailing comma", b'{"a":1,}'),
    ("leading zero", b'{"a":01}'),
    ("plus sign", b'{"a":+1}'),
    ("hex number", b'{"a":0x10}'),
    ("mismatched brackets", b'{"a":[1,2}'),
    ("unterminated string", b'{"s":"}'),
    ("raw control character", b'{"s":"x\x01y"}'),
    ("raw tab", b'{"s":"x\ty"}'),
    ("NUL byte", b'{"s":"x\x00y"}'),
    ("bad escape", b'{"s":"\\x"}'),
    ("lone surrogate escape", b'{"s":"\\ud800"}'),
    ("invalid UTF-8 0xff", b'{"s":"\xff"}'),
    ("invalid UTF-8 in a key", b'{"k\xff":"x"}'),
    ("truncated UTF-8", b'{"s":"\xe2\x82"}'),
    ("lone continuation byte", b'{"s":"\x80abc"}'),
    ("overlong UTF-8 in a value", b'{"s":"\xe0\x80\xaf"}'),
    ("overlong UTF-8 in a key", b'{"\xc0\xaf":"x"}'),
    ("UTF-8-encoded surrogate", b'{"s":"\xed\xa0\x80"}'),
    ("empty object", b'{}'),
]
index = "searchbench-line-leniency"
def call(method, path, body=None, ctype="application/json"):
    req = urllib.request.Request(url + path, data=body, method=method, headers={"Content-Type": ctype})
    try:
        return urllib.request.urlopen(req).read()
    except urllib.error.HTTPError as e:
        return e.read()
call("DELETE", "/" + index)
call("PUT", "/" + index, b'{"settings":{"number_of_replicas":0},"mappings":{"properties":{"a":{"type":"long"},"s":{"type":"text"}}}}')
body = b"".join(b'{"index":{"_index":"%s","_id":"%d"}}\n%s\n' % (index.encode(), i, c) for i, (_, c) in enumerate(cases))
items = json.loads(call("POST", "/_bulk?refresh=true", body, "application/x-ndjson"))["items"]
for (name, _), item in zip(cases, items):
    item = next(iter(item.values()))
    if item["status"] < 300:
        got = call("GET", f"/{index}/_doc/{item['_id']}?filter_path=_source")
        print(f"  {name:28} accepted   {got.decode('utf-8', 'backslashreplace')[:60]}")
    else:
        e = item["error"]
        cause = e.get("caused_by", {}).get("type", "")
        print(f"  {name:28} refused    {e['type']} / {cause}")
call("DELETE", "/" + index)
PY
  $SB engine stop --port "$PORT" >/dev/null
done
