"""Binned memory pools: pyopencl's and pycuda's ``MemoryPool`` (C++ types) and hysop-style pools
(pure Python, duck-typed).

Every pool is mirrored by :class:`_PoolState`: the blocks it handed out and the blocks it holds, per
bin, as ArenaScope's Java pool keeps them. Events (memory kind POOL): ``RESERVE`` then
``POOL_REQUEST`` for a request the pool served with a new device block (a miss), ``POOL_REQUEST`` with
``FLAG_HIT`` for one served from a held block (hit and miss are read from the pool's counters before
and after the request, under the mirror's lock, so threads sharing a pool cannot mix them up), ``POOL_HOLD`` when a buffer comes back and is held, ``POOL_RELEASE`` with
``UNRESERVE`` for each block given back to the device (``free_held``, ``stop_holding``, a buffer
returned while not holding). Gauges: ``used`` = bin sizes of the blocks handed out, ``aux`` = bin sizes
of the blocks handed out and held (pyopencl's ``managed_bytes``).

A buffer is back when it is released explicitly (``release()`` / ``free()``) or collected
(C++ buffers: noticed at the pool's next operation, from a weak reference; hysop-style buffers hand
themselves back through the pool's ``free``), whichever comes first; either produces its event once.
"""

from __future__ import annotations

import itertools
import threading
import time
import weakref
from typing import Optional, TypeVar

from . import _events as K
from ._session import Session, Tracked, current

_P = TypeVar("_P")

# the hot paths' names as module globals (one lookup each, not a module's and then its attribute's)
_now = time.perf_counter_ns
_weakref = weakref.ref
_get_ident = threading.get_ident
_POOL_REQUEST, _RESERVE, _POOL_HOLD, _FLAG_HIT, _INT_MAX = K.POOL_REQUEST, K.RESERVE, K.POOL_HOLD, K.FLAG_HIT, K.INT_MAX


_ADDRESS_ATTRS = ("int_ptr", "ptr", "address", "gpudata")
_address_attr = {}   # buffer type -> the attribute holding its address (None: int() of it, else id())


def _address(buf):
    attr = _address_attr.get(buf.__class__, False)
    if attr:
        v = getattr(buf, attr, None)
        if v.__class__ is int:
            return v
    elif attr is False:
        for attr in _ADDRESS_ATTRS:
            v = getattr(buf, attr, None)
            if isinstance(v, int):
                _address_attr[buf.__class__] = attr
                return v
        _address_attr[buf.__class__] = None
    try:
        return int(buf)
    except (TypeError, ValueError):
        return id(buf)


class _Block:
    __slots__ = ("address", "bin", "size", "returned", "ref", "key")

    def __init__(self, address, bin_nr, size):
        self.address = address
        self.bin = bin_nr
        self.size = size
        self.returned = False
        self.ref = None
        self.key = None   # id() of the C++ buffer while it is out


