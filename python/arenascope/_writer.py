"""The background writer: a bounded queue the recording threads append to, one daemon thread that
turns it into JSON Lines and hands them to a sink (a file or a TCP connection).

Recording threads only append a tuple (events) or a ready line (metadata) to a ``deque``; when the
queue holds ``capacity`` events, further events are dropped and counted, and the writer writes a
``loss`` line for them after what it drained, so nothing is lost silently. Metadata lines (memories,
strings, threads) are never dropped: later events depend on them. The sink receives whole lines only,
one ``write`` per drain, so a process killed at any moment leaves a file that reads to its last whole
line.
"""

import collections
import json
import os
import socket
import sys
import threading
import time

# One template for every event: the reader accepts a key holding its default value, and one
# %-format of a tuple is the cheapest way to a line in CPython.
EVENT_LINE = ('{"t":%d,"kind":"%s","mem":%d,"thread":%d,"flags":%d,"a":%d,"b":%d,"c":%d,'
              '"used":%d,"aux":%d,"ref":%d,"ref2":%d}\n')
# The same with the allocation's site: a stack node id of the session's site table (see _stacks.py).
EVENT_LINE_STACK = EVENT_LINE[:-2] + ',"site":%d}\n'

#: The live text protocol's version (the hello line's ``version``).
LIVE_VERSION = 1


