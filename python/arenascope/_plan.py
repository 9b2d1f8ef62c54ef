"""heliaAOT memory plans: :func:`export_plan` writes a plan JSON that ``arenascope plan`` and the
window open.

The input is a pydantic ``MemoryPlan`` (``model_dump()``), a conversion context holding one
(``ctx.memory_plan``), a plain dict of the same shape, or any object with the same attributes
(duck typing). The file is the snake_case dump: ``tensor_allocs`` (id -> ``{size, binding: {role,
memory, offset, source_memory}}``), ``arena_usages``, ``persistent_arenas``, ``constant_arenas`` (bank ->
``{memory, total_size, source_memory}``) and ``tensor_lifetimes`` (id -> ``{first_step, last_step}``),
with enum keys and values as their lowercase names, plus ``name`` and ``alignment``.
"""

from __future__ import annotations

import enum
import json
import os
from typing import Any, Dict, Optional, TypeVar, Union


def _plain(v):
    """Enums to their names (lowercase for roles), models to dicts, containers recursively."""
    if isinstance(v, enum.Enum):
        return v.value if isinstance(v.value, str) else v.name
    dump = getattr(v, "model_dump", None) or getattr(v, "dict", None)
    if callable(dump) and not isinstance(v, dict):
        return _plain(dump())
    if isinstance(v, dict):
        return {str(_plain(k)): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    if hasattr(v, "__dict__"):
        return {k: _plain(x) for k, x in vars(v).items() if not k.startswith("_")}
    return str(v)


_Path = TypeVar("_Path", bound=Union[str, "os.PathLike[str]"])

_FIELDS = ("tensor_allocs", "arena_usages", "persistent_arenas", "constant_arenas", "tensor_lifetimes")


def plan_dict(plan_or_ctx: Any, name: Optional[str] = None, alignment: Optional[int] = None) -> Dict[str, Any]:
    """The plan as the snake_case dict :func:`export_plan` writes."""
    plan = getattr(plan_or_ctx, "memory_plan", plan_or_ctx)
    d = _plain(plan)
    if not isinstance(d, dict) or "tensor_allocs" not in d:
        raise TypeError("export_plan: expected a MemoryPlan (or a context with .memory_plan) with tensor_allocs, got %s"
                        % type(plan).__name__)
    out = {"name": name or d.get("name") or getattr(plan_or_ctx, "name", None) or "plan"}
    if alignment is not None or "alignment" in d:
        out["alignment"] = int(alignment if alignment is not None else d["alignment"])
    for f in _FIELDS:
        out[f] = d.get(f) or {}
    for tid, a in out["tensor_allocs"].items():
        b = a.get("binding") or {}
        if isinstance(b.get("role"), str):
            b["role"] = b["role"].lower()
    return out


def export_plan(plan_or_ctx: Any, path: _Path, name: Optional[str] = None, alignment: Optional[int] = None) -> _Path:
    """Writes ``plan_or_ctx`` to ``path`` as JSON; returns the path."""
    d = plan_dict(plan_or_ctx, name, alignment)
    tmp = os.fspath(path) + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(d, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)
    return path
