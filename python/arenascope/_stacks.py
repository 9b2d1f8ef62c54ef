"""Python call stacks of allocations, as the session's allocation-site table.

:func:`capture` walks up to ``depth`` frames above the allocating call (the client's own frames are
skipped wherever they are, and the walk ends at the client's runner, ``python -m arenascope run``) and returns the allocation's *site*: the id of a stack node in the JSON Lines site table
ArenaScope reads (``{"type":"frame",...}`` and ``{"type":"stack",...}`` lines, see the trace format
guide). A frame is an interned code location (qualified function name, file, line); a stack node is a
frame under its caller's node, so a call path shared by many allocations is written once.

Interning happens twice: by the identities of the code objects and line numbers of the path (a
repeated call site costs one tuple and one dictionary lookup) and, on a new path, frame by frame and
node by node. The frame and stack lines of a new path are queued before the path is cached, so an
event naming a site always comes after the lines that declare it, from any thread.
"""

import os
import sys
import sysconfig
import threading

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_RUNNER = _PACKAGE_DIR + "__main__.py"
_getframe = sys._getframe
_INTERNAL = 1  # frame flag: not the program's own code (frozen importlib, <string>, libraries)


def _library_dirs():
    """The folders of Python's standard library and of installed packages (site-packages, dist-packages)."""
    dirs = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            d = sysconfig.get_paths().get(key)
        except Exception:  # a broken installation's sysconfig: the names below still catch packages
            d = None
        if d:
            dirs.add(os.path.abspath(d) + os.sep)
    return tuple(sorted(dirs))


_LIBRARY_DIRS = _library_dirs()
_PACKAGE_FOLDERS = (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep)


def _library(filename):
    """Whether ``filename`` is library code, not the program's: the standard library, an installed package
    (``Array.__init__`` of pyopencl's array.py), or code without a file (``<frozen importlib._bootstrap>``,
    ``<string>``). Such frames are flagged internal: the window's Sites view and ``arenascope sites`` fold
    them as they fold C++ frames, so a site is named by the first frame of the program's own code; *Internal
    frames* shows them."""
    if filename.startswith("<"):
        return True
    if any(p in filename for p in _PACKAGE_FOLDERS):
        return True
    return filename.startswith(_LIBRARY_DIRS)


def _own(filename):
    return filename.startswith(_PACKAGE_DIR)


def _is_runpy(filename):
    return filename == "<frozen runpy>" or filename.endswith(os.sep + "runpy.py")


# id(code object) -> _PROGRAM, _CLIENT (the client's own) or _RUN (its runner), asked once a code object;
# the code objects are kept (in _code_of, by id), so an id is never another's. Ids, not the objects, key the
# path cache: a code object's hash is computed from its bytecode and constants on every lookup.
_code_kind = {}
_code_of = {}
_PROGRAM, _CLIENT, _RUN = 0, 1, 2


def _kind_of(code):
    filename = code.co_filename
    kind = _RUN if filename == _RUNNER else _CLIENT if _own(filename) else _PROGRAM
    _code_of[id(code)] = code
    _code_kind[id(code)] = kind
    return kind


def capture(session, depth, skip=2):
    """The site (stack node id) of the caller's stack (``depth`` frames at most), or -1 when there is none.

    The path is looked up by its code objects' ids and instruction offsets (``f_lasti``, read in
    constant time; a frame's line number is decoded from its code's line table, in time growing with
    the function's length); the lines are read only for a path not seen before."""
    try:
        f = _getframe(skip)
    except ValueError:
        return -1
    kinds = _code_kind
    while f is not None:
        kind = kinds.get(id(f.f_code))
        if kind is None:
            kind = _kind_of(f.f_code)
        if kind == _PROGRAM:
            break
        f = f.f_back
    top = f
    key = []
    n = 0
    while f is not None and n < depth:
        code = f.f_code
        kind = kinds.get(id(code))
        if kind is None:
            kind = _kind_of(code)
        if kind == _PROGRAM:
            key.append(id(code))
            key.append(f.f_lasti)
            n += 1
        elif kind == _RUN:
            # ``python -m arenascope run``: the client's runner, and the runpy frames it ran the program
            # through, are not the program's
            while key and _is_runpy(_code_of[key[-2]].co_filename):
                del key[-2:]
                n -= 1
            break
        # a client frame in the middle (a scope decorator) is not the program's either
        f = f.f_back
    if not key:
        return -1
    key = tuple(key)
    cache = session._stacks
    site = cache.get(key)
    if site is None:
        with session._site_lock:
            site = cache.get(key)
            if site is None:
                site = _intern_path(session, _with_lines(top, key))
                cache[key] = site
    return site


