"""Device-memory figures of one recording and limits on them: what the pytest plugin checks after a
test (:mod:`arenascope.pytest_plugin`), usable on any ``.jsonl`` the client wrote.

:func:`read_figures` reads a recording once and returns, per memory, its peak (the ``used`` gauge's
largest value: bytes handed out, as ``arenascope stats`` calls ``peak_bytes``), the reserved peak
(a pool's ``aux``), the bytes in use where a ``measure`` marker was written (or at the start) and at
the end, the allocations (``ALLOC`` events and pool requests) after that marker, and on demand the
bytes live at the peak or at the end, by allocation site. Sites are the innermost frames of the
session's site table when stacks were recorded, else an arena's innermost scope, else ``(no site)``,
as ``arenascope sites`` falls back. :func:`figures_of` gives the same figures for a session that
recorded into memory (``arenascope.Session(memory=True)``), from its queued events, with no file.

:func:`parse_size` reads the sizes limits are written in (``"64 MiB"``, ``"1.5GB"``, ``1024``).
"""

import json
import os
import re

#: The marker the plugin writes where the measured run of a test starts (after warm-ups).
MEASURE_MARKER = "arenascope: measured run"

_UNITS = {"": 1, "b": 1,
          "k": 1000, "kb": 1000, "m": 1000 ** 2, "mb": 1000 ** 2, "g": 1000 ** 3, "gb": 1000 ** 3,
          "t": 1000 ** 4, "tb": 1000 ** 4,
          "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}
_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([A-Za-z]*)\s*\Z")


def parse_size(value):
    """Bytes of a size: an int, or a number with a unit (B; kB, MB, GB, TB are powers of 1000; KiB,
    MiB, GiB, TiB powers of 1024; case does not matter). Raises ``ValueError`` saying why."""
    if isinstance(value, bool):
        raise ValueError("%r is not a size" % (value,))
    if isinstance(value, int):
        if value < 0:
            raise ValueError("%d is negative (a size is 0 or more bytes)" % value)
        return value
    if isinstance(value, float):
        raise ValueError("%r: give sizes as an int or a string with a unit (\"64 MiB\")" % value)
    if not isinstance(value, str):
        raise ValueError("%r is not a size (an int or a string such as \"64 MiB\")" % (value,))
    if value.strip().startswith("-"):
        raise ValueError("%r is negative (a size is 0 or more bytes)" % value)
    m = _SIZE.match(value)
    if not m or m.group(2).lower() not in _UNITS:
        raise ValueError("%r is not a size (a number and one of B, kB, MB, GB, KiB, MiB, GiB)" % value)
    n = float(m.group(1)) * _UNITS[m.group(2).lower()]
    if n != int(n):
        raise ValueError("%r is not a whole number of bytes" % value)
    return int(n)


def format_bytes(n):
    """``n`` bytes the way the messages write them: ``123 B``, ``4.0 KiB``, ``96.0 MiB``."""
    n = int(n)
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if abs(n) >= 1 << shift:
            return "%.1f %s" % (n / (1 << shift), unit)
    return "%d B" % n


# The client's event line (see _writer.EVENT_LINE); any other line is read as JSON.
_EVENT = re.compile(r'\{"t":(-?\d+),"kind":"(\w+)","mem":(-?\d+),"thread":-?\d+,"flags":(-?\d+),"a":(-?\d+),'
                    r'"b":(-?\d+),"c":(-?\d+),"used":(-?\d+),"aux":(-?\d+),"ref":(-?\d+),"ref2":(-?\d+)'
                    r'(?:,"site":(-?\d+))?\}\s*\Z')
_ALLOCATING = ("ALLOC", "POOL_REQUEST")


class MemoryFigures:
    """One memory's figures (bytes). ``start_used`` is the level where the measured run began."""

    __slots__ = ("id", "name", "kind", "device", "peak", "reserved_peak", "start_used", "end_used", "allocations",
                 "_peak_index", "_events")

    def __init__(self, mid, name, kind, device):
        self.id = mid
        self.name = name
        self.kind = kind
        self.device = device
        self.peak = 0
        self.reserved_peak = 0
        self.start_used = 0
        self.end_used = 0
        self.allocations = 0
        self._peak_index = -1
        self._events = []   # (kind, flags, a, b, c, used, ref2, site)

    @property
    def leaked(self):
        """Bytes in use at the end beyond those in use where the measured run began (0 or more)."""
        return max(0, self.end_used - self.start_used)

    def family(self):
        """The name without the client's ``" #N"`` number (``pyopencl.MemoryPool``)."""
        return re.sub(r" #\d+\Z", "", self.name)

    def as_json(self):
        return {"name": self.name, "kind": self.kind, "device": self.device, "peak_bytes": self.peak,
                "reserved_peak_bytes": self.reserved_peak, "leaked_bytes": self.leaked,
                "allocations": self.allocations}


class Figures:
    """What :func:`read_figures` found: ``memories`` in creation order, ``lost`` events, the site table."""

    def __init__(self):
        self.memories = []
        self.lost = 0
        self._strings = {}
        self._frames = {}
        self._stacks = {}
        self._scope_names = {}
        self._detail = None   # figures_of: makes the replayed Figures whose events by site these lack

    def _replayed(self, memory):
        """(figures, memory) holding ``memory``'s events: these, or (figures_of) a replay made on first use."""
        detail = self._detail
        if detail is None:
            return self, memory
        if detail.__class__ is not Figures:
            detail = self._detail = detail()
        return detail, next(m for m in detail.memories if m.id == memory.id)

    def site_label(self, memory, site, scope):
        """The allocating frame and its caller (``upload test_x.py:18 <- test_grows test_x.py:24``);
        files under the working directory relative to it."""
        if site >= 0 and site in self._stacks:
            frame_id, parent = self._stacks[site]
            frame = self._frames.get(frame_id)
            if frame is not None:
                label = _frame_text(frame)
                caller = None
                while parent in self._stacks:
                    caller = self._frames.get(self._stacks[parent][0])
                    # a comprehension is a frame of its own on the line that holds it: name the line's caller
                    if caller is None or caller[1:] != frame[1:]:
                        break
                    caller, parent = None, self._stacks[parent][1]
                return label + " <- " + _frame_text(caller) if caller is not None else label
        if scope >= 0 and memory.kind == "ARENA" and scope in self._scope_names:
            return "scope %s" % self._scope_names[scope]
        return "(no site)"

    def sites_at_peak(self, memory):
        """[(label, bytes)] live at the memory's peak, largest first."""
        fig, memory = self._replayed(memory)
        return fig._by_site(memory, memory._peak_index)

    def sites_at_end(self, memory, since_start=True):
        """[(label, bytes)] live at the end (only what the measured run allocated, when ``since_start``)."""
        fig, memory = self._replayed(memory)
        return fig._by_site(memory, len(memory._events) - 1, since_start)

    def _by_site(self, memory, upto, measured_only=False):
        events = memory._events
        forward, backward, live = [], [], {}
        measured = not measured_only
        for i in range(upto + 1):
            kind, flags, a, b, c, used, ref2, site = events[i]
            if kind == "MARKER":
                measured = True
                continue
            key = (site, ref2 if kind == "ALLOC" else -1, measured)
            if memory.kind == "ARENA":
                if kind == "ALLOC":
                    if flags & 1:
                        backward.append((a, b, key))
                    else:
                        forward.append((a + c - b, b, key))
                elif kind == "POINTER_RESTORE":
                    if flags & 1:
                        while backward and backward[-1][0] < a:
                            backward.pop()
                    else:
                        while forward and forward[-1][0] >= a:
                            forward.pop()
                elif kind == "RESET":
                    forward.clear()
                    backward.clear()
            elif kind in _ALLOCATING:
                live[a] = (b, key)
            elif kind in ("POOL_HOLD", "POOL_RELEASE", "FREE"):
                live.pop(a, None)
        totals = {}
        blocks = [(size, key) for _, size, key in forward + backward] + list(live.values())
        for size, (site, scope, was_measured) in blocks:
            if measured_only and not was_measured:
                continue
            label = self.site_label(memory, site, scope)
            totals[label] = totals.get(label, 0) + size
        if not measured_only and upto >= 0:
            rest = events[upto][5] - sum(totals.values())
            if rest > 0:
                totals["(in use before the recording)"] = rest
        return sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))


