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


def _pool_events(path):
    """(RESERVE count, UNRESERVE count, reserved gauges in order) of the one pool in a JSONL trace."""
    pools = set()
    reserve = unreserve = 0
    aux = []
    with open(path) as f:
        for line in f:
            o = json.loads(line)
            if o.get("type") == "memory" and o.get("kind") == "POOL":
                pools.add(o["id"])
            elif "kind" in o and "t" in o and o.get("mem") in pools:
                reserve += o["kind"] == "RESERVE"
                unreserve += o["kind"] == "UNRESERVE"
                aux.append(o["aux"])
    assert len(pools) == 1
    return reserve, unreserve, aux


def test_eight_threads_on_one_pool_count_what_the_pool_holds(tmp):
    _device_or_skip()
    out = tmp / "threads.jsonl"
    truth = tmp / "truth.json"
    run_client(["run", "--out", str(out), "%s/pyopencl_threads.py" % HERE, str(truth)], tmp)
    want = json.loads(truth.read_text())
    reserve, unreserve, aux = _pool_events(out)
    assert reserve - unreserve == want["held_blocks"], (reserve, unreserve, want)
    assert min(aux) >= 0, min(aux)
    assert aux[-1] == want["managed_bytes"], (aux[-1], want)
