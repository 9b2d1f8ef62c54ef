"""Two-pointer bump arenas in the style of algan's ``ManualMemory``.

:func:`track_arena` instruments one arena object that has ``get_tensor(shape, dtype, persist=False)``,
``temp()``, ``scope(name, **params)``, ``note_scope_params(**params)``, ``reset()``,
``set_pointers(forward, backward)``, ``save_pointer()`` / ``reset_pointer()`` and the two pointers
``current_pointer`` (forward end, bytes from the start) and ``current_reverse_pointer`` (backward end).
Its capacity is ``num_bytes`` or else ``len(arena.memory)``. The methods are wrapped on the instance,
so the arena's class is untouched and other arenas are not affected.

Events (memory kind ARENA, as the Java ``ManualMemory`` publishes them): ``ALLOC`` per tensor (offset,
bytes consumed including alignment, bytes requested, descriptor ``dtype[d0,d1,...]``, innermost scope;
``FLAG_BACKWARD`` for ``persist=True``), ``POINTER_RESTORE`` for each end a ``temp()`` exit,
``reset_pointer`` or ``set_pointers`` moves, ``RESET``, ``SCOPE_ENTER/EXIT/PARAM``. Gauges: ``used`` =
forward + (capacity - backward), ``aux`` = capacity - backward.

Bad input: an object without that interface raises ``TypeError`` naming the missing member; the
arena's own errors (out of memory) pass through unchanged, with an ``OUT_OF_MEMORY`` event first.
"""

from __future__ import annotations

import functools
import itertools
from typing import Optional, TypeVar

from . import _events as K
from ._session import Session, Tracked, current

_A = TypeVar("_A")

_numbers = itertools.count(1)
_REQUIRED = ("get_tensor", "temp", "current_pointer", "current_reverse_pointer")


def _dtype_name(dtype):
    name = getattr(dtype, "name", None)
    if isinstance(name, str):
        return name
    return str(dtype).rsplit(".", 1)[-1]


def _itemsize(dtype, tensor):
    for obj, attr in ((tensor, "element_size"), (dtype, "itemsize")):
        v = getattr(obj, attr, None)
        if v is not None:
            return int(v() if callable(v) else v)
    return 1


def _shape(shape):
    if isinstance(shape, int):
        return (shape,)
    return tuple(int(d) for d in shape)


class _ArenaState(Tracked):
    def __init__(self, session, mem, arena, capacity):
        Tracked.__init__(self, session, mem, K.ARENA)
        self.arena = arena
        self.capacity = capacity
        self.descriptors = {}

    def pointers(self):
        a = self.arena
        return int(a.current_pointer), int(a.current_reverse_pointer)

    def scope_pointers(self):
        return self.pointers()

    def sync(self, f, b):
        self.used = f + self.capacity - b
        self.aux = self.capacity - b

    def descriptor(self, dtype, shape):
        key = (dtype, shape)
        ref = self.descriptors.get(key)
        if ref is None:
            ref = self.session.intern("%s[%s]" % (_dtype_name(dtype), ",".join(str(d) for d in shape)))
            self.descriptors[key] = ref
        return ref

    def moved(self, before):
        """Publishes what moved since ``before`` (forward, backward): a reset or pointer restores."""
        s = self.session
        f0, b0 = before
        f, b = self.pointers()
        if (f, b) == (f0, b0):
            return
        cap = self.capacity
        self.sync(f, b)
        if f == 0 and b == cap:
            s.emit(K.RESET, self.mem, 0, 0, f0 + cap - b0, 0, self.used, self.aux, -1, -1)
            return
        if f != f0:
            s.emit(K.POINTER_RESTORE, self.mem, 0, f, f0 - f, 0, self.used, self.aux, -1, -1)
        if b != b0:
            s.emit(K.POINTER_RESTORE, self.mem, K.FLAG_BACKWARD, b, b - b0, 0, self.used, self.aux, -1, -1)


class _ScopeContext:
    """One ``scope(name, **params)`` region: ArenaScope's scope events around the arena's own scope."""

    __slots__ = ("state", "name", "params", "inner", "sid")

    def __init__(self, state, name, params, inner):
        self.state = state
        self.name = name
        self.params = params
        self.inner = inner

    def __enter__(self):
        self.sid = self.state.session.enter_scope(self.state, self.name, self.params)
        return self.inner.__enter__() if self.inner is not None else self

    def __exit__(self, *exc):
        try:
            return self.inner.__exit__(*exc) if self.inner is not None else False
        finally:
            self.state.session.exit_scope(self.state, self.name, self.sid)


