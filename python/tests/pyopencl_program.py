"""A pyopencl program that allocates, releases (explicitly and by dropping references), frees held
blocks and stops holding, and writes what the pool itself showed: the figures the trace must give."""
import json, sys, random
import pyopencl as cl
import pyopencl.tools as tools
ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
pool = tools.MemoryPool(tools.ImmediateAllocator(q))
rng = random.Random(3)
live = []
requests = hits = 0
peak = 0; managed_peak = 0
sizes = [100, 1000, 4000, 70000, 1 << 20]
for i in range(2000):
    if live and rng.random() < 0.45:
        b = live.pop(rng.randrange(len(live)))
        if rng.random() < 0.5: b.release()
        del b
    else:
        n = rng.choice(sizes) + rng.randrange(50)
        h0 = pool.held_blocks
        live.append(pool.allocate(n))
        requests += 1
        hits += pool.held_blocks == h0 - 1
    if i == 1000: pool.free_held()
    cur = sum(pool.alloc_size(pool.bin_number(x.size)) for x in live)
    peak = max(peak, cur); managed_peak = max(managed_peak, pool.managed_bytes)
pool.stop_holding()
for _ in range(50):
    live.append(pool.allocate(rng.choice(sizes)))
    requests += 1
    cur = sum(pool.alloc_size(pool.bin_number(x.size)) for x in live)
    peak = max(peak, cur); managed_peak = max(managed_peak, pool.managed_bytes)
live.clear()
assert pool.managed_bytes == 0, pool.managed_bytes
json.dump({"requests": requests, "hits": hits, "misses": requests - hits, "peak_bytes": peak,
           "reserved_peak_bytes": managed_peak}, open(sys.argv[1], "w"))
