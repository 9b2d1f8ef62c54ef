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