def track_arena(arena: _A, name: Optional[str] = None, session: Optional[Session] = None) -> _A:
    """Instruments ``arena`` for the current session (or ``session``); returns the arena."""
    s = session or current()
    if s is None:
        raise RuntimeError("track_arena needs a recording session (arenascope.session(...) or arenascope run)")
    missing = [m for m in _REQUIRED if not hasattr(arena, m)]
    if missing:
        raise TypeError("track_arena: %s has no %s" % (type(arena).__name__, ", ".join(missing)))
    if getattr(arena, "_arenascope_state", None) is not None:
        return arena
    capacity = getattr(arena, "num_bytes", None)
    if capacity is None:
        capacity = len(arena.memory)
    capacity = int(capacity)
    label = name or getattr(arena, "name", None) or "%s #%d" % (type(arena).__name__, next(_numbers))
    device = str(getattr(arena, "device", "") or "host")
    state = s.register(lambda sess, mem: _ArenaState(sess, mem, arena, capacity), label, K.ARENA, device, capacity,
                       {"client": "python", "type": type(arena).__module__ + "." + type(arena).__qualname__})
    state.sync(*state.pointers())
    arena._arenascope_state = state

    get_tensor = arena.get_tensor
    shapes = {}   # (shape as given, dtype) -> (descriptor id, bytes requested), computed once

    def describe(shape, dtype, t):
        dims = _shape(getattr(t, "shape", shape))
        numel = 1
        for d in dims:
            numel *= d
        return state.descriptor(dtype, dims), numel * _itemsize(dtype, t)

    mem = state.mem
    cap = capacity
    scopes = state.scopes

    @functools.wraps(get_tensor)
    def traced_get_tensor(shape, dtype, persist=False, *args, **kwargs):
        s = state.session   # read each call: detached (recording nothing) once its session is rewound
        if s.closed:
            return get_tensor(shape, dtype, persist, *args, **kwargs)
        emit = s.emit
        f0 = arena.current_pointer
        b0 = arena.current_reverse_pointer
        try:
            t = get_tensor(shape, dtype, persist, *args, **kwargs)
        except MemoryError as e:
            dims = _shape(shape)
            numel = 1
            for d in dims:
                numel *= d
            emit(K.OUT_OF_MEMORY, mem, 0, 0, numel * _itemsize(dtype, None), b0 - f0, state.used, state.aux,
                 s.intern(str(e) or "out of memory"), state.innermost_scope())
            raise
        f = arena.current_pointer
        b = arena.current_reverse_pointer
        try:
            ref, nbytes = shapes[shape, dtype]
        except (KeyError, TypeError):   # a new shape, or one given as a list
            ref, nbytes = describe(shape, dtype, t)
            try:
                shapes[shape, dtype] = ref, nbytes
            except TypeError:
                pass
        used = state.used = f + cap - b
        aux = state.aux = cap - b
        out = s.emit_site if s.stacks else emit
        if persist:
            out(K.ALLOC, mem, K.FLAG_BACKWARD, b, b0 - b, nbytes, used, aux, ref, scopes[-1] if scopes else -1)
        else:
            out(K.ALLOC, mem, 0, f - nbytes, f - f0, nbytes, used, aux, ref, scopes[-1] if scopes else -1)
        return t

    arena.get_tensor = traced_get_tensor

    temp = arena.temp

    @functools.wraps(temp)
    def traced_temp(*args, **kwargs):
        return _Moving(state, temp(*args, **kwargs))

    arena.temp = traced_temp

    for method in ("reset", "reset_pointer", "set_pointers", "save_pointer"):
        if hasattr(arena, method):
            setattr(arena, method, _moving_call(state, getattr(arena, method)))

    if hasattr(arena, "scope"):
        scope = arena.scope

        @functools.wraps(scope)
        def traced_scope(scope_name, **params):
            return _ScopeContext(state, scope_name, params, scope(scope_name, **params))
    else:
        def traced_scope(scope_name, **params):
            return _ScopeContext(state, scope_name, params, None)
    arena.scope = traced_scope

    note = getattr(arena, "note_scope_params", None)

    def traced_note(**params):
        state.session.scope_params(state, params)
        if note is not None:
            return note(**params)
    arena.note_scope_params = traced_note
    return arena


def _moving_call(state, fn):
    @functools.wraps(fn)
    def call(*args, **kwargs):
        before = state.pointers()
        try:
            return fn(*args, **kwargs)
        finally:
            state.moved(before)
    return call


class _Moving:
    """A ``temp()`` context whose exit publishes the pointers it restores."""

    __slots__ = ("state", "inner", "before")

    def __init__(self, state, inner):
        self.state = state
        self.inner = inner

    def __enter__(self):
        return self.inner.__enter__()

    def __exit__(self, *exc):
        before = self.state.pointers()
        try:
            return self.inner.__exit__(*exc)
        finally:
            self.state.moved(before)