def _frame_text(frame):
    function, file, line = frame
    try:
        rel = os.path.relpath(file)
        if not rel.startswith(".."):
            file = rel
    except ValueError:   # another drive
        pass
    return "%s %s:%d" % (function, file, line)


class _Reader:
    """Builds a :class:`Figures` from a recording's lines (metadata objects and events) in order."""

    __slots__ = ("fig", "mems", "marker_id", "measured")

    def __init__(self):
        self.fig = Figures()
        self.mems = {}
        self.marker_id = None
        self.measured = False

    def meta(self, obj):
        """One JSON line other than the client's event line (metadata, or an event in another layout)."""
        fig = self.fig
        typ = obj.get("type")
        if typ == "string":
            fig._strings[obj["id"]] = obj["value"]
            if obj["value"] == MEASURE_MARKER:
                self.marker_id = obj["id"]
        elif typ == "memory":
            mf = MemoryFigures(obj["id"], obj.get("name", ""), obj.get("kind", ""), obj.get("device", ""))
            self.mems[mf.id] = mf
            fig.memories.append(mf)
            if self.measured:   # created in the measured run: all its bytes are the run's
                mf._events.append(("MARKER", 0, 0, 0, 0, 0, -1, -1))
        elif typ == "frame":
            fig._frames[obj["id"]] = (obj.get("function", "?"), obj.get("file", "?"), obj.get("line", 0))
        elif typ == "stack":
            fig._stacks[obj["id"]] = (obj.get("frame", -1), obj.get("parent", -1))
        elif typ == "loss":
            fig.lost += int(obj.get("count", 0))
        elif "kind" in obj and "type" not in obj:
            self.event(obj["kind"], obj.get("mem", -1), obj.get("flags", 0), obj.get("a", 0), obj.get("b", 0),
                       obj.get("c", 0), obj.get("used", 0), obj.get("aux", 0), obj.get("ref", -1), obj.get("ref2", -1),
                       obj.get("site", -1))

    def event(self, kind, mem, flags, a, b, c, used, aux, ref, ref2, site):
        if kind == "MARKER":
            if self.marker_id is not None and ref == self.marker_id:
                for mf in self.fig.memories:
                    mf.start_used = mf.end_used
                    mf.allocations = 0
                    mf._events.append(("MARKER", 0, 0, 0, 0, mf.end_used, -1, -1))
                self.measured = True
            return
        mf = self.mems.get(mem)
        if mf is None:
            return
        if kind == "SCOPE_ENTER":
            self.fig._scope_names[ref2] = self.fig._strings.get(ref, "?")
        if kind in _ALLOCATING:
            mf.allocations += 1
        if used > mf.peak:
            mf.peak = used
            mf._peak_index = len(mf._events)
        if aux > mf.reserved_peak and mf.kind == "POOL":
            mf.reserved_peak = aux
        mf.end_used = used
        mf._events.append((kind, flags, a, b, c, used, ref2, site))

    def done(self):
        fig = self.fig
        if self.marker_id is None or not self.measured:
            for mf in fig.memories:   # no measured-run marker: the whole recording is the measured run
                mf.start_used = 0
                mf.allocations = sum(1 for e in mf._events if e[0] in _ALLOCATING)
        return fig


