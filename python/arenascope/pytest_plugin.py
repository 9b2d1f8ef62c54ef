"""pytest plugin: device-memory limits as a line in a test.

    @pytest.mark.limit_device_memory("64 MiB")                 # peak of every recorded memory
    @pytest.mark.limit_device_memory("16 MiB", memory="pyopencl.MemoryPool")
    @pytest.mark.limit_device_leaks("1 MiB", warmups=2)        # bytes still in use after the measured run
    @pytest.mark.limit_device_allocations(100)                 # allocations of the measured run

Registered through the ``pytest11`` entry point (``pip install ./python``); from a checkout,
``pytest -p arenascope.pytest_plugin``. Off unless ``--arenascope`` (or ``--arenascope-limit``,
``--arenascope-json``) is given or a test carries one of the markers: then each such test is recorded
in its own recording (the process's one memory session, rewound for it), from its setup (function-scoped fixtures count) to the end of its call,
with the pyopencl, pycuda, hysop and algan adapters on (their libraries are only instrumented if the
test imports them) and, where the test imported torch and CUDA is there, the caching allocator's own
counters. See docs/guide/testing.md.
"""

import gc
import hashlib
import json
import os
import re
import sys

import pytest

from . import testing

ADAPTERS = "pyopencl,pycuda,hysop,algan"
MARKERS = ("limit_device_memory", "limit_device_leaks", "limit_device_allocations")
DEFAULT_STACKS = 8
_USAGE = pytest.StashKey()
_modules = sys.modules
_client = []   # [arenascope._session], imported by the first recorded test (the plugin loads in every pytest run)


def _sessions():
    if not _client:
        from . import _session
        _client.append(_session)
    return _client[0]


def pytest_addoption(parser):
    g = parser.getgroup("arenascope", "device-memory limits (ArenaScope)")
    g.addoption("--arenascope", action="store_true", default=False,
                help="record every test's device memory (pools, arenas, torch's caching allocator)")
    g.addoption("--arenascope-limit", metavar="SIZE",
                help="a default peak limit for every test without limit_device_memory (e.g. 256MiB); implies --arenascope")
    g.addoption("--arenascope-json", metavar="FILE",
                help="write each recorded test's figures (peak per memory, leaks, allocations) to FILE; implies --arenascope")
    g.addoption("--arenascope-benchmark-json", metavar="FILE",
                help="write the figures as a customSmallerIsBetter list ({name, unit, value}) for benchmark-trend actions")
    g.addoption("--arenascope-keep", choices=("failed", "all", "none"), default="failed",
                help="which tests' .jsonl traces to keep for `arenascope open` (default: failed)")
    g.addoption("--arenascope-stacks", type=int, default=DEFAULT_STACKS, metavar="N",
                help="Python frames recorded per allocation, naming the sites in failure messages (0: off; default %d)"
                     % DEFAULT_STACKS)
    g.addoption("--arenascope-dir", metavar="DIR",
                help="where traces go (default: arenascope-traces/ beside --arenascope-json, else .arenascope/)")


def pytest_configure(config):
    config.addinivalue_line("markers", "limit_device_memory(limit, memory=None): fail when the device-memory peak of "
                                       "the named memory (or of any recorded memory) exceeds limit (\"64 MiB\")")
    config.addinivalue_line("markers", "limit_device_leaks(limit, warmups=0, memory=None): fail when more than limit "
                                       "bytes are still in use at the end of the run after `warmups` warm-up runs")
    config.addinivalue_line("markers", "limit_device_allocations(n, memory=None): fail when the test makes more than "
                                       "n device allocations")
    opt = config.option
    default = None
    if opt.arenascope_limit is not None:
        try:
            default = testing.parse_size(opt.arenascope_limit)
        except ValueError as e:
            raise pytest.UsageError("--arenascope-limit: %s" % e) from None
    if opt.arenascope_stacks < 0:
        raise pytest.UsageError("--arenascope-stacks: %d is negative (0 turns stacks off)" % opt.arenascope_stacks)
    config.pluginmanager.register(Recorder(config, default), "arenascope-recorder")


