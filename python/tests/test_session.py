"""The JSONL the client writes: read by the Java reader without a problem, losses counted, a killed
process's file readable to its last whole line."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import arenascope
from conftest import env, java, jsonl_lines, run_client, stats
from standins import ManualMemory, MemoryPool, float32, uint8


def test_session_api_writes_what_the_java_reader_reads(tmp):
    out = tmp / "api.jsonl"
    with arenascope.session(out=str(out), name="api", adapters="none") as s:
        arena = arenascope.track_arena(ManualMemory(num_bytes=1 << 16), name="frame")
        pool = arenascope.track_pool(MemoryPool("pool"))
        with arenascope.scope("step", batch=2):
            with arena.temp():
                arena.get_tensor((16, 4), float32)
                arena.get_tensor(3, uint8)
                arena.get_tensor((8,), float32, persist=True)
            b = pool.allocate(1000)
            b.release()
            arenascope.note_scope_params(tiles=7)
        arenascope.marker("done")
    st = stats(out)
    assert st["lost_events"] == 0
    names = {m["name"]: m for m in st["memories"]}
    assert names["frame"]["kind"] == "ARENA" and names["frame"]["capacity"] == 1 << 16
    # 256 + 3 bytes forward, 32 backward at the peak
    assert names["frame"]["peak_bytes"] == 256 + 3 + 32
    assert names["pool"]["requests"] == 1 and names["pool"]["misses"] == 1
    lines = jsonl_lines(out)
    kinds = [l["kind"] for l in lines if "kind" in l and "type" not in l]
    assert kinds.count("SCOPE_ENTER") == 2 and kinds.count("SCOPE_EXIT") == 2   # one per memory
    assert kinds.count("SCOPE_PARAM") == 4                                     # batch and tiles, per memory
    assert "MARKER" in kinds and "POINTER_RESTORE" in kinds
    assert st["events"] == len(kinds) == s.writer.events_written


def test_a_full_queue_drops_and_says_so(tmp):
    out = tmp / "loss.jsonl"
    with arenascope.session(out=str(out), adapters="none", capacity=50) as s:
        s.writer._interval = 3600  # the writer does not drain until the end
        arena = arenascope.track_arena(ManualMemory(num_bytes=1 << 20), name="a")
        for _ in range(200):
            with arena.temp():
                arena.get_tensor(4, float32)
    st = stats(out)
    assert s.lost > 0
    assert st["lost_events"] == s.lost
    assert st["events"] + s.lost == 1 + 400  # created, 200 allocations and restores: nothing hidden
    assert "lost" in s.summary() and not s.ok()


def test_sigkill_leaves_a_readable_file(tmp):
    prog = tmp / "busy.py"
    prog.write_text(textwrap.dedent("""
        import sys, time
        import arenascope
        from standins import ManualMemory, float32
        arena = arenascope.track_arena(ManualMemory(num_bytes=1 << 20), name="busy")
        print("ready", flush=True)
        while True:
            with arena.temp():
                arena.get_tensor((64,), float32)
    """))
    out = tmp / "killed.jsonl"
    p = subprocess.Popen([sys.executable, "-m", "arenascope", "run", "--out", str(out), str(prog)], cwd=tmp, env=env(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout.readline().strip() == b"ready"
    deadline = time.time() + 20
    while (not out.exists() or out.stat().st_size < 200_000) and time.time() < deadline:
        time.sleep(0.05)
    p.send_signal(signal.SIGKILL)
    p.wait()
    size = out.stat().st_size
    assert size >= 200_000
    st = stats(out)   # exit 0: a torn last line is not a problem
    assert st["events"] > 1000
    whole = out.read_bytes().count(b"\n")
    assert st["events"] <= whole


def test_run_keeps_the_scripts_exit_code_and_argv(tmp):
    prog = tmp / "exits.py"
    prog.write_text("import sys\nprint(sys.argv[1:])\nsys.exit(int(sys.argv[1]))\n")
    p = run_client(["run", "--out", str(tmp / "e.jsonl"), str(prog), "7", "x"], tmp, check=False)
    assert p.returncode == 7 and "['7', 'x']" in p.stdout
    assert "0 lost" in p.stderr


def test_bad_arguments_are_one_line_and_exit_2(tmp):
    p = run_client(["run", "--out", str(tmp / "x.jsonl"), str(tmp / "missing.py")], tmp, check=False)
    assert p.returncode == 2 and p.stderr.strip() == "arenascope run: no such script: %s" % (tmp / "missing.py")
    p = run_client(["run", "--adapters", "nope", "x.py"], tmp, check=False)
    assert p.returncode == 2 and "unknown adapter 'nope'" in p.stderr


def test_stacks_name_the_allocating_line(tmp):
    out = tmp / "stacks.jsonl"
    with arenascope.session(out=str(out), adapters="none", stacks=4):
        arena = arenascope.track_arena(ManualMemory(num_bytes=4096), name="a")
        for _ in range(3):
            arena.get_tensor(4, float32)  # the allocating line
    line = test_stacks_name_the_allocating_line.__code__.co_firstlineno + 5
    lines = jsonl_lines(out)
    frames = {l["id"]: l for l in lines if l.get("type") == "frame"}
    nodes = {l["id"]: l for l in lines if l.get("type") == "stack"}
    allocs = [l for l in lines if l.get("kind") == "ALLOC"]
    assert len(allocs) == 3 and len({a["site"] for a in allocs}) == 1, "one call site, one stack node"
    inner = frames[nodes[allocs[0]["site"]]["frame"]]
    assert inner["function"] == "test_stacks_name_the_allocating_line" and inner["file"].endswith("test_session.py")
    assert inner["line"] == line
    # each frame and node is declared once, before the first event naming it
    assert len(frames) == len({(f["function"], f["file"], f["line"]) for f in frames.values()})
    first_alloc = next(i for i, l in enumerate(lines) if l.get("kind") == "ALLOC")
    assert all(i < first_alloc for i, l in enumerate(lines) if l.get("type") in ("frame", "stack"))
    assert stats(out)["events"] == 4
    # and ArenaScope's own answer names the line
    got = json.loads(java(["sites", str(out), "--format", "json"]).stdout)
    top = got["sites"][0]["frames"][0]
    assert top["function"] == "test_stacks_name_the_allocating_line" and top["line"] == line, got["sites"][0]
    assert got["source"] == "stacks"


def test_the_clients_runner_is_in_no_stack(tmp):
    prog = tmp / "alloc.py"
    prog.write_text(textwrap.dedent("""
        import sys
        sys.path.insert(0, %r)
        import arenascope
        from standins import ManualMemory, float32

        def step(arena):
            return arena.get_tensor(4, float32)

        arena = arenascope.track_arena(ManualMemory(num_bytes=4096), name="a")
        for _ in range(3):
            step(arena)
    """ % os.path.dirname(os.path.abspath(__file__))))
    out = tmp / "run.jsonl"
    run_client(["run", "--out", str(out), "--stacks", "8", "--adapters", "none", str(prog)], tmp)
    frames = [l for l in jsonl_lines(out) if l.get("type") == "frame"]
    files = {f["file"] for f in frames}
    assert any(f.endswith("alloc.py") for f in files), files
    pkg = os.path.dirname(os.path.abspath(arenascope.__file__))
    assert not any(f.startswith(pkg) for f in files), "the client's own frames: %s" % sorted(files)
    assert not any("runpy" in f for f in files), "the runner's frames: %s" % sorted(files)
    # the outermost frame is the program's own module
    assert {f["function"] for f in frames} >= {"step", "<module>"}


def test_library_frames_are_folded_so_sites_are_named_by_the_programs_own_lines(tmp):
    # a library in a site-packages folder (as pyopencl's array.py is): its Array.__init__ allocates for
    # every caller; the program calls it from two lines of its own
    lib = tmp / "venv" / "lib" / "site-packages"
    lib.mkdir(parents=True)
    (lib / "libarray.py").write_text(textwrap.dedent("""
        from standins import float32

        class Array:
            def __init__(self, arena, n):
                self.data = arena.get_tensor(n, float32)
    """))
    prog = tmp / "train.py"
    prog.write_text(textwrap.dedent("""
        import sys
        sys.path.insert(0, %r)
        sys.path.insert(0, %r)
        import arenascope
        from standins import ManualMemory
        from libarray import Array

        arena = arenascope.track_arena(ManualMemory(num_bytes=1 << 16), name="a")
        weights = [Array(arena, 64) for _ in range(3)]
        grads = [Array(arena, 16) for _ in range(5)]
    """ % (os.path.dirname(os.path.abspath(__file__)), str(lib))))
    out = tmp / "run.jsonl"
    run_client(["run", "--out", str(out), "--stacks", "8", "--adapters", "none", str(prog)], tmp)
    frames = {f["file"]: f for f in jsonl_lines(out) if f.get("type") == "frame"}
    [libfile] = [f for f in frames if f.endswith("libarray.py")]
    assert frames[libfile].get("flags", 0) & 1, "a library's frame is flagged internal: %s" % frames[libfile]
    assert not frames[str(prog)].get("flags", 0), "the program's own frames are not"
    # the sites: named by the program's two lines, not seven rows of Array.__init__
    got = json.loads(java(["sites", str(out), "--leaks", "--format", "json"]).stdout)
    tops = [(s["frames"][0]["function"], s["frames"][0]["file"], s["frames"][0]["line"]) for s in got["sites"]]
    assert len(tops) == 2, tops
    assert all(t[1] == str(prog) and t[0] in ("<module>", "<listcomp>") for t in tops), tops
    assert {t[2] for t in tops} == {10, 11}, tops
    # with --internal (the window's Internal frames) the library's frame shows, innermost
    got = json.loads(java(["sites", str(out), "--leaks", "--internal", "--format", "json"]).stdout)
    assert all(s["frames"][0]["function"] == "Array.__init__" for s in got["sites"]), got["sites"]


def test_scope_is_a_decorator_and_a_no_op_without_a_session():
    @arenascope.scope("work", n=3)
    def work(x):
        return x + 1
    assert work(1) == 2
    arenascope.marker("nobody listens")
    arenascope.note_scope_params(n=1)


def _workload(stacks_depth_marker):
    """The same recording twice: an arena in a scope, a pool, a marker, allocations from two lines."""
    arena = arenascope.track_arena(ManualMemory(num_bytes=1 << 16), name="frame")
    pool = arenascope.track_pool(MemoryPool("pool"))
    arenascope.marker(stacks_depth_marker)
    with arenascope.scope("step", batch=2):
        with arena.temp():
            for _ in range(3):
                arena.get_tensor((16, 4), float32)   # one site, three times
            arena.get_tensor(3, uint8)
        b = pool.allocate(300)
        pool.allocate(5000)
        b.release()


def _normalised(lines):
    """The lines without what differs between two runs (times, the start instant)."""
    out = []
    for l in lines:
        l = dict(l)
        l.pop("t", None)
        if l.get("type") == "session":
            l.pop("start_epoch_ns")
        if l.get("kind") == "POOL_REQUEST":
            l.pop("ref2")   # the request's duration
        out.append(l)
    return out


@pytest.mark.parametrize("stacks", [0, 4])
def test_a_memory_session_saves_what_a_file_session_writes_and_its_figures_match(tmp, stacks):
    from arenascope import testing
    out = tmp / "file.jsonl"
    with arenascope.session(memory=True, adapters="none", stacks=stacks):   # other paths first: the process's
        arenascope.track_arena(ManualMemory(num_bytes=64), name="x").get_tensor(1, uint8)   # ids are not the file's
    # the second memory session finds its call paths in the process's site table; one line records
    # all four, so that the stacks are the same
    for where in ({"out": str(out)}, {"memory": True}) * 2:
        with arenascope.session(name="same", adapters="none", stacks=stacks, **where) as m:
            _workload("measure")
    assert m.writer.sink.describe() == "memory" and m.ok()
    saved = m.save(tmp / "saved.jsonl")
    assert _normalised(jsonl_lines(saved)) == _normalised(jsonl_lines(out))
    st = stats(saved)   # the Java reader takes it without a problem
    assert st["events"] == m.writer.events_written and st["lost_events"] == 0
    from_file = testing.read_figures(saved)
    in_memory = testing.figures_of(m)
    assert [f.as_json() for f in in_memory.memories] == [f.as_json() for f in from_file.memories]
    for a, b in zip(in_memory.memories, from_file.memories):
        assert in_memory.sites_at_peak(a) == from_file.sites_at_peak(b)
        assert in_memory.sites_at_end(a) == from_file.sites_at_end(b)
    if stacks:
        [arena] = [f for f in in_memory.memories if f.name == "frame"]
        top = in_memory.sites_at_peak(arena)[0]
        assert top[0].startswith("_workload ") and top[1] == 3 * 16 * 4 * 4, in_memory.sites_at_peak(arena)


def test_a_memory_session_is_read_once_closed_and_only_a_memory_session_saves(tmp):
    with arenascope.session(memory=True, adapters="none") as m:
        with pytest.raises(ValueError, match="once it is closed"):
            m.items()
    assert m.items()[0]["type"] == "session"
    with arenascope.session(out=str(tmp / "f.jsonl"), adapters="none") as f:
        pass
    with pytest.raises(ValueError, match="memory session"):
        f.save(tmp / "g.jsonl")
    with pytest.raises(ValueError, match="exactly one"):
        arenascope.Session(out=str(tmp / "h.jsonl"), memory=True)
