"""A recording session: one output (file or live connection), its string, thread and memory tables,
and the scopes opened with :func:`arenascope.scope`.

Thread-safety: any thread may record. The hot path (:meth:`Session.emit`) takes no lock: it reads the
clock, looks the thread up and appends one tuple to the writer's queue (``deque.append`` is atomic).
New strings, threads and memories take ``_lock`` so their ids are unique and their lines precede
every event that uses them; they are queued as dicts, made JSON by the writer (or, in a memory
session, only if it is saved).
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, TypeVar, Union

from . import _events as K
from . import _stacks
from ._writer import FileSink, LiveSink, MemorySink, Writer

_T = TypeVar("_T", bound="Tracked")

_current = None
_current_lock = threading.Lock()
_PYTHON = sys.version.split()[0]
_hostname = []


def _host():
    """The machine's name, asked once a process (a session's start is on every test's path)."""
    if not _hostname:
        _hostname.append(socket.gethostname())
    return _hostname[0]


_attrs = [None, None]   # [(pid, argv), the session line's attributes for them]


def _attributes(pid):
    """The session line's attributes (made once a process and command line: a test's session is on
    every test's path)."""
    key = (pid, sys.argv[:])
    if _attrs[0] != key:
        _attrs[1] = {"client": "arenascope-python", "python": _PYTHON, "pid": str(pid), "argv": " ".join(sys.argv)}
        _attrs[0] = key
    return _attrs[1]


def current() -> Optional["Session"]:
    """The session recording now, or None (a session started with :func:`start_lazily` is made here,
    on the first call that asks for it)."""
    s = _current
    if s is None and _pending is not None:
        return _make_pending()
    return s


_pending = None   # the factory of a session started lazily and not yet made (see start_lazily)


def _make_pending():
    global _current, _pending
    with _current_lock:
        if _current is None and _pending is not None:
            factory, _pending = _pending, None
            _current = factory()
        return _current


class Tracked:
    """What a session needs from a tracked memory: its id, gauges and scope stack.

    ``used`` is the bytes in use, ``aux`` the second gauge (an arena's backward bytes, a pool's
    reserved bytes); :meth:`scope_pointers` the ``a``/``b`` of its scope events.
    """

    def __init__(self, session: "Session", mem: int, kind: int) -> None:
        self.session = session
        self.mem = mem
        self.kind = kind
        self.used = 0
        self.aux = 0
        self.scopes = []        # open scope ids, innermost last
        self.scope_names = []   # their names

    def scope_pointers(self) -> Tuple[int, int]:
        """The ``a``, ``b`` of this memory's scope events (its gauges; an arena gives its two pointers)."""
        return self.used, self.aux

    def innermost_scope(self) -> int:
        """The id of the innermost scope open on this memory, or -1."""
        return self.scopes[-1] if self.scopes else -1


