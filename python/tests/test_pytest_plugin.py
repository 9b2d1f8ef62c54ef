"""The pytest plugin (arenascope.pytest_plugin), run the way a user runs it: an inner pytest in a
subprocess (pytest's ``pytester``), loaded with ``-p arenascope.pytest_plugin`` as from a checkout.
pyopencl pools run for real on PoCL's CPU device; algan-style arenas are the stand-in of
tests/standins.py under algan's module name; torch's caching allocator is a stand-in with
torch.cuda's statistics functions (no GPU here)."""

import json
import os
import re
import textwrap

import pytest

from conftest import HERE, PYTHON_DIR, STANDINS, stats

# .ci/run sets ARENASCOPE_CI: there a missing pyopencl, OpenCL device or pytest-xdist is a failure
CI = bool(os.environ.get("ARENASCOPE_CI"))


def _need(module):
    try:
        return __import__(module)
    except ImportError as e:
        if CI:
            raise AssertionError("%s is required under .ci/run (%s)" % (module, e))
        pytest.skip("%s is not installed" % module)


def _need_opencl():
    cl = _need("pyopencl")
    try:
        cl.create_some_context(interactive=False)
    except Exception as e:
        if CI:
            raise AssertionError("no OpenCL device under .ci/run: %s" % e)
        pytest.skip("no OpenCL device (%s)" % e)


@pytest.fixture
def inner(pytester, monkeypatch):
    """Runs an inner pytest with the plugin from this checkout."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([PYTHON_DIR, HERE, STANDINS]))
    monkeypatch.setenv("PYOPENCL_CTX", os.environ.get("PYOPENCL_CTX", "0"))
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)

    def run(*args):
        return pytester.runpytest_subprocess("-p", "arenascope.pytest_plugin", "-p", "no:cacheprovider", *args)
    run.path = pytester.path

    def write(name, text):
        p = pytester.path.joinpath(name)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    run.write = write
    return run


OPENCL = """
    import json, pytest
    import pyopencl as cl
    import pyopencl.tools as cl_tools

    @pytest.fixture(scope="module")
    def queue():
        return cl.CommandQueue(cl.create_some_context(interactive=False))

    @pytest.fixture
    def pool(queue):
        return cl_tools.MemoryPool(cl_tools.ImmediateAllocator(queue))

    def bin_bytes(pool, n):
        return pool.alloc_size(pool.bin_number(n))

    def upload(queue, pool, n):
        buf = pool.allocate(n)
        cl.enqueue_fill_buffer(queue, buf, b"\\0", 0, n).wait()
        return buf
"""


def _failure_section(out, name):
    """The lines of test ``name``'s section under FAILURES."""
    text = out.stdout.str()
    start = text.index("_ %s _" % name)
    lines = text[start:].splitlines()[1:]
    end = next(i for i, l in enumerate(lines) if l.startswith("_____") or l.startswith("=====") or
               re.match(r"arenascope: \d+ test", l))
    return lines[:end]


