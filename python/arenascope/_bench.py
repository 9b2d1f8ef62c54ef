"""``python -m arenascope bench``: what recording costs a Python program, per event.

Two loops, each run unprofiled and profiled (to a JSONL file in a temporary directory), with stacks
off and with 16-frame stacks (the loop runs 16 calls deep, so every allocation has 16 frames to
capture):

* ``pyopencl_pool_hit``: ``pool.allocate(1000).release()`` on a pyopencl ``MemoryPool`` that holds the
  block, so every request is a hit (2 events: POOL_REQUEST, POOL_HOLD); skipped with a reason when
  pyopencl or an OpenCL device is missing;
* ``arena``: ``with arena.temp(): arena.get_tensor((64,), float32)`` on an algan-style arena (2 events:
  ALLOC, POINTER_RESTORE), the arena being a minimal two-pointer arena defined here.

Times are the process's CPU time (``time.process_time``: every thread, the writer's included, and
not inflated when other programs share the cores). The cost per event is (profiled - unprofiled) /
events, where the profiled time runs until the writer has written every event. Medians of ``--repeats`` runs. ``--json FILE`` writes the figures.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

from . import _session
from ._session import Session

DEPTH = 16


class _Float32:
    name = "float32"
    itemsize = 4


class BenchArena:
    """A minimal algan-style arena (the interface ``arenascope.track_arena`` instruments)."""

    def __init__(self, num_bytes):
        self.num_bytes = num_bytes
        self.current_pointer = 0
        self.current_reverse_pointer = num_bytes

    def get_tensor(self, shape, dtype, persist=False):
        n = dtype.itemsize
        for d in shape:
            n *= d
        start = self.current_pointer
        self.current_pointer = start + n
        return start

    def temp(self):
        return _Temp(self)


class _Temp:
    __slots__ = ("arena", "saved")

    def __init__(self, arena):
        self.arena = arena

    def __enter__(self):
        self.saved = self.arena.current_pointer
        return self.arena

    def __exit__(self, *exc):
        self.arena.current_pointer = self.saved
        return False


def _deep(depth, fn, *args):
    if depth <= 1:
        return fn(*args)
    return _deep(depth - 1, fn, *args)


def _arena_loop(arena, n):
    dt = _Float32
    shape = (64,)
    for _ in range(n):
        with arena.temp():
            arena.get_tensor(shape, dt)


def _pool_loop(pool, n):
    for _ in range(n):
        pool.allocate(1000).release()


def _make_pool():
    """(plain pool factory, traced pool factory): pyopencl's own class, and the adapter's subclass."""
    import pyopencl as cl
    import pyopencl.tools as tools
    from . import _adapters as adapters
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    plain = getattr(tools.MemoryPool, "__arenascope_original__", tools.MemoryPool)
    adapters.install(["pyopencl"])
    traced = tools.MemoryPool
    return (lambda: plain(tools.ImmediateAllocator(queue))), (lambda: traced(tools.ImmediateAllocator(queue)))


def _timed(setup, loop, n, out, stacks):
    """Seconds for ``n`` iterations: unprofiled when ``out`` is None, else profiled until written;
    and the events written."""
    plain, traced = setup if isinstance(setup, tuple) else (setup, setup)
    if out is None:
        obj = plain()
        _deep(DEPTH if stacks else 1, loop, obj, 200)  # warm
        t = time.process_time()
        _deep(DEPTH if stacks else 1, loop, obj, n)
        return time.process_time() - t, 0
    s = Session(out=out, name="bench", stacks=stacks, capacity=1 << 22)
    _session.start(s)
    try:
        obj = traced()
        if hasattr(obj, "current_pointer"):
            from ._arena import track_arena
            track_arena(obj, name="bench.arena")
        _deep(DEPTH if stacks else 1, loop, obj, 200)
        while s.writer.queue:      # the warm-up written, so what follows is the loop's alone
            time.sleep(0.001)
        time.sleep(0.02)
        written = s.writer.events_written
        t = time.process_time()
        _deep(DEPTH if stacks else 1, loop, obj, n)
        _session.stop(s)   # until the writer has written everything
        elapsed = time.process_time() - t
        return elapsed, s.writer.events_written - written
    finally:
        if not s.closed:
            _session.stop(s)


def measure(name, setup, loop, n, repeats, stacks, events_per_iteration, tmpdir):
    base, prof, lost = [], [], 0
    for r in range(repeats):
        base.append(_timed(setup, loop, n, None, stacks)[0])
        out = os.path.join(tmpdir, "%s-%d-%d.jsonl" % (name, stacks, r))
        elapsed, written = _timed(setup, loop, n, out, stacks)
        if written != n * events_per_iteration:
            raise RuntimeError("%s: %d events written, %d expected" % (name, written, n * events_per_iteration))
        prof.append(elapsed)
        os.remove(out)
    b = statistics.median(base)
    p = statistics.median(prof)
    events = n * events_per_iteration
    return {
        "loop": name, "stacks": stacks, "iterations": n, "events": events,
        "unprofiled_ns_per_iteration": round(b / n * 1e9, 1),
        "profiled_ns_per_iteration": round(p / n * 1e9, 1),
        "ns_per_event": round((p - b) / events * 1e9, 1),
        "slowdown": round(p / b, 2),
    }


def parser():
    """The ``bench`` command's options (each listed in ``arenascope.__main__.USAGE``)."""
    ap = argparse.ArgumentParser(prog="python -m arenascope bench")
    ap.add_argument("--iterations", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json")
    return ap


def main(argv):
    ap = parser()
    a = ap.parse_args(argv)
    if a.iterations < 1 or a.repeats < 1:
        ap.error("--iterations and --repeats must be positive")
    rows, skipped = [], {}
    with tempfile.TemporaryDirectory(prefix="arenascope-bench-") as tmp:
        try:
            make_pool = _make_pool()
        except Exception as e:
            skipped["pyopencl_pool_hit"] = "no pyopencl device: %s" % e
            make_pool = None
        for stacks in (0, DEPTH):
            if make_pool is not None:
                rows.append(measure("pyopencl_pool_hit", make_pool, _pool_loop, a.iterations, a.repeats, stacks, 2, tmp))
            rows.append(measure("arena", lambda: BenchArena(1 << 20), _arena_loop, a.iterations, a.repeats, stacks, 2, tmp))
    print("%-18s %6s %14s %14s %10s %9s" % ("loop", "stacks", "plain ns/iter", "traced ns/iter", "ns/event", "slowdown"))
    for r in rows:
        print("%-18s %6d %14.1f %14.1f %10.1f %8.2fx" % (r["loop"], r["stacks"], r["unprofiled_ns_per_iteration"],
                                                       r["profiled_ns_per_iteration"], r["ns_per_event"], r["slowdown"]))
    for k, why in skipped.items():
        print("%s skipped: %s" % (k, why))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"python": sys.version.split()[0], "results": rows, "skipped": skipped}, f, indent=2)
            f.write("\n")
    return 0
