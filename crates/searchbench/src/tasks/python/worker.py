"""searchbench's Python worker: a track's own Python, loaded by the tool's own library.

It reads one JSON request a line on its standard input and answers each with one JSON line on
its standard output:

  {"op": "load", "tool": "esrally"|"opensearch-benchmark", "track": DIR, "params": {...},
   "challenge": NAME|null, "test_mode": BOOL, "runners_for": [TASK]}
      loads the track in DIR as the tool loads it (its track.py, or workload.py, registers
      what it registers: param sources, runners, schedulers), and answers the tasks of the
      challenge whose parameters come from a param source, or which are named in "runners_for"
      and whose operation type the tool or the track has a runner for ("runner"), and the
      runners the track registered:
      {"ok": {"tasks": [{"name", "type", "param_source", "clients", "infinite", "runner"}],
              "runners": [NAME], "processed": PROCESSED}}
      PROCESSED is what the track's own processors (`register_track_processor`; a workload's
      `register_workload_processor`) did to the challenge's tasks, as the tool applied them
      (after its own: test mode, task filters):
      {"changed": [{"name", "set": {FIELD: VALUE}, "unapplied": [FIELD]}],
       "removed": [NAME], "added": [{"name", "type"}]}
      where "set" holds what changed of the task's "type", "params", "clients", "iterations",
      "warmup_iterations", "time_period" and "warmup_time_period", and "unapplied" names what
      else changed (its param source, schedule, task parameters, what completes its block)
      With "scheduled_for": [TASK], those tasks are listed too, each with whether the scheduler
      its "schedule" names is registered ("scheduler": BOOL): one the track registers
      (`register_scheduler`), or the tool's own.
  {"op": "scheduled", "task": NAME, "client": I, "clients": N, "params": BOOL}
      client I's next due time, in seconds from the task's start, as the tool's driver asks its
      scheduler (`scheduler_for(task)`, the client's parameter source given it as the tool gives
      it; `next` of the last due time), then, with "params", the client's next parameters:
      {"ok": {"at": SECONDS, "params": [P] or [], "done": BOOL}}
  {"op": "before", "task", "client"} and {"op": "after", "task", "client", "weight", "unit",
   "meta"}, "tell": true
      the scheduler's `before_request(now)` and `after_request(now, weight, unit, meta)`, now
      the worker's clock as it reads the line: not answered; an error is the answer to the
      client's next "scheduled"
  {"op": "params", "task": NAME, "client": I, "clients": N, "count": K}
      the next K parameters of client I's partition of the task's param source, made on the
      first ask as esrally makes it (a source per client, partitioned I of N):
      {"ok": {"params": [...], "done": BOOL}}
  {"op": "target", "target": {"urls": [URL], "user", "password", "api_key", "bearer",
   "verify", "ca_certs", "timeout", "version"}}
      the cluster the runners' clients talk to, and how (its credentials: on this pipe only)
  {"op": "run", "task": NAME, "client": I, "clients": N}
      runs the task's runner (the track's, else the tool's own) once (with "scheduled", its
      scheduler's before_request and after_request around it), as the tool's driver runs it (`execute_single`, errors
      continued), with client I's parameters next and client I's client of the tool's own
      library, timed as the tool times it (its request context: first request sent to last
      answer read): {"ok": {"done": true}} once the parameters are used up, else
      {"ok": {"weight", "unit", "success", "error", "service_secs", "meta"}}
  {"op": "exit"}

A request may carry an "id", which its answer repeats. An error answers
{"error": {"message", "file", "line"}}: the error the track's own code raised
(under what esrally wrapped it in) and its deepest frame in the track's folder, else the error
and its deepest frame. The worker ends when its
input ends: it never outlives searchbench.
"""

import asyncio
import copy
import json
import os
import sys
import threading
import time
import traceback
from urllib.parse import urlsplit


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


