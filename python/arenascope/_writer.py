"""The background writer: a bounded queue the recording threads append to, and one daemon thread per
process (the pump) that turns the queues of every open session into JSON Lines and hands them to
their sinks (a file, a TCP connection, or memory).

Recording threads only append a tuple (events) or a dict (metadata) to a ``deque``; when the
queue holds ``capacity`` events, further events are dropped and counted, and the writer writes a
``loss`` line for them after what it drained, so nothing is lost silently. Metadata lines (memories,
strings, threads) are never dropped: later events depend on them. A file or connection receives whole
lines only, one ``write`` per drain, so a process killed at any moment leaves a file that reads to its
last whole line. A memory sink keeps the queue's items as they are (no formatting): the session's
figures are read from them and the lines are written only if the recording is saved.

The pump is started by the first session and serves the sessions that follow (a session costs no
thread of its own); with no session open it sleeps on a condition.
"""

import collections
import json
import operator
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


def format_items(items):
    """(text, events) of queued items: events (tuples) through the line templates, metadata (dicts) as
    JSON, ready lines (str) as they are."""
    fmt = EVENT_LINE
    fmt_stack = EVENT_LINE_STACK
    parts = []
    events = 0
    for item in items:
        cls = item.__class__
        if cls is dict:
            parts.append(_encode(item) + "\n")
        elif cls is str:
            parts.append(item)
        elif len(item) == 12:
            parts.append(fmt % item)
            events += 1
        else:
            parts.append(fmt_stack % item)
            events += 1
    return "".join(parts), events


# one encoder for every metadata line (json.dumps with separators builds a new one each call)
_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=True).encode


def json_line(obj):
    """A metadata object as one JSON line (ASCII only, so a lone surrogate cannot break the file)."""
    return _encode(obj) + "\n"


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


class MemorySink:
    """Keeps the queue's items (event tuples and metadata lines) in a list: the session's recording,
    readable in-process (:func:`arenascope.testing.figures_of`) and written as JSONL by :meth:`save`
    only when wanted."""

    raw = True
    path = None

    def __init__(self):
        self.items = []
        self.sites = None   # the process's site table (_stacks.SharedSites) the events' sites are ids of
        self.delivered_events = None
        self.receiver_message = None

    def take(self, items):
        self.items.extend(items)

    def lines(self):
        """The items as a file holds them: the sites the events use renumbered from 0, in order of first
        use, each declared (frame and stack lines, callers first) just before the first event using it."""
        if self.sites is None:
            return self.items
        from ._stacks import frame_line
        frame_of = self.sites.frame_of
        node_of = self.sites.node_of
        fmap = {}
        nmap = {-1: -1}
        out = []
        for item in self.items:
            if item.__class__ is tuple and len(item) == 13:
                site = nmap.get(item[12])
                if site is None:
                    chain = []
                    nid = item[12]
                    while nid not in nmap:
                        chain.append(nid)
                        nid = node_of[nid][1]
                    for nid in reversed(chain):
                        fid, parent = node_of[nid]
                        local = fmap.get(fid)
                        if local is None:
                            local = fmap[fid] = len(fmap)
                            out.append(frame_line(local, frame_of[fid]))
                        nmap[nid] = len(nmap) - 1
                        out.append({"type": "stack", "id": nmap[nid], "frame": local, "parent": nmap[parent]})
                    site = nmap[item[12]]
                item = item[:12] + (site,)
            out.append(item)
        return out

    def save(self, path):
        """Writes the recording to ``path`` as the file sink would have (replacing it); returns the path."""
        text, _ = format_items(self.lines())
        fd = os.open(os.fspath(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            view = memoryview(text.encode("ascii"))
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        return os.fspath(path)

    def close(self, sent_events, lost):
        pass

    def abandon(self):
        self.items = []

    def describe(self):
        return "memory"


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


class _Pump:
    """The process's one writer thread: drains every open :class:`Writer` whose interval is up, every
    ``tick`` seconds. After ``idle_ticks`` ticks with no writer it sleeps until the next one is added
    (so a test suite's sessions, one after another, find it awake and cost it no wake-up)."""

    tick = 0.005
    idle_ticks = 200

    def __init__(self):
        self._lock = threading.Lock()
        self._writers = ()       # replaced, never changed in place: the thread reads it without the lock
        self._thread = None
        self._idle = False
        self._wake = threading.Event()

    def add(self, writer):
        with self._lock:
            self._writers = self._writers + (writer,)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="arenascope-writer", daemon=True)
                self._thread.start()
            wake, self._idle = self._idle, False
        if wake:
            self._wake.set()

    def remove(self, writer):
        with self._lock:
            if writer in self._writers:
                self._writers = tuple(w for w in self._writers if w is not writer)

    def _run(self):
        idle = 0
        while True:
            writers = self._writers
            if writers:
                idle = 0
                now = time.monotonic()
                for w in writers:
                    if now >= w._due:
                        w._due = now + w._interval
                        try:
                            w.drain()
                        except Exception as e:   # one session's failure never stops the others' writing
                            w.error = w.error or "cannot write %s: %s" % (w.sink.describe(), e)
            else:
                idle += 1
                if idle > self.idle_ticks:
                    with self._lock:
                        if not self._writers:
                            self._idle = True
                            self._wake.clear()
                    if self._idle:
                        self._wake.wait()   # add() sets it after it saw _idle
                    idle = 0
                    continue
            time.sleep(self.tick)

    def after_fork_in_child(self):
        """The child has no pump thread and must not write its parent's queues: forgotten, locks new."""
        for w in self._writers:
            w._lock = threading.Lock()
        self._lock = threading.Lock()
        self._writers = ()
        self._thread = None
        self._idle = False
        self._wake = threading.Event()


_pump = _Pump()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_pump.after_fork_in_child)


