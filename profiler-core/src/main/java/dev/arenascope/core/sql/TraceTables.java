package dev.arenascope.core.sql;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import dev.arenascope.core.analysis.Allocations;
import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.StackNode;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.trace.store.TraceStore;
import dev.arenascope.core.util.LongLongMap;

/**
 * Builds the tables of one rank from its trace, every table but {@code events} (which the engine
 * reads straight from the store, a block at a time): one pass over the events for scopes, markers,
 * pool requests and plan tensors, and one {@link SiteAnalysis} per memory for allocations and sites,
 * so an allocation's lifetime and site are exactly what {@code arenascope sites} counts. The
 * allocations stay in the analyses' columns until the engine reads them.
 */
final class TraceTables {
    private TraceTables() {}

    /**
     * The tables of {@code view} as rank {@code rank}, by table, in {@link SqlSchema#TABLES}' order:
     * {@code allocations} reads the site analyses' own columns ({@link AllocationRows}), the others are
     * {@link ColumnTable}s.
     */
    static Map<SqlSchema.Table, TableSource> build(TraceInput input, int rank) {
        TraceView v = input.view();
        Map<SqlSchema.Table, ColumnTable> out = new EnumLikeMap();
        for (SqlSchema.Table t : SqlSchema.TABLES) {
            if (t != SqlSchema.EVENTS && t != SqlSchema.ALLOCATIONS) {
                out.put(t, new ColumnTable(t, rank));
            }
        }
        long[] eventsPerMemory = new long[maxMemoryId(v) + 2];
        events(v, out, eventsPerMemory);
        AllocationRows allocations = new AllocationRows(rank, v);
        sitesAndAllocations(v, out, allocations, eventsPerMemory);
        frames(v, out);
        threadsAndStrings(v, out);
        out.get(SqlSchema.RANKS).add(input.name()).add(input.path()).add(v.session().name()).add(v.session().host())
                .add(v.eventCount()).add(v.startNs()).add(v.endNs()).add(v.lostEvents());
        Map<SqlSchema.Table, TableSource> tables = new LinkedHashMap<>();
        for (SqlSchema.Table t : SqlSchema.TABLES) {
            if (t == SqlSchema.ALLOCATIONS) {
                tables.put(t, allocations);
            } else if (t != SqlSchema.EVENTS) {
                tables.put(t, out.get(t));
            }
        }
        return tables;
    }

    static int maxMemoryId(TraceView v) {
        int max = -1;
        for (MemoryInfo m : v.memories()) {
            max = Math.max(max, m.id());
        }
        return max;
    }