def plain(value):
    """What JSON cannot hold, as text: bytes (the lines of a bulk's body, as Rally's readers
    give them) decoded as UTF-8, anything else as `str` gives it."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", errors="replace")
    return str(value)


def answer(out, value, req=None):
    """One answer, with the number of the request it answers."""
    if isinstance(req, dict) and "id" in req:
        value["id"] = req["id"]
    out.write(json.dumps(value, default=plain) + "\n")
    out.flush()


class Worker:
    def __init__(self):
        self.track = None
        self.module = None
        self.tool = None
        self.track_dir = None
        self.tasks = {}
        self.sources = {}
        self.runners = set()
        self.runner_module = None
        self.target = {}
        self.clients = {}
        self.loop = None
        # The challenges' tasks as they were before the track's first processor ran.
        self.before = None
        self.scheduler_module = None
        # Each (task, client)'s scheduler and its last due time.
        self.schedulers = {}
        # What a scheduler raised when told of a request, by (task, client): said with that
        # client's next due time.
        self.told_errors = {}

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
        self.watch_processors()
        if self.tool == "opensearch-benchmark":
            self.track = track.load_workload(cfg)
            challenge = self.track.find_test_procedure_or_default(challenge_name)
        else:
            self.track = track.load_track(cfg)
            challenge = self.track.find_challenge_or_default(challenge_name)
        self.module = track
        self.register_runners(cfg)
        wanted = set(req.get("runners_for") or [])
        scheduled = set(req.get("scheduled_for") or [])
        listed = []
        for group in challenge.schedule:
            for task in group:
                source = task.operation.param_source
                runner = task.name in wanted and self.has_runner(task.operation.type)
                if not source and not runner and task.name not in scheduled:
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
                        "runner": runner,
                        "scheduler": task.name in scheduled and self.has_scheduler(task.schedule),
                    }
                )
        return {"tasks": listed, "runners": sorted(self.runners), "processed": self.processed(challenge)}

    def watch_processors(self):
        """Has the tool's registry of track processors snapshot each challenge's tasks just
        before the first processor the track registered runs (the tool's own, test mode and
        task filters, have run by then), so what the track's processors did is known."""
        if self.tool == "opensearch-benchmark":
            from osbenchmark.workload import loader

            registry, register_name = loader.WorkloadProcessorRegistry, "register_workload_processor"
            hook, default = "on_after_load_workload", loader.DefaultWorkloadPreparator
        else:
            from esrally.track import loader

            registry, register_name = loader.TrackProcessorRegistry, "register_track_processor"
            hook, default = "on_after_load_track", loader.DefaultTrackPreparator
        original = getattr(registry, register_name)
        if getattr(original, "searchbench_watched", False):
            return
        worker = self

        def register(reg, processor, *args, **kwargs):
            if not isinstance(processor, default):
                applies = getattr(processor, hook)

                def snapshot_first(t, *a, **k):
                    if worker.before is None:
                        worker.before = worker.schedules(t)
                    return applies(t, *a, **k)

                setattr(processor, hook, snapshot_first)
            return original(reg, processor, *args, **kwargs)

        register.searchbench_watched = True
        setattr(registry, register_name, register)

    def schedules(self, t):
        """Every challenge's tasks, each as the fields a processor may change, copied."""
        challenges = t.test_procedures if self.tool == "opensearch-benchmark" else t.challenges
        return {c.name: [self.leaf(task) for group in c.schedule for task in group] for c in challenges}

    @staticmethod
    def leaf(task):
        def copied(v):
            try:
                return copy.deepcopy(v)
            except Exception:  # noqa: BLE001 - what cannot be copied is compared as it is
                return v

        return {
            "name": task.name,
            "type": task.operation.type,
            "params": copied(task.operation.params),
            "clients": task.clients,
            "iterations": task.iterations,
            "warmup_iterations": task.warmup_iterations,
            "time_period": task.time_period,
            "warmup_time_period": task.warmup_time_period,
            # What searchbench does not apply when a processor changes it.
            "param_source": task.operation.param_source,
            "schedule": task.schedule,
            "task_params": copied(task.params),
            "completes": [task.completes_parent, getattr(task, "any_completes_parent", False)],
            "ramp_up_time_period": getattr(task, "ramp_up_time_period", None),
        }

    def processed(self, challenge):
        """What the track's processors did to `challenge`'s tasks (see the module's text)."""
        done = {"changed": [], "removed": [], "added": []}
        before = (self.before or {}).get(challenge.name)
        if before is None:
            return done
        after = [self.leaf(task) for group in challenge.schedule for task in group]

        def same(a, b):
            return json.dumps(a, sort_keys=True, default=plain) == json.dumps(b, sort_keys=True, default=plain)

        was = {t["name"]: t for t in before}
        now = {t["name"]: t for t in after}
        applied = ("type", "params", "clients", "iterations", "warmup_iterations", "time_period", "warmup_time_period")
        for name, t in now.items():
            old = was.get(name)
            if old is None:
                done["added"].append({"name": name, "type": t["type"]})
            elif not same(old, t):
                differ = [k for k in t if k != "name" and not same(old[k], t[k])]
                done["changed"].append(
                    {
                        "name": name,
                        "set": {k: t[k] for k in differ if k in applied},
                        "unapplied": [k for k in differ if k not in applied],
                    }
                )
        done["removed"] = [name for name in was if name not in now]
        return done

    def register_runners(self, cfg):
        """The tool's own runners, then the track's runners and schedulers, registered as the
        tool's driver registers them (its track.py loaded again with the registries the driver
        passes: a runner of the track takes the place of the tool's of the same name)."""
        if self.tool == "opensearch-benchmark":
            from osbenchmark.worker_coordinator import runner, scheduler

            plugins = self.module.load_workload_plugins
            runner.register_default_runners()
        else:
            from esrally.driver import runner, scheduler

            plugins = self.module.load_track_plugins
            runner.register_default_runners(cfg)
        self.runner_module = runner
        self.scheduler_module = scheduler

        def register(operation_type, fn, **kwargs):
            runner.register_runner(operation_type, fn, **kwargs)
            name = getattr(operation_type, "to_hyphenated_string", lambda: operation_type)()
            self.runners.add(str(name))

        plugins(cfg, self.track.name, register, scheduler.register_scheduler)

    def has_runner(self, operation_type):
        """Whether the tool, or the track, has a runner for `operation_type`."""
        try:
            self.runner_module.runner_for(operation_type)
            return True
        except Exception:  # noqa: BLE001 - the tools raise their own error for "no runner"
            return False

    def has_scheduler(self, name):
        """Whether a scheduler is registered as `name` (the tool's own, or the track's)."""
        registered = getattr(self.scheduler_module, "__SCHEDULERS", None)
        return registered is not None and name in registered

    def scheduler(self, name, client, clients):
        """Client `client`'s scheduler of task `name`, made on the first ask as the tool's
        driver makes it (`scheduler_for(task)`, given the client's parameter source when it has
        a `parameter_source`), with its last due time."""
        key = (name, client)
        if key not in self.schedulers:
            task = self.tasks.get(name)
            if task is None:
                raise KeyError(f"no task {name!r} is scheduled in the worker")
            made = self.scheduler_module.scheduler_for(task)
            if hasattr(made, "parameter_source"):
                made.parameter_source = self.source(name, client, clients)
            self.schedulers[key] = [made, 0]
        return self.schedulers[key]

    def scheduled(self, req):
        name, client, clients = req["task"], int(req["client"]), int(req["clients"])
        raised = self.told_errors.pop((name, client), None)
        if raised is not None:
            raise raised
        held = self.scheduler(name, client, clients)
        held[1] = held[0].next(held[1])
        out, done = [], False
        if req.get("params"):
            try:
                out.append(self.source(name, client, clients).params())
            except StopIteration:
                done = True
        return {"at": float(held[1]), "params": out, "done": done}

    def told(self, req):
        """A scheduler's before_request or after_request, at the worker's clock now."""
        held = self.scheduler(req["task"], int(req["client"]), int(req.get("clients", 1)))
        now = time.perf_counter()
        if req["op"] == "before":
            held[0].before_request(now)
        else:
            held[0].after_request(now, req.get("weight", 0), req.get("unit", "ops"), req.get("meta") or {})

    def source(self, name, client, clients):
        """Client `client`'s partition of task `name`'s parameters, made on the first ask as
        the tool makes it (a source per client, partitioned I of N)."""
        key = (name, client)
        if key not in self.sources:
            task = self.tasks.get(name)
            if task is None:
                raise KeyError(f"no task {name!r} runs in the worker")
            self.sources[key] = self.module.operation_parameters(self.track, task).partition(client, clients)
        return self.sources[key]

    def params(self, req):
        name, client, clients = req["task"], int(req["client"]), int(req["clients"])
        source = self.source(name, client, clients)
        out, done = [], False
        for _ in range(max(1, int(req.get("count", 1)))):
            try:
                out.append(source.params())
            except StopIteration:
                done = True
                break
        return {"params": out, "done": done}

    def client_of(self, client):
        """Client `client`'s clients of the tool's own library, by cluster, as its driver
        makes them: `{"default": client}`."""
        if client in self.clients:
            return self.clients[client]
        t = self.target
        hosts, https = [], False
        for url in t.get("urls") or []:
            u = urlsplit(url)
            https = https or u.scheme == "https"
            hosts.append({"host": u.hostname, "port": u.port or (443 if u.scheme == "https" else 80)})
        options = {"timeout": t.get("timeout", 60)}
        if https:
            options.update({"use_ssl": True, "verify_certs": bool(t.get("verify", True))})
            if t.get("ca_certs"):
                options["ca_certs"] = t["ca_certs"]
        if t.get("user") is not None:
            options.update({"basic_auth_user": t["user"], "basic_auth_password": t.get("password") or ""})
        elif t.get("api_key"):
            options["api_key"] = t["api_key"]
        elif t.get("bearer"):
            options["bearer_auth"] = t["bearer"]
        if self.tool == "opensearch-benchmark":
            from osbenchmark import client as factory

            made = factory.OsClientFactory(hosts, options).create_async()
        else:
            from esrally import client as factory

            made = factory.EsClientFactory(hosts, options, distribution_version=t.get("version")).create_async(
                client_id=client
            )
        self.clients[client] = {"default": made}
        return self.clients[client]

    def run(self, req):
        name, client, clients = req["task"], int(req["client"]), int(req["clients"])
        task = self.tasks.get(name)
        if task is None or not self.has_runner(task.operation.type):
            raise KeyError(f"task {name!r} has no runner of the tool or the track")
        try:
            params = self.source(name, client, clients).params()
        except StopIteration:
            return {"done": True}
        if self.loop is None:
            self.loop = asyncio.new_event_loop()
        runner = self.runner_module.runner_for(task.operation.type)
        held = self.scheduler(name, client, clients)[0] if req.get("scheduled") else None
        if held is not None:
            held.before_request(time.perf_counter())
        ran = self.loop.run_until_complete(self.once(runner, self.client_of(client), params))
        if held is not None:
            meta = dict(ran["meta"], success=ran["success"])
            held.after_request(time.perf_counter(), ran["weight"], ran["unit"], meta)
        return ran

    async def once(self, runner, es, params):
        if self.tool == "opensearch-benchmark":
            from osbenchmark.worker_coordinator.worker_coordinator import execute_single

            on_error = "continue"
        else:
            from esrally.driver.driver import execute_single
            from esrally.utils.error_behavior import OnErrorBehavior

            on_error = OnErrorBehavior.CONTINUE
        began = time.perf_counter()
        context = es["default"].new_request_context()
        if hasattr(context, "__aenter__"):
            async with context as timed:
                ops, unit, meta = await execute_single(runner, es, params, on_error)
                start, end = timed.request_start, timed.request_end
        else:
            with context as timed:
                ops, unit, meta = await execute_single(runner, es, params, on_error)
                start, end = timed.request_start, timed.request_end
        # What the tool's driver falls back on: a runner that sent nothing is timed from its
        # start, one whose answer was not marked (opensearch-benchmark marks it only in its
        # own runners) to its end.
        if start is None:
            start = began
        if end is None or end < start:
            end = time.perf_counter()
        meta = dict(meta or {})
        success = bool(meta.pop("success", True))
        error = meta.pop("error-description", None)
        return {
            "weight": ops,
            "unit": unit,
            "success": success,
            "error": None if success else str(error or meta.get("error-type") or "failed"),
            "service_secs": end - start,
            "meta": meta,
        }

    def close(self):
        if self.loop is None:
            return
        for es in self.clients.values():
            try:
                self.loop.run_until_complete(es["default"].close())
            except Exception:  # noqa: BLE001 - closing is best effort
                pass


