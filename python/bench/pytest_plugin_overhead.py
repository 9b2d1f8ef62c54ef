"""The pytest plugin's cost on a pyopencl suite of small tests (docs/performance.md, "pytest plugin").

    /usr/bin/python3 python/bench/pytest_plugin_overhead.py [--tests 200] [--repeats 5] [--json FILE]

Writes a suite of N small pyopencl tests to a temporary directory (each: a pool of its own from a
function fixture, four buffers from it, a kernel over 4096 floats, the result read back and checked;
the context, queue and program are built once per session) and runs it with Debian's pytest in
three ways, alternating, R times each:

* ``off``:    the plugin not loaded;
* ``loaded``: the plugin loaded and nothing asked of it (as wherever it is installed);
* ``record``: ``--arenascope --arenascope-stacks 0``: every test recorded, no stacks, no limits;
* ``limits``: the same suite with ``limit_device_memory``, ``limit_device_leaks`` and
  ``limit_device_allocations`` on every test, the plugin's defaults (8-frame stacks);

and for comparison ``limits`` with the markers but the plugin not loaded (``limits-off``). The time
is the test loop's own (pytest's ``pytest_runtestloop``: setup, call and teardown of every test),
so interpreter start, imports and collection do not dilute the ratio. Prints medians and ratios.

On a loaded machine whole runs of one mode vary by more than the plugin costs, so the same R rounds
also run two *interleaved* suites, where every other test carries the markers and the plugin is
loaded: ``alt-record`` (``limit_device_memory("1 GiB")``, ``--arenascope-stacks 0``: the test
recorded without stacks, one peak check) and ``alt-limits`` (the three markers, 8-frame stacks).
Each test's own time (pytest's ``pytest_runtest_protocol``: its setup, call, teardown and reports,
the plugin's hooks included) is taken, and the medians of the marked and the unmarked tests of the
same run, a few milliseconds apart, are compared: the load falls on both alike.

``--in-process N`` measures the interleaved suites differently: one interpreter a client runs
pytest N times in a row (``pytest.main``) and only the runs after the first count, so that every
test runs warm (imports done, PoCL's kernels built, the plugin's adapters installed) and each run
gives 100 marked and 100 unmarked tests a few milliseconds apart. The per-run figure is the median
thread CPU of the marked tests less that of the unmarked ones: the plugin's own cost a test, without
the interpreter's start and with the machine's load falling on both alike.

``--baseline DIR`` also runs every mode with the client of another checkout (``DIR/python``, e.g. a
worktree of main), the two alternated run by run, and prints each figure for both: a before/after
measured in the same minutes.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)

CONFTEST = """
import time, json, os
import numpy as np
import pyopencl as cl
import pyopencl.tools as cl_tools
import pytest

KERNEL = '''
__kernel void axpy(__global const float *x, __global const float *y, __global float *out, float a) {
    int i = get_global_id(0);
    out[i] = a * x[i] + y[i];
}
'''

@pytest.fixture(scope="session")
def cl_env():
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, KERNEL).build()
    return ctx, queue, prg

@pytest.fixture
def pool(cl_env):
    return cl_tools.MemoryPool(cl_tools.ImmediateAllocator(cl_env[1]))

PER_TEST = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    t0 = time.perf_counter()
    c0 = time.thread_time()
    yield
    PER_TEST.append((item.nodeid, bool(list(item.iter_markers("limit_device_memory"))),
                     time.perf_counter() - t0, time.thread_time() - c0))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtestloop(session):
    import gc
    PER_TEST.clear()   # one list a run (--in-process runs pytest several times in one interpreter)
    t0 = time.perf_counter()
    c0 = time.process_time()
    m0 = time.thread_time()
    yield
    with open(os.environ["BENCH_OUT"], "w") as f:
        json.dump({"loop_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0,
                   "main_cpu_s": time.thread_time() - m0,
                   "tests": session.testscollected, "full_collections": gc.get_stats()[2]["collections"],
                   "per_test": PER_TEST}, f)
"""

TEST = """
import numpy as np
import pyopencl as cl
import pytest

{markers}
@pytest.mark.parametrize("k", {params})
def test_axpy_{i}(cl_env, pool, k):
    ctx, queue, prg = cl_env
    n = 4096
    x = np.arange(n, dtype=np.float32) + k
    y = np.ones(n, dtype=np.float32)
    bx = pool.allocate(x.nbytes)
    by = pool.allocate(y.nbytes)
    bo = pool.allocate(x.nbytes)
    scratch = pool.allocate(1024 * (1 + k % 4))
    cl.enqueue_copy(queue, bx, x)
    cl.enqueue_copy(queue, by, y)
    prg.axpy(queue, (n,), None, bx, by, bo, np.float32(2.0))
    out = np.empty_like(x)
    cl.enqueue_copy(queue, out, bo).wait()
    assert out[7] == 2 * x[7] + 1
    for b in (bx, by, bo, scratch):
        b.release()
