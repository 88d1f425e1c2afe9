#!/usr/bin/env bash
# What share of the pinned real tracks' tasks runs here: every challenge (test procedure) of
# every Rally track and opensearch-benchmark workload under
# crates/searchbench/tests/fixtures/tracks, planned in test mode by `workload check --json`,
# each task counted once per challenge it is in. Prints the share that runs, the share that
# would once its corpus is here (`--corpus-dir` or `--synthesize`: the fixtures hold no corpus),
# and the reasons the rest do not run, most frequent first.
#
#   bench/tracks-coverage.sh [SEARCHBENCH_BIN]      (default: a debug build of this checkout)
#
# A definition refused without its params file is checked with the first in its `params/`.
# Takes ~1 minute (about 320 checks).
set -euo pipefail
cd "$(dirname "$0")/.."
SB=${1:-target/debug/searchbench}
[ -n "${1:-}" ] || cargo build -q -p searchbench --bin searchbench
python3 - "$SB" crates/searchbench/tests/fixtures/tracks <<'PY'
import collections, json, os, subprocess, sys

sb, root = sys.argv[1], sys.argv[2]

def check(path, challenge=None, params=None):
    args = [sb, "workload", "check", path, "--test-mode", "--json"]
    if params:
        args += ["--track-params", params]
    if challenge:
        args += ["--challenge", challenge]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip().splitlines()[-1][:160]
    return json.loads(out.stdout), None

tasks = runs = waits_for_corpus = 0
reasons = collections.Counter()
refused = []
for tool, file in (("rally", "track.json"), ("osb", "workload.json")):
    for name in sorted(os.listdir(os.path.join(root, tool))):
        path = os.path.join(root, tool, name, file)
        if not os.path.isfile(path):
            continue
        first, err = check(path)
        params = None
        folder = os.path.join(root, tool, name, "params")
        if first is None and os.path.isdir(folder):
            # A definition that names its index and corpus only in a params file (OSB's
            # neural_search): checked with its first.
            files = sorted(f for f in os.listdir(folder) if f.endswith(".json"))
            params = os.path.join(folder, files[0]) if files else None
            first, err = check(path, params=params)
            print(f"{tool}/{name}: checked with --track-params {params}")
        if first is None:
            refused.append(f"{tool}/{name}: {err}")
            continue
        for challenge, _ in first["procedures"]:
            got, err = check(path, challenge, params)
            if got is None:
                refused.append(f"{tool}/{name} {challenge}: {err}")
                continue
            for item in got["items"]:
                if not item["what"].startswith("task "):
                    continue
                tasks += 1
                op = item["what"].rsplit("(", 1)[-1].rstrip(")")
                how = item["how"]
                if item["runs"]:
                    runs += 1
                elif how.startswith(("corpus ", "corpora ")) or " is not in " in how or "not here" in how:
                    waits_for_corpus += 1
                elif "Python" in how:
                    reasons[(op, "the track's Python")] += 1
                else:
                    reasons[(op, how[:80])] += 1

pct = lambda n: f"{100 * n / max(tasks, 1):.1f} %"
print(f"tasks (per challenge): {tasks}")
print(f"run here:                         {runs} ({pct(runs)})")
print(f"run once their corpus is here:    {runs + waits_for_corpus} ({pct(runs + waits_for_corpus)})")
print("not run, by operation type and reason:")
for (op, why), n in reasons.most_common():
    print(f"  {n:5}  {op:26}  {why}")
for r in refused:
    print(f"refused whole: {r}")
PY
