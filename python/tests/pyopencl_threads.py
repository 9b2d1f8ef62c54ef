"""Eight threads on one pyopencl MemoryPool: requests, explicit releases and buffers dropped for the
collector, all at once. Writes what the pool itself holds at the end (the trace must agree)."""
import json, sys, random, threading
import pyopencl as cl
import pyopencl.tools as tools
ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
pool = tools.MemoryPool(tools.ImmediateAllocator(q))
sizes = [100, 1000, 4000, 70000]
start = threading.Barrier(8)


def work(seed):
    rng = random.Random(seed)
    live = []
    start.wait()
    for i in range(1500):
        if live and rng.random() < 0.45:
            b = live.pop(rng.randrange(len(live)))
            if rng.random() < 0.5:
                b.release()
            del b
        else:
            live.append(pool.allocate(rng.choice(sizes) + rng.randrange(50)))
    for b in live:
        b.release()


threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
assert pool.active_blocks == 0, pool.active_blocks
json.dump({"held_blocks": pool.held_blocks, "managed_bytes": pool.managed_bytes}, open(sys.argv[1], "w"))
