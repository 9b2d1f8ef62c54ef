"""Event kinds, flags and memory kinds of ArenaScope's trace model (core's ``EventKind`` and
``MemoryKind``): the names are what the JSONL ``kind`` field holds."""

MEMORY_CREATED = "MEMORY_CREATED"
MEMORY_CLOSED = "MEMORY_CLOSED"
ALLOC = "ALLOC"
FREE = "FREE"
#: A free asked for but not completed (a caching allocator's pending free); gauges do not move.
FREE_REQUESTED = "FREE_REQUESTED"
POINTER_RESTORE = "POINTER_RESTORE"
RESET = "RESET"
SCOPE_ENTER = "SCOPE_ENTER"
SCOPE_EXIT = "SCOPE_EXIT"
SCOPE_PARAM = "SCOPE_PARAM"
OUT_OF_MEMORY = "OUT_OF_MEMORY"
POOL_REQUEST = "POOL_REQUEST"
POOL_HOLD = "POOL_HOLD"
POOL_RELEASE = "POOL_RELEASE"
RESERVE = "RESERVE"
UNRESERVE = "UNRESERVE"
MARKER = "MARKER"

#: An allocation or pointer of an arena's backward end.
FLAG_BACKWARD = 1
#: A pool request served from a held block.
FLAG_HIT = 2

ARENA = "ARENA"
POOL = "POOL"
SEGMENTED = "SEGMENTED"

#: The largest value ``ref2`` (an int32) holds: pool request durations saturate here.
INT_MAX = 2**31 - 1