class Writer:
    """Owns the queue (drained by the process's pump thread); :meth:`close` drains everything and
    closes the sink.

    A sink that takes the queue's items as they are (``raw``: :class:`MemorySink`) has no pump: its
    queue is moved to the sink when it reaches ``capacity`` (:meth:`make_room`, by the recording thread)
    and when the writer closes. A memory session then wakes no thread (the pump's tick took the GIL from
    the recording thread every 5 ms for a drain that only moved items from one list to another).
    """

    def __init__(self, sink, capacity=1 << 18, interval=0.005):
        self.sink = sink
        self.capacity = capacity
        self.queue = collections.deque()
        self.dropped = 0          # events dropped by recording threads (guarded by _drop_lock)
        self._reported = 0        # of those, written as loss lines
        self._drop_lock = threading.Lock()
        self._lock = threading.Lock()   # one drain at a time (the pump's or the closing thread's)
        self._closed = False
        self.events_written = 0
        self.error = None
        self._interval = interval
        self._due = 0.0
        self.pumped = not getattr(sink, "raw", False)
        if self.pumped:
            _pump.add(self)

    def make_room(self):
        """The queue is full: True when it was moved to the sink (a memory session's: the event fits
        now), False when the event is to be dropped (:meth:`drop`; a pumped queue drains on its own)."""
        if self.pumped:
            return False
        self.drain()
        return not self._closed

    def drop(self):
        """Counts one event that did not fit (called by a recording thread)."""
        with self._drop_lock:
            self.dropped += 1

    def drain(self):
        """Writes what is queued (from the pump, or from the thread that closes the writer)."""
        with self._lock:
            if not self._closed:
                self._drain()

    def _drain(self):
        q = self.queue
        n = len(q)
        dropped = self.dropped
        if n == 0 and dropped == self._reported:
            return
        pop = q.popleft
        items = [pop() for _ in range(n)]
        if dropped != self._reported:
            items.append({"type": "loss", "count": dropped - self._reported})
            self._reported = dropped
        if self.error is not None:
            return
        if not self.pumped:   # a memory sink: the items as they are
            self.sink.take(items)
            self.events_written += operator.countOf(map(type, items), tuple)
            return
        observed = getattr(self.sink, "write_observed", None)
        if observed is not None:
            self._drain_observed(items, observed)
            return
        text, events = format_items(items)
        try:
            self.sink.write(text.encode("ascii"), events)
            self.events_written += events
        except OSError as e:
            self.error = "cannot write %s: %s" % (self.sink.describe(), e)
            print("arenascope: " + self.error + " (recording stopped; what was written is readable)", file=sys.stderr)

    def _drain_observed(self, queued, observed):
        """:meth:`_drain` for a capped file: the sink also learns the metadata lines and the event tuples."""
        fmt = EVENT_LINE
        fmt_stack = EVENT_LINE_STACK
        ring = self.sink.ring
        limit = ring.segment_bytes   # a write never passes one segment: a starved writer's big drain is cut up
        groups = []
        parts = []
        metas = []
        items = []
        size = 0
        for item in queued:
            cls = item.__class__
            if cls is dict or cls is str:
                line = _encode(item) + "\n" if cls is dict else item
                if line.startswith('{"type":"session"'):
                    line = ring.session(line)
                metas.append(line)
            else:
                line = fmt % item if len(item) == 12 else fmt_stack % item
                items.append(item)
            parts.append(line)
            size += len(line)
            if size >= limit:
                groups.append((parts, metas, items))
                parts, metas, items, size = [], [], [], 0
        if parts:
            groups.append((parts, metas, items))
        try:
            for parts, metas, items in groups:
                observed("".join(parts).encode("ascii"), len(items), metas, items)
                self.events_written += len(items)
        except OSError as e:
            self.error = "cannot write %s: %s" % (self.sink.describe(), e)
            print("arenascope: " + self.error + " (recording stopped; what was written is readable)", file=sys.stderr)

    def rewind(self):
        """A closed memory writer made ready for a new recording (see ``Session.rewind``): its queue,
        counts and sink emptied."""
        if self.pumped or not self._closed:
            raise ValueError("only a closed memory writer is rewound")
        self.queue.clear()
        self.dropped = 0
        self._reported = 0
        self.events_written = 0
        self.error = None
        self.sink.items = []
        self._closed = False

    def abandon(self):
        """In a forked child: drops the queue (the parent's events) and the sink, writing nothing."""
        self.queue.clear()
        self._closed = True
        self._drop_lock = threading.Lock()
        self._lock = threading.Lock()
        _pump.remove(self)
        self.sink.abandon()

    def close(self):
        if self.pumped:
            _pump.remove(self)
        with self._lock:
            if self._closed:
                return
            q = self.queue
            if not self.pumped and not self.sink.items and self.dropped == self._reported and self.error is None:
                # a memory session that never filled its queue (a test's, mostly): the queue is the recording
                # (the session is closed already, so no adapter appends any more)
                items = self.sink.items = list(q)
                q.clear()
                self.events_written += operator.countOf(map(type, items), tuple)
            else:
                self._drain()
            self._closed = True
        self.sink.close(self.events_written, self.dropped)
