"""Live: the client streaming JSONL over TCP to ``arenascope listen`` (the Java receiver, text form of
the live protocol on the same port as the binary one)."""

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from conftest import HERE, LAUNCHER, env, jsonl_lines, run_client, stats

EVENT_DEFAULTS = {"mem": -1, "thread": 0, "flags": 0, "a": 0, "b": 0, "c": 0, "used": 0, "aux": 0, "ref": -1, "ref2": -1}


class Listener:
    """``arenascope listen --port 0 --out DIR --format .jsonl`` on a free port, until N connections end."""

    def __init__(self, out_dir, connections=1, token=None):
        args = [LAUNCHER, "listen", "--port", "0", "--out", str(out_dir), "--format", ".jsonl",
                "--connections", str(connections), "--seconds", "240"]
        if token:
            args += ["--token", token, "--bind", "127.0.0.1"]
        self.p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise AssertionError("listen ended before listening: %s" % self.p.stderr.read())
            self.lines.append(line)
            m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
            if m:
                self.address = "127.0.0.1:" + m.group(1)
                break

    def finish(self):
        out, err = self.p.communicate(timeout=240)
        self.lines += out.splitlines()
        assert self.p.returncode == 0, err
        return self.lines


def events(path):
    """The events of a JSONL trace without their times (defaults filled in), and its strings."""
    evs, strings = [], {}
    for l in jsonl_lines(path):
        if l.get("type") == "string":
            strings[l["id"]] = l["value"]
        elif "type" not in l:
            evs.append(tuple([l["kind"]] + [l.get(k, d) for k, d in EVENT_DEFAULTS.items()]))
    return evs, strings


def test_live_gives_the_same_events_as_the_file(tmp):
    args = ["%s/render_equivalent.py" % HERE, "64", "32", "500", "1", "2", "3", "7"]
    run_client(["run", "--out", str(tmp / "file.jsonl")] + args, tmp)
    listener = Listener(tmp / "live")
    p = run_client(["run", "--live", listener.address] + args, tmp)
    lines = listener.finish()
    assert "0 lost" in p.stderr and "receiver confirmed" in p.stderr
    [name] = os.listdir(tmp / "live")
    live = tmp / "live" / name
    assert events(live) == events(tmp / "file.jsonl")
    assert any(" closed: " in l and ", 0 lost" in l for l in lines), lines


def test_live_pyopencl_figures_equal_the_files(tmp):
    pytest.importorskip("pyopencl", reason="pyopencl is not installed (apt-get install python3-pyopencl pocl-opencl-icd)")
    truth = tmp / "truth.json"
    run_client(["run", "--out", str(tmp / "file.jsonl"), "%s/pyopencl_program.py" % HERE, str(truth)], tmp)
    listener = Listener(tmp / "live")
    run_client(["run", "--live", listener.address, "%s/pyopencl_program.py" % HERE, str(truth)], tmp)
    listener.finish()
    [name] = os.listdir(tmp / "live")
    keys = ("requests", "hits", "misses", "peak_bytes", "reserved_peak_bytes", "events")
    f = stats(tmp / "file.jsonl")
    l = stats(tmp / "live" / name)
    assert l["lost_events"] == 0 and l["events"] == f["events"]
    assert [{k: m[k] for k in keys} for m in l["memories"]] == [{k: m[k] for k in keys} for m in f["memories"]]
    assert {k: l["memories"][0][k] for k in keys if k != "events"} == json.loads(truth.read_text())


def test_sigkill_keeps_what_was_sent(tmp):
    prog = tmp / "busy.py"
    prog.write_text(textwrap.dedent("""
        import arenascope
        from standins import ManualMemory, float32
        arena = arenascope.track_arena(ManualMemory(num_bytes=1 << 20), name="busy")
        print("ready", flush=True)
        while True:
            with arena.temp():
                arena.get_tensor((64,), float32)
    """))
    listener = Listener(tmp / "live")
    p = subprocess.Popen([sys.executable, "-m", "arenascope", "run", "--live", listener.address, str(prog)], cwd=tmp,
                         env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout.readline().strip() == b"ready"
    time.sleep(2.0)
    p.send_signal(signal.SIGKILL)
    p.wait()
    lines = listener.finish()
    [name] = os.listdir(tmp / "live")
    st = stats(tmp / "live" / name)
    ended = [l for l in lines if "disconnected" in l or " cut: " in l]
    assert ended, lines
    received = int(re.search(r": ([\d,]+) events", ended[-1]).group(1).replace(",", ""))
    assert st["events"] == received > 1000


def test_a_wrong_token_is_refused_with_one_line(tmp):
    listener = Listener(tmp / "live", token="s3cret")
    p = run_client(["run", "--live", listener.address, "--token", "wrong", "%s/render_equivalent.py" % HERE,
                    "8", "8", "1", "1"], tmp, check=False)
    listener.finish()
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == ["arenascope run: %s refused the connection: bad token" % listener.address]
    ok = Listener(tmp / "live2", token="s3cret")
    run_client(["run", "--live", ok.address, "--token", "s3cret", "%s/render_equivalent.py" % HERE, "8", "8", "1", "1"], tmp)
    ok.finish()
    assert len(os.listdir(tmp / "live2")) == 1