def test_a_test_over_its_limit_fails_with_the_short_message_and_one_under_passes(inner):
    _need_opencl()
    inner.write("test_cl.py", OPENCL + """
    @pytest.mark.limit_device_memory("4 MiB")
    def test_grows(queue, pool):
        bufs = [upload(queue, pool, 1 << 20) for _ in range(5)]   # the line that regressed
        small = upload(queue, pool, 1000)
        with open("truth.json", "w") as f:
            json.dump({"peak": 5 * bin_bytes(pool, 1 << 20) + bin_bytes(pool, 1000)}, f)

    @pytest.mark.limit_device_memory("8 MiB", memory="pyopencl.MemoryPool")
    def test_fits(queue, pool):
        bufs = [upload(queue, pool, 1 << 20) for _ in range(5)]
    """)
    r = inner("--arenascope-json", "figures.json")
    r.assert_outcomes(passed=1, failed=1)
    peak = json.loads(inner.path.joinpath("truth.json").read_text())["peak"]
    msg = _failure_section(r, "test_grows")
    assert len(msg) <= 10, msg
    mib = "%.1f MiB" % (peak / (1 << 20))
    assert msg[0] == ("device memory %.1f MiB over its limit: peak %s > 4.0 MiB (limit_device_memory('4 MiB')) on "
                      "'pyopencl.MemoryPool #1' (POOL, opencl)" % ((peak - (4 << 20)) / (1 << 20), mib)), msg
    assert msg[1] == "  at the peak, by site:"
    # the top sites with their bytes: the comprehension that allocated five blocks, then the small one
    src = inner.path.joinpath("test_cl.py").read_text().splitlines()
    line = next(i for i, l in enumerate(src, 1) if "the line that regressed" in l)
    assert msg[2].split() == ["5.3", "MiB", "upload", "test_cl.py:18", "<-", "test_grows.<locals>.<listcomp>",
                              "test_cl.py:%d" % line], msg
    assert msg[3].split() == ["1023", "B", "upload", "test_cl.py:18", "<-", "test_grows", "test_cl.py:%d" % (line + 1)], msg
    trace = inner.path / "arenascope-traces" / "test_cl.py__test_grows.jsonl"
    assert msg[4] == "trace: %s (arenascope open / arenascope sites)" % trace
    assert trace.exists() and not (inner.path / "arenascope-traces" / "test_cl.py__test_fits.jsonl").exists()
    # the kept trace is one ArenaScope reads, with the same peak
    [pool] = stats(trace)["memories"]
    assert pool["peak_bytes"] == peak
    got = {t["nodeid"]: t for t in json.loads(inner.path.joinpath("figures.json").read_text())["tests"]}
    assert got["test_cl.py::test_grows"]["peak_bytes"] == peak and got["test_cl.py::test_grows"]["outcome"] == "failed"
    assert got["test_cl.py::test_fits"]["outcome"] == "passed" and got["test_cl.py::test_fits"]["trace"] is None


def test_leaks_are_caught_after_the_warm_ups(inner):
    _need_opencl()
    inner.write("test_leaks.py", OPENCL + """
    cache = {}
    kept = []

    def cached_table(pool):          # filled by the first run, reused after: not a leak
        if "table" not in cache:
            cache["table"] = pool.allocate(64 << 10)
        return cache["table"]

    @pytest.fixture(scope="module")
    def shared(queue):
        return cl_tools.MemoryPool(cl_tools.ImmediateAllocator(queue))

    @pytest.mark.limit_device_leaks("1 KiB", warmups=1)
    def test_cache_warmed(shared):
        cached_table(shared)
        tmp = shared.allocate(1 << 20)   # freed when the test returns

    @pytest.mark.limit_device_leaks("1 KiB")
    def test_cache_cold(queue):
        cache.clear()
        p = cl_tools.MemoryPool(cl_tools.ImmediateAllocator(queue))
        cached_table(p)

    @pytest.mark.limit_device_leaks("1 KiB", warmups=3)
    def test_leaks_every_run(pool):
        kept.append(pool.allocate(8 << 10))
    """)
    r = inner()
    r.assert_outcomes(passed=1, failed=2)
    cold = _failure_section(r, "test_cache_cold")
    assert cold[0].startswith("device memory leaked: 68.0 KiB still in use after the run > 1.0 KiB "
                              "(limit_device_leaks('1 KiB')), 68.0 KiB of it on 'pyopencl.MemoryPool #"), cold
    assert cold[1] == "  still in use, by site:" and cold[2].split()[2:4] == ["cached_table", "test_leaks.py:27"], cold
    every = _failure_section(r, "test_leaks_every_run")
    # three warm-ups leaked too, but only the measured run's block counts
    assert every[0].startswith("device memory leaked: 8.5 KiB still in use after the run"), every
    assert every[2].split()[2] == "test_leaks_every_run", every


