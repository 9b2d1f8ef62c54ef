from standins import MemoryPool, PooledBuffer  # noqa: F401  (stand-in, see tests/standins.py)
