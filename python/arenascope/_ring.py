"""Caps for long recordings to a JSONL file: ``max_size`` (bytes) and ``max_duration`` (ns).

The file is a ring of *segments*: the writer's output, grouped into runs of at least 1/64 of the cap.
When the next write would take the file past ``max_size`` (or its events span more than 1.25 times
``max_duration``), the oldest segments are dropped whole: a new file is written beside the old one
(``FILE.ring-tmp``) holding every metadata line the dropped segments held (the session line's
attributes then say what was dropped, as the Java writer's ``ring.*`` attributes do), one
``MEMORY_CREATED`` line per memory still open at the cut carrying its gauges then, and the kept bytes
copied as they are; it is synced to disk and renamed over the old one in one step. So the path always
names a whole, readable JSONL file, after a crash too. By size the rewrite keeps 75% of the cap; by
time it keeps the last ``max_duration`` (and a little more: whole segments).

Allocations made before the cut are in the carried gauges, not listed one by one, as in the Java ring.
"""

import json
import os
import re

MIN_BYTES = 1 << 20
MIN_DURATION_NS = 1_000_000_000
KEEP_PERCENT = 75
DURATION_SLACK_PERCENT = 125
_UNITS = {"": 0, "K": 10, "M": 20, "G": 30, "T": 40}


def parse_size(text):
    """A byte count such as ``2GiB``, ``512MiB``, ``300M`` or ``1048576`` (binary units), at least 1 MiB.

    :raises ValueError: naming ``max_size`` and the text
    """
    if isinstance(text, int) and not isinstance(text, bool):
        n = text
    else:
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGTkmgt]?)(?:[iI]?[bB]|[iI])?\s*", str(text))
        if not m:
            raise ValueError("max_size: %r is not a byte count (e.g. 2GiB, 512MiB, 300M or 1048576)" % (text,))
        n = int(float(m.group(1)) * (1 << _UNITS[m.group(2).upper()]))
    if n < MIN_BYTES:
        raise ValueError("max_size: %r is smaller than a few chunks of events can be; give at least 1MiB" % (text,))
    return n


def parse_duration(text):
    """A duration in ns from ``8h``, ``90min``, ``1h30m``, ``45s``, ``2d`` (a bare number: seconds), at least 1 s.

    :raises ValueError: naming ``max_duration`` and the text
    """
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        ns = float(text) * 1e9
    else:
        s = str(text).strip().lower()
        parts = re.findall(r"(\d+(?:\.\d+)?)\s*(ms|min|sec|s|m|h|d|)\s*", s)
        if not s or "".join(a + b for a, b in parts) != re.sub(r"\s+", "", s) or (
                len(parts) > 1 and any(u == "" for _, u in parts)):
            raise ValueError("max_duration: %r is not a duration (e.g. 8h, 90min, 1h30m, 45s)" % (text,))
        scale = {"": 1e9, "s": 1e9, "sec": 1e9, "ms": 1e6, "m": 60e9, "min": 60e9, "h": 3600e9, "d": 86400e9}
        ns = sum(float(v) * scale[u] for v, u in parts)
    if not ns >= MIN_DURATION_NS:
        raise ValueError("max_duration: %r is shorter than 1 s" % (text,))
    return int(ns)


class _Segment:
    __slots__ = ("offset", "size", "metas", "gauges", "first", "last", "events", "carry")

    def __init__(self, offset, carry=False):
        self.offset = offset
        self.size = 0
        self.metas = []
        self.gauges = {}     # mem -> (used, aux, closed) at the segment's end
        self.first = -1
        self.last = -1
        self.events = 0
        self.carry = carry


