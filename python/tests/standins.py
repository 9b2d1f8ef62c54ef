"""Stand-ins for libraries that are not packaged anywhere this project's CI can install them from:
algan's ``ManualMemory`` and hysop's ``MemoryPool``. Each is written from the interface pages in
``/work/shared/seeds`` (manualmemory-algan.txt, mempool-hysop.txt) and the facts in the project's
peer notes: the same methods, parameters and pointer/bin arithmetic, with bytes in a ``bytearray``
instead of a device buffer. The adapters are tested against these; the real libraries have the same
interface.
"""

import contextlib


class DType:
    """A tensor element type (``torch.float32`` and friends in the real library)."""

    def __init__(self, name, itemsize):
        self.name = name
        self.itemsize = itemsize

    def __repr__(self):
        return "torch." + self.name


float32 = DType("float32", 4)
int32 = DType("int32", 4)
uint8 = DType("uint8", 1)


class Tensor:
    def __init__(self, memory, offset, shape, dtype):
        self.memory = memory
        self.offset = offset
        self.shape = tuple(shape)
        self.dtype = dtype

    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    def element_size(self):
        return self.dtype.itemsize


class ManualMemory:
    """algan's two-pointer bump arena: ``get_tensor`` bumps ``current_pointer`` forward (aligned to the
    item size) or, with ``persist=True``, ``current_reverse_pointer`` backward; ``temp()`` restores both."""

    def __init__(self, portion_of_available_memory_used=0.5, device=None, managed=True, *, num_bytes=None):
        self.managed = managed
        self.num_bytes = 1 if not managed else int(num_bytes if num_bytes is not None else 1 << 24)
        self.memory = bytearray(self.num_bytes)
        self.device = device or "cpu"
        self.current_pointer = 0
        self.current_reverse_pointer = self.num_bytes
        self._saved = []

    def get_tensor(self, shape, dtype, persist=False):
        if isinstance(shape, int):
            shape = (shape,)
        numel = 1
        for d in shape:
            numel *= d
        nbytes = numel * dtype.itemsize
        if persist:
            start = (self.current_reverse_pointer - nbytes) // dtype.itemsize * dtype.itemsize
            if start < self.current_pointer:
                raise MemoryError("arena full: %d bytes needed backward" % nbytes)
            self.current_reverse_pointer = start
        else:
            start = -(-self.current_pointer // dtype.itemsize) * dtype.itemsize
            if start + nbytes > self.current_reverse_pointer:
                raise MemoryError("arena full: %d bytes needed" % nbytes)
            self.current_pointer = start + nbytes
        return Tensor(self.memory, start, shape, dtype)

    @contextlib.contextmanager
    def temp(self, clear_reverse=False):
        saved = self.get_pointers()
        try:
            yield self
        finally:
            self.current_pointer = saved[0]
            if clear_reverse:
                self.current_reverse_pointer = saved[1]

    def get_pointers(self):
        return self.current_pointer, self.current_reverse_pointer

    def set_pointers(self, forward, backward):
        self.current_pointer, self.current_reverse_pointer = forward, backward

    def save_pointer(self):
        self._saved.append(self.current_pointer)

    def reset_pointer(self):
        self.current_pointer = self._saved.pop()

    def reset(self):
        self.current_pointer = 0
        self.current_reverse_pointer = self.num_bytes

    def get_num_bytes_remaining(self):
        return self.current_reverse_pointer - self.current_pointer

    def get_percent_used(self):
        return 100.0 * (1 - self.get_num_bytes_remaining() / self.num_bytes)

    def scope(self, name, **params):
        return contextlib.nullcontext()   # a shared null object unless a recorder is armed

    def note_scope_params(self, **params):
        pass


class PooledBuffer:
    """hysop's pooled buffer: returns its block to the pool when released or collected."""

    def __init__(self, pool, buf, size):
        self._pool = pool
        self.buf = buf
        self.size = size
        self.int_ptr = buf
        self._released = False

    def release(self):
        if not self._released:
            self._released = True
            self._pool.free(self.buf, self.size)

    def __del__(self):
        self.release()


class MemoryPool:
    """hysop's binned pool (pyopencl's bin arithmetic: ``mantissa_bits`` bits below the leading one)."""

    def __init__(self, name, allocator=None, max_alloc_bytes=None, mantissa_bits=4, verbose=None, **kwds):
        self.name = name
        self.mantissa_bits = mantissa_bits
        self.max_alloc_bytes = max_alloc_bytes
        self._bins = {}
        self._next_address = 1 << 20
        self._holding = True
        self.active_blocks = 0

    def bin_number(self, size):
        m = self.mantissa_bits
        if size < (1 << m):
            return size
        l = size.bit_length() - 1
        shifted = size >> (l - m)
        return ((l - m + 1) << m) | (shifted & ((1 << m) - 1)) if size == shifted << (l - m) else \
            self.bin_number(((shifted + 1) << (l - m)))

    def alloc_size(self, bin_nr):
        m = self.mantissa_bits
        exponent, mantissa = bin_nr >> m, bin_nr & ((1 << m) - 1)
        if exponent == 0:
            return mantissa
        return ((1 << m) | mantissa) << (exponent - 1)

    @property
    def held_blocks(self):
        return sum(len(v) for v in self._bins.values())

    def allocate(self, nbytes, alignment=None):
        b = self.bin_number(nbytes)
        size = self.alloc_size(b)
        held = self._bins.get(b)
        if held:
            addr = held.pop()
        else:
            addr = self._next_address
            self._next_address += size + 256
        self.active_blocks += 1
        return PooledBuffer(self, addr, nbytes)

    __call__ = allocate

    def allocate_aligned(self, size, alignment):
        return self.allocate(size, alignment)

    def free(self, buf, size):
        self.active_blocks -= 1
        if self._holding:
            self._bins.setdefault(self.bin_number(size), []).append(buf)

    def free_held(self):
        self._bins.clear()

    def stop_holding(self):
        self._holding = False
        self.free_held()

    def may_alloc(self, size):
        return self.max_alloc_bytes is None or size <= self.max_alloc_bytes
