package dev.arenascope.core.trace.store;

import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.core.trace.ScopeInterval;

/**
 * One memory's scope executions in start order, with a power-of-two pyramid of the latest end and the
 * longest duration below each node, so "scopes overlapping [from, to) lasting at least d" visits only
 * subtrees that can hold an answer: at a coarse zoom the millions of short scopes are skipped whole.
 * A scope still open has end {@code Long.MAX_VALUE} (and counts as long enough).
 *
 * <p>Not thread-safe: the store calls it under its lock, and {@link #flush()} after each batch.
 */
final class ScopeIndex {
    private LongColumn start = new LongColumn();
    private LongColumn end = new LongColumn();
    private LongColumn ids = new LongColumn();     // scopeId << 32 | nameId
    private LongColumn parents = new LongColumn(); // parentId << 32 | depth
    /** levels.get(l-1) = {maxEnd, maxDuration} of level l; level 0 is computed from the columns. */
    private final List<LongColumn[]> levels = new ArrayList<>();
    private final Map<Integer, Long> open = new HashMap<>();
    /** Leaves entered or exited since the last {@link #flush()}, whose ancestors are stale. */
    private long[] dirtyLeaves = new long[16];
    private int dirtyCount;

    long size() {
        return start.size();
    }

    void enter(long t, int scopeId, int nameId, int parentId) {
        Long p = open.get(parentId);
        int depth = p == null ? 0 : (int) parents.get(p) + 1;
        long i = start.size();
        start.add(t);
        end.add(Long.MAX_VALUE);
        ids.add((long) scopeId << 32 | (nameId & 0xffffffffL));
        parents.add((long) parentId << 32 | (depth & 0xffffffffL));
        open.put(scopeId, i);
        dirty(i);
    }

    void exit(long t, int scopeId) {
        Long i = open.remove(scopeId);
        if (i == null) {
            return; // opened before the recording started: nothing to close
        }
        end.set(i, t);
        dirty(i);
    }

    private void dirty(long i) {
        if (dirtyCount == dirtyLeaves.length) {
            dirtyLeaves = Arrays.copyOf(dirtyLeaves, Math.max(16, dirtyCount * 2));
        }
        dirtyLeaves[dirtyCount++] = i;
    }

    private long leafEnd(long i) {
        return end.get(i);
    }

    private long leafDur(long i) {
        long e = end.get(i);
        return e == Long.MAX_VALUE ? Long.MAX_VALUE : e - start.get(i);
    }

    private long size(int l) {
        return l == 0 ? start.size() : levels.get(l - 1)[0].size();
    }

    private long val(int l, long i, int which) {
        if (l == 0) {
            return which == 0 ? leafEnd(i) : leafDur(i);
        }
        return levels.get(l - 1)[which].get(i);
    }

    /**
     * Brings the pyramid up to date with the scopes entered and exited since the last flush, level by
     * level: each level recomputes the parents of the nodes that changed below it, once each, so a
     * batch of scopes costs about two node updates a scope rather than a walk to the root each.
     * The store calls it after every batch, before any query can run.
     */
    void flush() {
        int n = dirtyCount;
        if (n == 0) {
            return;
        }
        long[] d = dirtyLeaves;
        Arrays.sort(d, 0, n);
        for (int l = 1; size(l - 1) >= 2; l++) {
            if (levels.size() < l) {
                levels.add(new LongColumn[] {new LongColumn(), new LongColumn()});
            }
            LongColumn[] lv = levels.get(l - 1);
            long below = size(l - 1);
            int m = 0;
            long prev = -1;
            for (int k = 0; k < n; k++) {
                long idx = d[k] >>> 1;
                if (idx == prev) {
                    continue;
                }
                prev = idx;
                long c0 = idx * 2;
                long c1 = c0 + 1;
                long e = val(l - 1, c0, 0);
                long du = val(l - 1, c0, 1);
                if (c1 < below) {
                    e = Math.max(e, val(l - 1, c1, 0));
                    du = Math.max(du, val(l - 1, c1, 1));
                }
                if (idx == lv[0].size()) {
                    lv[0].add(e);
                    lv[1].add(du);
                } else if (lv[0].get(idx) == e && lv[1].get(idx) == du) {
                    continue; // unchanged here, so unchanged above
                } else {
                    lv[0].set(idx, e);
                    lv[1].set(idx, du);
                }
                d[m++] = idx;
            }
            n = m;
            if (n == 0) {
                break;
            }
        }
        dirtyCount = 0;
    }

