package dev.arenascope.core.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.TraceView;

/**
 * Every allocation of every memory of a trace, handed to a {@link Sink} as it ends, in one pass over the
 * events that the caller makes (it feeds each batch to {@link #onEvents}, then calls {@link #finish},
 * which hands over the allocations still live). What {@link SiteAnalysis#allocationTable()} lists, row for
 * row and with the same numbers, site paths and categories, without holding it: memory is the allocations
 * live at once (one memory's or all of them: the live set, not the trace). The rows come in the order the
 * allocations end, then the live ones in allocation order, memory by memory.
 *
 * <p>Not thread-safe: one thread feeds it; the sink is called on that thread.
 */
public final class AllocationStream {
    /** Receives each ended allocation; the row is reused after the call. */
    @FunctionalInterface
    public interface Sink {
        void ended(Row row);
    }

    /** One allocation, as {@link Allocations} describes it; ids that name nothing are -1. */
    public static final class Row {
        /** The memory's id and the allocation's number in it (allocation order, from 0). */
        public int memory;
        public int number;
        public long startEvent;
        /** The event that ended it, -1 when live at the end. */
        public long endEvent;
        public long startNs;
        /** {@link Allocations#NEVER} when live at the end. */
        public long endNs;
        public long bytes;
        public long requestedBytes;
        public long address;
        /** String id of its descriptor, -1. */
        public int descriptor;
        /** Its site path (a row of {@link Memory#pathFrames}), -1 for none; the trace's stack node, -1. */
        public int path;
        public int stack;
        public int scope;
        /** The category it is grouped under: {@code (none)} when none; its number among the memory's categories (first met, first numbered). */
        public String category;
        public int categoryNumber;
    }

    /** One memory's figures once the stream is finished. */
    public static final class Memory {
        private final AllocationIndex x;

        private Memory(AllocationIndex x) {
            this.x = x;
        }

        public MemoryInfo info() {
            return x.memory;
        }

        /** Allocations made. */
        public long allocations() {
            return x.made;
        }

        public long peakBytes() {
            return x.peakBytes;
        }

        /** The event after which the peak was first reached, -1 if never; {@link SiteAnalysis#peakEvent()}. */
        public long peakEvent() {
            return x.peakIndex;
        }

        public long peakNs() {
            return x.peakNs;
        }

        public int pathCount() {
            return x.keys.paths.nodeCount();
        }

        /** Path {@code p}'s frames, innermost first. */
        public List<StackFrame> pathFrames(int p) {
            return p < 0 || p >= x.keys.paths.nodeCount() ? List.of() : x.keys.paths.frames(p);
        }

        public SiteSource source() {
            return x.withSite > 0 ? SiteSource.STACKS : x.keys.anyScope ? SiteSource.SCOPES : SiteSource.NONE;
        }
    }

    private AllocationIndex[] byId;
    /** The memories' figures by id. */
    private Memory[] figures = new Memory[0];
    private final List<Memory> memories = new ArrayList<>();
    private final TraceView view;
    private final boolean includeInternal;
    private final Row row = new Row();
    private final Sink sink;
    private long eff = Long.MIN_VALUE;
    private long events;
    private boolean finished;

    /**
     * A stream over the memories {@code view} has now, sites as {@link SiteAnalysis#of(TraceView, MemoryInfo, boolean)}
     * with {@code includeInternal} makes them.
     */
    public AllocationStream(TraceView view, boolean includeInternal, Sink sink) {
        this.sink = sink;
        this.view = view;
        this.includeInternal = includeInternal;
        byId = new AllocationIndex[0];
        for (MemoryInfo m : view.memories()) {
            addMemory(m);
        }
    }

    /**
     * Adds a memory registered after the stream was made (a reader announces memories as it meets them,
     * always before their first event); one already known, or with a negative id, is ignored.
     */
    public void addMemory(MemoryInfo m) {
        if (finished) {
            throw new IllegalStateException("the stream is finished");
        }
        int id = m.id();
        if (id < 0) {
            return;
        }
        if (id >= byId.length) {
            byId = Arrays.copyOf(byId, Math.max(id + 1, byId.length * 2));
            figures = Arrays.copyOf(figures, byId.length);
        }
        if (byId[id] == null) {
            byId[id] = AllocationIndex.streamed(m, view, includeInternal, this::ended);
            figures[id] = new Memory(byId[id]);
            memories.add(figures[id]);
        }
    }

    /** The figures of memory {@code id} once finished, null when the stream never had it. */
    public Memory memory(int id) {
        if (!finished) {
            throw new IllegalStateException("the stream is not finished");
        }
        return id < 0 || id >= figures.length ? null : figures[id];
    }

    /** Feeds the next {@code b.size()} events of the trace, in order. */
    public void onEvents(EventBatch b) {
        if (finished) {
            throw new IllegalStateException("the stream is finished");
        }
        for (int k = 0, n = b.size(); k < n; k++) {
            long t = b.time(k);
            if (t > eff) {
                eff = t;
            }
            int m = b.memory(k);
            if (m >= 0 && m < byId.length && byId[m] != null) {
                byId[m].step(b, k, events + k, eff);
            }
        }
        events += b.size();
    }

    /** Ends the pass: the allocations still live are handed over, memory by memory. */
    public void finish() {
        if (finished) {
            return;
        }
        finished = true;
        for (Memory m : memories) {
            m.x.finish(events, eff);
        }
    }

    /** The memories, in the order of the view's list (once finished). */
    public List<Memory> memories() {
        if (!finished) {
            throw new IllegalStateException("the stream is not finished");
        }
        return memories;
    }

    private void ended(AllocationIndex x, int a) {
        Row r = row;
        r.memory = x.memory.id();
        r.number = x.serial[a];
        r.startEvent = x.start[a];
        r.endEvent = x.end[a] == AllocationIndex.NEVER ? -1 : x.end[a];
        r.startNs = x.startNs[a];
        r.endNs = x.endNs[a] == AllocationIndex.NEVER ? Allocations.NEVER : x.endNs[a];
        r.bytes = x.bytes[a];
        r.requestedBytes = x.requested[a];
        r.address = x.offset(a);
        r.descriptor = x.descriptor[a];
        r.path = x.pathKey[a];
        r.stack = x.site[a];
        r.scope = x.scope[a];
        r.categoryNumber = x.categoryKey[a];
        r.category = x.keys.categories.get(r.categoryNumber);
        sink.ended(r);
    }
}