class Session:
    """Records to ``out`` (a JSONL path), ``live`` (``HOST:PORT``) or, with ``memory=True``, into the
    process (the events kept as they were queued: :func:`arenascope.testing.figures_of` reads them,
    :meth:`save` writes them as the JSONL a file session would have written); exactly one of them.

    :param stacks: Python frames captured per allocation (0: none)
    :param capacity: events the queue holds before further ones are dropped (and counted as lost); a
        memory session moves a full queue into its recording instead and loses none
    :param connect_timeout: seconds a live session keeps trying to connect and be answered
    :param exclusive: ``out`` is a name made up for the user: created exclusively, ``NAME-1.jsonl``,
        ``NAME-2.jsonl``, ... when it exists (see :attr:`FileSink.path` for the name used)
    :param max_size: keep the ``out`` file under this many bytes (an int, or text such as ``"2GiB"``; at
        least 1 MiB) by dropping its oldest segments whole, counted in the session line's ``ring.*``
        attributes (see ``_ring.py`` and docs/guide/python.md)
    :param max_duration: keep only the last stretch of the session (seconds as a number, or text such as
        ``"8h"``, ``"90min"``; at least 1 s), the same way
    :param file_mode: what happens to a file already at ``out``: ``"truncate"`` (default: replaced),
        ``"numbered"`` (as ``exclusive``), ``"new"`` (refused: :class:`FileExistsError`) or ``"atomic"``
        (replaced when the session closes, whole); see :class:`FileSink`

    After ``os.fork()`` the child does not record: its copy of the session is closed without writing
    (the parent's file or connection is left to the parent), and :func:`current` is None in the child,
    so a new session may be started there.
    """

    def __init__(self, out: Optional[str] = None, live: Optional[str] = None, name: Optional[str] = None, stacks: int = 0,
                 capacity: int = 1 << 18, token: Optional[str] = None, connect_timeout: float = 30.0,
                 exclusive: bool = False, memory: bool = False, file_mode: Optional[str] = None,
                 max_size: Union[int, str, None] = None, max_duration: Union[float, str, None] = None) -> None:
        if (out is not None) + (live is not None) + bool(memory) != 1:
            raise ValueError("a session records to exactly one of out=FILE.jsonl, live=HOST:PORT or memory=True")
        ring = None
        if max_size is not None or max_duration is not None:
            if out is None:
                raise ValueError("max_size and max_duration cap a file: give out=FILE.jsonl (a live receiver caps"
                                 " its own files: arenascope listen --max-size)")
            from ._ring import Ring, parse_duration, parse_size
            ring = Ring(0 if max_size is None else parse_size(max_size),
                        0 if max_duration is None else parse_duration(max_duration))
        if stacks < 0:
            raise ValueError("stacks must be 0 (off) or a positive number of frames, got %r" % stacks)
        self.name = name or os.path.basename(sys.argv[0] or "python") or "python"
        self.stacks = int(stacks)
        self.t0 = time.perf_counter_ns()
        if memory:
            sink = MemorySink()
        elif ring is not None:
            from ._ring import RingFileSink
            if file_mode == "new" and os.path.lexists(out):
                raise FileExistsError(out)
            # a capped file is rewritten in place as it goes ("atomic" replaces an earlier file at the start)
            sink = RingFileSink(out, ring, exclusive or file_mode == "numbered")
        elif out is not None:
            sink = FileSink(out, exclusive, file_mode)
        else:
            sink = LiveSink(live, self.name, token, connect_timeout)
        self.pid = os.getpid()
        self.forked_from = None    # in a forked child: the parent's pid (the child does not record)
        self.writer = Writer(sink, capacity)
        self._queue = self.writer.queue
        self._cap = capacity
        self._lock = threading.RLock()
        self._strings = {}
        self._stacks = {}   # call path (code objects and lines) -> site
        self._frames = {}   # (code object, line) -> frame id
        self._nodes = {}    # (parent node, frame id) -> stack node id
        self._site_lock = self._lock
        self._shared_sites = None
        if memory:   # the process's site table: its sites are renumbered only if it is saved
            self._shared_sites = sink.sites = _stacks.SHARED
            self._stacks = _stacks.SHARED.stacks
            self._site_lock = _stacks.SHARED.lock
        self._threads = {}
        self._memories = {}
        self._next_memory = 0
        self._next_scope = 0
        self._global_scopes = []   # (name, {mem: scope id}) of the open arenascope.scope()s
        self._on_close = []        # adapters' last looks (e.g. pool buffers collected since their last operation)
        self.closed = False
        self._header()

    def _header(self):
        self.writer.queue.append({
            "type": "session", "name": self.name, "host": _host(), "start_epoch_ns": time.time_ns(),
            "devices": [], "attributes": dict(_attributes(self.pid))})

    def rewind(self, name: Optional[str] = None) -> "Session":
        """Starts a closed memory session over as a new, empty recording named ``name`` (its clock from
        now, its string, thread and memory tables empty), keeping its writer, sink and locks: the pytest
        plugin records a suite's tests one after another in one session this way instead of making and
        closing one a test. The earlier recording is gone (save it first). The memories it tracked are
        detached: their adapters record nothing more (as after :meth:`close`), here or in a later
        recording. Returns the session, not yet current (:func:`start` or :func:`start_lazily`)."""
        if not isinstance(self.writer.sink, MemorySink):
            raise ValueError("rewind() is a memory session's (this one records to %s)" % self.writer.sink.describe())
        if not self.closed or self.forked_from is not None:
            raise ValueError("a memory session is rewound once it is closed")
        self.detach()
        if name is not None:
            self.name = name
        self.t0 = time.perf_counter_ns()
        self._strings = {}
        self._threads = {}
        self._next_memory = 0
        self._next_scope = 0
        self.writer.rewind()
        self.closed = False
        self._header()
        return self

    def detach(self) -> None:
        """Lets go of the memories the session tracked: each adapter's state is pointed at a recording
        that takes nothing (closed), so nothing of it reaches this session any more, and the session and
        those states no longer refer to each other (freed without waiting for a full collection)."""
        if self._memories:
            for tracked in self._memories.values():
                tracked.session = DETACHED
            self._memories = {}
        if self._on_close:
            self._on_close = []
        if self._global_scopes:
            self._global_scopes = []

    # ------------------------------------------------------------------ tables

    def intern(self, text: str) -> int:
        """The id of ``text`` in the session's string table (declared on first use)."""
        sid = self._strings.get(text)
        if sid is None:
            with self._lock:
                sid = self._strings.get(text)
                if sid is None:
                    sid = len(self._strings)
                    self._queue.append({"type": "string", "id": sid, "value": text})
                    self._strings[text] = sid
        return sid

    def thread(self) -> int:
        """The calling thread's id (declared with its name on first use)."""
        ident = threading.get_ident()
        tid = self._threads.get(ident)
        if tid is None:
            with self._lock:
                tid = self._threads.get(ident)
                if tid is None:
                    tid = len(self._threads)
                    self._queue.append({"type": "thread", "id": tid, "name": threading.current_thread().name})
                    self._threads[ident] = tid
        return tid

    def register(self, tracked_factory: Callable[["Session", int], _T], name: str, kind: int, device: str, capacity: int,
                 attributes: Optional[Mapping[str, Any]] = None) -> _T:
        """Declares a memory and publishes MEMORY_CREATED; returns ``tracked_factory(session, id)``."""
        with self._lock:
            mem = self._next_memory
            if mem > 0xFFFF:
                raise ValueError("a session holds at most 65536 memories")
            self._next_memory += 1
            self._queue.append({"type": "memory", "id": mem, "name": name, "kind": kind, "device": device,
                                "capacity": int(capacity),
                                "attributes": {str(k): str(v) for k, v in (attributes or {}).items()}})
            tracked = tracked_factory(self, mem)
            self._memories[mem] = tracked
        self.emit(K.MEMORY_CREATED, mem, 0, 0, capacity, 0, 0, 0, self.intern(name), -1)
        # scopes already open session-wide cover memories created inside them
        for scope_name, ids in self._global_scopes:
            ids[mem] = self.enter_scope(tracked, scope_name)
        return tracked

    def on_close(self, fn: Callable[[], Any]) -> None:
        """Runs ``fn()`` when the session closes, before its output is flushed (events still count)."""
        self._on_close.append(fn)

    def next_scope_id(self) -> int:
        """A fresh scope id, unique in the session."""
        with self._lock:
            sid = self._next_scope
            self._next_scope += 1
            return sid

    # ------------------------------------------------------------------ events

    def now(self) -> int:
        """Nanoseconds since the session started (the clock every event is stamped with)."""
        return time.perf_counter_ns() - self.t0

    def emit(self, kind: int, mem: int, flags: int, a: int, b: int, c: int, used: int, aux: int, ref: int, ref2: int,
             t: Optional[int] = None) -> None:
        """Queues one event (dropped and counted when the queue is full)."""
        q = self._queue
        if len(q) < self._cap or self.writer.make_room():
            tid = self._threads.get(threading.get_ident())
            if tid is None:
                tid = self.thread()
            q.append((time.perf_counter_ns() - self.t0 if t is None else t, kind, mem, tid, flags, a, b, c, used, aux,
                      ref, ref2))
        else:
            self.writer.drop()

    def emit_site(self, kind: int, mem: int, flags: int, a: int, b: int, c: int, used: int, aux: int, ref: int, ref2: int,
                  t: Optional[int] = None) -> None:
        """:meth:`emit` for an allocation: with the caller's stack when stacks are on."""
        if not self.stacks:
            return self.emit(kind, mem, flags, a, b, c, used, aux, ref, ref2, t)
        q = self._queue
        if len(q) < self._cap or self.writer.make_room():
            if t is None:
                t = time.perf_counter_ns() - self.t0
            site = _stacks.capture(self, self.stacks, 3)
            tid = self._threads.get(threading.get_ident())
            if tid is None:
                tid = self.thread()
            q.append((t, kind, mem, tid, flags, a, b, c, used, aux, ref, ref2, site))
        else:
            self.writer.drop()

    def marker(self, text: str) -> None:
        """A marker event (a labelled instant on the timeline)."""
        self.emit(K.MARKER, -1, 0, 0, 0, 0, 0, 0, self.intern(str(text)), -1)

    # ------------------------------------------------------------------ scopes

    def enter_scope(self, tracked: Tracked, name: str, params: Optional[Mapping[str, int]] = None) -> int:
        """Opens scope ``name`` on one memory (with ``params``, when given); returns its id."""
        sid = self.next_scope_id()
        a, b = tracked.scope_pointers()
        self.emit(K.SCOPE_ENTER, tracked.mem, 0, a, b, tracked.innermost_scope(), tracked.used, tracked.aux,
                  self.intern(name), sid)
        tracked.scopes.append(sid)
        tracked.scope_names.append(name)
        if params:
            self.scope_params(tracked, params)
        return sid

    def scope_params(self, tracked: Tracked, params: Mapping[str, int]) -> None:
        """Attaches integer ``params`` to the innermost scope open on ``tracked`` (none open: nothing)."""
        if not tracked.scopes:
            return
        sid = tracked.scopes[-1]
        for k, v in params.items():
            self.emit(K.SCOPE_PARAM, tracked.mem, 0, _int_param(k, v), 0, 0, tracked.used, tracked.aux,
                      self.intern(str(k)), sid)

    def exit_scope(self, tracked: Tracked, name: str, sid: int) -> None:
        """Closes scope ``sid`` on ``tracked`` and any left open inside it, innermost first."""
        if sid in tracked.scopes:
            # scopes close innermost first; one left open inside is closed with it
            while tracked.scopes:
                inner = tracked.scopes.pop()
                inner_name = tracked.scope_names.pop()
                a, b = tracked.scope_pointers()
                self.emit(K.SCOPE_EXIT, tracked.mem, 0, a, b, 0, tracked.used, tracked.aux, self.intern(inner_name), inner)
                if inner == sid:
                    break

    def global_enter(self, name: str, params: Optional[Mapping[str, int]]) -> Tuple[str, Dict[int, int]]:
        """Opens scope ``name`` on every memory (and, until it closes, on each memory created); the entry to close."""
        ids = {}
        for mem, tracked in list(self._memories.items()):
            ids[mem] = self.enter_scope(tracked, name, params)
        entry = (name, ids)
        self._global_scopes.append(entry)
        return entry

    def global_params(self, params: Mapping[str, int]) -> None:
        """Attaches ``params`` to the innermost session-wide scope open, on every memory it covers."""
        if self._global_scopes:
            for mem in self._global_scopes[-1][1]:
                self.scope_params(self._memories[mem], params)

    def global_exit(self, entry: Tuple[str, Dict[int, int]]) -> None:
        """Closes the session-wide scope :meth:`global_enter` returned ``entry`` for."""
        name, ids = entry
        for mem, sid in ids.items():
            self.exit_scope(self._memories[mem], name, sid)
        if entry in self._global_scopes:
            self._global_scopes.remove(entry)

    # ------------------------------------------------------------------ end

    @property
    def lost(self) -> int:
        """Events dropped so far because the queue was full."""
        return self.writer.dropped

    def close(self) -> None:
        """Closes every open scope, flushes the queue and closes the output; idempotent."""
        if self.closed:
            return
        for fn in self._on_close:
            try:
                fn()
            except Exception as e:  # a last look never loses the recording
                print("arenascope: %s" % e, file=sys.stderr)
        self.closed = True
        for entry in reversed(list(self._global_scopes)):
            self.global_exit(entry)
        self.writer.close()

    def items(self) -> List[Any]:
        """A closed memory session's recording: event tuples and metadata lines, in queue order."""
        if not isinstance(self.writer.sink, MemorySink):
            raise ValueError("items() is a memory session's (this one records to %s)" % self.writer.sink.describe())
        if not self.closed:
            raise ValueError("a memory session's items are complete once it is closed")
        return self.writer.sink.items

    def save(self, path: str) -> str:
        """Writes a closed memory session's recording to ``path`` as JSONL (``arenascope open`` reads
        it); returns the path."""
        self.items()
        return self.writer.sink.save(path)

    def _forget_after_fork(self, parent):
        """In a forked child: the session's copy stops, writing nothing (the queue holds the parent's events)."""
        self.forked_from = parent
        self.closed = True
        self._lock = threading.RLock()   # another thread of the parent may have held it
        if self._shared_sites is None:
            self._site_lock = self._lock
        self.writer.abandon()

    def summary(self) -> str:
        """One line: events written, lost, where (and, live, what the receiver confirmed)."""
        if self.forked_from is not None:
            return ("arenascope: pid %d, forked from pid %d, recorded nothing (the parent records to %s)"
                    % (os.getpid(), self.forked_from, self.writer.sink.describe()))
        w = self.writer
        sink = w.sink
        line = "arenascope: %d events, %d lost -> %s" % (w.events_written, w.dropped, sink.describe())
        if isinstance(sink, LiveSink):
            if sink.broken:
                line += " (connection broke: %s; %d events not delivered)" % (sink.broken, sink.unsent_events)
            elif sink.delivered_events is not None:
                line += " (receiver confirmed %d)" % sink.delivered_events
            if sink.receiver_message:
                line += " (receiver: %s)" % sink.receiver_message
        if w.error:
            line += " (" + w.error + ")"
        return line

    def ok(self) -> bool:
        """Whether everything recorded reached the output."""
        if self.forked_from is not None:
            return True
        w = self.writer
        sink = w.sink
        if w.error or w.dropped:
            return False
        if isinstance(sink, LiveSink):
            return not sink.broken and sink.delivered_events == w.events_written
        return True


