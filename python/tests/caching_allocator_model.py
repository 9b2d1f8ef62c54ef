"""An independent model of PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp),
written apart from the Java one (profiler-core's dev.arenascope.core.pool.torch) so that the two can
check each other: this one writes snapshots, the Java one must replay them exactly.

Rules modelled: sizes rounded to 512 B (or to a power-of-two division, roundup_power2_divisions);
requests up to 1 MiB from the small pool's 2 MiB segments, larger ones from the large pool (20 MiB
segments below 10 MiB, else the size rounded to 2 MiB); best fit over (stream, size, address) per pool;
max_split_size (no split at or above it, oversize blocks used only within max_non_split_rounding of
the request); split when the remainder is >= 512 B (small pool) or > 1 MiB (large pool); a block freed
merges with free neighbours; a cudaMalloc that would pass the capacity first frees oversize cached
blocks (when max_split_size is set), then every unsplit cached block, and retries; blocks whose free
was requested but not completed (record_stream) are neither reused nor merged. Expandable segments
(expandable=1): one reserved address range per stream and pool, mapped in pages (2 MiB small, 20 MiB
large) from the lowest unmapped range whose free block before it and the pages after it hold the
request; every remainder of 512 B or more split off; best fit counting a block that ends at unmapped
pages as large as it could grow. Under a capacity a request is refused before any mapping when the
reserved bytes and its segment size would pass it, and a page mapping past it fails; then the cached
blocks are given back: every whole free page of a free block is unmapped (a range left wholly unmapped
is released, the next request reserving a new one), and the request is retried once, as
release_cached_blocks does. garbage_collection_threshold is left to the Java model.

Usage:  caching_allocator_model.py generate OUT.pickle SEED [max_split_size_mb=N] [roundup=N] [capacity_mb=N] [expandable=1]
        caching_allocator_model.py check SNAPSHOT.pickle      (prints "model: exact" or the divergence)
Standard library only.
"""

import bisect
import pickle
import random
import sys

MIN_BLOCK = 512
SMALL_SIZE = 1 << 20
SMALL_BUFFER = 2 << 20
LARGE_BUFFER = 20 << 20
MIN_LARGE_ALLOC = 10 << 20
ROUND_LARGE = 2 << 20
NO_LIMIT = (1 << 64) - 1


class Settings:
    def __init__(self, max_split=NO_LIMIT, divisions=None, capacity=None, non_split_rounding=LARGE_BUFFER, expandable=False):
        self.expandable = expandable
        self.max_split = max_split
        self.divisions = divisions or [0] * 16
        self.capacity = capacity
        self.non_split_rounding = non_split_rounding


def divisions_for(settings, size):
    index = (size.bit_length() - 1) - 20
    return settings.divisions[max(0, min(15, index))]


