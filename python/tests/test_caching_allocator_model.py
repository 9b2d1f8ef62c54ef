"""The independent Python model of PyTorch's caching allocator: exact on the real snapshots and on its own runs."""

import pathlib
import pickle

import caching_allocator_model as m

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "torch"


def test_both_real_snapshots_replay_exactly():
    for name in ("cs336-a2-magma27.pickle", "cs336-a2-bcrafton.pickle"):
        with open(FIXTURES / name, "rb") as f:
            assert m.check(pickle.load(f)) == "model: exact", name


def test_its_own_runs_replay_exactly():
    for seed, settings in ((1, m.Settings()), (2, m.Settings(max_split=64 << 20)),
                           (3, m.Settings(divisions=[4] * 16)), (4, m.Settings(capacity=400 << 20))):
        snap = m.generate(seed, settings, 1500)
        assert m.check(snap) == "model: exact", seed


def test_the_rounding_rules():
    s = m.Settings()
    assert m.round_size(s, 1) == 512
    assert m.round_size(s, 513) == 1024
    assert m.round_size(m.Settings(divisions=[4] * 16), (5 << 20) + 1) == 6 << 20
    assert m.segment_size(1 << 20) == 2 << 20
    assert m.segment_size((1 << 20) + 512) == 20 << 20
    assert m.segment_size(11 << 20) == 12 << 20


def test_expandable_segments_grow_in_pages_from_one_range_per_stream_and_pool():
    snap = m.generate(1, m.Settings(expandable=True), 1500)
    assert snap["allocator_settings"]["expandable_segments"] is True
    maps = [e for e in snap["device_traces"][0] if e["action"] == "segment_map"]
    assert maps and all(e["action"] != "segment_alloc" for e in snap["device_traces"][0])
    for e in maps:
        page = m.SMALL_BUFFER if e["size"] % m.LARGE_BUFFER else m.LARGE_BUFFER
        assert e["size"] % page == 0
    segs = snap["segments"]
    assert all(s["is_expandable"] for s in segs)
    # no capacity, nothing unmapped: each (stream, pool) is one mapped range, as long as its maps together
    ranges = {(s["stream"], s["segment_type"]) for s in segs}
    assert len(ranges) == len(segs)
    assert sum(s["total_size"] for s in segs) == sum(e["size"] for e in maps)
    for s in segs:
        assert sum(b["size"] for b in s["blocks"]) == s["total_size"]


def test_expandable_segments_under_a_capacity_unmap_cached_pages_and_retry():
    # the hand-worked case of the Java model's test (CachingAllocatorModelTest): capacity 80 MiB
    mib = 1 << 20
    s = m.Settings(expandable=True, capacity=80 * mib)
    trace = []
    a = m.Allocator(s, m.BumpDevice(s.capacity), trace)
    x = a.malloc(60 * mib, 0)
    a.free_request(x, False)
    assert a.reserved == 60 * mib  # cached, still mapped
    del trace[:]
    y = a.malloc(40 * mib, 1)  # 60 + 40 > 80: stream 0's free pages go back, then stream 1 maps its own
    assert y is not None
    assert [(e[0], e[2] // mib) for e in trace if e[0].startswith("segment")] == [("segment_unmap", 60), ("segment_map", 40)]
    assert a.reserved == 40 * mib
    del trace[:]
    assert a.malloc(50 * mib, 0) is None  # 40 + 50 > 80, nothing cached: out of memory
    assert [e[0] for e in trace] == ["oom"]
    a.free_request(y, False)
    z = a.malloc(10 * mib, 1)
    del trace[:]
    assert a.malloc(55 * mib, 0) is not None  # the free [10, 40) MiB gives back its whole page [20, 40)
    assert [(e[0], e[2] // mib) for e in trace if e[0].startswith("segment")] == [("segment_unmap", 20), ("segment_map", 60)]
    assert a.reserved == 80 * mib and z is not None


def test_expandable_segments_under_a_capacity_never_pass_it():
    cap = 300 << 20
    snap = m.generate(1, m.Settings(expandable=True, capacity=cap), 1500)
    mapped = 0
    unmaps = ooms = 0
    for e in snap["device_traces"][0]:
        if e["action"] == "segment_map":
            mapped += e["size"]
        elif e["action"] == "segment_unmap":
            mapped -= e["size"]
            unmaps += 1
        elif e["action"] == "oom":
            ooms += 1
        assert mapped <= cap
    assert unmaps > 0 and ooms > 0
    assert sum(s["total_size"] for s in snap["segments"]) == mapped