class Ring:
    """The bookkeeping of a capped JSONL file (used by :class:`RingFileSink`, on the writer thread)."""

    def __init__(self, max_size=0, max_duration=0):
        self.max_size = max_size
        self.max_duration = max_duration
        step = []
        if max_size:
            step.append(max(64 << 10, max_size // 64))
        self.segment_bytes = min(step) if step else 1 << 20
        self.segment_ns = max(1, max_duration // 64) if max_duration else 0
        self.segments = []
        self.created = {}            # mem -> the MEMORY_CREATED tuple
        self.carried_metas = []      # metadata lines of dropped segments, in order
        self.carry = {}              # mem -> (used, aux) at the cut
        self.session_line = None
        self.dropped_segments = 0
        self.dropped_events = 0
        self.dropped_bytes = 0
        self.window_start = 0
        self.rewrites = 0

    def attributes(self):
        """The session attributes that say what was kept and dropped (the Java writer's ``ring.*`` keys)."""
        return {"ring.max_size_bytes": str(self.max_size), "ring.max_duration_ns": str(self.max_duration),
                "ring.dropped_chunks": str(self.dropped_segments), "ring.dropped_events": str(self.dropped_events),
                "ring.dropped_bytes": str(self.dropped_bytes), "ring.window_start_ns": str(self.window_start),
                "ring.rewrites": str(self.rewrites)}

    def session(self, line):
        """The session line with the ring's attributes (remembered: it heads every rewritten file)."""
        obj = json.loads(line)
        obj.setdefault("attributes", {}).update(self.attributes())
        self.session_line = line
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=True) + "\n"

    def observe(self, offset, size, metas, items):
        """Adds one write (``size`` bytes at ``offset``: the metadata lines ``metas`` and event tuples ``items``)."""
        seg = self.segments[-1] if self.segments and not self.segments[-1].carry else None
        if seg is None or seg.size >= self.segment_bytes or (
                self.segment_ns and seg.first >= 0 and seg.last - seg.first >= self.segment_ns):
            seg = _Segment(offset)
            self.segments.append(seg)
        seg.size += size
        seg.metas.extend(metas)
        g = seg.gauges
        created = self.created
        for it in items:
            t = it[0]
            if seg.first < 0:
                seg.first = t
            if t > seg.last:
                seg.last = t
            m = it[2]
            if m < 0:
                continue
            kind = it[1]
            if kind == "MEMORY_CREATED":
                created[m] = it
            g[m] = (it[8], it[9], kind == "MEMORY_CLOSED")
        seg.events += len(items)

    def to_drop(self, file_bytes, header_bytes, incoming, last_t):
        """How many of the oldest segments must go before ``incoming`` more bytes are written (0: none)."""
        segs = self.segments
        if not segs:
            return 0
        k = 0
        if self.max_size and file_bytes + incoming > self.max_size:
            room = min(self.max_size * KEEP_PERCENT // 100, self.max_size - incoming)
            header = header_bytes + 200 * (len(self.created) + 1)
            while k < len(segs):
                header += sum(len(x) for x in segs[k].metas)
                if header + file_bytes - segs[k].offset <= room:
                    break
                k += 1
            k = max(k, 1)
        if self.max_duration and last_t >= 0:
            real = [s for s in segs if s.events and not s.carry]
            if real and last_t - real[0].first > self.max_duration * DURATION_SLACK_PERCENT // 100:
                t = 0
                while t < len(segs) and (segs[t].carry or not segs[t].events or segs[t].last < last_t - self.max_duration):
                    t += 1
                k = max(k, t)
        return k

    def drop(self, k, next_first):
        """Folds the oldest ``k`` segments into what the kept window starts from."""
        for seg in self.segments[:k]:
            self.carried_metas.extend(x for x in seg.metas if not x.startswith('{"type":"session"'))
            for m, (used, aux, closed) in seg.gauges.items():
                if closed:
                    self.carry.pop(m, None)
                else:
                    self.carry[m] = (used, aux)
            if not seg.carry:
                self.dropped_segments += 1
                self.dropped_events += seg.events
                self.dropped_bytes += seg.size
        del self.segments[:k]
        start = next_first
        for seg in self.segments:
            if seg.events and not seg.carry:
                start = seg.first
                break
        self.window_start = max(self.window_start, start)
        self.rewrites += 1

    def header(self):
        """The lines that head a rewritten file: session, carried metadata, carried gauges."""
        lines = [self.session(self.session_line)] + self.carried_metas
        carry = []
        for m in sorted(self.carry):
            used, aux = self.carry[m]
            c = self.created.get(m)
            obj = {"t": self.window_start, "kind": "MEMORY_CREATED", "mem": m, "used": used, "aux": aux}
            if c is not None:
                obj.update({"thread": c[3], "flags": c[4], "a": c[5], "b": c[6], "c": c[7], "ref": c[10]})
            carry.append(json.dumps(obj, separators=(",", ":")) + "\n")
        return "".join(lines), "".join(carry), len(carry)


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


class RingFileSink:
    """A JSONL file kept within a :class:`Ring` cap (see the module comment); the writer feeds it with
    :meth:`write_observed`. Same interface as ``FileSink`` otherwise."""

    def __init__(self, path, ring, exclusive=False):
        from ._writer import FileSink
        self._file = FileSink(path, exclusive)
        self.path = self._file.path
        self.ring = ring
        self.delivered_events = None
        self.receiver_message = None
        self._size = 0
        self._header = 0
        self._tmp = self.path + ".ring-tmp"
        try:
            os.unlink(self._tmp)   # a rewrite a crash left half done
        except OSError:
            pass

    def write_observed(self, data, events, metas, items):
        ring = self.ring
        last = items[-1][0] if items else -1
        first = items[0][0] if items else -1
        k = ring.to_drop(self._size, self._header, len(data), last)
        if k:
            self._rewrite(k, first)
        offset = self._size
        self._file.write(data, events)
        self._size += len(data)
        if not self._header and metas:
            self._header = len(data)
        ring.observe(offset, len(data), metas, items)

    def write(self, data, events):
        self.write_observed(data, events, [], [])

    def _rewrite(self, k, next_first):
        ring = self.ring
        segs = ring.segments
        keep_from = segs[k].offset if k < len(segs) else self._size
        ring.drop(k, next_first)
        head, carry, carried = ring.header()
        head_b = head.encode("ascii")
        carry_b = carry.encode("ascii")
        fd = os.open(self._tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            _write_all(fd, head_b)
            _write_all(fd, carry_b)
            with open(self.path, "rb") as old:
                old.seek(keep_from)
                while True:
                    block = old.read(1 << 20)
                    if not block:
                        break
                    _write_all(fd, block)
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            os.unlink(self._tmp)
            raise
        os.close(fd)
        os.close(self._file._fd)
        os.replace(self._tmp, self.path)
        self._file._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        shift = len(head_b) + len(carry_b) - keep_from
        for seg in ring.segments:
            seg.offset += shift
        if carried:
            c = _Segment(len(head_b), carry=True)
            c.size = len(carry_b)
            c.gauges = {m: (u, a, False) for m, (u, a) in ring.carry.items()}
            ring.segments.insert(0, c)
        self._header = len(head_b)
        self._size = os.fstat(self._file._fd).st_size

    def abandon(self):
        self._file.abandon()

    def close(self, sent_events, lost):
        self._file.close(sent_events, lost)

    def describe(self):
        r = self.ring
        if r.dropped_segments:
            return "%s (capped: %d older segments, %d events dropped)" % (self.path, r.dropped_segments, r.dropped_events)
        return self.path