"""

MARKERS = """@pytest.mark.limit_device_memory("1 MiB")
@pytest.mark.limit_device_leaks("0 B")
@pytest.mark.limit_device_allocations(8)"""
# every other test marked (the interleaved suites)
ALT_RECORD = '[pytest.param(k, marks=pytest.mark.limit_device_memory("1 GiB")) if k %% 2 else k for k in range(%d)]'
ALT_LIMITS = ('[pytest.param(k, marks=[pytest.mark.limit_device_memory("1 MiB"), pytest.mark.limit_device_leaks("0 B"), '
              'pytest.mark.limit_device_allocations(8)]) if k %% 2 else k for k in range(%d)]')


def write_suite(root, tests, markers, per_file=10, alternate=None):
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "conftest.py"), "w") as f:
        f.write(textwrap.dedent(CONFTEST))
        if markers:
            # registered here too, so that the run without the plugin does not warn about them
            f.write("\ndef pytest_configure(config):\n")
            for m in ("limit_device_memory", "limit_device_leaks", "limit_device_allocations"):
                f.write("    config.addinivalue_line('markers', '%s: (arenascope)')\n" % m)
    for i in range(tests // per_file):
        with open(os.path.join(root, "test_suite_%03d.py" % i), "w") as f:
            f.write(TEST.format(i=i, markers=MARKERS if markers and not alternate else "",
                                params=(alternate % per_file) if alternate else "range(%d)" % per_file))


def run(root, args, env):
    out = os.path.join(root, "bench.json")
    env = dict(env, BENCH_OUT=out)
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args], cwd=root, env=env,
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("the suite failed (%s):\n%s\n%s" % (" ".join(args), p.stdout[-3000:], p.stderr[-3000:]))
    with open(out) as f:
        return json.load(f)


INPROC = """
import json, os, sys
import pytest
out, runs, args = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
res = []
for i in range(runs):
    os.environ["BENCH_OUT"] = out
    code = pytest.main(["-q", "-p", "no:cacheprovider", *args])
    if code != 0:
        raise SystemExit("the suite failed in run %d (exit code %d)" % (i + 1, code))
    with open(out) as f:
        res.append(json.load(f))
with open(out, "w") as f:
    json.dump(res[1:], f)