class Limits:
    """The limits that apply to one test (None: no such limit)."""

    __slots__ = ("memory", "memory_of", "leaks", "leaks_of", "warmups", "allocations", "allocations_of", "default",
                 "calls")

    def __init__(self):
        self.memory = self.memory_of = self.leaks = self.leaks_of = self.allocations = self.allocations_of = None
        self.calls = {}   # marker name -> the marker as written (for messages)
        self.warmups = 0
        self.default = False

    def any(self):
        return self.memory is not None or self.leaks is not None or self.allocations is not None

    def as_json(self):
        return {"memory_bytes": self.memory, "memory": self.memory_of, "leaked_bytes": self.leaks,
                "leaks_memory": self.leaks_of, "warmups": self.warmups, "allocations": self.allocations,
                "allocations_memory": self.allocations_of}


def _marker_args(item, name, positional, keywords):
    """The closest ``name`` marker's arguments as a dict, or None; ValueError naming what is wrong."""
    m = item.get_closest_marker(name)
    if m is None:
        return None
    call = "%s(%s)" % (name, ", ".join([repr(a) for a in m.args] + ["%s=%r" % kv for kv in m.kwargs.items()]))
    if len(m.args) > len(positional):
        raise ValueError("%s: at most %d positional argument(s)" % (call, len(positional)))
    got = dict(zip(positional, m.args))
    for k, v in m.kwargs.items():
        if k not in positional and k not in keywords:
            raise ValueError("%s: unknown argument %r (known: %s)" % (call, k, ", ".join(positional + keywords)))
        if k in got:
            raise ValueError("%s: %r given twice" % (call, k))
        got[k] = v
    if positional[0] not in got:
        raise ValueError("%s: the limit is missing" % call)
    got["_call"] = call
    return got


def _memory_name(call, value):
    if value is None or isinstance(value, str) and value.strip():
        return value
    raise ValueError("%s: memory=%r is not a memory's name (a string such as \"pyopencl.MemoryPool\")" % (call, value))


def limits_of(item, default):
    """The item's :class:`Limits`; ValueError naming the marker and argument that are wrong."""
    lim = Limits()
    m = _marker_args(item, "limit_device_memory", ["limit"], ["memory"])
    if m is not None:
        lim.memory = _size(m["_call"], m["limit"])
        lim.memory_of = _memory_name(m["_call"], m.get("memory"))
        lim.calls["memory"] = m["_call"]
    elif default is not None:
        lim.memory = default
        lim.default = True
    m = _marker_args(item, "limit_device_leaks", ["limit"], ["warmups", "memory"])
    if m is not None:
        lim.leaks = _size(m["_call"], m["limit"])
        lim.leaks_of = _memory_name(m["_call"], m.get("memory"))
        lim.calls["leaks"] = m["_call"]
        w = m.get("warmups", 0)
        if isinstance(w, bool) or not isinstance(w, int) or w < 0:
            raise ValueError("%s: warmups=%r is not a count of runs (0 or more)" % (m["_call"], w))
        lim.warmups = w
    m = _marker_args(item, "limit_device_allocations", ["n"], ["memory"])
    if m is not None:
        n = m["n"]
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError("%s: %r is not a count of allocations (an int, 0 or more)" % (m["_call"], n))
        lim.allocations = n
        lim.allocations_of = _memory_name(m["_call"], m.get("memory"))
        lim.calls["allocations"] = m["_call"]
    return lim


def _size(call, value):
    try:
        return testing.parse_size(value)
    except ValueError as e:
        raise ValueError("%s: %s" % (call, e)) from None


class _Run:
    """One recorded test: its session (made when the test first records: see _session.start_lazily), trace
    path, limits and (after the call) its result."""

    __slots__ = ("session", "live", "measuring", "recording", "path", "limits", "torch", "result", "violations",
                 "error", "baseline")

    def __init__(self, limits):
        self.limits = limits
        self.session = None     # recording now (setup and call), once something asked for it
        self.live = False       # started and not yet finished
        self.measuring = False  # the measured run has begun (after the warm-ups)
        self.recording = None   # the closed session, until its trace is kept or dropped
        self.path = None
        self.torch = None
        self.result = None
        self.violations = []
        self.error = None
        self.baseline = {}

    def make_session(self, recorder, name):
        """The test's session, made by the first adapter (or scope, marker) that asks for one: the
        process's memory session of the tests before, rewound (see Recorder.session_for)."""
        s = recorder.session_for(name)
        if self.measuring:
            s.marker(testing.MEASURE_MARKER)
        self.session = s
        return s