def read_figures(path):
    """The :class:`Figures` of the JSONL recording at ``path``."""
    r = _Reader()
    match = _EVENT.match
    event = r.event
    with open(path, "r", encoding="ascii", errors="replace") as f:
        for line in f:
            m = match(line)
            if m is None:
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue   # a line cut short by a crash: the file reads to its last whole line
                if isinstance(obj, dict):
                    r.meta(obj)
                continue
            site = m.group(12)
            event(m.group(2), int(m.group(3)), int(m.group(4)), int(m.group(5)), int(m.group(6)), int(m.group(7)),
                  int(m.group(8)), int(m.group(9)), int(m.group(10)), int(m.group(11)),
                  -1 if site is None else int(site))
    return r.done()


def figures_of(session):
    """The :class:`Figures` of a closed memory session (``arenascope.Session(memory=True)``), read from
    its queued items without writing or parsing its lines: the same figures :func:`read_figures` gives
    for the file :meth:`~arenascope.Session.save` writes.

    One pass takes each memory's counters (peak, reserved peak, bytes in use where the measured run
    began and at the end, allocations, losses); the events by site, which only a broken limit's message
    needs, are gathered from the same items when first asked for (:meth:`Figures.sites_at_peak`)."""
    items = session.items()
    sites = session.writer.sink.sites
    fig = Figures()
    mems = {}
    marker = None     # the measured-run marker's string id
    measured = False
    memories = fig.memories
    for item in items:
        cls = item.__class__
        if cls is tuple:
            # (t, kind, mem, thread, flags, a, b, c, used, aux, ref, ref2[, site])
            kind = item[1]
            if kind == "MARKER":
                if marker is not None and item[10] == marker:
                    for mf in memories:
                        mf.start_used = mf.end_used
                        mf.allocations = 0
                    measured = True
                continue
            mf = mems.get(item[2])
            if mf is not None:
                if kind in _ALLOCATING:
                    mf.allocations += 1
                used = item[8]
                if used > mf.peak:
                    mf.peak = used
                if item[9] > mf.reserved_peak and mf.kind == "POOL":
                    mf.reserved_peak = item[9]
                mf.end_used = used
            continue
        if cls is not dict:   # a ready line: the general reader
            return _figures_replayed(session, items, sites)
        typ = item.get("type")
        obj = item
        if typ == "memory":
            mf = MemoryFigures(obj["id"], obj.get("name", ""), obj.get("kind", ""), obj.get("device", ""))
            mems[mf.id] = mf
            memories.append(mf)
        elif typ == "string":
            if obj["value"] == MEASURE_MARKER:
                marker = obj["id"]
        elif typ == "loss":
            fig.lost += int(obj.get("count", 0))
        elif typ is None and "kind" in obj:
            return _figures_replayed(session, items, sites)   # an event in another layout: the general reader
    if marker is None or not measured:
        for mf in memories:   # no measured-run marker: the whole recording is the measured run
            mf.start_used = 0
    fig._detail = lambda: _figures_replayed(session, items, sites)
    return fig


