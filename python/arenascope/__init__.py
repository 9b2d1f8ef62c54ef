"""ArenaScope's Python client: records the pools, arenas and plans of a Python program as ArenaScope
JSONL, to a file or live to ``arenascope listen`` / the window.

    with arenascope.session(out="run.jsonl"):
        with arenascope.scope("frame", frames=4):
            ...

or, without changing the program: ``python -m arenascope run --out run.jsonl prog.py args...``.
Standard library only; each adapter (pyopencl, pycuda, hysop, algan, torch) switches on when its
library is imported. See docs/guide/python.md.
"""

import contextlib
import functools

from . import _session
from ._session import Session, current
from ._arena import track_arena
from ._plan import export_plan
from ._pools import track_pool

__version__ = "0.1.0"

__all__ = ["Session", "session", "scope", "note_scope_params", "marker", "track_arena", "track_pool",
           "export_plan", "current", "__version__"]


@contextlib.contextmanager
def session(out=None, live=None, name=None, stacks=0, adapters="all", capacity=1 << 18, token=None, connect_timeout=30.0,
            memory=False):
    """Records from entering the block to leaving it, to ``out`` (a JSONL path), ``live``
    (``HOST:PORT``) or, with ``memory=True``, into the process (:meth:`Session.save` writes it out), with
    the named adapters on (``"all"``, a comma list, or ``"none"``). Yields the :class:`Session`."""
    from . import _adapters
    s = Session(out=out, live=live, name=name, stacks=stacks, capacity=capacity, token=token, connect_timeout=connect_timeout,
                memory=memory)
    _session.start(s)
    try:
        _adapters.install(_adapters.parse(adapters))
        yield s
    finally:
        _session.stop(s)


class scope:
    """A named region on every memory the session tracks (scope enter, params, exit events), as a
    context manager or a decorator. ``params`` are integers (the shape quantities a scope's size is
    driven by). Does nothing when no session records."""

    __slots__ = ("name", "params", "_entries")

    def __init__(self, name, **params):
        self.name = str(name)
        self.params = params
        self._entries = []

    def __enter__(self):
        s = current()
        self._entries.append((s, s.global_enter(self.name, self.params)) if s is not None else None)
        return self

    def __exit__(self, *exc):
        e = self._entries.pop()
        if e is not None and not e[0].closed:
            e[0].global_exit(e[1])
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with scope(self.name, **self.params):
                return fn(*args, **kwargs)
        return wrapped


def note_scope_params(**params):
    """Attaches parameters to the innermost :func:`scope` open (quantities known only inside it)."""
    s = current()
    if s is not None:
        s.global_params(params)


def marker(text):
    """A marker event (a labelled instant on the timeline)."""
    s = current()
    if s is not None:
        s.marker(text)