class _TestHooks:
    """The Recorder's per-test hooks under pytest's names, as a plugin of their own (see
    Recorder._hook_tests)."""

    def __init__(self, recorder):
        self.pytest_runtest_setup = recorder.runtest_setup
        self.pytest_pyfunc_call = recorder.pyfunc_call
        self.pytest_runtest_makereport = recorder.runtest_makereport
        self.pytest_runtest_logreport = recorder.runtest_logreport


_NO_FIGURES = testing.Figures()   # what a test that recorded nothing has (never changed)


class Recorder:
    """The plugin's state in one process (the controller's results too, under pytest-xdist)."""

    def __init__(self, config, default):
        self.config = config
        opt = config.option
        self.default = default
        self.all = bool(opt.arenascope or opt.arenascope_limit is not None or opt.arenascope_json)
        self.keep = opt.arenascope_keep
        self.stacks = opt.arenascope_stacks
        self.worker = getattr(config, "workerinput", {}).get("workerid")
        if opt.arenascope_dir:
            self.dir = opt.arenascope_dir
        elif opt.arenascope_json:
            self.dir = os.path.join(os.path.dirname(os.path.abspath(opt.arenascope_json)), "arenascope-traces")
        else:
            self.dir = os.path.join(str(config.rootpath), ".arenascope")
        self.limits = {}    # nodeid -> Limits of the tests to record
        self.runs = {}      # nodeid -> _Run in progress
        self.results = []   # result dicts of the finished tests (every worker's, on the controller)
        self.bad = {}       # nodeid -> the usage error of its markers (pytest-xdist workers)
        self.usage_errors = []
        self.adapters_on = False
        self._hooked = False   # the per-test hooks registered (see _hook_tests)
        self._spare = None   # the memory session of the tests before, to be rewound for the next one

    def session_for(self, name):
        """A memory session for one test: the one the tests before recorded in, rewound (a test's recording
        is gone from it once its report is made), else a new one. One session a process, not one a test."""
        s, self._spare = self._spare, None
        if s is None:
            return _sessions().Session(memory=True, name=name, stacks=self.stacks)
        return s.rewind(name)

    def _done_with(self, session):
        """A test's recording is no longer needed (its figures read, its trace kept or not)."""
        if session is not None and session.closed and session.forked_from is None:
            self._spare = session

    # ------------------------------------------------------------------ collection

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items):
        errors = []
        for item in items:
            try:
                lim = limits_of(item, self.default)
            except ValueError as e:
                errors.append("%s: %s" % (item.nodeid, e))
                continue
            if self.all or lim.any() and not lim.default:
                self.limits[item.nodeid] = lim
        if errors and self.worker is None:
            raise pytest.UsageError("arenascope: bad device-memory limit\n" + "\n".join(errors))
        # a pytest-xdist worker cannot end the run with a usage error: each bad test errors in its
        # setup with the same line, and the controller ends with exit code 4 (USAGE_ERROR)
        for e in errors:
            self.bad[e.split(": ", 1)[0]] = e
        if self.limits or self.bad:
            self._hook_tests()

    def _hook_tests(self):
        """Registers the hooks that record a test and read its reports: only once some collected test
        is to be recorded (or has a bad marker), so that a run with nothing to record (the plugin is
        loaded by every pytest run of an environment it is installed in) pays no hook call a test."""
        if self._hooked:
            return
        self._hooked = True
        self.config.pluginmanager.register(_TestHooks(self), "arenascope-tests")

    def pytest_sessionstart(self, session):
        # pytest-xdist's controller collects nothing: the workers' reports, which carry their tests'
        # results, are read whenever it distributes
        if self.config.pluginmanager.hasplugin("dsession"):
            self._hook_tests()

    # ------------------------------------------------------------------ one test

    @pytest.hookimpl(tryfirst=True)
    def runtest_setup(self, item):
        bad = self.bad.get(item.nodeid)
        if bad is not None:
            item.stash[_USAGE] = bad
            pytest.fail("arenascope: bad device-memory limit: " + bad, pytrace=False)
        lim = self.limits.get(item.nodeid)
        if lim is not None:   # before the fixtures are set up, so that theirs count
            self._start(item, lim)

    def _start(self, item, lim):
        _session = _sessions()
        run = _Run(lim)
        self.runs[item.nodeid] = run
        if _session.current() is not None:
            run.error = "not recorded: an arenascope session was already recording (%s)" % \
                        _session.current().writer.sink.describe()
            return
        if not self.adapters_on:   # once: they stay on (an adapter instruments its library on import)
            from . import _adapters as adapters
            adapters.install(adapters.parse(ADAPTERS))
            self.adapters_on = True
        # recorded into memory, by a session made only when the test first records (a pool, an arena):
        # the figures are read from its events, and a trace is written only for a test whose trace is kept
        nodeid = item.nodeid
        _session.start_lazily(lambda: run.make_session(self, nodeid))
        run.live = True
        if "torch" in _modules:   # the caching allocator's counters only where torch was imported
            run.torch = _TorchCounters.start()

    @pytest.hookimpl(hookwrapper=True)
    def pyfunc_call(self, pyfuncitem):
        run = self.runs.get(pyfuncitem.nodeid)
        if run is None or not run.live:
            yield
            return
        if run.limits.warmups:
            fn = pyfuncitem.obj
            args = {a: pyfuncitem.funcargs[a] for a in pyfuncitem._fixtureinfo.argnames}
            for _ in range(run.limits.warmups):
                fn(**args)
        if run.limits.leaks is not None and run.session is not None:
            # after warm-up runs, their dropped buffers may wait in cycles: a young-generation collection
            # first, so that they are not in the baseline (and then freed to hide a leak of the same size)
            _settle(run.session, collect=run.limits.warmups > 0)
            run.baseline = _in_use(run.session)
        run.measuring = True
        if run.session is not None:
            run.session.marker(testing.MEASURE_MARKER)
        if run.torch is not None or "torch" in _modules:
            run.torch = _TorchCounters.measure(run.torch)
        yield   # pytest's own pyfunc_call (and any other plugin's) runs the measured call
        self._finish(pyfuncitem, run)

    def _finish(self, item, run):
        _session = _sessions()
        run.live = False
        s = run.session
        if s is not None and run.limits.leaks is not None:
            # a first look without a collection (a test's buffers are mostly freed with its frame); over
            # the limit, a young-generation collection, then a full one (costly in a big process, so only
            # then) free what only cycles kept, before the verdict
            for generation in (None, 1, 2):
                if generation is not None:
                    gc.collect(generation)
                _settle(s, collect=False)
                if _leaked(_in_use(s), run.baseline) <= run.limits.leaks:
                    break
        _session.stop_lazily(s)
        run.session = None
        if s is not None:
            # the test's memories record nothing more (here or in the tests after), and they and the
            # session no longer refer to each other (nothing of them waits for a full collection)
            s.detach()
            run.recording = s
            fig = testing.figures_of(s)
            lost = s.lost
        else:
            fig, lost = _NO_FIGURES, 0
        memories = fig.memories
        if "torch" in _modules:
            torch = _TorchCounters.finish(run.torch)
            if torch:
                memories = memories + torch
        run.result = _result(item.nodeid, memories, run.limits, self.worker, lost)
        try:
            run.violations = _check(item.nodeid, fig, memories, run.limits)
        except ValueError as e:
            run.violations = [(str(e), [])]

    @pytest.hookimpl(hookwrapper=True)
    def runtest_makereport(self, item, call):
        outcome = yield
        run = self.runs.get(item.nodeid)
        if run is None:
            # the stash holds a usage error only where a marker was bad (self.bad): not looked up otherwise
            if self.bad:
                rep = outcome.get_result()
                if rep.when == "setup" and item.stash.get(_USAGE, None) is not None:
                    rep.arenascope_usage = item.stash[_USAGE]
            return
        rep = outcome.get_result()
        if rep.when == "call" and run.live:
            self._finish(item, run)   # an item whose call is not a Python function's (no pytest_pyfunc_call)
        if rep.when == "setup" and not rep.passed or rep.when == "call":
            self.runs.pop(item.nodeid, None)
            if run.live:   # setup failed or was skipped: nothing to measure
                run.live = False
                s, run.session = run.session, None
                _sessions().stop_lazily(s)
                if s is not None:
                    s.detach()
                    if self.keep == "all":
                        self._save(item.nodeid, s)
                    self._done_with(s)
                return
        if rep.when != "call":
            return
        if run.error is not None:
            if run.limits.any() and not run.limits.default and rep.passed:
                rep.outcome = "failed"
                rep.longrepr = "arenascope: %s: %s" % (item.nodeid, run.error)
            return
        if run.result is None:
            return
        failed = bool(run.violations) or rep.failed
        keep = self.keep == "all" or (self.keep == "failed" and failed)
        if keep:
            run.path = self._save(item.nodeid, run.recording)
            keep = run.path is not None
        self._done_with(run.recording)   # its events go with the next test's rewind
        run.recording = None
        run.result["outcome"] = "failed" if failed else rep.outcome
        run.result["trace"] = run.path if keep else None
        run.result["violations"] = [v[0] for v in run.violations]
        if run.violations and rep.passed:
            rep.outcome = "failed"
            rep.longrepr = _message(run.violations, run.path if keep else None)
        rep.arenascope = run.result   # travels with the report (pytest-xdist sends it to the controller)

    def _save(self, nodeid, session):
        """Writes a test's recording beside the others (``arenascope open`` reads it); its path, or None
        when it could not be written (said on stderr)."""
        path = os.path.join(self.dir, _file_name(nodeid))
        if session is None:   # the test recorded nothing: its trace is a session without memories
            session = _sessions().Session(memory=True, name=nodeid)
            session.close()
        try:
            os.makedirs(self.dir, exist_ok=True)
            return session.save(path)
        except OSError as e:
            print("arenascope: %s: the trace could not be kept: %s" % (nodeid, e), file=sys.stderr)
            return None

    # ------------------------------------------------------------------ results (controller)

    def runtest_logreport(self, report):
        usage = getattr(report, "arenascope_usage", None)
        if usage is not None:
            self.usage_errors.append(usage)
        result = getattr(report, "arenascope", None)
        if report.when == "call" and result is not None:
            self.results.append(result)

    def pytest_sessionfinish(self, session):
        if self.worker is not None:
            return
        if self.usage_errors:
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
        opt = self.config.option
        results = sorted(self.results, key=lambda r: r["nodeid"])
        if opt.arenascope_json:
            _write_json(opt.arenascope_json, {"version": 1, "tests": results, "benchmarks": benchmarks(results)})
        if opt.arenascope_benchmark_json:
            _write_json(opt.arenascope_benchmark_json, benchmarks(results))

    def pytest_terminal_summary(self, terminalreporter):
        if self.worker is not None or not self.results:
            return
        over = sum(1 for r in self.results if r.get("violations"))
        kept = sum(1 for r in self.results if r.get("trace"))
        line = "arenascope: %d test(s) recorded, %d over a device-memory limit" % (len(self.results), over)
        if kept:
            line += "; traces in %s" % self.dir
        if self.config.option.arenascope_json:
            line += "; figures in %s" % self.config.option.arenascope_json
        terminalreporter.write_line(line)


