package dev.arenascope.core.analysis;

import java.util.Arrays;
import java.util.List;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.store.TraceStore;
import dev.arenascope.core.util.LongLongMap;

/**
 * Every allocation of one memory with when it began and ended, built by one replay of the trace: the
 * index {@link SiteAnalysis} answers its questions from. Columns of primitives in allocation order
 * (which is event order), so a question is one pass over arrays, never a replay of events.
 *
 * <h2>What counts as an allocation, and what frees it</h2>
 * <ul>
 *   <li>{@link EventKind#ALLOC} (arenas, imports): freed by a {@link EventKind#FREE} at its address, by an
 *       {@code ALLOC} that replaces it at the same address (imports), by a
 *       {@link EventKind#POINTER_RESTORE} that sets its end's pointer past it (forward: offsets at or above
 *       the new pointer; backward: below it), by {@link EventKind#RESET}. Its bytes are {@code b}: what
 *       it consumed, alignment included, as the {@code used} gauge counts.</li>
 *   <li>{@link EventKind#POOL_REQUEST}: freed by {@link EventKind#POOL_HOLD} or {@link EventKind#POOL_RELEASE}
 *       at its address.</li>
 *   <li>{@link EventKind#TENSOR_LIVE} (plan arenas): freed by {@link EventKind#TENSOR_DEAD} of the same tensor.</li>
 *   <li>{@link EventKind#MEMORY_CLOSED} frees everything still live.</li>
 * </ul>
 * Live bytes after each event then equal the memory's {@code used} gauge for every producer in this
 * project; {@link #gaugeMismatches()} counts the events where they did not (a foreign or damaged trace).
 *
 * <p>Instants are event indexes of the trace: "live after event {@code p}" is
 * {@code start <= p < end}. Immutable once built; safe to share between threads.
 *
 * <h2>Bounded: only what some questions need</h2>
 * Built {@linkplain #build(TraceView, MemoryInfo, List) for given questions}, the index keeps only the
 * allocations those questions can take: while the replay runs, from time to time, it drops every
 * freed allocation that was not live at the peak so far and that no other question takes (a live one
 * may still be live at a later peak, or at the end, and stays). Memory is then the allocations live
 * at once plus what the questions select, not every allocation of the trace: what a command that asks
 * one question of a trace bigger than memory needs. The peak, the end, the counts of the replay are
 * the same as the whole index's, and so are those questions' answers.
 */
final class AllocationIndex {
    static final long NEVER = Long.MAX_VALUE;

    final MemoryInfo memory;
    int size;
    long[] start;     // event index of the allocation
    long[] end;       // event index of what freed it, NEVER when live at the end
    long[] startNs;   // effective times
    long[] endNs;
    long[] bytes;
    long[] requested; // bytes asked for before rounding (ALLOC, POOL_REQUEST: c), bytes when not known
    int[] site;        // the trace's stack node, -1
    int[] category;    // string id, -1
    int[] scope;       // innermost scope id, -1
    int[] descriptor;  // string id, -1

    long peakBytes;
    long peakIndex = -1;   // event index after which live bytes first reached peakBytes
    long peakNs = -1;
    long lastIndex = -1;   // the trace's last event index
    long endTimeNs;
    long gaugeMismatches;
    long withSite;

    // scopes seen: id -> (name id, parent id)
    final LongLongMap scopeSlot = new LongLongMap();
    int[] scopeName = new int[64];
    int[] scopeParent = new int[64];
    int scopes;

    /** The allocations fewer than which are never compacted. */
    static final int COMPACT_FROM = 1 << 16;

    /** The questions a bounded index keeps allocations for; null: every allocation is kept. */
    final List<SiteQuestion> only;
    // the replay's state, which a compaction renumbers
    private LongLongMap byAddress;
    private IntStack forward;
    private IntStack backward;
    /** Allocations dropped by compactions. */
    long dropped;

    private AllocationIndex(MemoryInfo memory, List<SiteQuestion> only) {
        this(memory, only, 1024);
    }

    private AllocationIndex(MemoryInfo memory, List<SiteQuestion> only, int capacity) {
        this.memory = memory;
        this.only = only == null ? null : List.copyOf(only);
        start = new long[capacity];
        end = new long[capacity];
        startNs = new long[capacity];
        endNs = new long[capacity];
        bytes = new long[capacity];
        requested = new long[capacity];
        site = new int[capacity];
        category = new int[capacity];
        scope = new int[capacity];
        descriptor = new int[capacity];
        offset = new long[capacity];
    }

    /** Builds the index of {@code memory} from every event of {@code view}. */
    static AllocationIndex build(TraceView view, MemoryInfo memory) {
        return build(view, memory, null);
    }