def _figures_replayed(session, items=None, sites=None):
    """figures_of's answer with every memory's events by site (a replay of the items through _Reader)."""
    if items is None:
        items = session.items()
        sites = session.writer.sink.sites
    r = _Reader()
    if sites is not None:   # the process's site table (read only here)
        r.fig._frames = sites.frame_of
        r.fig._stacks = sites.node_of
    event = r.event
    meta = r.meta
    loads = json.loads
    mems = r.mems
    for item in items:
        cls = item.__class__
        if cls is dict:
            meta(item)
        elif cls is str:
            meta(loads(item))
        else:
            # (t, kind, mem, thread, flags, a, b, c, used, aux, ref, ref2[, site])
            kind = item[1]
            if kind != "MARKER" and kind != "SCOPE_ENTER":
                mf = mems.get(item[2])
                if mf is not None:   # _Reader.event, inlined for every kind but the two it reads more of
                    used = item[8]
                    if kind in _ALLOCATING:
                        mf.allocations += 1
                    if used > mf.peak:
                        mf.peak = used
                        mf._peak_index = len(mf._events)
                    if item[9] > mf.reserved_peak and mf.kind == "POOL":
                        mf.reserved_peak = item[9]
                    mf.end_used = used
                    mf._events.append((kind, item[4], item[5], item[6], item[7], used, item[11],
                                       item[12] if len(item) == 13 else -1))
            else:
                event(kind, item[2], item[4], item[5], item[6], item[7], item[8], item[9], item[10], item[11],
                      item[12] if len(item) == 13 else -1)
    return r.done()