def _with_lines(f, key):
    """``key`` (code object ids and instruction offsets, from frame ``f`` outwards) as the site table's
    path: code objects and line numbers (the frames of ``key`` are the program's from ``f`` outwards)."""
    out = []
    i = 0
    while i < len(key):
        if id(f.f_code) == key[i]:
            out.append(f.f_code)
            out.append(f.f_lineno)
            i += 2
        f = f.f_back
    return tuple(out)



class SharedSites:
    """The process's site table, shared by its memory sessions (``Session(memory=True)``): a call path
    is interned once a process rather than once a session, so a suite's thousandth test pays one
    lookup per allocation. Ids are the process's; :meth:`MemorySink.save <arenascope._writer.MemorySink.save>`
    renumbers the sites a saved recording uses, in order, and declares them before their first use."""

    def __init__(self):
        self.lock = threading.Lock()
        self.stacks = {}     # call path -> node id
        self.frames = {}     # (code object, line) -> frame id
        self.nodes = {}      # (parent node, frame id) -> node id
        self.frame_of = {}   # frame id -> (function, file, line)
        self.node_of = {}    # node id -> (frame id, parent node id)


#: The one table of the process (a forked child keeps its copy: ids stay consistent there too).
SHARED = SharedSites()


def frame_line(fid, frame):
    """The ``frame`` metadata line (a dict) of frame ``fid`` = (function, file, line)."""
    function, filename, line = frame
    d = {"type": "frame", "id": fid, "function": function, "file": filename, "line": line}
    if _library(filename):
        d["flags"] = _INTERNAL
    return d


def _intern_path(session, key):
    """Declares the frames and nodes of ``key`` (innermost first) not yet declared; returns the innermost node."""
    shared = session._shared_sites
    if shared is not None:
        return _intern_shared(shared, key)
    frames = session._frames
    nodes = session._nodes
    q = session._queue
    node = -1
    for i in range(len(key) - 2, -1, -2):  # outermost first
        code = key[i]
        line = key[i + 1] or 0
        fkey = (code, line)
        fid = frames.get(fkey)
        if fid is None:
            fid = len(frames)
            filename = code.co_filename
            frame = {"type": "frame", "id": fid, "function": getattr(code, "co_qualname", code.co_name),
                     "file": filename, "line": max(0, line)}
            if _library(filename):
                frame["flags"] = _INTERNAL
            q.append(frame)
            frames[fkey] = fid
        nkey = (node, fid)
        nid = nodes.get(nkey)
        if nid is None:
            nid = len(nodes)
            q.append({"type": "stack", "id": nid, "frame": fid, "parent": node})
            nodes[nkey] = nid
        node = nid
    return node


def _intern_shared(shared, key):
    frames = shared.frames
    nodes = shared.nodes
    node = -1
    for i in range(len(key) - 2, -1, -2):  # outermost first
        code = key[i]
        line = key[i + 1] or 0
        fkey = (code, line)
        fid = frames.get(fkey)
        if fid is None:
            fid = len(frames)
            shared.frame_of[fid] = (getattr(code, "co_qualname", code.co_name), code.co_filename, max(0, line))
            frames[fkey] = fid
        nkey = (node, fid)
        nid = nodes.get(nkey)
        if nid is None:
            nid = len(nodes)
            shared.node_of[nid] = (fid, node)
            nodes[nkey] = nid
        node = nid
    return node
