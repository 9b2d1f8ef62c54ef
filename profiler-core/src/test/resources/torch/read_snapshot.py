"""An independent reading of a PyTorch memory snapshot, with Python's own pickle module, for the
tests that check ArenaScope's importer (SnapshotShapesTest). Prints, one record a line:

  allocs DEVICE N           alloc entries in the device's trace
  peak DEVICE POOL BYTES    peak bytes in use in a pool (POOL "default" or "A.B", from segment_pool_id),
                            blocks live before the trace counted from its start (the final state's
                            blocks, replayed backwards over the trace as PyTorch's viewer does)
  stack DEVICE FRAMES       one line per alloc entry, in trace order: its frames innermost first,
                            each "name<US>filename<US>line", separated by <RS> (0x1f, 0x1e)

Usage: python3 read_snapshot.py SNAPSHOT.pickle
"""
import bisect
import pickle
import sys


def main(path):
    with open(path, "rb") as f:
        snap = pickle.load(f)
    out = sys.stdout
    ranges = {}  # device -> sorted [(start, end, pool)]
    live_end = {}  # device -> {addr: size}
    for seg in snap["segments"]:
        d = seg["device"]
        pid = tuple(seg.get("segment_pool_id", (0, 0)))
        pool = "default" if pid == (0, 0) else "%d.%d" % pid
        ranges.setdefault(d, []).append((seg["address"], seg["address"] + seg["total_size"], pool))
        for b in seg["blocks"]:
            if b["state"] in ("active_allocated", "active_pending_free"):
                live_end.setdefault(d, {})[b["address"]] = b["size"]
    for d in ranges:
        ranges[d].sort()

    def pool_of(d, addr):
        rs = ranges.get(d, [])
        i = bisect.bisect_right(rs, (addr, float("inf"), "")) - 1
        if i >= 0 and rs[i][0] <= addr < rs[i][1]:
            return rs[i][2]
        return "default"

    for d, trace in enumerate(snap["device_traces"]):
        alive = dict(live_end.get(d, {}))
        for e in reversed(trace):
            if e["action"] == "alloc":
                alive.pop(e["addr"], None)
            elif e["action"] == "free_completed":
                alive[e["addr"]] = e["size"]
        used = {}
        for addr, size in alive.items():
            p = pool_of(d, addr)
            used[p] = used.get(p, 0) + size
        peak = dict(used)
        allocs = 0
        for e in trace:
            a = e["action"]
            if a == "alloc":
                allocs += 1
                p = pool_of(d, e["addr"])
                alive[e["addr"]] = e["size"]
                used[p] = used.get(p, 0) + e["size"]
                peak[p] = max(peak.get(p, 0), used[p])
                frames = "\x1e".join("%s\x1f%s\x1f%d" % (fr["name"], fr["filename"], fr["line"]) for fr in e["frames"])
                out.write("stack %d %s\n" % (d, frames))
            elif a == "free_completed":
                size = alive.pop(e["addr"], None)
                if size is not None:
                    p = pool_of(d, e["addr"])
                    used[p] -= size
        out.write("allocs %d %d\n" % (d, allocs))
        for p in sorted(peak):
            out.write("peak %d %s %d\n" % (d, p, peak[p]))


if __name__ == "__main__":
    main(sys.argv[1])