    /**
     * The one pass over {@code v}'s events for scopes, scope parameters, markers, pool requests and plan
     * tensors into their tables of {@code out}, counting events per memory.
     */
    private static void events(TraceView v, Map<SqlSchema.Table, ColumnTable> out, long[] perMemory) {
        ColumnTable scopes = out.get(SqlSchema.SCOPES);
        ColumnTable params = out.get(SqlSchema.SCOPE_PARAMS);
        ColumnTable markers = out.get(SqlSchema.MARKERS);
        ColumnTable pools = out.get(SqlSchema.POOL_REQUESTS);
        ColumnTable tensors = out.get(SqlSchema.PLAN_TENSORS);
        int exitEvent = SqlSchema.SCOPES.indexOf("exit_event");
        int exitNs = SqlSchema.SCOPES.indexOf("exit_ns");
        int duration = SqlSchema.SCOPES.indexOf("duration_ns");
        int paramText = SqlSchema.SCOPES.indexOf("params");
        int enterNs = SqlSchema.SCOPES.indexOf("enter_ns");
        int deadStep = SqlSchema.PLAN_TENSORS.indexOf("dead_step");
        int deadNs = SqlSchema.PLAN_TENSORS.indexOf("dead_ns");
        int deadEvent = SqlSchema.PLAN_TENSORS.indexOf("dead_event");
        LongLongMap scopeRow = new LongLongMap();     // scope id -> row of scopes
        List<Integer> scopeDepth = new ArrayList<>();
        LongLongMap tensorRow = new LongLongMap();    // (memory, tensor id) -> row of plan_tensors
        Map<Integer, StringBuilder> paramsOf = new TreeMap<>();
        EventBatch b = new EventBatch(EventStore.BLOCK_EVENTS);
        long n = v.eventCount();
        for (long from = 0; from < n; from += b.size()) {
            b.clear();
            long to = Math.min(n, from + EventStore.BLOCK_EVENTS);
            TraceStore.copy(v, from, to, b);
            for (int k = 0; k < b.size(); k++) {
                long idx = from + k;
                int mem = b.memory(k);
                if (mem >= 0 && mem + 1 < perMemory.length) {
                    perMemory[mem]++;
                }
                EventKind kind = b.kind(k);
                if (kind == null) {
                    continue;
                }
                switch (kind) {
                    case SCOPE_ENTER -> {
                        int id = b.ref2(k);
                        int parent = (int) b.c(k);
                        int parentRow = parent < 0 ? -1 : (int) scopeRow.get(parent, -1);
                        int depth = parentRow < 0 ? 0 : scopeDepth.get(parentRow) + 1;
                        scopeRow.put(id, scopes.rows(), -1);
                        scopeDepth.add(depth);
                        scopes.add(mem).id(id).add(v.string(b.ref(k))).id(parent).add(depth).add(idx).addNull()
                                .add(b.time(k)).addNull().addNull().addNull();
                    }
                    case SCOPE_EXIT -> {
                        int row = (int) scopeRow.get(b.ref2(k), -1);
                        if (row >= 0 && scopes.number(exitEvent, row) == ColumnTable.NULL) {
                            scopes.set(row, exitEvent, idx);
                            scopes.set(row, exitNs, b.time(k));
                            scopes.set(row, duration, Math.max(0, b.time(k) - scopes.number(enterNs, row)));
                        }
                    }
                    case SCOPE_PARAM -> {
                        String name = v.string(b.ref(k));
                        params.id(b.ref2(k)).add(name).add(b.a(k));
                        int row = (int) scopeRow.get(b.ref2(k), -1);
                        if (row >= 0) {
                            StringBuilder sb = paramsOf.computeIfAbsent(row, r -> new StringBuilder());
                            sb.append(sb.isEmpty() ? "" : ", ").append(name).append('=').append(b.a(k));
                        }
                    }
                    case MARKER -> markers.add(idx).add(b.time(k)).add(b.thread(k)).add(v.string(b.ref(k)));
                    case POOL_REQUEST -> pools.add(mem).add(idx).add(b.time(k)).add(b.thread(k)).add(b.a(k)).add(b.b(k))
                            .add(b.c(k)).add(b.ref(k)).add((b.flags(k) & Event.FLAG_HIT) != 0).add(b.ref2(k)).id(b.site(k));
                    case TENSOR_LIVE -> {
                        long key = ((long) mem << 32) | (b.ref(k) & 0xffffffffL);
                        tensorRow.put(key, tensors.rows(), -1);
                        tensors.add(mem).add(v.string(b.ref(k))).add(role(v, mem)).add(b.a(k)).add(b.b(k)).add(b.c(k))
                                .addNull().add(b.time(k)).addNull().add(idx).addNull();
                    }
                    case TENSOR_DEAD -> {
                        long key = ((long) mem << 32) | (b.ref(k) & 0xffffffffL);
                        int row = (int) tensorRow.remove(key, -1);
                        if (row >= 0) {
                            tensors.set(row, deadStep, b.c(k));
                            tensors.set(row, deadNs, b.time(k));
                            tensors.set(row, deadEvent, idx);
                        }
                    }
                    default -> {
                        // in the events table only
                    }
                }
            }
        }
        paramsOf.forEach((row, text) -> scopes.set(row, paramText, text.toString()));
    }