"""


def run_in_process(root, args, env, runs):
    """pytest run ``runs`` times in one interpreter; the results of the runs after the first."""
    out = os.path.join(root, "bench-inproc.json")
    p = subprocess.run([sys.executable, "-c", INPROC, out, str(runs), *args], cwd=root, env=env,
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("the in-process runs failed (%s):\n%s\n%s" % (" ".join(args), p.stdout[-3000:],
                                                                       p.stderr[-3000:]))
    with open(out) as f:
        return json.load(f)


def _interleaved(per_test):
    """Medians (ms) of one interleaved run's marked and unmarked tests (each file's first test, which
    sets up the session fixture or imports, left out), and their ratios."""
    seen = set()
    marked, plain = [], []
    for nodeid, is_marked, wall, cpu in per_test:
        f = nodeid.split("::")[0]
        if f not in seen:
            seen.add(f)
            continue
        (marked if is_marked else plain).append((wall, cpu))
    mw = 1000 * statistics.median(w for w, _ in marked)
    mc = 1000 * statistics.median(c for _, c in marked)
    pw = 1000 * statistics.median(w for w, _ in plain)
    pc = 1000 * statistics.median(c for _, c in plain)
    return {"marked_wall_ms": mw, "marked_cpu_ms": mc, "plain_wall_ms": pw, "plain_cpu_ms": pc,
            "wall_ratio": mw / pw, "cpu_ratio": mc / pc}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tests", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json")
    ap.add_argument("--modes", help="only these modes, comma-separated (default: all)")
    ap.add_argument("--in-process", type=int, metavar="N", help="only the interleaved suites, pytest run N times "
                    "in one interpreter a client and a round, the first run left out (at least 2)")
    ap.add_argument("--baseline", metavar="DIR", help="also run each mode with the client of the checkout DIR "
                                                      "(its python/), alternated with this one's")
    a = ap.parse_args(argv)
    if a.in_process is not None and a.in_process < 2:
        raise SystemExit("--in-process: %d runs leave none after the first, left out (give 2 or more)" % a.in_process)
    if a.tests < 20 or a.tests % 10:
        raise SystemExit("--tests: %d is not a multiple of 10 from 20 (ten tests a file)" % a.tests)
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    env["PYTHONPATH"] = PYTHON_DIR
    env.setdefault("PYOPENCL_CTX", "0")
    clients = {"": env}
    if a.baseline:
        base = os.path.join(os.path.abspath(a.baseline), "python")
        if not os.path.isfile(os.path.join(base, "arenascope", "pytest_plugin.py")):
            raise SystemExit("--baseline: %s has no python/arenascope/pytest_plugin.py" % a.baseline)
        clients["@baseline"] = dict(env, PYTHONPATH=base)
    with tempfile.TemporaryDirectory(prefix="arenascope-bench-") as tmp:
        plain = os.path.join(tmp, "plain")
        limited = os.path.join(tmp, "limited")
        write_suite(plain, a.tests, markers=False)
        write_suite(limited, a.tests, markers=True)
        alt_record = os.path.join(tmp, "alt-record")
        alt_limits = os.path.join(tmp, "alt-limits")
        write_suite(alt_record, a.tests, markers=True, alternate=ALT_RECORD)
        write_suite(alt_limits, a.tests, markers=True, alternate=ALT_LIMITS)
        modes = {
            "off": (plain, ["-p", "no:arenascope.pytest_plugin"]),
            "loaded": (plain, ["-p", "arenascope.pytest_plugin"]),
            "record": (plain, ["-p", "arenascope.pytest_plugin", "--arenascope", "--arenascope-stacks", "0"]),
            "limits-off": (limited, ["-p", "no:arenascope.pytest_plugin"]),
            "limits": (limited, ["-p", "arenascope.pytest_plugin"]),
            "alt-record": (alt_record, ["-p", "arenascope.pytest_plugin", "--arenascope-stacks", "0"]),
            "alt-limits": (alt_limits, ["-p", "arenascope.pytest_plugin"]),
        }
        if a.modes:
            wanted = a.modes.split(",")
            unknown = [m for m in wanted if m not in modes]
            if unknown:
                raise SystemExit("--modes: unknown mode(s) %s (known: %s)" % (", ".join(unknown), ", ".join(modes)))
            modes = {m: modes[m] for m in wanted}
        if a.in_process:
            return _main_in_process(a, modes, clients)
        # each mode once a client ("record", "record@baseline"); a round runs them in turns, the
        # clients' order swapped every other round
        modes = {m + c: (root, args, cenv) for m, (root, args) in modes.items() for c, cenv in clients.items()}
        alt = {m: [] for m in modes if m.startswith("alt-")}
        times = {m: [] for m in modes}
        cpu = {m: [] for m in modes}
        main = {m: [] for m in modes}
        full = {m: [] for m in modes}
        for name, (root, args, cenv) in modes.items():   # one warm-up run each (PoCL's kernel cache, page cache)
            run(root, args, cenv)
        names = list(modes)
        for i in range(a.repeats):
            order = names
            if i % 2 and len(clients) > 1:
                order = [n for pair in zip(names[1::2], names[0::2]) for n in pair]
            for name in order:
                root, args, cenv = modes[name]
                r = run(root, args, cenv)
                assert r["tests"] == a.tests, r
                times[name].append(r["loop_s"])
                cpu[name].append(r["cpu_s"])
                main[name].append(r["main_cpu_s"])
                full[name].append(r["full_collections"])
                if name in alt:
                    alt[name].append(_interleaved(r["per_test"]))
    med = {m: statistics.median(v) for m, v in times.items()}
    mcpu = {m: statistics.median(v) for m, v in cpu.items()}
    mmain = {m: statistics.median(v) for m, v in main.items()}
    res = {
        "tests": a.tests, "repeats": a.repeats, "load": os.getloadavg()[0],
        "median_loop_s": med, "median_cpu_s": mcpu, "median_main_cpu_s": mmain, "all_loop_s": times, "all_cpu_s": cpu,
        "all_main_cpu_s": main,
        "full_collections": full,
        "per_test_ms": {m: 1000 * v / a.tests for m, v in med.items()},
    }
    for c in clients:
        for key, (a_, b_) in (("loaded_vs_off", ("loaded", "off")), ("record_vs_off", ("record", "off")), ("limits_vs_limits_off", ("limits", "limits-off"))):
            a_, b_ = a_ + c, b_ + c
            if a_ in med and b_ in med:
                res[key + c] = med[a_] / med[b_]
                res[key + c + "_cpu"] = mcpu[a_] / mcpu[b_]
                res[key + c + "_main_cpu"] = mmain[a_] / mmain[b_]
    for name, runs in alt.items():
        res[name] = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
        res[name]["runs"] = runs
    for m in modes:
        print("%-19s median %.3f s wall, %.3f s CPU (%.3f s the main thread's) for %d tests (%.2f ms a test)"
              % (m, med[m], mcpu[m], mmain[m], a.tests, res["per_test_ms"][m]))
    for c in clients:
        who = " (baseline: %s)" % a.baseline if c else (" (this checkout)" if a.baseline else "")
        if "loaded_vs_off" + c in res:
            print("loaded, nothing recorded%s: %.3fx the wall time without the plugin, %.3fx the CPU time, %.3fx the "
                  "main thread's" % (who, res["loaded_vs_off" + c], res["loaded_vs_off" + c + "_cpu"],
                                     res["loaded_vs_off" + c + "_main_cpu"]))
        if "record_vs_off" + c in res:
            print("recording without stacks%s: %.3fx the wall time without the plugin, %.3fx the CPU time, %.3fx the "
                  "main thread's (goal <= 1.05)" % (who, res["record_vs_off" + c], res["record_vs_off" + c + "_cpu"],
                                                   res["record_vs_off" + c + "_main_cpu"]))
        if "limits_vs_limits_off" + c in res:
            print("with limits%s: %.3fx the wall time of the same suite without the plugin, %.3fx the CPU time, "
                  "%.3fx the main thread's (goal <= 1.10)" % (who, res["limits_vs_limits_off" + c],
                                                             res["limits_vs_limits_off" + c + "_cpu"],
                                                             res["limits_vs_limits_off" + c + "_main_cpu"]))
        for name, what in (("alt-record", "recorded, no stacks (one peak limit)"),
                           ("alt-limits", "three limits, 8-frame stacks")):
            if name + c not in res:
                continue
            r = res[name + c]
            print("interleaved%s, %s: a marked test %.3f ms wall, %.3f ms CPU; an unmarked one %.3f ms wall, %.3f ms "
                  "CPU: the plugin's own %.3f ms CPU a test, %.1f%% of the test's CPU, %.1f%% of its wall time (medians "
                  "of %d runs)" % (who, what, r["marked_wall_ms"], r["marked_cpu_ms"], r["plain_wall_ms"], r["plain_cpu_ms"],
                                   r["marked_cpu_ms"] - r["plain_cpu_ms"], 100 * (r["cpu_ratio"] - 1),
                                   100 * (r["marked_cpu_ms"] - r["plain_cpu_ms"]) / r["plain_wall_ms"], len(r["runs"])))
    print("load average (1 min) at the end: %.1f" % os.getloadavg()[0])
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    return 0


def _main_in_process(a, modes, clients):
    """--in-process: the interleaved suites only, each client's N pytest runs in one interpreter, the
    clients alternated round by round; the plugin's own CPU a marked test, run by run."""
    modes = {m: v for m, v in modes.items() if m.startswith("alt-")}
    if not modes:
        raise SystemExit("--in-process measures the interleaved suites: give --modes alt-record and/or alt-limits")
    names = [m + c for m in modes for c in clients]
    own = {n: [] for n in names}
    share = {n: [] for n in names}
    for i in range(a.repeats):
        order = names if i % 2 == 0 else [n for pair in zip(names[1::2], names[0::2]) for n in pair] \
            if len(clients) > 1 else names
        for name in order:
            mode, _, c = name.partition("@")
            root, args = modes[mode]
            for r in run_in_process(root, args, clients["@" + c if c else ""], a.in_process):
                assert r["tests"] == a.tests, r
                f = _interleaved(r["per_test"])
                own[name].append(1000 * (f["marked_cpu_ms"] - f["plain_cpu_ms"]))
                share[name].append(100 * (f["marked_cpu_ms"] - f["plain_cpu_ms"]) / f["plain_wall_ms"])
    res = {"tests": a.tests, "repeats": a.repeats, "in_process": a.in_process, "load": os.getloadavg()[0],
           "own_us": own, "share_of_wall_pct": share}
    for name in names:
        mode, _, c = name.partition("@")
        o = sorted(own[name])
        who = " (baseline: %s)" % a.baseline if c else (" (this checkout)" if a.baseline else "")
        print("%s%s, in-process: the plugin's own %.1f µs CPU a marked test (median of %d runs; quartiles %.1f–%.1f), "
              "%.1f%% of an unmarked test's wall time" % (
                  mode, who, statistics.median(o), len(o), o[len(o) // 4], o[(3 * len(o)) // 4],
                  statistics.median(share[name])))
    print("load average (1 min) at the end: %.1f" % os.getloadavg()[0])
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