    /**
     * Builds the index of {@code memory} keeping only the allocations {@code only}'s questions take (see
     * the class comment); null keeps every one.
     */
    static AllocationIndex build(TraceView view, MemoryInfo memory, List<SiteQuestion> only) {
        return build(view, memory, only, COMPACT_FROM);
    }

    /** As above, compacting from {@code compactFrom} allocations on (tests compact small traces). */
    static AllocationIndex build(TraceView view, MemoryInfo memory, List<SiteQuestion> only, int compactFrom) {
        AllocationIndex x = new AllocationIndex(memory, only);
        x.compactFrom = compactFrom;
        x.replay(view);
        return x;
    }

    private int compactFrom = COMPACT_FROM;

    /**
     * As {@link #build(TraceView, MemoryInfo, List)} without the table of scopes (its allocations name no
     * scope path): for a caller that wants the memory's stacks only, of a trace whose arenas open
     * millions of scopes. {@link #scopesSkipped} counts the scopes left out.
     */
    static AllocationIndex buildWithoutScopes(TraceView view, MemoryInfo memory, List<SiteQuestion> only) {
        AllocationIndex x = new AllocationIndex(memory, only);
        x.skipScopes = true;
        x.replay(view);
        return x;
    }

    private boolean skipScopes;

    /** Told of each allocation of a {@linkplain #streamed streamed} index as it ends. */
    interface Ended {
        /** Allocation {@code a} of {@code x} ended (or, from {@link #finish}, is live at the end); its slot is reused after the call. */
        void ended(AllocationIndex x, int a);
    }

    /** The streamed index's receiver, null for the others. */
    private Ended ended;
    /** Streamed: each slot's allocation number (in allocation order), site path and category ({@link SiteKeys}). */
    int[] serial;
    int[] pathKey;
    int[] categoryKey;
    /** Streamed: the paths and categories, resolved as allocations are made. */
    SiteKeys keys;
    /** Allocations made so far, the dropped ones included. */
    long made;

    /**
     * An index fed as {@link #fed} is, that holds only its live allocations: each one is handed to
     * {@code ended} as it ends (with its number, site path and category, resolved as it was made, so
     * numbered as {@link SiteAnalysis} numbers them), then dropped; {@link #finish} hands over the live
     * ones. Memory is the allocations live at once, whatever the trace's length. The peak and the counts
     * are the whole index's.
     */
    static AllocationIndex streamed(MemoryInfo memory, TraceView view, boolean includeInternal, Ended ended) {
        AllocationIndex x = new AllocationIndex(memory, List.of(), 16);
        x.ended = ended;
        x.serial = new int[16];
        x.pathKey = new int[16];
        x.categoryKey = new int[16];
        x.keys = new SiteKeys(x, view, memory, includeInternal);
        x.begin();
        return x;
    }
    /** Scopes {@link #buildWithoutScopes} left out. */
    long scopesSkipped;

    private void replay(TraceView view) {
        int id = memory.id();
        begin();
        long eff = Long.MIN_VALUE;
        long n = view.eventCount();
        EventBatch b = new EventBatch(8192);
        for (long from = 0; from < n; from += b.size()) {
            b.clear();
            long to = Math.min(n, from + 8192);
            TraceStore.copy(view, from, to, b);
            for (int k = 0; k < b.size(); k++) {
                eff = Math.max(eff, b.time(k));
                if (b.memory(k) == id) {
                    step(b, k, from + k, eff);
                }
            }
        }
        finish(n, eff);
    }

    /**
     * An index fed by a caller's own pass over the trace ({@link RankPass}, which reads each event once
     * for a rank's figures and its memories' indexes, as the import delivers them or from a store): {@link #step} every event of {@code memory} in order, then
     * {@link #finish}. The result is the index {@link #build(TraceView, MemoryInfo, List)} makes.
     */
    static AllocationIndex fed(MemoryInfo memory, List<SiteQuestion> only) {
        AllocationIndex x = new AllocationIndex(memory, only, 16); // one per memory of a rank: most are small
        x.begin();
        return x;
    }

    private long live;

    private void begin() {
        byAddress = new LongLongMap();
        forward = new IntStack();
        backward = new IntStack();
        live = 0;
    }