class _PoolState(Tracked):
    """The mirror of one pool and its events. Thread-safe (one lock around each change)."""

    def __init__(self, session, mem):
        # no reference to the pool: a C++ pool reachable from a buffer's return callback crashes
        # CPython's cyclic collector inside pybind11 (the pool is passed to the methods that need it)
        Tracked.__init__(self, session, mem, K.POOL)
        self.held = {}          # bin -> [address, ...] (last in, first out)
        self.held_count = 0
        self.active = {}        # address -> _Block
        self.holding = True
        # re-entrant: a traced request holds it across the pool's own call and the mirror's change, so
        # that no other thread's request or release falls between them (hit or miss is decided, and the
        # events are written, in the order the pool changed)
        self.lock = threading.RLock()
        self.bin_sizes = {}     # bin -> alloc_size(bin)
        self.bins = {}          # nbytes -> (bin, alloc_size(bin)): shared by the pools made alike (see bins_for)

    def bin_of(self, pool, nbytes):
        found = self.bins.get(nbytes)
        if found is not None:
            return found
        b = pool.bin_number(nbytes)
        size = self.bin_sizes.get(b)
        if size is None:
            size = int(pool.alloc_size(b))
            self.bin_sizes[b] = size
        found = self.bins[nbytes] = (b, size)
        return found

    def request(self, buf, nbytes, bin_nr, size, hit, t0):
        """Publishes one served request; returns the block. The caller holds :attr:`lock` (across the
        pool's own call, so that hit or miss is this request's)."""
        s = self.session
        addr = _address(buf)
        if hit:
            lst = self.held.get(bin_nr)
            if lst:
                if lst[-1] == addr:     # last in, first out: the usual case
                    lst.pop()
                elif addr in lst:
                    lst.remove(addr)
                else:
                    lst.pop()
                self.held_count -= 1
            else:
                hit = False   # the mirror held nothing of that bin: counted as a new block (never a negative gauge)
        block = _Block(addr, bin_nr, size)
        self.active[addr] = block
        self.used = used = self.used + size
        t1 = _now()
        t = t1 - s.t0
        dur = t1 - t0
        if dur > _INT_MAX:
            dur = _INT_MAX
        q = s._queue
        tid = s._threads.get(_get_ident())
        if s.stacks or tid is None or len(q) + 2 > s._cap:
            out = s.emit_site if s.stacks else s.emit
            if hit:
                out(_POOL_REQUEST, self.mem, _FLAG_HIT, addr, size, nbytes, used, self.aux, bin_nr, dur, t)
            else:
                self.aux += size
                s.emit(_RESERVE, self.mem, 0, addr, size, 0, used - size, self.aux, -1, -1, t)
                out(_POOL_REQUEST, self.mem, 0, addr, size, nbytes, used, self.aux, bin_nr, dur, t)
        elif hit:   # the session's emit, inlined (no stacks, room in the queue, the thread declared)
            q.append((t, _POOL_REQUEST, self.mem, tid, _FLAG_HIT, addr, size, nbytes, used, self.aux, bin_nr, dur))
        else:
            self.aux = aux = self.aux + size
            q.append((t, _RESERVE, self.mem, tid, 0, addr, size, 0, used - size, aux, -1, -1))
            q.append((t, _POOL_REQUEST, self.mem, tid, 0, addr, size, nbytes, used, aux, bin_nr, dur))
        return block

    def give_back(self, block, held=None, by_id=True):
        """A buffer came back: held, or (not holding) released to the device. ``by_id=False``: the
        caller took its entry out of ``_by_id`` already (an explicit release)."""
        with self.lock:
            if block.returned:
                return
            block.returned = True
            self.active.pop(block.address, None)
            key = block.key
            if by_id and key is not None:
                found = _by_id.get(key)
                if found is not None and found[1] is block:
                    del _by_id[key]
            self.used -= block.size
            s = self.session
            if held is None:
                held = self.holding
            if held:
                lst = self.held.get(block.bin)
                if lst is None:
                    lst = self.held[block.bin] = []
                lst.append(block.address)
                self.held_count += 1
                q = s._queue
                tid = s._threads.get(_get_ident())
                if tid is None or len(q) >= s._cap:
                    s.emit(_POOL_HOLD, self.mem, 0, block.address, block.size, 0, self.used, self.aux, block.bin, -1)
                else:   # the session's emit, inlined
                    q.append((_now() - s.t0, _POOL_HOLD, self.mem, tid, 0, block.address, block.size, 0,
                              self.used, self.aux, block.bin, -1))
            else:
                self._release(block.address, block.bin, block.size)

    def _release(self, addr, bin_nr, size):
        s = self.session
        self.aux -= size
        s.emit(K.POOL_RELEASE, self.mem, 0, addr, size, 0, self.used, self.aux, bin_nr, -1)
        s.emit(K.UNRESERVE, self.mem, 0, addr, size, 0, self.used, self.aux, -1, -1)

    def release_held(self, pool):
        """Every held block went back to the device (largest bin first, as the Java pool evicts)."""
        with self.lock:
            for bin_nr in sorted(self.held, reverse=True):
                size = self.bin_sizes.get(bin_nr)
                if size is None:
                    size = int(pool.alloc_size(bin_nr))
                for addr in reversed(self.held[bin_nr]):
                    self._release(addr, bin_nr, size)
            self.held.clear()
            self.held_count = 0

    def collect(self, pool):
        """Publishes the return of buffers the garbage collector took since the last look.

        No callback runs when a C++ buffer dies (a Python callback inside pybind11's deallocation
        crashes CPython's cyclic collector), so a pool operation first compares the pool's
        ``active_blocks`` with the mirror and, when fewer, finds the dead weak references."""
        if pool is not None:   # None: a last look, every block checked
            active = getattr(pool, "active_blocks", None)
            if active is None or active >= len(self.active):
                return
        for block in [b for b in self.active.values() if b.ref is not None and b.ref() is None]:
            self.give_back(block)

    def last_look(self):
        """The session closes: buffers collected since the pool's last operation are back."""
        if self.active:
            self.collect(None)

    def reconcile(self, pool, pool_held):
        """The pool freed its held blocks by itself (an allocation that failed and was retried)."""
        if pool_held < self.held_count and pool_held == 0:
            self.release_held(pool)


