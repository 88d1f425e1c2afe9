"""searchbench's Python worker: a track's own Python, loaded by the tool's own library.

It reads one JSON request a line on its standard input and answers each with one JSON line on
its standard output:

  {"op": "load", "tool": "esrally"|"opensearch-benchmark", "track": DIR, "params": {...},
   "challenge": NAME|null, "test_mode": BOOL}
      loads the track in DIR as the tool loads it (its track.py, or workload.py, registers
      what it registers),
      and answers the tasks of the challenge whose parameters come from a param source:
      {"ok": {"tasks": [{"name", "type", "param_source", "clients", "infinite"}]}}
  {"op": "params", "task": NAME, "client": I, "clients": N, "count": K}
      the next K parameters of client I's partition of the task's param source, made on the
      first ask as esrally makes it (a source per client, partitioned I of N):
      {"ok": {"params": [...], "done": BOOL}}
  {"op": "exit"}

An error answers {"error": {"message", "file", "line"}}: the error the track's own code raised
(under what esrally wrapped it in) and its deepest frame in the track's folder, else the error
and its deepest frame. The worker ends when its
input ends: it never outlives searchbench.
"""

import json
import os
import sys
import traceback


def origin(error, track_dir):
    """The error the track's own code raised (esrally wraps it: `raise ... from`), and its
    deepest frame in the track's folder; else the error itself and its deepest frame."""
    chain, e = [], error
    while e is not None and not any(e is c for c in chain):
        chain.append(e)
        e = e.__cause__ or e.__context__
    for e in reversed(chain):
        frames = traceback.extract_tb(e.__traceback__)
        own = [f for f in frames if track_dir and os.path.abspath(f.filename).startswith(track_dir)]
        if own:
            return e, own[-1]
    frames = traceback.extract_tb(error.__traceback__)
    return error, (frames[-1] if frames else None)


def answer(out, value):
    out.write(json.dumps(value, default=str) + "\n")
    out.flush()


class Worker:
    def __init__(self):
        self.track = None
        self.module = None
        self.tool = None
        self.track_dir = None
        self.tasks = {}
        self.sources = {}

    def load(self, req):
        self.tool = req.get("tool", "esrally")
        self.track_dir = os.path.abspath(req["track"])
        params, challenge_name = req.get("params") or {}, req.get("challenge")
        cache = os.path.join(self.track_dir, ".data")
        test_mode = bool(req.get("test_mode"))
        if self.tool == "opensearch-benchmark":
            # opensearch-benchmark's loader is Rally's, renamed: workloads, test procedures.
            from osbenchmark import config, paths
            from osbenchmark import workload as track

            settings = [
                ("node", "benchmark.root", paths.benchmark_root()),
                ("system", "offline.mode", True),
                ("workload", "workload.path", self.track_dir),
                ("workload", "params", params),
                ("workload", "test_procedure.name", challenge_name),
                ("workload", "test.mode.enabled", test_mode),
            ]
        else:
            from esrally import config, paths, track

            settings = [
                ("node", "rally.root", paths.rally_root()),
                ("track", "track.path", self.track_dir),
                ("track", "params", params),
                ("track", "challenge.name", challenge_name),
                ("track", "test.mode.enabled", test_mode),
            ]
        cfg = config.Config()
        for section, key, value in settings + [("benchmarks", "local.dataset.cache", cache)]:
            cfg.add(config.Scope.application, section, key, value)
        if self.tool == "opensearch-benchmark":
            self.track = track.load_workload(cfg)
            challenge = self.track.find_test_procedure_or_default(challenge_name)
        else:
            self.track = track.load_track(cfg)
            challenge = self.track.find_challenge_or_default(challenge_name)
        self.module = track
        listed = []
        for group in challenge.schedule:
            for task in group:
                source = task.operation.param_source
                if not source:
                    continue
                self.tasks[task.name] = task
                probe = track.operation_parameters(self.track, task)
                listed.append(
                    {
                        "name": task.name,
                        "type": task.operation.type,
                        "param_source": source,
                        "clients": task.clients,
                        "infinite": bool(getattr(probe, "infinite", False)),
                    }
                )
        return {"tasks": listed}

    def params(self, req):
        track = self.module
        name, client, clients = req["task"], int(req["client"]), int(req["clients"])
        key = (name, client)
        if key not in self.sources:
            task = self.tasks.get(name)
            if task is None:
                raise KeyError(f"no task {name!r} takes its parameters from a param source")
            self.sources[key] = track.operation_parameters(self.track, task).partition(client, clients)
        source = self.sources[key]
        out, done = [], False
        for _ in range(max(1, int(req.get("count", 1)))):
            try:
                out.append(source.params())
            except StopIteration:
                done = True
                break
        return {"params": out, "done": done}


def main():
    worker = Worker()
    out = sys.stdout
    # What the track's code prints must not mix with the answers.
    sys.stdout = sys.stderr
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            op = req.get("op")
            if op == "exit":
                break
            if op == "load":
                answer(out, {"ok": worker.load(req)})
            elif op == "params":
                answer(out, {"ok": worker.params(req)})
            else:
                answer(out, {"error": {"message": f"unknown request {op!r}"}})
        except BaseException as e:  # noqa: BLE001 - every error is answered, named
            if isinstance(e, KeyboardInterrupt):
                raise
            raised, frame = origin(e, worker.track_dir)
            answer(
                out,
                {
                    "error": {
                        "message": f"{type(raised).__name__}: {raised}",
                        "file": frame.filename if frame else None,
                        "line": frame.lineno if frame else None,
                    }
                },
            )


if __name__ == "__main__":
    main()
