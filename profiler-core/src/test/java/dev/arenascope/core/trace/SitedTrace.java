package dev.arenascope.core.trace;

import java.util.Random;

import dev.arenascope.core.trace.store.EventStore;

/** A synthetic trace whose allocations carry sites and categories, for format round trips and fuzzing. */
public final class SitedTrace {
    private SitedTrace() {}

    /** {@link SyntheticTrace}'s events, with a site on most allocations and a category on some. */
    public static EventStore store(long seed, long events) {
        EventStore plain = new EventStore();
        SyntheticTrace.write(seed, events, plain);
        EventStore st = new EventStore("sited");
        st.onSession(plain.session());
        plain.memories().forEach(st::onMemory);
        plain.strings().forEach(st::onString);
        plain.threads().forEach(st::onThread);
        int cat = plain.strings().keySet().stream().mapToInt(Integer::intValue).max().orElse(-1) + 1;
        st.onString(cat, "activation");
        SiteTable t = new SiteTable();
        Random r = new Random(seed);
        String[] fns = {"main", "render", "rasterize", "shade", "c10::alloc"};
        int[] sites = new int[12];
        for (int s = 0; s < sites.length; s++) {
            int depth = 1 + r.nextInt(4);
            int[] path = new int[depth];
            for (int d = 0; d < depth; d++) {
                int k = d == 0 ? 0 : r.nextInt(fns.length);
                path[d] = t.frame(fns[k], k == 4 ? "" : "Renderer;odd \"name\".java", 10 * k + d, k == 4 ? StackFrame.FLAG_INTERNAL : 0);
            }
            sites[s] = t.stack(path);
        }
        t.announceNew(st);
        EventBatch b = new EventBatch();
        plain.copyEvents(0, plain.eventCount(), b);
        for (int i = 0; i < b.size(); i++) {
            EventKind k = b.kind(i);
            if ((k == EventKind.ALLOC || k == EventKind.POOL_REQUEST) && r.nextInt(10) < 8) {
                b.setSite(i, sites[r.nextInt(sites.length)], r.nextBoolean() ? cat : -1);
            }
        }
        st.onEvents(b);
        return st;
    }
}
