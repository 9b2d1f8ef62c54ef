"""Caps for long recordings to a JSONL file (max_size, max_duration): the oldest segments are dropped
whole, what was dropped is counted in the file, the rest reads cleanly and its peaks are the kept
window's."""

import json
import os

import pytest

import arenascope
from arenascope import _ring
from conftest import jsonl_lines, run_client, stats
from standins import ManualMemory, float32

EARLY = 1 << 20      # a temporary peak at the start, dropped with its segment
KEEP = 4096          # a tensor allocated at the start and never freed: in the carried gauge


def record(out, steps, **caps):
    with arenascope.session(out=str(out), name="ring", adapters="none", **caps) as s:
        arena = arenascope.track_arena(ManualMemory(num_bytes=4 << 20), name="frame")
        with arena.temp():
            arena.get_tensor(EARLY // 4, float32)
        arena.get_tensor(KEEP // 4, float32)
        for _ in range(steps):
            with arena.temp():
                arena.get_tensor(16, float32)
            if _ % 500 == 0:   # the writer thread drains every 5 ms: many writes, as a long recording makes
                assert os.path.getsize(out) <= caps.get("max_size", 1 << 62)
    return s


def test_a_size_cap_keeps_the_newest_part_and_counts_what_it_dropped(tmp):
    out = tmp / "ring.jsonl"
    s = record(out, 60_000, max_size=1 << 20)
    assert os.path.getsize(out) <= 1 << 20
    assert not (tmp / "ring.jsonl.ring-tmp").exists()
    st = stats(out)   # the Java reader reads it without a problem (stats exits 0)
    ring = st["ring"]
    assert ring["dropped_chunks"] > 0 and ring["dropped_events"] > 0
    assert ring["peaks_cover"] == "kept window"
    # every event is either kept or counted as dropped (plus the one carried gauge that opens the window)
    assert st["events"] - 1 + ring["dropped_events"] == s.writer.events_written
    frame = [m for m in st["memories"] if m["name"] == "frame"][0]
    # the kept window's peak: the tensor kept from the start and one temporary, not the early megabyte
    assert frame["peak_bytes"] == KEEP + 64
    lines = jsonl_lines(out)
    assert lines[0]["type"] == "session" and lines[0]["attributes"]["ring.max_size_bytes"] == str(1 << 20)
    assert lines[0]["attributes"]["client"] == "arenascope-python"
    memories = [l for l in lines if l.get("type") == "memory"]
    assert len(memories) == 1, "declared once, in the header of the rewritten file"
    first_event = next(l for l in lines if "type" not in l)
    # the gauge at the cut: the kept tensor, and the temporary when the cut fell inside one
    assert first_event["kind"] == "MEMORY_CREATED" and first_event["used"] in (KEEP, KEEP + 64)
    assert "capped" in s.summary()


def test_a_duration_cap_keeps_the_last_stretch(tmp):
    out = tmp / "span.jsonl"
    ring = _ring.Ring(0, 2_000_000_000)
    # events 10 ms apart over 20 s of session time, written in many small writes
    sink = _ring.RingFileSink(str(out), ring)
    session = '{"type":"session","name":"span","host":"h","start_epoch_ns":0,"devices":[],"attributes":{}}\n'
    memory = '{"type":"memory","id":0,"name":"m","kind":"POOL","device":"virtual","capacity":0,"attributes":{}}\n'
    first = ring.session(session) + memory
    sink.write_observed(first.encode("ascii"), 0, [ring.session(session), memory], [])
    used = 0
    for i in range(2000):
        used += 64
        item = (i * 10_000_000, "ALLOC", 0, 0, 0, i * 64, 64, 64, used, 0, -1, -1)
        line = ('{"t":%d,"kind":"%s","mem":%d,"thread":%d,"flags":%d,"a":%d,"b":%d,"c":%d,'
                '"used":%d,"aux":%d,"ref":%d,"ref2":%d}\n') % item
        sink.write_observed(line.encode("ascii"), 1, [], [item])
    sink.close(2000, 0)
    st = stats(out)
    kept_ns = 19_990_000_000 - st["ring"]["window_start_ns"]
    assert 2_000_000_000 - 10_000_000 <= kept_ns <= 2_500_000_000 + 400_000_000, kept_ns
    assert st["memories"][0]["peak_bytes"] == used


@pytest.mark.parametrize("option,value", [("--max-size", "0"), ("--max-size", "-1"), ("--max-size", "10XB"),
                                          ("--max-size", "512KiB"), ("--max-duration", "0"),
                                          ("--max-duration", "8 hours")])
def test_bad_caps_are_one_line_and_exit_2(tmp, option, value):
    script = tmp / "prog.py"
    script.write_text("print('ran')\n")
    p = run_client(["run", "--out", str(tmp / "x.jsonl"), option, value, str(script)], cwd=tmp, check=False)
    assert p.returncode == 2, p.stderr
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("arenascope run: " + option + ": "), p.stderr
    assert "ran" not in p.stdout and not (tmp / "x.jsonl").exists()


def test_caps_go_with_a_file_not_a_live_session():
    with pytest.raises(ValueError, match="max_size and max_duration cap a file"):
        arenascope.Session(live="127.0.0.1:1", max_size="2GiB")


def test_sizes_and_durations_parse_as_the_java_options_do():
    assert _ring.parse_size("2GiB") == 2 << 30
    assert _ring.parse_size("300M") == 300 << 20
    assert _ring.parse_duration("8h") == 8 * 3600 * 10**9
    assert _ring.parse_duration("1h30m") == 5400 * 10**9
    assert _ring.parse_duration(90) == 90 * 10**9