    /**
     * Replays event {@code k} of {@code b}, an event of this index's memory at trace index {@code idx}
     * whose effective time (the latest time of any memory's event so far) is {@code eff}.
     */
    void step(EventBatch b, int k, long idx, long eff) {
        EventKind kind = b.kind(k);
        if (kind == null) {
            return;
        }
        switch (kind) {
            case ALLOC -> {
                int old = (int) byAddress.remove(b.a(k), -1);
                if (old >= 0 && memory.kind() != MemoryKind.ARENA) {
                    live -= free(old, idx, eff);
                }
                int a = add(b, k, idx, eff);
                live += bytes[a];
                if (memory.kind() == MemoryKind.ARENA) {
                    ((b.flags(k) & Event.FLAG_BACKWARD) != 0 ? backward : forward).push(a);
                } else {
                    byAddress.put(b.a(k), a, -1);
                }
            }
            case POOL_REQUEST -> {
                int old = (int) byAddress.remove(b.a(k), -1);
                if (old >= 0) {
                    live -= free(old, idx, eff);
                }
                int a = add(b, k, idx, eff);
                live += bytes[a];
                byAddress.put(b.a(k), a, -1);
            }
            case TENSOR_LIVE -> {
                long key = ~(long) b.ref(k); // tensors by id, apart from any address
                int old = (int) byAddress.remove(key, -1);
                if (old >= 0) {
                    live -= free(old, idx, eff);
                }
                int a = add(b, k, idx, eff);
                live += bytes[a];
                byAddress.put(key, a, -1);
            }
            case FREE, POOL_HOLD, POOL_RELEASE -> {
                int a = (int) byAddress.remove(b.a(k), -1);
                if (a >= 0) {
                    live -= free(a, idx, eff);
                }
            }
            case TENSOR_DEAD -> {
                int a = (int) byAddress.remove(~(long) b.ref(k), -1);
                if (a >= 0) {
                    live -= free(a, idx, eff);
                }
            }
            case POINTER_RESTORE -> {
                long p = b.a(k);
                if ((b.flags(k) & Event.FLAG_BACKWARD) != 0) {
                    while (!backward.isEmpty() && offset[backward.peek()] < p) {
                        live -= free(backward.pop(), idx, eff);
                    }
                } else {
                    while (!forward.isEmpty() && offset[forward.peek()] >= p) {
                        live -= free(forward.pop(), idx, eff);
                    }
                }
            }
            case RESET, MEMORY_CLOSED -> {
                while (!forward.isEmpty()) {
                    live -= free(forward.pop(), idx, eff);
                }
                while (!backward.isEmpty()) {
                    live -= free(backward.pop(), idx, eff);
                }
                long[] freed = {0};
                long at = idx;
                long atNs = eff;
                byAddress.forEachValue(a -> freed[0] += free((int) a, at, atNs));
                byAddress.clear();
                live -= freed[0];
            }
            case SCOPE_ENTER -> addScope(b.ref2(k), b.ref(k), (int) b.c(k));
            default -> {
                return;
            }
        }
        if (live > peakBytes) {
            peakBytes = live;
            peakIndex = idx;
            peakNs = eff;
        }
        if (kind != EventKind.SCOPE_ENTER && live != b.used(k)) {
            gaugeMismatches++;
        }
    }

    /** Ends a replay of {@code n} events whose last effective time is {@code eff}. */
    void finish(long n, long eff) {
        if (ended != null) {
            for (int a = 0; a < size; a++) {
                if (end[a] == NEVER) {
                    ended.ended(this, a);
                }
            }
        }
        lastIndex = n - 1;
        endTimeNs = n == 0 ? 0 : eff;
        byAddress = null;
        forward = null;
        backward = null;
    }

    /** Whether a bounded index keeps freed allocation {@code a}: live at the peak so far, or taken by a question. */
    private boolean kept(int a) {
        if (ended != null) {
            return end[a] == NEVER; // the ended ones were handed over
        }
        if (end[a] == NEVER || start[a] <= peakIndex && end[a] > peakIndex) {
            return true;
        }
        for (SiteQuestion q : only) {
            boolean take = switch (q) {
                case SiteQuestion.AtPeak p -> false; // the peak so far, above
                case SiteQuestion.Leaks l -> false; // never freed, above
                case SiteQuestion.LiveAt l -> startNs[a] <= l.atNs() && endNs[a] > l.atNs();
                case SiteQuestion.AllocatedIn r -> startNs[a] >= r.fromNs() && startNs[a] <= r.toNs();
                case SiteQuestion.Temporaries t -> startNs[a] >= t.fromNs() && endNs[a] <= t.toNs()
                        && endNs[a] - startNs[a] < t.shorterThanNs();
            };
            if (take) {
                return true;
            }
        }
        return false;
    }