def _leaked(now, baseline):
    """Bytes in use now beyond the baseline, over the memories (infinite when the client keeps no table)."""
    if now is None:
        return float("inf")
    return sum(max(0, n - baseline.get(m, 0)) for m, n in now.items())


def _settle(session, collect=True):
    """Lets the session see the buffers the test dropped: with ``collect``, a young-generation collection
    (cheap, unlike a full one in a process holding numpy and OpenCL), and the pools' looks for buffers
    collected since their last operation (what the session does when it closes)."""
    if collect:
        gc.collect(1)
    for look in list(getattr(session, "_on_close", ())):
        try:
            look()
        except Exception:
            pass


def _in_use(session):
    """{memory id: bytes in use} of the session's memories now (None if this client keeps no such table)."""
    memories = getattr(session, "_memories", None)
    if memories is None:
        return None
    return {m: t.used for m, t in list(memories.items())}


def _file_name(nodeid):
    """A file name for a test's trace: its node id made safe, short and unique."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid.replace("::", "__")).strip("_.")
    if len(safe) > 120:
        safe = safe[:100] + "-" + hashlib.sha1(nodeid.encode("utf-8")).hexdigest()[:12]
    return safe + ".jsonl"


def _write_json(path, obj):
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, sort_keys=False)
        f.write("\n")
    os.replace(tmp, path)


def _result(nodeid, memories, limits, worker, lost):
    """A test's figures as its JSON record (the memories the client recorded, then torch's)."""
    mems = []
    peak = leaked = allocations = 0
    for m in memories:   # one pass: most tests have one memory or two
        j = m.as_json()
        mems.append(j)
        if j["peak_bytes"] > peak:
            peak = j["peak_bytes"]
        leaked += j["leaked_bytes"]
        allocations += j["allocations"]
    return {"nodeid": nodeid, "outcome": None, "worker": worker, "peak_bytes": peak, "leaked_bytes": leaked,
            "allocations": allocations, "memories": mems, "limits": limits.as_json(), "lost_events": lost,
            "violations": [], "trace": None}


def benchmarks(results):
    """The results as github-action-benchmark's ``customSmallerIsBetter`` list of {name, unit, value}."""
    out = []
    for r in results:
        out.append({"name": "%s: device peak" % r["nodeid"], "unit": "bytes", "value": r["peak_bytes"]})
        out.append({"name": "%s: device allocations" % r["nodeid"], "unit": "allocations", "value": r["allocations"]})
        if r["limits"]["leaked_bytes"] is not None:
            out.append({"name": "%s: device leaks" % r["nodeid"], "unit": "bytes", "value": r["leaked_bytes"]})
    return out


