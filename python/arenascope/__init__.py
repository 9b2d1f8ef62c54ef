"""ArenaScope's Python client: records the pools, arenas and plans of a Python program as ArenaScope
JSONL, to a file or live to ``arenascope listen`` / the window.

    with arenascope.session(out="run.jsonl"):
        with arenascope.scope("frame", frames=4):
            ...

or, without changing the program: ``python -m arenascope run --out run.jsonl prog.py args...``.
Standard library only; each adapter (pyopencl, pycuda, hysop, algan, torch) switches on when its
library is imported. See docs/guide/python.md.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable, Iterator, Optional, TypeVar, Union

from . import _session
from ._session import Session, current
from ._arena import track_arena
from ._plan import export_plan
from ._pools import track_pool

__version__ = "0.1.0"

_F = TypeVar("_F", bound=Callable[..., Any])

__all__ = ["Session", "session", "scope", "note_scope_params", "marker", "track_arena", "track_pool",
           "export_plan", "current", "__version__"]


@contextlib.contextmanager
def session(out: Optional[str] = None, live: Optional[str] = None, name: Optional[str] = None, stacks: int = 0,
            adapters: str = "all", capacity: int = 1 << 18, token: Optional[str] = None, connect_timeout: float = 30.0,
            memory: bool = False, max_size: Union[int, str, None] = None,
            max_duration: Union[float, str, None] = None) -> Iterator[Session]:
    """Records from entering the block to leaving it, to ``out`` (a JSONL path), ``live``
    (``HOST:PORT``) or, with ``memory=True``, into the process (:meth:`Session.save` writes it out), with
    the named adapters on (``"all"``, a comma list, or ``"none"``); ``max_size`` (``"2GiB"``) and
    ``max_duration`` (``"8h"``) keep a long recording's file to its newest part. Yields the :class:`Session`."""
    from . import _adapters
    s = Session(out=out, live=live, name=name, stacks=stacks, capacity=capacity, token=token, connect_timeout=connect_timeout,
                memory=memory, max_size=max_size, max_duration=max_duration)
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

    def __init__(self, name: str, **params: int) -> None:
        """A scope named ``name`` with integer ``params`` (shape quantities: ``scope("frame", batch=8)``)."""
        self.name = str(name)
        self.params = params
        self._entries = []

    def __enter__(self) -> "scope":
        """Enters the scope on every memory the session tracks (and on those created inside it)."""
        s = current()
        self._entries.append((s, s.global_enter(self.name, self.params)) if s is not None else None)
        return self

    def __exit__(self, *exc: Any) -> bool:
        """Leaves the scope (closing any left open inside it); never swallows an exception."""
        e = self._entries.pop()
        if e is not None and not e[0].closed:
            e[0].global_exit(e[1])
        return False

    def __call__(self, fn: _F) -> _F:
        """As a decorator: every call of ``fn`` runs inside this scope."""
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with scope(self.name, **self.params):
                return fn(*args, **kwargs)
        return wrapped


def note_scope_params(**params: int) -> None:
    """Attaches parameters to the innermost :func:`scope` open (quantities known only inside it)."""
    s = current()
    if s is not None:
        s.global_params(params)


def marker(text: str) -> None:
    """A marker event (a labelled instant on the timeline)."""
    s = current()
    if s is not None:
        s.marker(text)