# ---------------------------------------------------------------------- pyopencl / pycuda (C++ types)

def _traced_request(state, orig, pool, nbytes, args, kwargs):
    """One request to a C++ pool, under the mirror's lock (held across the pool's call: requests and
    explicit releases of other threads wait, so hit or miss is that of this request).

    Buffers the collector took (they move from active to held without a callback, in any thread, also
    while the pool serves) are found from their dead weak references when the pool's ``active_blocks``
    is below the mirror's; then the mirror holds what the pool holds, and the request was a hit when
    the pool now holds one block fewer than the mirror (a miss leaves ``held_blocks`` as it was; fewer
    still: the pool freed its held blocks to retry a failed allocation). At most two of the pool's counters
    a request (``active_blocks``, ``held_blocks``: each a call into pybind11; neither while the mirror has
    no buffer out and holds none), the bin of a size asked of the pool once per pool family
    (:func:`bins_for`)."""
    with state.lock:
        t0 = _now()
        buf = orig(pool, nbytes, *args, **kwargs)
        found = state.bins.get(nbytes)
        bin_nr, size = found if found is not None else state.bin_of(pool, nbytes)
        # each counter read is a call into pybind11: none where its answer is known (a pool with no
        # buffer out has had none collected; one that holds nothing served a miss and freed nothing)
        if state.active and pool.active_blocks <= len(state.active):
            state.collect(None)   # buffers died since the last look or while the pool served: held now
        hit = False
        if state.held_count:
            held = pool.held_blocks
            gone = state.held_count - held
            if gone == 1 and state.holding and state.held.get(bin_nr):
                hit = True
            elif gone > 0 and held == 0:
                state.reconcile(pool, 0)   # a retried allocation freed the held blocks first
        block = state.request(buf, nbytes, bin_nr, size, hit, t0)
        try:   # _watch, inlined
            block.ref = _weakref(buf)
        except TypeError:
            block.ref = None
        block.key = key = id(buf)
        _by_id[key] = (state, block)
    return buf


_bin_tables = {}   # (pool class, its arguments but the allocator) -> {nbytes: (bin, size)}


def bins_for(cls, args, kwargs):
    """The size -> (bin, bin size) table the pools of ``cls`` built with these arguments share (a pool's
    bins depend only on its class and ``leading_bits_in_bin_id``, not on its allocator): a test suite's
    pools, one a test, ask the pool for a size's bin once."""
    try:
        key = (cls, args[1:], tuple(sorted(kwargs.items())) if kwargs else ())
        table = _bin_tables.get(key)
    except TypeError:   # an argument that cannot be a key: a table of the pool's own
        return {}
    if table is None:
        table = _bin_tables[key] = {}
    return table