    /** Drops the allocations a bounded index no longer needs, renumbering the rest in order. */
    private void compact() {
        int[] to = new int[size];
        int n = 0;
        for (int a = 0; a < size; a++) {
            if (kept(a)) {
                to[a] = n;
                if (n != a) {
                    start[n] = start[a];
                    end[n] = end[a];
                    startNs[n] = startNs[a];
                    endNs[n] = endNs[a];
                    bytes[n] = bytes[a];
                    requested[n] = requested[a];
                    site[n] = site[a];
                    category[n] = category[a];
                    scope[n] = scope[a];
                    descriptor[n] = descriptor[a];
                    offset[n] = offset[a];
                    if (serial != null) {
                        serial[n] = serial[a];
                        pathKey[n] = pathKey[a];
                        categoryKey[n] = categoryKey[a];
                    }
                }
                n++;
            } else {
                to[a] = -1;
            }
        }
        dropped += size - n;
        size = n;
        // the replay's references are to live allocations, which are all kept
        byAddress.replaceValues(v -> v < 0 ? v : to[(int) v]);
        forward.renumber(to);
        backward.renumber(to);
    }

    private long[] offset; // the event's 'a': offset or address

    /** The offset or address of allocation {@code a}. */
    long offset(int a) {
        return offset[a];
    }

    private int add(EventBatch b, int k, long idx, long eff) {
        if (size == start.length) {
            if (only != null && size >= compactFrom) {
                compact();
            }
            if (size * 2 > start.length) {
                // full (a bounded index: still over half full after a compaction, so compactions stay rare)
                grow();
            }
        }
        int a = size++;
        start[a] = idx;
        end[a] = NEVER;
        startNs[a] = eff;
        endNs[a] = NEVER;
        bytes[a] = b.b(k);
        long asked = b.kind(k) == EventKind.TENSOR_LIVE ? 0 : b.c(k);
        requested[a] = asked > 0 && asked <= bytes[a] ? asked : bytes[a];
        site[a] = b.site(k);
        category[a] = b.category(k);
        EventKind kind = b.kind(k);
        scope[a] = kind == EventKind.ALLOC ? b.ref2(k) : -1;
        descriptor[a] = kind == EventKind.ALLOC || kind == EventKind.TENSOR_LIVE ? b.ref(k) : -1;
        offset[a] = b.a(k);
        if (site[a] >= 0) {
            withSite++;
        }
        if (keys != null) {
            serial[a] = (int) made;
            keys.resolve(site[a], scope[a], category[a]);
            pathKey[a] = keys.key;
            categoryKey[a] = keys.cat;
        }
        made++;
        return a;
    }

    private long free(int a, long idx, long eff) {
        end[a] = idx;
        endNs[a] = eff;
        if (ended != null) {
            ended.ended(this, a);
        }
        return bytes[a];
    }

    private void addScope(int scopeId, int nameId, int parent) {
        if (scopeId < 0) {
            return;
        }
        if (skipScopes) {
            scopesSkipped++;
            return;
        }
        if (scopes == scopeName.length) {
            scopeName = Arrays.copyOf(scopeName, scopes * 2);
            scopeParent = Arrays.copyOf(scopeParent, scopes * 2);
        }
        scopeName[scopes] = nameId;
        scopeParent[scopes] = parent;
        scopeSlot.put(scopeId, scopes++, -1);
    }

    /** The slot of scope {@code id} in {@link #scopeName}/{@link #scopeParent}, -1 when unknown. */
    int scopeSlot(int id) {
        return id < 0 ? -1 : (int) scopeSlot.get(id, -1);
    }

    long gaugeMismatches() {
        return gaugeMismatches;
    }

    private void grow() {
        int cap = start.length * 2;
        start = Arrays.copyOf(start, cap);
        end = Arrays.copyOf(end, cap);
        startNs = Arrays.copyOf(startNs, cap);
        endNs = Arrays.copyOf(endNs, cap);
        bytes = Arrays.copyOf(bytes, cap);
        requested = Arrays.copyOf(requested, cap);
        site = Arrays.copyOf(site, cap);
        category = Arrays.copyOf(category, cap);
        scope = Arrays.copyOf(scope, cap);
        descriptor = Arrays.copyOf(descriptor, cap);
        offset = Arrays.copyOf(offset, cap);
        if (serial != null) {
            serial = Arrays.copyOf(serial, cap);
            pathKey = Arrays.copyOf(pathKey, cap);
            categoryKey = Arrays.copyOf(categoryKey, cap);
        }
    }

    /** A stack of allocation numbers (an arena end's live allocations, newest on top). */
    private static final class IntStack {
        private int[] items = new int[64];
        private int n;

        void push(int v) {
            if (n == items.length) {
                items = Arrays.copyOf(items, n * 2);
            }
            items[n++] = v;
        }

        int peek() {
            return items[n - 1];
        }

        int pop() {
            return items[--n];
        }

        boolean isEmpty() {
            return n == 0;
        }

        void renumber(int[] to) {
            for (int i = 0; i < n; i++) {
                items[i] = to[items[i]];
            }
        }
    }
}
