"""The library adapters and the import hook that switches each on when its library is imported.

``ADAPTERS`` maps an adapter's name to the module it waits for and the function that instruments
that module. :func:`install` puts a finder first on ``sys.meta_path``: when the program imports the
module (or it is imported already), the adapter runs once, right after the module's own code, so
pools and arenas the program creates afterwards are recorded. Adapters whose library is never
imported cost nothing.
"""

import importlib.abc
import importlib.util
import sys
import threading

from . import _events as K


def _pyopencl(module):
    import pyopencl
    from . import _pools as pools
    cl = sys.modules.get("pyopencl._cl") or pyopencl

    nameless = {}   # allocator type -> whether it has no context (asked once a type)

    def device_of(args):
        alloc = args[0] if args else None
        # pyopencl's allocators (ImmediateAllocator, DeferredAllocator) have no context to name the
        # device by: asked of the type, not the instance (a failed attribute lookup on a pybind11
        # object costs microseconds, on every pool a test suite makes), once a type
        cls = type(alloc)
        none = nameless.get(cls)
        if none is None:   # no such attribute, none on the instance
            none = nameless[cls] = not hasattr(cls, "context") and not cls.__dictoffset__
        if none:
            return "opencl"
        try:
            return "opencl " + alloc.context.devices[0].name.strip()
        except Exception:
            return "opencl"
    traced = pools.make_traced_pool_class(module.MemoryPool, "pyopencl.MemoryPool", device_of,
                                          release_types=(cl.PooledBuffer,))
    module.MemoryPool = traced
    return "pyopencl.tools.MemoryPool"


def _pycuda(module):
    from . import _pools as pools
    import pycuda._driver as drv
    traced = pools.make_traced_pool_class(module.DeviceMemoryPool, "pycuda.DeviceMemoryPool",
                                          lambda args: "cuda", release_types=(drv.PooledDeviceAllocation,),
                                          release_name="free")
    module.DeviceMemoryPool = traced
    return "pycuda.tools.DeviceMemoryPool"


def _hysop(module):
    from . import _pools as pools
    cls = module.MemoryPool
    init = cls.__init__

    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        from ._session import current
        if current() is not None:
            pools.track_pool(self, name=getattr(self, "name", None))
    cls.__init__ = __init__

    def __call__(self, nbytes, *args, **kwargs):
        # hysop's __call__ is allocate; going through the instance's (traced) allocate records it
        return self.allocate(nbytes, *args, **kwargs)
    cls.__call__ = __call__
    return "hysop.core.memory.mempool.MemoryPool"


def _algan(module):
    from . import _arena as arena
    cls = module.ManualMemory
    init = cls.__init__

    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        from ._session import current
        if current() is not None and getattr(self, "managed", True):
            arena.track_arena(self)
    cls.__init__ = __init__
    return "algan.utils.memory_utils.ManualMemory"


def _torch(module):
    from . import _torch as torch_adapter
    return torch_adapter.start(module)


#: name -> (module to wait for, instrument function)
ADAPTERS = {
    "pyopencl": ("pyopencl.tools", _pyopencl),
    "pycuda": ("pycuda.tools", _pycuda),
    "hysop": ("hysop.core.memory.mempool", _hysop),
    "algan": ("algan.utils.memory_utils", _algan),
    "torch": ("torch", _torch),
}

_done = {}
_lock = threading.Lock()
_finder = None


def parse(names):
    """The adapter names of a ``--adapters`` list (``all``, or names separated by commas)."""
    if names in (None, "", "all"):
        return list(ADAPTERS)
    out = []
    for n in names.split(","):
        n = n.strip()
        if n in ("", "none"):
            continue
        if n not in ADAPTERS:
            raise ValueError("unknown adapter %r (known: %s)" % (n, ", ".join(ADAPTERS)))
        out.append(n)
    return out


def _apply(name, module):
    with _lock:
        if name in _done:
            return
        _done[name] = None
    try:
        _done[name] = ADAPTERS[name][1](module)
    except Exception as e:  # an adapter never breaks the program it records
        _done[name] = "failed: %s" % e
        print("arenascope: the %s adapter is off (%s)" % (name, e), file=sys.stderr)


class _Loader(importlib.abc.Loader):
    def __init__(self, inner, name):
        self.inner = inner
        self.adapter = name

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module):
        self.inner.exec_module(module)
        _apply(self.adapter, module)


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, names):
        self.watch = {ADAPTERS[n][0]: n for n in names}
        self._busy = threading.local()

    def find_spec(self, fullname, path, target=None):
        name = self.watch.get(fullname)
        if name is None or name in _done or getattr(self._busy, "on", False):
            return None
        self._busy.on = True
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self._busy.on = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _Loader(spec.loader, name)
        return spec


def install(names):
    """Switches the named adapters on: now for modules imported already, on import for the rest."""
    global _finder
    for n in names:
        mod = sys.modules.get(ADAPTERS[n][0])
        if mod is not None:
            _apply(n, mod)
    if _finder is None:
        _finder = _Finder(names)
        sys.meta_path.insert(0, _finder)
    else:
        _finder.watch.update({ADAPTERS[n][0]: n for n in names})


def active():
    """Adapters switched on so far, with what each instruments (or why it failed)."""
    return dict(_done)


__all__ = ["ADAPTERS", "install", "parse", "active", "K"]