def watch_parent():
    """Ends the worker once searchbench has ended, however it ended: a SIGKILL (or a second
    Ctrl-C) runs no cleanup, and a runner awaiting the cluster for an hour reads no stdin to
    see it closed. searchbench says its pid (a shim between them, or searchbench gone before
    this thread ran, would make the parent's pid here another's)."""
    parent = int(os.environ.get("SEARCHBENCH_PARENT_PID") or os.getppid())
    first = os.getppid()
    while True:
        try:
            os.kill(parent, 0)
        except ProcessLookupError:
            os._exit(1)
        except PermissionError:
            pass
        # Given to another parent: the one it had is gone (searchbench, or a shim between).
        if os.getppid() != first:
            os._exit(1)
        time.sleep(0.5)


def main():
    threading.Thread(target=watch_parent, daemon=True).start()
    worker = Worker()
    # What the track's code prints must not mix with the answers: the answers go out on a
    # descriptor of their own, and descriptor 1 becomes stderr, so a library writing to it
    # from C (or a process the track starts) cannot put bytes in the middle of an answer.
    sys.stdout.flush()
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    for line in sys.stdin:
        if not line.strip():
            continue
        req = None
        try:
            req = json.loads(line)
            op = req.get("op")
            if req.get("tell"):
                try:
                    worker.told(req)
                except Exception as e:  # noqa: BLE001 - said with the client's next due time
                    worker.told_errors.setdefault((req.get("task"), int(req.get("client", 0))), e)
                continue
            if op == "exit":
                worker.close()
                break
            if op == "load":
                answer(out, {"ok": worker.load(req)}, req)
            elif op == "params":
                answer(out, {"ok": worker.params(req)}, req)
            elif op == "scheduled":
                answer(out, {"ok": worker.scheduled(req)}, req)
            elif op == "target":
                worker.target = req.get("target") or {}
                answer(out, {"ok": {}}, req)
            elif op == "run":
                answer(out, {"ok": worker.run(req)}, req)
            else:
                answer(out, {"error": {"message": f"unknown request {op!r}"}}, req)
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
                req,
            )


if __name__ == "__main__":
    main()
