#!/usr/bin/env bash
# What share of the pinned real tracks' tasks runs here: every challenge (test procedure) of
# every Rally track and opensearch-benchmark workload under
# crates/searchbench/tests/fixtures/tracks, planned in test mode by `workload check --json`,
# each task counted once per challenge it is in. Prints the share that runs, the share that
# would once its corpus is here (`--corpus-dir` or `--synthesize`: the fixtures hold no corpus),
# and the reasons the rest do not run, most frequent first.
#
#   bench/tracks-coverage.sh [SEARCHBENCH_BIN]      (default: a debug build of this checkout)
#   RALLY_TRACKS=DIR bench/tracks-coverage.sh        DIR: a rally-tracks checkout (the pinned
#                                                    commit of PROVENANCE.md): its copies of the
#                                                    pinned Rally tracks, with their track.py,
#                                                    replace the fixtures', the five of EXTRA are
#                                                    added, and each track.py is loaded by the
#                                                    worker (esrally 2.13.0, made on first use)
#   OSB_WORKLOADS=DIR bench/tracks-coverage.sh       the same for opensearch-benchmark-workloads:
#                                                    its copies of the pinned workloads, with their
#                                                    workload.py (opensearch-benchmark 2.4.0)
#
# A definition refused without its params file is checked with the first in its `params/`.
# Takes ~1 minute (about 320 checks).
set -euo pipefail
cd "$(dirname "$0")/.."
SB=${1:-target/debug/searchbench}
[ -n "${1:-}" ] || cargo build -q -p searchbench --bin searchbench
EXTRA=${EXTRA:-dense_vector msmarco-passage-ranking so_vector wikipedia elser-ingest-speedtest}
python3 - "$SB" crates/searchbench/tests/fixtures/tracks "${RALLY_TRACKS:-}" "$EXTRA" "${OSB_WORKLOADS:-}" <<'PY'
import collections, json, os, re, subprocess, sys

sb, root, rally_tracks, extra = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split()
osb_workloads = sys.argv[5]

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
def definitions():
    for tool, file in (("rally", "track.json"), ("osb", "workload.json")):
        names = sorted(os.listdir(os.path.join(root, tool)))
        if tool == "rally" and rally_tracks:
            names += [e for e in extra if e not in names]
        for name in names:
            base = os.path.join(root, tool)
            if tool == "rally" and rally_tracks:
                base = rally_tracks
            if tool == "osb" and osb_workloads:
                base = osb_workloads
            path = os.path.join(base, name, file)
            if os.path.isfile(path):
                yield tool, name, path

for tool, name, path in definitions():
    if True:
        first, err = check(path)
        params = None
        folder = os.path.join(os.path.dirname(path), "params")
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
for tool, given, package, py in (("rally", rally_tracks, "esrally-2.13.0", "track.py"),
                                 ("osb", osb_workloads, "opensearch-benchmark-2.4.0", "workload.py")):
    if not given:
        continue
    # Each definition's Python loaded as a run loads it: the worker, by the tool's own library.
    cache = os.environ.get("SEARCHBENCH_CACHE") or os.path.expanduser("~/.cache/searchbench")
    venv = os.path.join(cache, "python", package, "bin", "python")
    worker = os.path.abspath("crates/searchbench/src/tasks/python/worker.py")
    if not os.path.exists(venv):
        print(f"no worker environment at {venv}: run a definition with a {py} once to make it")
        continue
    ok = 0
    with_py = [(n, os.path.dirname(p)) for t, n, p in definitions()
               if t == tool and os.path.isfile(os.path.join(os.path.dirname(p), py))]
    for name, folder in with_py:
        # The tasks of its default challenge a run gives to a runner in the worker.
        planned, _ = check(os.path.join(folder, "track.json" if tool == "rally" else "workload.json"))
        runners_for = [re.match(r"task (.*) \(", i["what"]).group(1)
                       for i in (planned or {}).get("items", [])
                       if i.get("worker") and "runner" in i.get("how", "") and i["what"].startswith("task ")]
        req = json.dumps({"op": "load", "tool": package.rsplit("-", 1)[0], "track": folder,
                          "params": {}, "challenge": None, "test_mode": True,
                          "runners_for": runners_for})
        out = subprocess.run([venv, worker], input=req + "\n", capture_output=True, text=True, cwd=folder,
                             timeout=300, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
        lines = out.stdout.splitlines()
        answer = json.loads(lines[0]) if lines else {"error": {"message": out.stderr[-300:]}}
        if "ok" in answer:
            ok += 1
            listed = answer["ok"]["tasks"]
            runners = sum(1 for t in listed if t.get("runner"))
            print(f"  loaded {name}: {len(listed)} task(s) of its default challenge run with it, "
                  f"{runners} of {len(runners_for)} planned so by a runner of the tool or the track "
                  f"(the track registers: {', '.join(answer['ok'].get('runners', [])) or 'none'})")
        else:
            print(f"  not loaded {name}: {answer['error']}")
    print(f"{py} loaded by the worker: {ok} of {len(with_py)}")
PY