def test_allocation_count_limit(inner):
    _need_opencl()
    inner.write("test_count.py", OPENCL + """
    @pytest.mark.limit_device_allocations(10)
    def test_many(pool):
        for _ in range(12):
            pool.allocate(256).release()

    @pytest.mark.limit_device_allocations(12)
    def test_enough(pool):
        for _ in range(12):
            pool.allocate(256).release()
    """)
    r = inner()
    r.assert_outcomes(passed=1, failed=1)
    assert _failure_section(r, "test_many")[0] == \
        "device allocations over the limit: 12 > 10 (limit_device_allocations(10))"


ARENA = """
    import pytest
    from algan.utils.memory_utils import ManualMemory
    from standins import float32, uint8

    arenas = []   # long-lived arenas, as a program keeps them

    @pytest.mark.limit_device_memory("1 KiB", memory="ManualMemory")
    def test_frame():
        a = ManualMemory(num_bytes=4096)
        with a.temp():
            a.get_tensor((16, 4), float32)       # 256 B
            a.get_tensor(3, uint8)               # 3 B
        a.get_tensor((8,), float32, persist=True)   # 32 B, kept

    @pytest.mark.limit_device_leaks("16 B")
    def test_keeps():
        a = ManualMemory(num_bytes=4096)
        arenas.append(a)
        a.get_tensor((8,), float32, persist=True)

    def test_nothing():
        pass
"""


def test_the_json_is_exact(inner):
    inner.write("test_arena.py", ARENA)
    r = inner("--arenascope-json", "out/figures.json", "--arenascope-benchmark-json", "out/bench.json",
              "--arenascope-keep", "none")
    r.assert_outcomes(passed=2, failed=1)
    got = json.loads(inner.path.joinpath("out", "figures.json").read_text())

    def mem(name, peak, leaked, allocations):
        return {"name": name, "kind": "ARENA", "device": "cpu", "peak_bytes": peak, "reserved_peak_bytes": 0,
                "leaked_bytes": leaked, "allocations": allocations}

    def limits(**kw):
        base = {"memory_bytes": None, "memory": None, "leaked_bytes": None, "leaks_memory": None, "warmups": 0,
                "allocations": None, "allocations_memory": None}
        base.update(kw)
        return base
    assert got == {"version": 1, "tests": [
        {"nodeid": "test_arena.py::test_frame", "outcome": "passed", "worker": None, "peak_bytes": 259,
         "leaked_bytes": 32, "allocations": 3, "memories": [mem("ManualMemory #1", 259, 32, 3)],
         "limits": limits(memory_bytes=1024, memory="ManualMemory"), "lost_events": 0, "violations": [], "trace": None},
        {"nodeid": "test_arena.py::test_keeps", "outcome": "failed", "worker": None, "peak_bytes": 32,
         "leaked_bytes": 32, "allocations": 1, "memories": [mem("ManualMemory #2", 32, 32, 1)],
         "limits": limits(leaked_bytes=16), "lost_events": 0,
         "violations": ["device memory leaked: 32 B still in use after the run > 16 B (limit_device_leaks('16 B')), "
                        "32 B of it on 'ManualMemory #2'"], "trace": None},
        {"nodeid": "test_arena.py::test_nothing", "outcome": "passed", "worker": None, "peak_bytes": 0,
         "leaked_bytes": 0, "allocations": 0, "memories": [], "limits": limits(), "lost_events": 0,
         "violations": [], "trace": None}],
        "benchmarks": json.loads(inner.path.joinpath("out", "bench.json").read_text())}
    assert got["benchmarks"] == [
        {"name": "test_arena.py::test_frame: device peak", "unit": "bytes", "value": 259},
        {"name": "test_arena.py::test_frame: device allocations", "unit": "allocations", "value": 3},
        {"name": "test_arena.py::test_keeps: device peak", "unit": "bytes", "value": 32},
        {"name": "test_arena.py::test_keeps: device allocations", "unit": "allocations", "value": 1},
        {"name": "test_arena.py::test_keeps: device leaks", "unit": "bytes", "value": 32},
        {"name": "test_arena.py::test_nothing: device peak", "unit": "bytes", "value": 0},
        {"name": "test_arena.py::test_nothing: device allocations", "unit": "allocations", "value": 0}]
    assert not inner.path.joinpath("out", "arenascope-traces").exists() or \
        not list(inner.path.joinpath("out", "arenascope-traces").iterdir())
    keeps = _failure_section(r, "test_keeps")
    assert keeps[-1] == "trace: not kept (--arenascope-keep failed or all keeps it)"