def _select(nodeid, memories, name, call):
    if name is None:
        return memories
    low = name.lower()
    chosen = [m for m in memories if m.name == name or m.family() == name or m.kind.lower() == low]
    if not chosen:
        raise ValueError("arenascope: %s: %s: memory=%r names no memory the test recorded (recorded: %s)"
                         % (nodeid, call, name, ", ".join(repr(m.name) for m in memories) or "none"))
    return chosen


def _check(nodeid, fig, memories, lim):
    """[(first line, [(label, bytes)] sites)] of the limits the test broke, worst first."""
    out = []
    if lim.memory is not None:
        call = lim.calls.get("memory", "--arenascope-limit")
        if not memories and not lim.default:
            raise ValueError("arenascope: %s: %s: the test recorded no device memory (pools and arenas made before "
                             "its setup, at module level or in wider-scoped fixtures, are not seen)" % (nodeid, call))
        for m in sorted(_select(nodeid, memories, lim.memory_of, call), key=lambda m: -m.peak):
            if m.peak > lim.memory:
                out.append(("device memory %s over its limit: peak %s > %s (%s) on %r (%s%s)" % (
                    testing.format_bytes(m.peak - lim.memory), testing.format_bytes(m.peak),
                    testing.format_bytes(lim.memory), call, m.name, m.kind, ", " + m.device if m.device else ""),
                    _sites(fig, m, "peak")))
    if lim.leaks is not None:
        call = lim.calls["leaks"]
        chosen = _select(nodeid, memories, lim.leaks_of, call)
        leaked = sum(m.leaked for m in chosen)
        if leaked > lim.leaks:
            worst = max(chosen, key=lambda m: m.leaked)
            out.append(("device memory leaked: %s still in use after the run > %s (%s), %s of it on %r" % (
                testing.format_bytes(leaked), testing.format_bytes(lim.leaks), call,
                testing.format_bytes(worst.leaked), worst.name),
                _sites(fig, worst, "end")))
    if lim.allocations is not None:
        call = lim.calls["allocations"]
        n = sum(m.allocations for m in _select(nodeid, memories, lim.allocations_of, call))
        if n > lim.allocations:
            out.append(("device allocations over the limit: %d > %d (%s)" % (n, lim.allocations, call), None))
    return out


