"""PyTorch: on a CUDA build, the caching allocator's own history for the run, written as a snapshot
ArenaScope imports (``arenascope open run.pickle``), with our scopes mirrored into the allocator's
user metadata where this PyTorch has it (``torch.cuda.memory._set_memory_metadata``).

The snapshot is written at the session's end and when PyTorch raises out of memory (to
``<out>.torch.pickle`` next to the JSONL output). Without CUDA there is no allocator history to take:
the adapter says so once and records nothing.
"""

import atexit
import os
import sys

_state = {"path": None, "torch": None}


def start(torch):
    cuda = getattr(torch, "cuda", None)
    if cuda is None or not cuda.is_available():
        return "off: this PyTorch has no CUDA device (CPU tensors have no caching allocator history)"
    memory = torch.cuda.memory
    record = getattr(memory, "_record_memory_history", None)
    if record is None:
        return "off: this PyTorch has no torch.cuda.memory._record_memory_history"
    try:
        record(enabled="all", stacks="python")
    except TypeError:
        record(True)
    from ._session import current
    s = current()
    out = getattr(s.writer.sink, "path", None) if s is not None else None
    path = (os.path.splitext(out)[0] if out else "arenascope-%d" % os.getpid()) + ".torch.pickle"
    _state["path"] = path
    _state["torch"] = torch
    atexit.register(dump)
    return "recording CUDA allocator history to " + path


def dump():
    """Writes the snapshot (at exit, and from :func:`on_out_of_memory`)."""
    torch = _state["torch"]
    if torch is None:
        return None
    try:
        torch.cuda.memory._dump_snapshot(_state["path"])
        return _state["path"]
    except Exception as e:
        print("arenascope: cannot write the PyTorch snapshot %s: %s" % (_state["path"], e), file=sys.stderr)
        return None


def scope_metadata(text):
    """Mirrors an ArenaScope scope path into the allocator's metadata (newer PyTorch only)."""
    torch = _state["torch"]
    if torch is None:
        return
    setter = getattr(torch.cuda.memory, "_set_memory_metadata", None)
    if setter is not None:
        setter(text)
