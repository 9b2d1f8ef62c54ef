"""algan-style arenas, through the adapter's import hook (``algan.utils.memory_utils`` is the stand-in
of tests/standins.py: algan is not packaged where CI can install it), against the Java ``render``
workload: the same scopes and shapes give the same scope tree and the same fitted memory models."""

from conftest import HERE, java, report, run_client, stats


def _scopes(rep):
    return {s["path"]: s for s in rep["trace"]["scopes"]}


def test_render_equivalent_reproduces_the_java_scope_tree_and_models(tmp):
    w, h, tris = 64, 32, 500
    java(["record", "render", "--device", "virtual", "--frames", "24", "--width", str(w), "--height", str(h),
          "--triangles", str(tris), "--grow-by", "0", "--out", str(tmp / "java.astrace")])
    run_client(["run", "--out", str(tmp / "py.jsonl"), "%s/render_equivalent.py" % HERE, str(w), str(h), str(tris),
                "1", "2", "3", "7", "11"], tmp)
    j = _scopes(report(tmp / "java.astrace"))
    p = _scopes(report(tmp / "py.jsonl"))
    assert sorted(p) == sorted(j)
    for path in j:
        assert p[path]["model"] == j[path]["model"], path
        assert p[path]["depth"] == j[path]["depth"], path
    assert p["batch/tiles"]["model"] == "0 + 8·pool + 4·fragments"
    assert p["batch"]["executions"] == 5


def test_arena_events_are_exact(tmp):
    out = tmp / "a.jsonl"
    run_client(["run", "--out", str(out), "%s/render_equivalent.py" % HERE, "32", "16", "10", "2"], tmp)
    st = stats(out)
    [arena] = st["memories"]
    assert arena["kind"] == "ARENA" and arena["capacity"] == 16 << 20
    px = 32 * 16
    scene = 10 * 12 * 4
    frames = 2
    forward = frames * px * 8 + frames * 10 * 64 + frames * 2 * 2 * 4 + (frames * 10 * 2 + 5) * 4
    post = max(frames * px * 12, frames * px * 4 + frames * 1024)
    assert arena["peak_bytes"] == scene + forward + post