def round_size(settings, size):
    if size < MIN_BLOCK:
        return MIN_BLOCK
    d = divisions_for(settings, size)
    if d > 1 and size > MIN_BLOCK * d:
        if size & (size - 1) == 0:
            return size
        floor = 1 << (size.bit_length() - 1)
        step = floor >> (d.bit_length() - 1)
        if step == 0:
            return floor << 1
        low = size & ~(step - 1)
        return size if low == size else low + step
    return -(-size // MIN_BLOCK) * MIN_BLOCK


def segment_size(size):
    if size <= SMALL_SIZE:
        return SMALL_BUFFER
    if size < MIN_LARGE_ALLOC:
        return LARGE_BUFFER
    return -(-size // ROUND_LARGE) * ROUND_LARGE


class Block:
    __slots__ = ("addr", "size", "stream", "small", "prev", "next", "allocated", "pending", "requested", "mapped", "seg")

    def __init__(self, addr, size, stream, small):
        self.addr, self.size, self.stream, self.small = addr, size, stream, small
        self.prev = self.next = None
        self.allocated = False
        self.pending = False
        self.requested = 0
        self.mapped = True
        self.seg = None  # (base, page) of its expandable segment, or None

    def split(self):
        return self.prev is not None or self.next is not None


class Divergence(Exception):
    pass


class Allocator:
    """One device. `device` answers cudaMalloc(size) with an address or None (out of memory) and is told
    of every cudaFree; `trace` receives the entries a recording allocator would write."""

    def __init__(self, settings, device, trace):
        self.s = settings
        self.device = device
        self.trace = trace
        self.free = {True: [], False: []}  # small? -> sorted [(stream, size, addr)] of free mapped blocks
        self.unmapped = {True: [], False: []}  # small? -> sorted [(stream, addr)] of unmapped ranges
        self.blocks = {}  # addr -> Block (every block, free or not, mapped or not)
        self.reserved = 0

    # the free set
    def _insert(self, b):
        bisect.insort(self.free[b.small], (b.stream, b.size, b.addr))

    def _remove(self, b):
        lst = self.free[b.small]
        i = bisect.bisect_left(lst, (b.stream, b.size, b.addr))
        assert lst[i] == (b.stream, b.size, b.addr)
        del lst[i]

    def add_segment(self, addr, size, stream, small):
        b = Block(addr, size, stream, small)
        self.blocks[addr] = b
        self._insert(b)
        self.reserved += size
        return b

    def _find(self, stream, size, small):
        lst = self.free[small]
        i = bisect.bisect_left(lst, (stream, size, -1))
        if i == len(lst) or lst[i][0] != stream:
            return None
        if self.s.expandable:
            # a block that ends where unmapped pages begin counts as what it could grow to
            def grows_to(b):
                return b.size + (b.next.size if b.next is not None and not b.next.mapped else 0)
            b = self.blocks[lst[i][2]]
            while i + 1 < len(lst) and lst[i + 1][0] == stream and grows_to(self.blocks[lst[i + 1][2]]) < grows_to(b):
                i += 1
                b = self.blocks[lst[i][2]]
        _, bsize, addr = lst[i]
        if size < self.s.max_split <= bsize:
            return None
        if size >= self.s.max_split and bsize >= size + self.s.non_split_rounding:
            return None
        b = self.blocks[addr]
        self._remove(b)
        return b

    def _should_split(self, b, size):
        rest = b.size - size
        if b.small or self.s.expandable:
            return rest >= MIN_BLOCK
        return size < self.s.max_split and rest > SMALL_SIZE

    def _cuda_malloc(self, stream, small, size):
        addr = self.device.malloc(size)
        if addr is None:
            return None
        self.trace.append(("segment_alloc", addr, size, stream))
        b = Block(addr, size, stream, small)
        self.blocks[addr] = b
        self.reserved += size
        return b

    def _alloc_block(self, stream, small, size, alloc):
        """A new segment of `alloc` bytes, or with expandable segments the pages for `size` (alloc_block)."""
        if self.s.capacity is not None and self.reserved + alloc > self.s.capacity:
            return None
        if self.s.expandable:
            return self._alloc_expandable(stream, small, size)
        return self._cuda_malloc(stream, small, alloc)

    def _release(self, b):
        self._remove(b)
        del self.blocks[b.addr]
        self.reserved -= b.size
        self.trace.append(("segment_free", b.addr, b.size, b.stream))
        self.device.free(b.addr, b.size)

    def _release_oversize(self, stream, size, small):
        if self.s.max_split == NO_LIMIT:
            return False
        lst = self.free[small]
        key = max(size, self.s.max_split)
        i = bisect.bisect_left(lst, (stream, key, -1))
        if i < len(lst) and lst[i][0] == stream:
            b = self.blocks[lst[i][2]]
            if b.seg is not None:
                return False
            self._release(b)
            return True
        if i == 0:
            return False
        released = 0
        j = i - 1
        while (released < key and j >= 0 and lst[j][1] >= self.s.max_split and lst[j][0] == stream
               and self.blocks[lst[j][2]].seg is None):
            b = self.blocks[lst[j][2]]
            released += b.size
            self._release(b)
            j -= 1
        return released >= key

    def _release_all(self):
        for small in (False, True):
            to_unmap = []
            for _, _, addr in list(self.free[small]):
                b = self.blocks[addr]
                if b.seg is not None:
                    to_unmap.append(b)
                elif not b.split():
                    self._release(b)
            for b in to_unmap:
                self._unmap(b)
                if b.prev is None and b.next is None and not b.mapped:
                    # the whole range unmapped: released (release_expandable_segment)
                    self.unmapped[b.small].remove((b.stream, b.addr))
                    del self.blocks[b.addr]
        return True

    def _unmap(self, b):
        """Unmaps the whole pages inside free block b; what is left before and after them stays free and
        mapped; b, unmapped, merges with unmapped neighbours."""
        base, page = b.seg
        rel = b.addr - base
        begin = -(-rel // page)
        end = (rel + b.size) // page
        if begin >= end:
            return
        ptr = base + begin * page
        nbytes = (end - begin) * page
        self._remove(b)
        del self.blocks[b.addr]
        before = ptr - b.addr
        if before > 0:
            f = Block(b.addr, before, b.stream, b.small)
            f.seg, f.prev, f.next = b.seg, b.prev, b
            if b.prev:
                b.prev.next = f
            b.prev = f
            self.blocks[f.addr] = f
            self._insert(f)
        after = b.size - before - nbytes
        if after > 0:
            f = Block(ptr + nbytes, after, b.stream, b.small)
            f.seg, f.prev, f.next = b.seg, b, b.next
            if b.next:
                b.next.prev = f
            b.next = f
            self.blocks[f.addr] = f
            self._insert(f)
        b.addr, b.size, b.mapped = ptr, nbytes, False
        for n in (b.prev, b.next):
            if n is not None and not n.mapped and not n.allocated and not n.pending:
                self.unmapped[n.small].remove((n.stream, n.addr))
                del self.blocks[n.addr]
                if n is b.prev:
                    b.addr, b.prev = n.addr, n.prev
                    if b.prev:
                        b.prev.next = b
                else:
                    b.next = n.next
                    if b.next:
                        b.next.prev = b
                b.size += n.size
        self.blocks[b.addr] = b
        bisect.insort(self.unmapped[b.small], (b.stream, b.addr))
        self.reserved -= nbytes
        self.trace.append(("segment_unmap", ptr, nbytes, b.stream))
        self.device.unmap(nbytes)

    # expandable segments
    def _absorb(self, dst, src):
        """Merges the free block src (mapped as dst is) into its neighbour dst."""
        self._remove(src)
        del self.blocks[src.addr]
        if src is dst.prev:
            del self.blocks[dst.addr]
            dst.addr, dst.prev = src.addr, src.prev
            if dst.prev:
                dst.prev.next = dst
            self.blocks[dst.addr] = dst
        else:
            dst.next = src.next
            if dst.next:
                dst.next.prev = dst
        dst.size += src.size

    def _map(self, m, size):
        """Maps the pages of unmapped m that its first `size` bytes touch; m becomes a free block merged
        with a free neighbour. Returns m."""
        base, page = m.seg
        begin = (m.addr - base) // page
        end = -(-(m.addr - base + size) // page)
        nbytes = (end - begin) * page
        if nbytes == 0 or not self.device.map(nbytes):
            return None
        self.unmapped[m.small].remove((m.stream, m.addr))
        m.mapped = True
        if nbytes < m.size:
            rest = Block(m.addr + nbytes, m.size - nbytes, m.stream, m.small)
            rest.mapped, rest.seg = False, m.seg
            rest.prev, rest.next = m, m.next
            if m.next:
                m.next.prev = rest
            m.next = rest
            m.size = nbytes
            self.blocks[rest.addr] = rest
            bisect.insort(self.unmapped[m.small], (rest.stream, rest.addr))
        at = m.addr
        for n in (m.prev, m.next):
            if n is not None and n.mapped and not n.allocated and not n.pending:
                self._absorb(m, n)
        self._insert(m)
        self.reserved += nbytes
        self.trace.append(("segment_map", at, nbytes, m.stream))
        return m

    def _alloc_expandable(self, stream, small, size):
        def allocatable(b):
            return b is not None and not b.allocated and not b.pending
        c = None
        lst = self.unmapped[small]
        i = bisect.bisect_left(lst, (stream, -1))
        while i < len(lst) and lst[i][0] == stream:
            u = self.blocks[lst[i][1]]
            cand = u.prev if allocatable(u.prev) else u
            room, b = 0, cand
            while room < size and allocatable(b):
                room += b.size
                b = b.next
            if room >= size:
                c = cand
                break
            i += 1
        if c is None:
            page = SMALL_BUFFER if small else LARGE_BUFFER
            # the address space PyTorch reserves for a range: the device's memory and an eighth more
            total = self.s.capacity + self.s.capacity // 8 if self.s.capacity else 1 << 44
            va = -(-total // page) * page
            base = self.device.reserve(va)
            c = Block(base, va, stream, small)
            c.mapped, c.seg = False, (base, page)
            self.blocks[base] = c
            bisect.insort(lst, (stream, base))
        if not c.mapped:
            c = self._map(c, min(c.size, size))
            if c is None:
                return None
        while c.size < size:
            if c.next is None:
                return None
            c = self._map(c.next, min(size - c.size, c.next.size))
            if c is None:
                return None
        self._remove(c)
        return c

    def malloc(self, request, stream):
        size = round_size(self.s, request)
        small = size <= SMALL_SIZE
        b = self._find(stream, size, small)
        if b is None:
            alloc = segment_size(size)
            b = self._alloc_block(stream, small, size, alloc)
            if b is None and self._release_oversize(stream, size, small):
                b = self._alloc_block(stream, small, size, alloc)
            if b is None and self._release_all():
                b = self._alloc_block(stream, small, size, alloc)
            if b is None:
                self.trace.append(("oom", self.device.free_bytes(), size, stream))
                return None
        if self._should_split(b, size):
            rest = Block(b.addr + size, b.size - size, stream, small)
            rest.seg = b.seg
            rest.prev, rest.next = b, b.next
            if b.next:
                b.next.prev = rest
            b.next = rest
            b.size = size
            self.blocks[rest.addr] = rest
            self._insert(rest)
        b.allocated = True
        b.requested = request
        self.trace.append(("alloc", b.addr, request, stream))
        return b

    def free_request(self, b, pending):
        """The user frees b; with `pending` its free completes later (free_completed)."""
        b.allocated = False
        self.trace.append(("free_requested", b.addr, b.requested, b.stream))
        if pending:
            b.pending = True
        else:
            self.free_complete(b)

    def free_complete(self, b):
        b.pending = False
        self.trace.append(("free_completed", b.addr, b.requested, b.stream))
        del self.blocks[b.addr]
        for n in (b.prev, b.next):
            if n is not None and n.mapped and not n.allocated and not n.pending:
                self._remove(n)
                del self.blocks[n.addr]
                if n is b.prev:
                    b.addr, b.prev = n.addr, n.prev
                    if b.prev:
                        b.prev.next = b
                else:
                    b.next = n.next
                    if b.next:
                        b.next.prev = b
                b.size += n.size
        self._insert(b)
        self.blocks[b.addr] = b

    def segments(self):
        """The segments in address order, each a list of its blocks in order (of an expandable segment,
        each mapped range)."""
        heads = sorted((b for b in self.blocks.values() if b.mapped and (b.prev is None or not b.prev.mapped)), key=lambda b: b.addr)
        out = []
        for h in heads:
            run = []
            b = h
            while b is not None and b.mapped:
                run.append(b)
                b = b.next
            out.append(run)
        return out


class BumpDevice:
    """Addresses for cudaMalloc: the lowest gap that fits (2 MiB aligned), within a capacity."""

    def __init__(self, capacity, base=0x7F0000000000):
        self.capacity = capacity
        self.base = base
        self.used = {}  # addr -> size
        self.mapped = 0  # bytes of expandable segments' pages mapped

    def malloc(self, size):
        if self.capacity is not None and sum(self.used.values()) + self.mapped + size > self.capacity:
            return None
        addr = self.base
        for a in sorted(self.used):
            if a - addr >= size:
                break
            addr = max(addr, a + self.used[a] + (-(a + self.used[a]) % ROUND_LARGE))
        self.used[addr] = size
        return addr

    def free(self, addr, size):
        del self.used[addr]

    def reserve(self, size, top=[0x7E0000000000]):
        """Address space for an expandable segment, far from the segments."""
        addr = top[0]
        top[0] += -(-size // ROUND_LARGE) * ROUND_LARGE + ROUND_LARGE
        return addr

    def map(self, size):
        if self.capacity is not None and sum(self.used.values()) + self.mapped + size > self.capacity:
            return False
        self.mapped += size
        return True

    def unmap(self, size):
        self.mapped -= size

    def free_bytes(self):
        return (self.capacity or 1 << 40) - sum(self.used.values()) - self.mapped


def generate(seed, settings, steps=3000, keep=None):
    """A snapshot of a random run: its final state and its trace from the first cudaMalloc, or only the
    last `keep` entries (as PyTorch's ring buffer of max_entries keeps them)."""
    rng = random.Random(seed)
    trace = []
    dev = BumpDevice(settings.capacity)
    a = Allocator(settings, dev, trace)
    live = []
    pending = []
    shapes = [rng.choice([256, 4096, 65536, 700_000, 3 << 20, 9 << 20, 25 << 20, 60 << 20, 130 << 20]) for _ in range(6)]
    for _ in range(steps):
        while pending and rng.random() < 0.5:
            a.free_complete(pending.pop(0))
        if live and rng.random() < 0.45:
            b = live.pop(rng.randrange(len(live)))
            p = rng.random() < 0.1
            a.free_request(b, p)
            if p:
                pending.append(b)
        else:
            base = rng.choice(shapes)
            size = max(1, int(base * rng.uniform(0.5, 1.5)))
            stream = 0 if rng.random() < 0.85 else 7
            b = a.malloc(size, stream)
            if b is not None:
                live.append(b)
            else:
                # an out-of-memory: the program frees what it holds and goes on
                for b in live:
                    a.free_request(b, False)
                live.clear()
    entries = []
    t = 1_700_000_000_000_000
    for act, addr, size, stream in trace:
        t += 3
        e = {"action": act, "addr": addr, "size": size, "stream": stream, "time_us": t, "frames": []}
        if act == "oom":
            e = {"action": act, "device_free": addr, "addr": 0, "size": size, "stream": stream, "time_us": t, "frames": []}
        entries.append(e)
    if keep is not None:
        entries = entries[-keep:]
    segments = []
    for run in a.segments():
        head = run[0]
        blocks = []
        for b in run:
            state = "active_allocated" if b.allocated else "active_pending_free" if b.pending else "inactive"
            blocks.append({"address": b.addr, "size": b.size, "requested_size": b.requested if state != "inactive" else 0,
                           "state": state, "frames": []})
        total = sum(b.size for b in run)
        segments.append({"device": 0, "address": head.addr, "total_size": total, "stream": head.stream,
                         "segment_type": "small" if head.small else "large", "segment_pool_id": (0, 0),
                         "is_expandable": head.seg is not None, "allocated_size": sum(b.size for b in run if b.allocated),
                         "active_size": sum(b.size for b in run if b.allocated or b.pending),
                         "requested_size": sum(b.requested for b in run if b.allocated or b.pending),
                         "frames": [], "blocks": blocks})
    ms = settings.max_split
    return {"segments": segments, "device_traces": [entries],
            "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": -1 if ms == NO_LIMIT else ms,
                                   "garbage_collection_threshold": 0.0, "expandable_segments": settings.expandable,
                                   "roundup_power2_divisions": {str(1 << i): settings.divisions[i] for i in range(16)}}}


def check(snap, start_only=False):
    """Replays a snapshot whose trace holds every cudaMalloc (or none: segments kept from before) and
    compares; returns 'model: exact' or the first divergence."""
    st = snap.get("allocator_settings") or {}
    ms = st.get("max_split_size", -1)
    div = st.get("roundup_power2_divisions") or {}
    divisions = [int(div.get(str(1 << i), 0)) for i in range(16)] if isinstance(div, dict) else [0] * 16
    settings = Settings(NO_LIMIT if ms is None or ms < 0 else ms, divisions)
    entries = snap["device_traces"][0]
    # the state at the first entry: the final one, run backwards
    segs = {s["address"]: s for s in snap["segments"] if s["device"] == 0}
    live = {}
    freed_in_trace = set()
    for s in segs.values():
        for b in s["blocks"]:
            if b["state"] != "inactive":
                live[b["address"]] = (b["size"], b["state"] == "active_pending_free")
    start_segs = dict((a, (s["total_size"], s["stream"], s["segment_type"] == "small")) for a, s in segs.items())
    for e in reversed(entries):
        act, addr = e["action"], e["addr"]
        if act == "alloc":
            live.pop(addr, None)
            freed_in_trace.discard(addr)
        elif act == "free_completed":
            live[addr] = (round_size(settings, e["size"]), False)
            freed_in_trace.add(addr)
        elif act == "free_requested":
            if addr in live:
                live[addr] = (live[addr][0], False)
        elif act == "segment_alloc":
            start_segs.pop(addr, None)
        elif act == "segment_free":
            start_segs[addr] = (e["size"], e["stream"], e["size"] == SMALL_BUFFER)
    # the segment entries each malloc made: the run of segment_* entries just before its alloc (or oom)
    runs = {}
    run = []
    for i, e in enumerate(entries):
        if e["action"] in ("segment_alloc", "segment_free"):
            run.append(e)
        else:
            runs[i] = run
            run = []
    tail = run

    class FileDevice:
        """cudaMalloc and cudaFree as the file recorded them."""
        def __init__(self):
            self.run = []
            self.problem = None

        def malloc(self, size):
            if self.run and self.run[0]["action"] == "segment_alloc":
                e = self.run.pop(0)
                if e["size"] != size and self.problem is None:
                    self.problem = "cudaMalloc %d B, file %d B" % (size, e["size"])
                return e["addr"]
            return None

        def free(self, addr, size):
            e = self.run.pop(0) if self.run else None
            if (e is None or e["action"] != "segment_free" or e["addr"] != addr) and self.problem is None:
                self.problem = "cudaFree 0x%x, file %s" % (addr, "nothing" if e is None else "%s 0x%x" % (e["action"], e["addr"]))

        def free_bytes(self):
            return 0

    dev = FileDevice()
    trace = []
    a = Allocator(settings, dev, trace)
    for addr, (size, stream, small) in sorted(start_segs.items()):
        a.add_segment(addr, size, stream, small)
    # a block freed in the trace is known by its request alone: it spans the request rounded, and perhaps
    # a tail it was not split from. The first allocation the file places after it, before the next live
    # block and while it lives, starts where it ends (a free block always begins just after a block in
    # use, free neighbours being merged). With no such allocation the split rule decides: a tail too
    # small to have been split off (1 MiB or less in the large pool; under max_non_split_rounding for an
    # oversize block, never split) is the block's; else it is free.
    starts = sorted(live)
    seg_of = sorted(start_segs)
    free_row = {}
    for i, e in enumerate(entries):
        if e["action"] == "free_completed" and e["addr"] in freed_in_trace and e["addr"] not in free_row:
            free_row[e["addr"]] = i
    limit_of = {}
    for k, addr in enumerate(starts):
        if addr not in freed_in_trace:
            continue
        si = bisect.bisect_right(seg_of, addr) - 1
        sbase = seg_of[si]
        limit = sbase + start_segs[sbase][0]
        if k + 1 < len(starts) and starts[k + 1] < limit:
            limit = starts[k + 1]
        limit_of[addr] = limit
    def small_at(addr):
        return start_segs[seg_of[bisect.bisect_right(seg_of, addr) - 1]][2]

    end_of = {}
    for i, e in enumerate(entries):
        if e["action"] != "alloc":
            continue
        k = bisect.bisect_right(starts, e["addr"]) - 1
        if k < 0:
            continue
        owner = starts[k]
        if owner in limit_of and owner not in end_of and i < free_row[owner]:
            lo = owner + live[owner][0]
            if lo <= e["addr"] < limit_of[owner]:
                end_of[owner] = e["addr"]
    for owner, limit in limit_of.items():
        size, pend = live[owner]
        if owner in end_of:
            size = end_of[owner] - owner
        elif not small_at(owner) and limit - (owner + size) <= (
                SMALL_SIZE if size < settings.max_split else settings.non_split_rounding - 1):
            size = limit - owner  # too small a remainder to have been split off (or an oversize block's)
        live[owner] = (size, pend)
    # carve the blocks live at the start out of their segments
    for addr, (size, pend) in sorted(live.items()):
        f = None
        for b in a.blocks.values():
            if not b.allocated and b.addr <= addr < b.addr + b.size:
                f = b
        if f is None:
            return "model: cannot place the block live at the start at 0x%x" % addr
        a._remove(f)
        if f.addr < addr:
            head = Block(f.addr, addr - f.addr, f.stream, f.small)
            head.prev, head.next = f.prev, f
            if f.prev:
                f.prev.next = head
            f.prev = head
            f.size -= head.size
            f.addr = addr
            a.blocks[head.addr] = head
            a._insert(head)
            a.blocks[addr] = f
        if f.size > size:
            rest = Block(addr + size, f.size - size, f.stream, f.small)
            rest.prev, rest.next = f, f.next
            if f.next:
                f.next.prev = rest
            f.next = rest
            f.size = size
            a.blocks[rest.addr] = rest
            a._insert(rest)
        f.allocated = not pend
        f.pending = pend
    by_addr = {b.addr: b for b in a.blocks.values() if b.allocated or b.pending}
    if start_only:
        return a
    for i, e in enumerate(entries):
        act = e["action"]
        if act in ("segment_alloc", "segment_free"):
            continue
        dev.run = list(runs[i])
        if act in ("alloc", "oom"):
            b = a.malloc(e["size"], e["stream"])
            where = "out of memory" if b is None else "0x%x" % b.addr
            if dev.problem or dev.run:
                return "model: entry %d: %s (%s)" % (i, dev.problem or "the file has %d more segment entries" % len(dev.run), where)
            if act == "oom":
                if b is not None:
                    return "model: entry %d: file out of memory for %d B, model at %s" % (i, e["size"], where)
                continue
            if b is None or b.addr != e["addr"]:
                return "model: entry %d: alloc %d B: model at %s, file at 0x%x" % (i, e["size"], where, e["addr"])
            by_addr[b.addr] = b
            continue
        if dev.run:  # segments freed outside a malloc: empty_cache
            a._release_all()
            if dev.problem or dev.run:
                return "model: entry %d: empty_cache: %s" % (i, dev.problem or "the file frees more")
        if act == "free_requested":
            b = by_addr.get(e["addr"])
            if b is not None and b.allocated:
                b.allocated = False
                b.pending = True
        elif act == "free_completed":
            b = by_addr.pop(e["addr"], None)
            if b is None:
                return "model: entry %d: free of 0x%x, no block there" % (i, e["addr"])
            b.allocated = False
            a.free_complete(b)
    if tail:
        dev.run = list(tail)
        a._release_all()
        if dev.problem or dev.run:
            return "model: the last entries: empty_cache: %s" % (dev.problem or "the file frees more")
    # the final state
    mine = [(run[0].addr, [(b.addr, b.size, b.allocated or b.pending) for b in run]) for run in a.segments()]
    theirs = [(s["address"], [(b["address"], b["size"], b["state"] != "inactive") for b in s["blocks"]])
              for s in sorted(snap["segments"], key=lambda s: s["address"]) if s["device"] == 0]
    if mine != theirs:
        for m, t in zip(mine, theirs):
            if m != t:
                return "model: final state differs at segment 0x%x: model %s, file %s" % (t[0], m[1][:4], t[1][:4])
        return "model: final state: %d segments, file %d" % (len(mine), len(theirs))
    return "model: exact"


def main(argv):
    if len(argv) >= 3 and argv[0] == "generate":
        opts = dict(kv.split("=") for kv in argv[3:])
        s = Settings(max_split=int(opts["max_split_size_mb"]) << 20 if "max_split_size_mb" in opts else NO_LIMIT,
                     divisions=[int(opts.get("roundup", 0))] * 16,
                     capacity=int(opts["capacity_mb"]) << 20 if "capacity_mb" in opts else None,
                     expandable=opts.get("expandable", "0") == "1")
        snap = generate(int(argv[2]), s, int(opts.get("steps", 3000)), int(opts["keep"]) if "keep" in opts else None)
        with open(argv[1], "wb") as f:
            pickle.dump(snap, f, protocol=4)
        return 0
    if len(argv) == 2 and argv[0] == "check":
        with open(argv[1], "rb") as f:
            print(check(pickle.load(f)))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