def _sites(fig, m, when):
    if isinstance(m, _TorchFigures):
        return m.sites_at_peak() if when == "peak" else m.sites_at_end()
    return fig.sites_at_peak(m) if when == "peak" else fig.sites_at_end(m)


def _message(violations, path, width=3):
    """The failure: at most 10 lines (each broken limit, the top sites of the first, the trace)."""
    lines = []
    for i, (head, sites) in enumerate(violations):
        lines.append(head)
        if i == 0 and sites is not None:
            if sites:
                label = "at the peak" if head.startswith("device memory ") and "leaked" not in head else "still in use"
                lines.append("  %s, by site:" % label)
                for name, n in sites[:width]:
                    lines.append("    %10s  %s" % (testing.format_bytes(n), name))
                if len(sites) > width:
                    lines.append("    %10s  (%d more sites)" % (testing.format_bytes(sum(n for _, n in sites[width:])),
                                                             len(sites) - width))
    lines = lines[:9]
    lines.append("trace: %s (arenascope open / arenascope sites)" % path if path else
                 "trace: not kept (--arenascope-keep failed or all keeps it)")
    return "\n".join(lines)


class _TorchFigures:
    """The caching allocator's own counters for one CUDA device, as a memory of the result."""

    def __init__(self, device, peak, reserved, start, end, allocations):
        self.name = "torch.cuda:%d" % device
        self.kind = "SEGMENTED"
        self.device = "cuda:%d" % device
        self.peak = peak
        self.reserved_peak = reserved
        self.start_used = start
        self.end_used = end
        self.allocations = allocations

    leaked = testing.MemoryFigures.leaked
    family = testing.MemoryFigures.family
    as_json = testing.MemoryFigures.as_json

    def sites_at_peak(self):
        return [("(no site: the caching allocator's counters; torch.cuda.memory._snapshot() has the blocks)",
                 self.peak)]

    def sites_at_end(self):
        return [("(no site: the caching allocator's counters)", self.leaked)]