def _watch(state, buf, block):
    """Remembers the buffer weakly, so a buffer the collector took is noticed (:meth:`_PoolState.collect`),
    and by identity, so its explicit release finds its block."""
    try:
        block.ref = weakref.ref(buf)
    except TypeError:
        block.ref = None  # no weak references: only an explicit release is seen
    block.key = id(buf)
    _by_id[block.key] = (state, block)


def make_traced_pool_class(orig, label, device_of=None, release_types=(), release_name="release"):
    """A subclass of the C++ pool class ``orig`` that publishes its requests, and patches the
    ``release_name`` method of each type in ``release_types`` (the pooled buffers) to publish
    explicit releases."""

    attrs = {"client": "python", "type": orig.__module__ + "." + orig.__name__}

    class TracedPool(orig):
        def __init__(self, *args, **kwargs):
            orig.__init__(self, *args, **kwargs)
            s = current()
            self._arenascope_state = None
            if s is not None:
                device = device_of(args) if device_of else ""
                self._arenascope_state = st = s.register(_PoolState, "%s #%d" % (label, _next_pool_number()),
                                                         K.POOL, device, 0, attrs)
                st.bins = bins_for(orig, args, kwargs)
                s.on_close(st.last_look)

        def allocate(self, nbytes, *args, **kwargs):
            st = self._arenascope_state
            if st is None or st.session.closed:
                return orig.allocate(self, nbytes, *args, **kwargs)
            return _traced_request(st, orig.allocate, self, nbytes, args, kwargs)

        def __call__(self, nbytes, *args, **kwargs):
            st = self._arenascope_state
            if st is None or st.session.closed:
                return orig.__call__(self, nbytes, *args, **kwargs)
            return _traced_request(st, orig.__call__, self, nbytes, args, kwargs)

        def free_held(self):
            st = self._arenascope_state
            if st is None or st.session.closed:
                return orig.free_held(self)
            with st.lock:
                st.collect(self)
                orig.free_held(self)
                st.release_held(self)

        def stop_holding(self):
            st = self._arenascope_state
            if st is None or st.session.closed:
                return orig.stop_holding(self)
            with st.lock:
                st.collect(self)
                orig.stop_holding(self)
                st.holding = False
                st.release_held(self)

    TracedPool.__arenascope_original__ = orig
    TracedPool.__name__ = orig.__name__
    TracedPool.__qualname__ = orig.__qualname__
    TracedPool.__module__ = orig.__module__
    for typ in release_types:
        _patch_release(typ, release_name)
    return TracedPool


def _patch_release(typ, name):
    orig = getattr(typ, name)
    if getattr(orig, "_arenascope", False):
        return

    def release(self, *args, **kwargs):
        found = _released(self)   # before: a released buffer has no address any more
        if found is None:
            return orig(self, *args, **kwargs)
        state = found[0]
        with state.lock:          # the pool's change and the mirror's, with no request between them
            r = orig(self, *args, **kwargs)
            state.give_back(found[1], None, False)   # _released took it out of _by_id
        return r
    release._arenascope = True
    release.__doc__ = orig.__doc__
    setattr(typ, name, release)


_by_id = {}    # id(buffer) -> (state, block) of the C++ buffers handed out (checked against the weak reference)


def _released(buf):
    """(state, block) of an explicitly released C++ buffer, or None."""
    found = _by_id.pop(id(buf), None)
    if found is None or found[1].ref is None or found[1].ref() is not buf or found[0].session.closed:
        return None
    return found


# pools are numbered 1, 2, ... in the process (a count's next() is one C call: no two threads get the
# same number under the GIL, without a lock)
_next_pool_number = itertools.count(1).__next__


# ---------------------------------------------------------------------- hysop-style pools (duck typing)

_HYSOP = ("allocate", "free", "free_held", "stop_holding", "bin_number", "alloc_size", "held_blocks")


