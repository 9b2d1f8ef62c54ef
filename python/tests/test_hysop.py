"""hysop-style pools by duck typing, through the adapter's import hook (``hysop.core.memory.mempool``
is the stand-in of tests/standins.py: hysop is not packaged where CI can install it)."""

import textwrap

from conftest import run_client, stats


def test_hysop_pool_requests_holds_and_releases(tmp):
    prog = tmp / "hy.py"
    prog.write_text(textwrap.dedent("""
        import gc
        from hysop.core.memory.mempool import MemoryPool
        pool = MemoryPool("hysop-pool", mantissa_bits=4)
        a = pool.allocate(1000)
        b = pool(5000, alignment=64)
        del a                       # collected: back to the pool, held
        gc.collect()
        c = pool.allocate(1000)     # a hit
        c.release()
        b.release()
        pool.free_held()            # both go back to the device
        d = pool.allocate(100)
        pool.stop_holding()
        d.release()                 # not held any more: released at once
    """))
    out = tmp / "hy.jsonl"
    run_client(["run", "--out", str(out), str(prog)], tmp)
    [m] = stats(out)["memories"]
    assert m["name"] == "hysop-pool"
    assert (m["requests"], m["hits"], m["misses"]) == (4, 1, 3)
    assert m["reserved_peak_bytes"] == 1024 + 5120
    kinds = [l.split('"kind":"')[1].split('"')[0] for l in out.read_text().splitlines() if '"kind":"' in l and '"type"' not in l]
    assert kinds.count("POOL_RELEASE") == 3 and kinds.count("UNRESERVE") == 3 and kinds.count("POOL_HOLD") == 3