def test_xdist_workers_record_their_own_sessions_and_the_json_is_merged(inner):
    _need_opencl()
    _need("xdist")
    inner.write("test_arena.py", ARENA)
    inner.write("test_cl.py", OPENCL + """
    @pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
    def test_blocks(pool, n):
        bufs = [pool.allocate(4096) for _ in range(n)]
    """)
    r = inner("-n", "2", "--arenascope-json", "figures.json")
    r.assert_outcomes(passed=8, failed=1)
    got = json.loads(inner.path.joinpath("figures.json").read_text())
    tests = {t["nodeid"]: t for t in got["tests"]}
    assert sorted(tests) == sorted(["test_arena.py::test_frame", "test_arena.py::test_keeps",
                                    "test_arena.py::test_nothing"] +
                                   ["test_cl.py::test_blocks[%d]" % n for n in range(1, 7)])
    assert {t["worker"] for t in got["tests"]} == {"gw0", "gw1"}
    for n in range(1, 7):
        t = tests["test_cl.py::test_blocks[%d]" % n]
        assert t["allocations"] == n and t["peak_bytes"] == n * 4351 and t["lost_events"] == 0, t
    assert tests["test_arena.py::test_frame"]["peak_bytes"] == 259
    assert len(got["benchmarks"]) == 2 * 9 + 1
    # the kept trace of the failed test came from its worker
    assert tests["test_arena.py::test_keeps"]["trace"].endswith("arenascope-traces/test_arena.py__test_keeps.jsonl")


def test_bad_marker_arguments_are_usage_errors_naming_the_test_and_the_argument(inner):
    inner.write("test_bad.py", """
    import pytest

    @pytest.mark.limit_device_memory("64 MB/s")
    def test_rate():
        pass

    @pytest.mark.limit_device_memory(-1)
    def test_negative():
        pass

    @pytest.mark.limit_device_leaks("1 MiB", warmups=-2)
    def test_warmups():
        pass
    """)
    r = inner()
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    err = r.stderr.str().splitlines()
    assert "ERROR: arenascope: bad device-memory limit" in err
    assert "test_bad.py::test_rate: limit_device_memory('64 MB/s'): '64 MB/s' is not a size (a number and one of B, " \
           "kB, MB, GB, KiB, MiB, GiB)" in err
    assert "test_bad.py::test_negative: limit_device_memory(-1): -1 is negative (a size is 0 or more bytes)" in err
    assert "test_bad.py::test_warmups: limit_device_leaks('1 MiB', warmups=-2): warmups=-2 is not a count of runs " \
           "(0 or more)" in err
    r = inner("--arenascope-limit", "12 parsecs")
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    assert "ERROR: --arenascope-limit: '12 parsecs' is not a size" in r.stderr.str()


def test_an_unknown_memory_fails_the_test_naming_it(inner):
    inner.write("test_mem.py", ARENA.replace('memory="ManualMemory"', 'memory="ManualMem"'))
    r = inner()
    r.assert_outcomes(passed=1, failed=2)
    assert _failure_section(r, "test_frame")[0] == (
        "arenascope: test_mem.py::test_frame: limit_device_memory('1 KiB', memory='ManualMem'): memory='ManualMem' "
        "names no memory the test recorded (recorded: 'ManualMemory #1')")


def test_off_unless_asked_and_no_library_imported_that_the_test_does_not(inner):
    inner.write("test_quiet.py", """
    import sys

    def test_imports_nothing():
        assert "pyopencl" not in sys.modules and "torch" not in sys.modules and "numpy" not in sys.modules
    """)
    r = inner()
    r.assert_outcomes(passed=1)
    assert not inner.path.joinpath(".arenascope").exists()
    assert "arenascope:" not in r.stdout.str()
    r = inner("--arenascope", "--arenascope-keep", "all")
    r.assert_outcomes(passed=1)
    assert inner.path.joinpath(".arenascope", "test_quiet.py__test_imports_nothing.jsonl").exists()
    r.stdout.fnmatch_lines(["arenascope: 1 test(s) recorded, 0 over a device-memory limit; traces in *"])