def track_pool(pool: _P, name: Optional[str] = None, session: Optional[Session] = None, device: str = "") -> _P:
    """Instruments a pool object with hysop's interface (``allocate/__call__(nbytes, alignment)``,
    ``free(buf, size)``, ``free_held``, ``stop_holding``, ``bin_number``, ``alloc_size``,
    ``held_blocks``) by wrapping those methods on the instance; returns the pool. A C++ pool
    (pyopencl, pycuda) cannot be wrapped this way: construct it while a session runs with the
    adapter on (``arenascope run`` does that) instead."""
    s = session or current()
    if s is None:
        raise RuntimeError("track_pool needs a recording session (arenascope.session(...) or arenascope run)")
    missing = [m for m in _HYSOP if not hasattr(pool, m)]
    if missing:
        raise TypeError("track_pool: %s has no %s" % (type(pool).__name__, ", ".join(missing)))
    if getattr(pool, "_arenascope_state", None) is not None:
        return pool
    label = name or getattr(pool, "name", None) or "%s #%d" % (type(pool).__name__, _next_pool_number())
    attrs = {"client": "python", "type": type(pool).__module__ + "." + type(pool).__qualname__}
    if hasattr(pool, "mantissa_bits"):
        attrs["mantissaBits"] = pool.mantissa_bits
    try:
        pool._arenascope_state = None
    except AttributeError:
        raise TypeError("track_pool: cannot wrap the methods of %s (a compiled type); create it inside a session "
                        "with its adapter on instead" % type(pool).__name__) from None
    state = s.register(_PoolState, str(label), K.POOL, device, 0, attrs)
    pool._arenascope_state = state
    allocate = pool.allocate
    call = getattr(type(pool), "__call__", None)

    def traced_allocate(nbytes, *args, **kwargs):
        with state.lock:   # the pool's change and the mirror's, with no other thread's request between them
            t0 = time.perf_counter_ns()
            held0 = pool.held_blocks
            buf = allocate(nbytes, *args, **kwargs)
            held1 = pool.held_blocks
            bin_nr, size = state.bin_of(pool, nbytes)
            hit = held1 == held0 - 1
            if not hit and held1 < held0:
                state.reconcile(pool, held1)
            block = state.request(buf, nbytes, bin_nr, size, hit, t0)
            _watch(state, buf, block)
        return buf

    pool.allocate = traced_allocate
    if call is not None and hasattr(pool, "allocate_aligned"):
        pool.allocate_aligned = lambda size, alignment: traced_allocate(size, alignment)
    free = pool.free

    def traced_free(buf, size, *args, **kwargs):
        with state.lock:
            return _free(buf, size, *args, **kwargs)

    def _free(buf, size, *args, **kwargs):
        held0 = pool.held_blocks
        r = free(buf, size, *args, **kwargs)
        block = state.active.get(_address(buf))
        if block is None:
            # the pool was handed its raw buffer, not the pooled one: the newest block of that bin
            bin_nr = pool.bin_number(size)
            for b in reversed(list(state.active.values())):
                if b.bin == bin_nr:
                    block = b
                    break
        if block is not None:
            state.give_back(block, held=pool.held_blocks > held0)
        return r

    pool.free = traced_free
    free_held = pool.free_held

    def traced_free_held():
        with state.lock:
            r = free_held()
            state.release_held(pool)
        return r
    pool.free_held = traced_free_held
    stop_holding = pool.stop_holding

    def traced_stop_holding():
        with state.lock:
            r = stop_holding()
            state.holding = False
            state.release_held(pool)
        return r
    pool.stop_holding = traced_stop_holding
    return TrackedCall(pool) if call is not None else pool


class TrackedCall:
    """``pool(nbytes)`` goes through the class's ``__call__``, which an instance attribute cannot
    replace: this thin proxy routes calls to the traced ``allocate`` and everything else to the pool."""

    __slots__ = ("_pool",)

    def __init__(self, pool):
        object.__setattr__(self, "_pool", pool)

    def __call__(self, nbytes, *args, **kwargs):
        return self._pool.allocate(nbytes, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._pool, name)

    def __setattr__(self, name, value):
        setattr(self._pool, name, value)
