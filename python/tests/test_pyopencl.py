"""pyopencl's MemoryPool, for real, on an OpenCL CPU device (Debian's python3-pyopencl and
pocl-opencl-icd; .ci/run installs them)."""

import json

import pytest

from conftest import HERE, run_client, stats

cl = pytest.importorskip("pyopencl", reason="pyopencl is not installed (apt-get install python3-pyopencl pocl-opencl-icd)")


def _device_or_skip():
    try:
        cl.create_some_context(interactive=False)
    except Exception as e:  # no ICD: the package is there but no device
        pytest.skip("no OpenCL device (%s); apt-get install pocl-opencl-icd" % e)


def test_trace_figures_equal_what_the_pool_shows(tmp):
    _device_or_skip()
    out = tmp / "run.jsonl"
    truth = tmp / "truth.json"
    run_client(["run", "--out", str(out), "%s/pyopencl_program.py" % HERE, str(truth)], tmp)
    want = json.loads(truth.read_text())
    st = stats(out)
    assert st["lost_events"] == 0
    [pool] = [m for m in st["memories"] if m["kind"] == "POOL"]
    got = {k: pool[k] for k in ("requests", "hits", "misses", "peak_bytes", "reserved_peak_bytes")}
    assert got == want
    assert want["hits"] > 100 and want["misses"] > 10   # the program exercises both


def test_stacks_cost_nothing_to_correctness(tmp):
    _device_or_skip()
    out = tmp / "stacks.jsonl"
    truth = tmp / "truth.json"
    run_client(["run", "--stacks", "16", "--out", str(out), "%s/pyopencl_program.py" % HERE, str(truth)], tmp)
    want = json.loads(truth.read_text())
    [pool] = [m for m in stats(out)["memories"] if m["kind"] == "POOL"]
    assert pool["requests"] == want["requests"] and pool["reserved_peak_bytes"] == want["reserved_peak_bytes"]