def test_the_default_limit_applies_to_every_test_without_a_marker(inner):
    inner.write("test_arena.py", ARENA.replace('@pytest.mark.limit_device_memory("1 KiB", memory="ManualMemory")', ""))
    r = inner("--arenascope-limit", "100B", "--arenascope-stacks", "0")
    r.assert_outcomes(passed=1, failed=2)
    frame = _failure_section(r, "test_frame")
    assert frame[0] == "device memory 159 B over its limit: peak 259 B > 100 B (--arenascope-limit) on " \
                       "'ManualMemory #1' (ARENA, cpu)"
    # no stacks recorded: the allocations fall under one row, as `arenascope sites` falls back
    assert frame[2].split() == ["259", "B", "(no", "site)"], frame


def test_torch_caching_allocator_counters_where_no_adapter_records(inner):
    inner.write("torch/__init__.py", '''
        """A stand-in of torch with CUDA: the caching allocator's statistics functions torch.cuda
        has (memory_allocated, max_memory_allocated, max_memory_reserved, reset_peak_memory_stats,
        memory_stats), kept by tensors that count their bytes while alive."""
        from . import cuda

        class Tensor:
            def __init__(self, nbytes):
                self.nbytes = nbytes
                cuda._alloc(nbytes)

            def __del__(self):
                cuda._free(self.nbytes)

        def empty(n, device="cuda"):
            return Tensor(int(n) * 4)
    ''')
    inner.write("torch/cuda.py", '''
        _s = {"allocated": 0, "peak": 0, "reserved": 0, "count": 0}

        def _alloc(n):
            _s["allocated"] += n
            _s["count"] += 1
            _s["peak"] = max(_s["peak"], _s["allocated"])
            _s["reserved"] = max(_s["reserved"], -(-_s["allocated"] // (2 << 20)) * (2 << 20))

        def _free(n):
            _s["allocated"] -= n

        def is_available():
            return True

        def device_count():
            return 1

        def reset_peak_memory_stats(device=None):
            _s["peak"] = _s["allocated"]

        def memory_allocated(device=None):
            return _s["allocated"]

        def max_memory_allocated(device=None):
            return _s["peak"]

        def max_memory_reserved(device=None):
            return _s["reserved"]

        def memory_stats(device=None):
            return {"allocation.all.allocated": _s["count"]}
    ''')
    inner.write("test_torch.py", """
    import pytest
    import torch

    kept = []

    @pytest.mark.limit_device_memory("1 MiB")
    def test_big():
        a = torch.empty(1 << 18, device="cuda")     # 1 MiB
        b = torch.empty(1 << 16, device="cuda")     # 256 KiB

    @pytest.mark.limit_device_leaks("0 B", warmups=1)
    @pytest.mark.limit_device_allocations(1)
    def test_leaky():
        kept.append(torch.empty(256, device="cuda"))
    """)
    r = inner("--arenascope-json", "f.json")
    r.assert_outcomes(failed=2)
    big = _failure_section(r, "test_big")
    assert big[0] == "device memory 256.0 KiB over its limit: peak 1.2 MiB > 1.0 MiB (limit_device_memory('1 MiB')) " \
                     "on 'torch.cuda:0' (SEGMENTED, cuda:0)", big
    leaky = _failure_section(r, "test_leaky")
    assert leaky[0].startswith("device memory leaked: 1.0 KiB still in use after the run > 0 B"), leaky
    tests = {t["nodeid"]: t for t in json.loads(inner.path.joinpath("f.json").read_text())["tests"]}
    assert tests["test_torch.py::test_big"]["memories"] == [
        {"name": "torch.cuda:0", "kind": "SEGMENTED", "device": "cuda:0", "peak_bytes": 1310720,
         "reserved_peak_bytes": 2 << 20, "leaked_bytes": 0, "allocations": 2}]
    leaky_mem = tests["test_torch.py::test_leaky"]["memories"][0]
    assert leaky_mem["leaked_bytes"] == 1024 and leaky_mem["allocations"] == 1   # the warm-up's not counted


