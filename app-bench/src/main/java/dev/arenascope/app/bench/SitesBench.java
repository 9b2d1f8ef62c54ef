package dev.arenascope.app.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.analysis.SiteBreakdown;
import dev.arenascope.core.analysis.SiteQuestion;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.SiteTable;
import dev.arenascope.core.trace.store.EventStore;

/**
 * The site analysis at a million allocations: a store of 1,000,000 allocations (and as many frees, 2,000
 * distinct sites of depth 4 to 12, a PyTorch-like churn of live blocks) built once; then
 * {@code sites.index_ms} is {@link SiteAnalysis#of} (the one replay into allocation columns and the
 * resolution of every site) and {@code sites.query_ms} one question on it (live at a random instant, or
 * allocated over a random range, alternately), medians of their rounds. Quick runs use 100,000 allocations.
 */
final class SitesBench implements BenchSuite {

    @Override
    public String group() {
        return "sites";
    }

    @Override
    public Map<String, Double> run(boolean quick) throws Exception {
        int allocations = quick ? 100_000 : 1_000_000;
        EventStore store = store(allocations);
        MemoryInfo m = store.memories().getFirst();
        Map<String, Double> f = new LinkedHashMap<>();
        SiteAnalysis[] last = new SiteAnalysis[1];
        f.put("sites.index_ms", Medians.medianOf(1, quick ? 3 : 5, () -> {
            long t0 = System.nanoTime();
            last[0] = SiteAnalysis.of(store, m, false);
            return (System.nanoTime() - t0) / 1e6;
        }));
        SiteAnalysis sa = last[0];
        if (sa.allocations() != allocations) {
            throw new IllegalStateException("the index holds " + sa.allocations() + " allocations, not " + allocations);
        }
        SplittableRandom r = new SplittableRandom(7);
        long end = sa.endNs();
        long[] sink = {0};
        int[] k = {0};
        f.put("sites.query_ms", Medians.medianOf(5, quick ? 11 : 41, () -> {
            long a = r.nextLong(end + 1);
            long b = r.nextLong(end + 1);
            long t0 = System.nanoTime();
            SiteBreakdown sb = k[0]++ % 2 == 0 ? sa.ask(new SiteQuestion.LiveAt(a)) : sa.ask(new SiteQuestion.AllocatedIn(Math.min(a, b), Math.max(a, b)));
            double ms = (System.nanoTime() - t0) / 1e6;
            sink[0] += sb.totalBytes();
            return ms;
        }));
        f.put("sites.allocations", (double) allocations);
        return f;
    }

    /** A segmented memory with {@code allocations} sited allocations, most freed soon after, some kept. */
    static EventStore store(int allocations) {
        EventStore st = new EventStore("sites-bench");
        st.onSession(new SessionInfo("sites-bench", "", 0, List.of(), Map.of()));
        st.onMemory(new MemoryInfo(0, "cuda:0", MemoryKind.SEGMENTED, "cuda:0", 0, Map.of()));
        SiteTable t = new SiteTable();
        SplittableRandom r = new SplittableRandom(42);
        int[] frames = new int[400];
        for (int i = 0; i < frames.length; i++) {
            frames[i] = t.frame("fn" + i, "model" + (i % 40) + ".py", 1 + i, 0);
        }
        int[] sites = new int[2000];
        for (int s = 0; s < sites.length; s++) {
            int[] path = new int[4 + r.nextInt(9)];
            for (int d = 0; d < path.length; d++) {
                path[d] = frames[d == 0 ? 0 : r.nextInt(frames.length)];
            }
            sites[s] = t.stack(path);
        }
        t.announceNew(st);
        EventBatch b = new EventBatch(1 << 16);
        long[] live = new long[4096];
        long[] liveBytes = new long[4096];
        int n = 0;
        long used = 0;
        long time = 0;
        long nextAddr = 0;
        for (int i = 0; i < allocations; i++) {
            time += 1 + r.nextInt(2000);
            if (n == live.length || (n > 0 && r.nextInt(100) < 48)) {
                int k = r.nextInt(n);
                used -= liveBytes[k];
                b.add(time, EventBatch.pack(EventKind.FREE.code(), 0, 0), 1, live[k], liveBytes[k], 0, used, 0, -1, -1);
                live[k] = live[n - 1];
                liveBytes[k] = liveBytes[n - 1];
                n--;
            }
            long bytes = 512L * (1 + r.nextInt(4096));
            long addr = nextAddr;
            nextAddr += bytes;
            used += bytes;
            live[n] = addr;
            liveBytes[n++] = bytes;
            b.add(time, EventBatch.pack(EventKind.ALLOC.code(), 0, 0), 1, addr, bytes, bytes, used, 0, -1, -1,
                    sites[r.nextInt(sites.length)], -1);
            if (b.size() >= (1 << 16) - 2) {
                st.onEvents(b);
                b.clear();
            }
        }
        st.onEvents(b);
        st.compact();
        return st;
    }
}