class _Detached(Session):
    """Where the memories of a rewound (or detached) session record to: nowhere. Closed, so the adapters
    that look (pools) record nothing; events of those that do not (an arena's) are dropped here."""

    def __init__(self):
        Session.__init__(self, memory=True, name="detached")
        self.closed = True
        self.writer.queue.clear()

    def emit(self, *args, **kwargs) -> None:
        pass

    emit_site = emit

    def intern(self, text: str) -> int:
        return -1

    def register(self, *args, **kwargs):
        raise RuntimeError("a detached memory registers nothing")


#: The one recording detached memories point at (see :meth:`Session.detach`).
DETACHED = _Detached()


def _int_param(key, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(value, "__index__"):
        raise TypeError("scope parameter %r must be a number, got %r" % (key, value))
    v = int(value)
    if not -2**63 <= v < 2**63:
        raise ValueError("scope parameter %r is out of the 64-bit range: %r" % (key, value))
    return v


def start(session):
    """Makes ``session`` the current one (one at a time)."""
    global _current
    if _pending is not None:
        _make_pending()   # a lazily started session records already: it is made, and refuses this one
    with _current_lock:
        if _current is not None and not _current.closed:
            raise RuntimeError("an arenascope session is already recording (to %s)" % _current.writer.sink.describe())
        _current = session


def stop(session):
    global _current
    with _current_lock:
        if _current is session:
            _current = None
    session.close()


def start_lazily(factory):
    """Starts a session that is made (``factory()``, which returns a new :class:`Session`) only when
    something first asks for the current one (an adapter creating a pool or an arena, a scope, a
    marker): the pytest plugin's session of a test that records no memory costs no session at all.
    :func:`stop_lazily` ends it."""
    global _pending
    with _current_lock:
        if _current is not None and not _current.closed or _pending is not None:
            raise RuntimeError("an arenascope session is already recording")
        _pending = factory


def stop_lazily(session):
    """Ends what :func:`start_lazily` started: ``session`` is the one its factory made (stopped here), or
    None when nothing asked for it (then nothing is made any more)."""
    global _pending
    with _current_lock:
        _pending = None
    if session is not None:
        stop(session)


def _after_fork_in_child():
    """``os.fork()`` copied the recording: the child's copy stops (parent and child writing one file
    or connection would duplicate events, send times backwards and double the peaks)."""
    global _current, _current_lock, _pending
    s = _current
    _current = None
    _pending = None
    _current_lock = threading.Lock()   # may have been held by another thread at the fork
    if s is not None and not s.closed:
        s._forget_after_fork(s.pid)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
