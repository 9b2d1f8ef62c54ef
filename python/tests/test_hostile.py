"""The client under unlucky use: runs started together, threads, forks, a busy receiver, Ctrl-C."""

import json
import os
import socket
import subprocess
import sys
import textwrap
import threading
import time

from conftest import env, jsonl_lines, run_client


def _events(lines):
    return [l for l in lines if "kind" in l and "t" in l and "type" not in l]


def test_runs_started_together_never_share_their_default_file(tmp):
    prog = tmp / "job.py"
    prog.write_text(textwrap.dedent("""
        import arenascope
        for i in range(3000):
            arenascope.marker("m%d" % (i % 7))
    """))
    (tmp / "job.jsonl").write_text("an earlier run's trace\n")
    procs = [subprocess.Popen([sys.executable, "-m", "arenascope", "run", str(prog)], cwd=tmp, env=env(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(6)]
    named = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        assert "3000 events, 0 lost -> " in err, err
        named.append(err.strip().rsplit(" -> ", 1)[1])
    assert len(set(named)) == 6, named
    assert (tmp / "job.jsonl").read_text() == "an earlier run's trace\n"
    for name in named:
        assert name.startswith("job-") and name.endswith(".jsonl"), name
        lines = jsonl_lines(tmp / name)
        assert sum(1 for l in lines if l.get("type") == "session") == 1
        assert len(_events(lines)) == 3000


def test_a_forked_child_does_not_write_into_its_parents_trace(tmp):
    prog = tmp / "forks.py"
    prog.write_text(textwrap.dedent("""
        import os, sys, arenascope
        for i in range(500):
            arenascope.marker("before")
        pid = os.fork()
        if pid == 0:
            for i in range(700):
                arenascope.marker("child")
            sys.exit(0)   # the child returns through `run` like the parent (not os._exit)
        for i in range(300):
            arenascope.marker("after")
        _, status = os.waitpid(pid, 0)
        print("child exit", os.waitstatus_to_exitcode(status))
    """))
    out = tmp / "forks.jsonl"
    p = run_client(["run", "--out", str(out), str(prog)], tmp)
    assert "child exit 0" in p.stdout
    assert "800 events, 0 lost -> %s" % out in p.stderr, p.stderr
    assert "forked" in p.stderr and "recorded nothing" in p.stderr, p.stderr
    lines = jsonl_lines(out)
    assert sum(1 for l in lines if l.get("type") == "session") == 1
    strings = {l["id"]: l["value"] for l in lines if l.get("type") == "string"}
    markers = [strings[e["ref"]] for e in _events(lines) if e["kind"] == "MARKER"]
    assert markers == ["before"] * 500 + ["after"] * 300
    times = [e["t"] for e in _events(lines)]
    assert times == sorted(times)


def test_ctrl_c_in_the_script_exits_130_and_keeps_the_trace(tmp):
    prog = tmp / "interrupted.py"
    prog.write_text("import arenascope\narenascope.marker('x')\nraise KeyboardInterrupt\n")
    p = run_client(["run", "--out", str(tmp / "i.jsonl"), str(prog)], tmp, check=False)
    assert p.returncode == 130, (p.returncode, p.stderr)
    assert "1 events, 0 lost" in p.stderr


class _BusyReceiver:
    """A text-protocol receiver under load: it drops the first ``drop`` connections after their hello
    (as a receiver out of descriptors sheds them), answers the next after ``delay`` seconds, or never
    (``delay`` None)."""

    def __init__(self, drop=0, delay=0.0):
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(8)
        self.port = self.server.getsockname()[1]
        self.drop = drop
        self.delay = delay
        self.hellos = 0
        self.events = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        held = []
        while True:
            c, _ = self.server.accept()
            f = c.makefile("rb")
            f.readline()
            self.hellos += 1
            if self.hellos <= self.drop:
                f.close()   # the file object holds the socket open otherwise
                c.close()
                continue
            if self.delay is None:
                held.append((c, f))   # never answered
                continue
            self.done.wait(self.delay)   # busy: the answer comes late
            c.sendall(b'{"status":0,"message":"ok"}\n')
            n = 0
            for line in f:
                if line.startswith(b'{"type":"goodbye"'):
                    c.sendall(b'{"status":"closed","events":%d}\n' % n)
                    break
                n += line.startswith(b'{"t":')
            self.events = n
            c.close()
            return


def _marker_script(tmp):
    prog = tmp / "m.py"
    prog.write_text("import arenascope\narenascope.marker('x')\n")
    return prog


def test_dropped_connections_are_tried_again_until_the_connect_timeout(tmp):
    r = _BusyReceiver(drop=2)
    p = run_client(["run", "--live", "127.0.0.1:%d" % r.port, "--connect-timeout", "30", str(_marker_script(tmp))],
                   tmp, check=False)
    assert p.returncode == 0, p.stderr
    assert r.hellos == 3 and r.events == 1
    assert "receiver confirmed 1" in p.stderr


def test_a_slow_answer_is_waited_for_on_one_connection(tmp):
    r = _BusyReceiver(delay=3.0)
    p = run_client(["run", "--live", "127.0.0.1:%d" % r.port, "--connect-timeout", "30", str(_marker_script(tmp))],
                   tmp, check=False)
    assert p.returncode == 0, p.stderr
    assert r.hellos == 1 and r.events == 1, "no second session for the receiver to count"


def test_a_receiver_that_never_answers_is_given_up_after_the_connect_timeout(tmp):
    r = _BusyReceiver(delay=None)
    prog = tmp / "m.py"
    prog.write_text("print('ran')\n")
    t0 = time.monotonic()
    p = run_client(["run", "--live", "127.0.0.1:%d" % r.port, "--connect-timeout", "2", str(prog)], tmp, check=False)
    assert p.returncode == 2, p.stderr
    assert "the hello was not answered" in p.stderr and "in 2 s, the connect timeout" in p.stderr, p.stderr
    assert time.monotonic() - t0 < 20


def test_an_out_given_is_never_an_earlier_runs_file_unless_forced(tmp):
    prog = tmp / "mark.py"
    prog.write_text("import arenascope\nfor i in range(100):\n    arenascope.marker('m')\n")
    out = tmp / "given.jsonl"
    out.write_text("an earlier run's trace\n")
    p = run_client(["run", "--out", str(out), str(prog)], tmp, check=False)
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip() == "arenascope run: --out %s exists already; give --force to replace it" % out, p.stderr
    assert out.read_text() == "an earlier run's trace\n"
    p = run_client(["run", "--out", str(out), "--force", str(prog)], tmp)
    assert p.returncode == 0, p.stderr
    lines = jsonl_lines(out)
    assert sum(1 for l in lines if l.get("type") == "session") == 1 and len(_events(lines)) == 100
    assert sorted(f.name for f in tmp.iterdir()) == ["given.jsonl", "mark.py"], "no temporary file left"