def test_pip_install_brings_the_plugin(tmp_path):
    """`pip install ./python` (the README's way) registers the plugin: a marker works without -p."""
    import shutil
    import subprocess
    import sys
    src = tmp_path / "src"
    shutil.copytree(PYTHON_DIR, src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "tests"))
    venv = tmp_path / "venv"
    try:
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True,
                       capture_output=True, timeout=120)
    except (subprocess.CalledProcessError, OSError) as e:
        if CI:
            raise
        pytest.skip("no venv here (%s)" % e)
    py = venv / "bin" / "python"
    p = subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-index", "--no-build-isolation", str(src)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    (tmp_path / "test_x.py").write_text(textwrap.dedent(ARENA))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")}
    env["PYTHONPATH"] = STANDINS + os.pathsep + HERE   # the stand-in libraries only, not the checkout's client
    p = subprocess.run([str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_x.py"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "device memory leaked: 32 B still in use after the run > 16 B" in p.stdout, p.stdout
    assert "1 failed, 2 passed" in p.stdout
    where = subprocess.run([str(py), "-c", "import arenascope; print(arenascope.__file__)"], env=env,
                           capture_output=True, text=True, cwd=tmp_path).stdout
    assert str(venv) in where, where


def test_hysop_style_pools_are_checked_too(inner):
    inner.write("test_hysop.py", """
    import pytest
    from hysop.core.memory.mempool import MemoryPool

    @pytest.mark.limit_device_memory("4 KiB", memory="fields")
    def test_fields():
        pool = MemoryPool("fields")
        bufs = [pool.allocate(2048) for _ in range(3)]
    """)
    r = inner()
    r.assert_outcomes(failed=1)
    msg = _failure_section(r, "test_fields")
    assert msg[0] == "device memory 2.0 KiB over its limit: peak 6.0 KiB > 4.0 KiB (limit_device_memory('4 KiB', " \
                     "memory='fields')) on 'fields' (POOL)", msg
    assert msg[2].split()[:3] == ["6.0", "KiB", "test_fields.<locals>.<listcomp>"], msg


def test_a_run_with_nothing_to_record_calls_none_of_the_plugins_per_test_hooks(inner):
    # the plugin is loaded by every pytest run of an environment it is installed in: a suite with no
    # marker and no --arenascope must not pay a hook call a test for it
    inner.write("test_plain.py", """
    import json

    def test_plain(request):
        hook = request.config.hook
        names = {h: sorted({i.plugin_name for i in getattr(hook, h).get_hookimpls()})
                 for h in ("pytest_runtest_setup", "pytest_pyfunc_call", "pytest_runtest_makereport",
                           "pytest_runtest_logreport")}
        with open("hooks.json", "w") as f:
            json.dump(names, f)
    """)

    def arenascope_hooks():
        names = json.loads(inner.path.joinpath("hooks.json").read_text())
        return {h: [n for n in plugins if "arenascope" in n] for h, plugins in names.items()}

    inner().assert_outcomes(passed=1)
    assert arenascope_hooks() == {"pytest_runtest_setup": [], "pytest_pyfunc_call": [],
                                  "pytest_runtest_makereport": [], "pytest_runtest_logreport": []}
    # the same suite recorded: each of the four is the plugin's
    inner("--arenascope").assert_outcomes(passed=1)
    assert arenascope_hooks() == {"pytest_runtest_setup": ["arenascope-tests"],
                                  "pytest_pyfunc_call": ["arenascope-tests"],
                                  "pytest_runtest_makereport": ["arenascope-tests"],
                                  "pytest_runtest_logreport": ["arenascope-tests"]}