    /** Scope executions overlapping {@code [from, to)} lasting at least {@code minDur}, in start order. */
    void query(int memory, long from, long to, long minDur, List<ScopeInterval> out) {
        long n = start.size();
        if (n == 0) {
            return;
        }
        long lo = 0;
        long hi = n;
        while (lo < hi) {
            long mid = (lo + hi) >>> 1;
            if (start.get(mid) < to) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        long limit = lo; // scopes [0, limit) start before 'to'
        int top = levels.size();
        for (long i = 0; i < size(top); i++) {
            visit(top, i, limit, from, minDur, memory, out);
        }
    }

    private void visit(int l, long i, long limit, long from, long minDur, int memory, List<ScopeInterval> out) {
        if ((i << l) >= limit || val(l, i, 0) <= from || val(l, i, 1) < minDur) {
            return;
        }
        if (l == 0) {
            long id = ids.get(i);
            long par = parents.get(i);
            out.add(new ScopeInterval((int) (id >>> 32), (int) id, memory, (int) par, start.get(i), end.get(i), (int) (par >>> 32)));
            return;
        }
        long c = i * 2;
        visit(l - 1, c, limit, from, minDur, memory, out);
        if (c + 1 < size(l - 1)) {
            visit(l - 1, c + 1, limit, from, minDur, memory, out);
        }
    }

    /** Writes the index (flushed) for {@link #read}. */
    void write(DataOutput out) throws IOException {
        flush();
        start.write(out);
        end.write(out);
        ids.write(out);
        parents.write(out);
        out.writeInt(levels.size());
        for (LongColumn[] lv : levels) {
            lv[0].write(out);
            lv[1].write(out);
        }
        out.writeLong(open.size());
        for (Map.Entry<Integer, Long> e : open.entrySet()) {
            out.writeInt(e.getKey());
            out.writeLong(e.getValue());
        }
    }

    /**
     * An index written by {@link #write}.
     *
     * @throws IndexInput.DamagedIndexException when the bytes do not make a consistent index
     */
    static ScopeIndex read(IndexInput in) {
        ScopeIndex s = new ScopeIndex();
        s.start = LongColumn.read(in);
        s.end = LongColumn.read(in);
        s.ids = LongColumn.read(in);
        s.parents = LongColumn.read(in);
        long n = s.start.size();
        if (s.end.size() != n || s.ids.size() != n || s.parents.size() != n) {
            throw new IndexInput.DamagedIndexException("scope index columns disagree");
        }
        int levels = in.i32();
        if (levels < 0 || levels > 64) {
            throw new IndexInput.DamagedIndexException("scope pyramid of " + levels + " levels");
        }
        long below = n;
        for (int l = 0; l < levels; l++) {
            LongColumn[] lv = {LongColumn.read(in), LongColumn.read(in)};
            if (lv[0].size() != (below + 1) / 2 || lv[1].size() != lv[0].size()) {
                throw new IndexInput.DamagedIndexException("scope pyramid level " + (l + 1) + " has the wrong size");
            }
            s.levels.add(lv);
            below = lv[0].size();
        }
        int open = in.count(12);
        for (int i = 0; i < open; i++) {
            int id = in.i32();
            long at = in.i64();
            if (at < 0 || at >= n) {
                throw new IndexInput.DamagedIndexException("open scope " + id + " at " + at + " of " + n);
            }
            s.open.put(id, at);
        }
        return s;
    }

    long bytes() {
        long n = start.bytes() * 4 + open.size() * 64L;
        for (LongColumn[] lv : levels) {
            n += lv[0].bytes() + lv[1].bytes();
        }
        return n;
    }
}