    static final Map<MemoryKind, String> ROLES = new EnumMap<>(Map.of(
            MemoryKind.PLAN_SCRATCH, "scratch",
            MemoryKind.PLAN_PERSISTENT, "persistent",
            MemoryKind.PLAN_CONSTANT, "constant"));

    private static String role(TraceView v, int memory) {
        for (MemoryInfo m : v.memories()) {
            if (m.id() == memory) {
                return ROLES.get(m.kind());
            }
        }
        return null;
    }

    private static void sitesAndAllocations(TraceView v, Map<SqlSchema.Table, ColumnTable> out, AllocationRows allocations,
                                            long[] perMemory) {
        for (MemoryInfo m : v.memories()) {
            allocations.add(m.id(), analyse(v, m, out, perMemory));
        }
    }

    /** The site analysis of {@code m}: its row of {@code memories}, its rows of {@code sites}, and its allocations. */
    private static Allocations analyse(TraceView v, MemoryInfo m, Map<SqlSchema.Table, ColumnTable> out, long[] perMemory) {
        ColumnTable memories = out.get(SqlSchema.MEMORIES);
        ColumnTable sites = out.get(SqlSchema.SITES);
        SiteAnalysis sa = SiteAnalysis.of(v, m, false);
        Allocations a = sa.allocationTable();
        long peakEvent = sa.peakEvent();
        memories.add(m.id()).add(m.name()).add(m.kind().name()).add(m.device()).add(m.capacity()).add(perMemory[m.id()])
                .add(a.size()).add(sa.peakBytes()).id(peakEvent).id(peakEvent < 0 ? -1 : sa.peakNs()).add(v.peakAux(m.id()));
        int mem = m.id();
        String source = sa.source().name().toLowerCase(Locale.ROOT);
        for (int p = 0, n = sa.pathCount(); p < n; p++) {
            List<StackFrame> frames = sa.pathFrames(p); // innermost first
            StackFrame inner = frames.getFirst();
            StringBuilder stack = new StringBuilder();
            for (int k = frames.size() - 1; k >= 0; k--) {
                stack.append(frames.get(k).label());
                if (k > 0) {
                    stack.append(';');
                }
            }
            sites.add(mem).add(p).add(inner.label()).add(inner.function()).add(inner.file()).add(inner.line())
                    .add(frames.size()).add(stack.toString()).add(source);
        }
        return a;
    }

    static void frames(TraceView v, Map<SqlSchema.Table, ColumnTable> out) {
        ColumnTable frames = out.get(SqlSchema.FRAMES);
        for (int f = 0, n = v.frameCount(); f < n; f++) {
            StackFrame fr = v.frame(f);
            if (fr != null) {
                frames.add(fr.id()).add(fr.function()).add(fr.file()).add(fr.line()).add(fr.internal());
            }
        }
        ColumnTable stacks = out.get(SqlSchema.STACKS);
        int n = v.stackNodeCount();
        int[] depth = new int[n];
        for (int s = 0; s < n; s++) {
            StackNode node = v.stackNode(s);
            if (node != null) {
                int p = node.parent();
                depth[s] = p >= 0 && p < s ? depth[p] + 1 : 0;
                stacks.add(node.id()).add(node.frame()).id(p).add(depth[s]);
            }
        }
    }

    static void threadsAndStrings(TraceView v, Map<SqlSchema.Table, ColumnTable> out) {
        ColumnTable threads = out.get(SqlSchema.THREADS);
        ColumnTable strings = out.get(SqlSchema.STRINGS);
        if (v instanceof TraceStore s) {
            new TreeMap<>(s.threads()).forEach((id, name) -> threads.add(id).add(name));
            new TreeMap<>(s.strings()).forEach((id, value) -> strings.add(id).add(value));
        }
    }

    /** Tables by identity, in insertion order. */
    private static final class EnumLikeMap extends LinkedHashMap<SqlSchema.Table, ColumnTable> {}
}