class _TorchCounters:
    """PyTorch's caching allocator, read through ``torch.cuda``'s statistics where the test imported
    torch and CUDA is there (no adapter records its blocks as events): per device, the peak since the
    test's start (``max_memory_allocated`` after ``reset_peak_memory_stats``), the bytes allocated where
    the measured run began and at its end, and the allocations (``allocation.all.allocated``)."""

    @staticmethod
    def _cuda():
        torch = sys.modules.get("torch")
        cuda = getattr(torch, "cuda", None)
        try:
            return cuda if cuda is not None and cuda.is_available() else None
        except Exception:
            return None

    @staticmethod
    def _count(cuda, d):
        return int(cuda.memory_stats(d).get("allocation.all.allocated", 0))

    @classmethod
    def start(cls):
        cuda = cls._cuda()
        if cuda is None:
            return None
        state = {}
        for d in range(cuda.device_count()):
            cuda.reset_peak_memory_stats(d)
            state[d] = [cuda.memory_allocated(d), cls._count(cuda, d)]
        return state

    @classmethod
    def measure(cls, state):
        cuda = cls._cuda()
        if cuda is None:
            return state
        if state is None:   # torch was imported during setup
            return cls.start()
        for d in state:
            state[d] = [cuda.memory_allocated(d), cls._count(cuda, d)]
        return state

    @classmethod
    def finish(cls, state):
        cuda = cls._cuda()
        if cuda is None:
            return []
        out = []
        for d in range(cuda.device_count()):
            start, count = state.get(d, (0, 0)) if state is not None else (0, 0)
            peak = int(cuda.max_memory_allocated(d))
            allocations = cls._count(cuda, d) - count
            if peak or allocations:
                out.append(_TorchFigures(d, peak, int(cuda.max_memory_reserved(d)), start,
                                         int(cuda.memory_allocated(d)), allocations))
        return out