def json_line(obj):
    """A metadata object as one JSON line (ASCII only, so a lone surrogate cannot break the file)."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=True) + "\n"


class FileSink:
    """Writes lines to a file. ``mode`` says what happens to a file already at ``path``:

    * ``"truncate"`` (the library's default): it is replaced, opened for writing at construction;
    * ``"numbered"``: it is kept, and the first of ``NAME.jsonl``, ``NAME-1.jsonl``, ... that does not
      exist is created anew (``O_CREAT|O_EXCL``), so runs started together never share a file
      (:attr:`path` is the one used);
    * ``"new"``: it is kept and :class:`FileExistsError` raised (the name is created with ``O_EXCL``);
    * ``"atomic"``: the lines go to a hidden file beside it (``.NAME.PID.part``) that replaces it only
      at :meth:`close`, so it stays whole until the new one is.

    ``exclusive=True`` is ``mode="numbered"`` (kept for callers of earlier versions)."""

    def __init__(self, path, exclusive=False, mode=None):
        path = os.fspath(path)
        mode = mode or ("numbered" if exclusive else "truncate")
        self._final = None
        if mode == "truncate":
            self.path = path
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        elif mode == "new":
            self.path = path
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        elif mode == "atomic":
            self.path = path
            head, tail = os.path.split(path)
            self._final = os.path.join(head, ".%s.%d.part" % (tail, os.getpid()))
            self._fd = os.open(self._final, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        elif mode == "numbered":
            stem, ext = os.path.splitext(path)
            for k in range(100000):
                self.path = path if k == 0 else "%s-%d%s" % (stem, k, ext)
                try:
                    self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                    break
                except FileExistsError:
                    continue
            else:
                raise OSError("%s: this name and 100000 numbered ones are all taken" % path)
        else:
            raise ValueError("FileSink mode must be truncate, numbered, new or atomic, got %r" % (mode,))
        self.delivered_events = None  # a file takes everything it is given
        self.receiver_message = None

    def abandon(self):
        """In a forked child: lets go of the file without writing (the parent writes it)."""
        try:
            os.close(self._fd)
        except OSError:
            pass

    def write(self, data, events):
        view = memoryview(data)
        while view:
            n = os.write(self._fd, view)
            view = view[n:]

    def close(self, sent_events, lost):
        os.close(self._fd)
        if self._final is not None:
            os.replace(self._final, self.path)   # whole now: over the earlier file in one step

    def describe(self):
        return self.path


class LiveError(Exception):
    """A live receiver could not be reached or refused the connection."""


class LiveSink:
    """Streams lines to ``arenascope listen`` (or the window) over TCP.

    The connection opens with a hello line (``{"arenascope_live":"jsonl","version":1,"pid":...,
    "name":...,"token":...}``); the receiver answers with one line (``{"status":0,"message":"ok"}`` or
    a refusal, raised as :class:`LiveError`). Then JSONL lines; at the end a goodbye line, after which
    the receiver answers how many events it delivered, which :meth:`close` compares with what was sent.
    """

    #: The longest pause between two connection attempts (after 0.1 s, 0.2 s, ...).
    MAX_RETRY_PAUSE = 1.0

    def __init__(self, address, name, token=None, connect_timeout=30.0):
        host, sep, port = address.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError("--live expects HOST:PORT (e.g. 127.0.0.1:7766), got %r" % address)
        if not connect_timeout > 0:
            raise ValueError("the connect timeout must be positive, got %r" % connect_timeout)
        self.address = address
        self.receiver_message = None
        hello = json_line({"arenascope_live": "jsonl", "version": LIVE_VERSION, "pid": os.getpid(), "name": name,
                           "token": token or os.environ.get("ARENASCOPE_TOKEN", "")}).encode("ascii")
        # a busy receiver (many senders at once, a loaded machine) may be slow to accept or to answer, or
        # drop the connection: a connection that is open is waited on (a second one would only add to the
        # receiver's load and count as a session of its own), one refused or closed is tried again after a
        # growing pause, as the Java sender does, until the connect timeout is spent
        deadline = time.monotonic() + connect_timeout
        attempts = 0
        while True:
            attempts += 1
            left = deadline - time.monotonic()
            problem = self._attempt(host.strip("[]"), int(port), hello, max(0.05, left))
            if problem is None:
                break
            left = deadline - time.monotonic()
            if left <= 0.05:
                raise LiveError("%s: %s (%d attempt%s in %g s, the connect timeout)"
                                % (address, problem, attempts, "" if attempts == 1 else "s", connect_timeout))
            time.sleep(min(0.1 * attempts, left, self.MAX_RETRY_PAUSE))
        self._sock.settimeout(None)
        self.broken = None
        self.unsent_events = 0
        self.delivered_events = None

    def _attempt(self, host, port, hello, timeout):
        """One connection and hello; None when accepted, else what went wrong (a refusal raises)."""
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as e:
            return "cannot connect: %s" % (e.strerror or e)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            f = sock.makefile("rb")
            sock.sendall(hello)
            answer = f.readline(1 << 16)
        except OSError as e:
            sock.close()
            return "the hello was not answered (%s)" % (e.strerror or e)
        if not answer:
            sock.close()
            return "the hello was not answered (the receiver closed the connection)"
        try:
            ack = json.loads(answer.decode("utf-8"))
            status = ack.get("status")
        except (ValueError, AttributeError):
            sock.close()
            raise LiveError("%s is not an ArenaScope receiver (answer %r)" % (self.address, answer[:80])) from None
        if status != 0:
            sock.close()
            raise LiveError("%s refused the connection: %s" % (self.address, ack.get("message", "")))
        self._sock = sock
        self._sock_fd = sock.fileno()
        self._in = f
        return None

    def write(self, data, events):
        if self.broken is not None:
            self.unsent_events += events
            return
        try:
            self._sock.sendall(data)
        except OSError as e:
            self.broken = str(e)
            self.unsent_events += events

    def close(self, sent_events, lost):
        try:
            if self.broken is None:
                self._sock.sendall(json_line({"type": "goodbye", "events": sent_events - self.unsent_events,
                                              "lost": lost}).encode("ascii"))
                self._sock.shutdown(socket.SHUT_WR)
                self._sock.settimeout(10.0)
                answer = self._in.readline(1 << 16)
                if answer:
                    last = json.loads(answer.decode("utf-8"))
                    self.delivered_events = last.get("events")
                    self.receiver_message = last.get("message")
        except (OSError, ValueError) as e:
            self.broken = self.broken or str(e)
        finally:
            self._sock.close()

    def abandon(self):
        """In a forked child: lets go of the connection without a goodbye (the parent's stays open)."""
        try:
            self._sock.detach()
            os.close(self._sock_fd)
        except (OSError, AttributeError):
            pass

    def describe(self):
        return self.address


class Writer:
    """Owns the queue and the writer thread; :meth:`close` drains everything and closes the sink."""

    def __init__(self, sink, capacity=1 << 18, interval=0.005):
        self.sink = sink
        self.capacity = capacity
        self.queue = collections.deque()
        self.dropped = 0          # events dropped by recording threads (guarded by _drop_lock)
        self._reported = 0        # of those, written as loss lines
        self._drop_lock = threading.Lock()
        self.events_written = 0
        self.error = None
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="arenascope-writer", daemon=True)
        self._thread.start()

    def drop(self):
        """Counts one event that did not fit (called by a recording thread)."""
        with self._drop_lock:
            self.dropped += 1

    def _run(self):
        while not self._stop.wait(self._interval):
            self.drain()
        self.drain()

    def drain(self):
        """Writes what is queued (from the writer thread; from the caller once the thread ended)."""
        q = self.queue
        n = len(q)
        dropped = self.dropped
        if n == 0 and dropped == self._reported:
            return
        pop = q.popleft
        fmt = EVENT_LINE
        fmt_stack = EVENT_LINE_STACK
        parts = []
        events = 0
        for _ in range(n):
            item = pop()
            if item.__class__ is str:
                parts.append(item)
            elif len(item) == 12:
                parts.append(fmt % item)
                events += 1
            else:
                parts.append(fmt_stack % item)
                events += 1
        if dropped != self._reported:
            parts.append(json_line({"type": "loss", "count": dropped - self._reported}))
            self._reported = dropped
        if self.error is not None:
            return
        try:
            self.sink.write("".join(parts).encode("ascii"), events)
            self.events_written += events
        except OSError as e:
            self.error = "cannot write %s: %s" % (self.sink.describe(), e)
            print("arenascope: " + self.error + " (recording stopped; what was written is readable)", file=sys.stderr)

    def abandon(self):
        """In a forked child: drops the queue (the parent's events) and the sink, writing nothing."""
        self.queue.clear()
        self._stop.set()
        self._drop_lock = threading.Lock()
        self.sink.abandon()

    def close(self):
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join()
        self.drain()
        self.sink.close(self.events_written, self.dropped)
