"""Python call stacks of allocations.

:func:`capture` walks up to ``depth`` frames above the allocating call (the client's own frames are
skipped) and returns a string id of the session: the stack as text, one frame a line, innermost first,
``function at file:line``, the form ArenaScope's PyTorch import gives stacks today. Stacks are interned
twice: by the identities of their code objects and line numbers (a repeated call site costs one tuple
and one dictionary lookup) and by text.

This is the one place that decides how a stack is written: when the trace format gains frame and
stack-node tables (the allocation-sites work), only this module changes.
"""

import os
import sys

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_getframe = sys._getframe


def _own(filename):
    return filename.startswith(_PACKAGE_DIR)


def capture(session, depth, skip=2):
    """The string id of the caller's stack (``depth`` frames at most), or -1 when there is none."""
    try:
        f = _getframe(skip)
    except ValueError:
        return -1
    while f is not None and _own(f.f_code.co_filename):
        f = f.f_back
    key = []
    n = 0
    while f is not None and n < depth:
        key.append(f.f_code)
        key.append(f.f_lineno)
        f = f.f_back
        n += 1
    if not key:
        return -1
    key = tuple(key)
    cache = session._stacks
    sid = cache.get(key)
    if sid is None:
        lines = []
        for i in range(0, len(key), 2):
            code = key[i]
            lines.append("%s at %s:%d" % (code.co_name, code.co_filename, key[i + 1]))
        sid = session.intern("\n".join(lines))
        cache[key] = sid
    return sid
