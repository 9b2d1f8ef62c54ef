package dev.arenascope.core.sql;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;

import dev.arenascope.core.analysis.AllocationStream;
import dev.arenascope.core.sql.parquet.ColumnWriter;
import dev.arenascope.core.sql.parquet.ParquetWriter;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.StackNode;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.util.LongLongMap;

/**
 * The tables of one rank written as Parquet while its events arrive: an {@link EventSink} that a reader
 * (or a store's replay) feeds once, in order, then {@link #finish}. Nothing of the trace is held but
 * its metadata (memories, strings, threads, the site table, in a store that never receives an event)
 * and what is open at the moment: the live allocations ({@link AllocationStream}), the scopes not yet
 * exited and the plan tensors not yet dead. Every row is written when it is complete: an allocation's
 * when it ends, a scope's when it exits, a tensor's when it dies, the still-open ones at the end; so
 * those tables' rows are in the order they closed, the open ones last. Besides those, one number a
 * scope id (its depth, for the scopes nested in it) stays to the end.
 *
 * <p>Threads: the caller's (the reader's delivery thread) replays the allocations and writes every
 * table but {@code events}; the {@code events} table is written on a thread of its own, from copies of
 * the batches handed over through a few recycled buffers, so the two overlap and memory stays a few
 * batches. Not thread-safe otherwise: one thread feeds the sink.
 */
final class RankParquet implements EventSink {
    /** Batches in flight between the caller and the events thread. */
    private static final int BATCHES = 4;

    private final Path dir;
    private final int rank;
    private final TraceSource source;
    /** The metadata, as a store that is told no event. */
    private final EventStore meta;
    private final AllocationStream stream;
    private final List<Closeable> files = new ArrayList<>();
    private final TraceParquet.AllocationWriter allocationRows;
    private final Rows pools;
    private final Rows scopes;
    private final Rows params;
    private final Rows markers;
    private final Rows tensors;
    private final EventsThread eventsThread;

    private long events;
    private long firstNs;
    private long lastEff = Long.MIN_VALUE;
    private long lost;
    private long[] perMemory = new long[16];
    private long[] peakAux = new long[16];

    private final HashMap<Integer, OpenScope> openScopes = new HashMap<>();
    /** Scope id -> depth of the last scope entered with it. */
    private final LongLongMap scopeDepth = new LongLongMap();
    private final HashMap<Long, LiveTensor> liveTensors = new HashMap<>();
    /** The role of each memory's plan tensors, by memory id (null: not a plan arena). */
    private String[] roles = new String[16];
    private boolean finished;

    private static final class OpenScope {
        int memory;
        int id;
        String name;
        int parent;
        int depth;
        long enterEvent;
        long enterNs;
        StringBuilder params;
    }

    private record LiveTensor(int memory, String tensor, String role, long address, long bytes, long liveStep, long liveNs,
                              long liveEvent) {}

    /** Opens the rank's files under {@code dir} ({@code TABLE/rank=N/data_0.parquet}) and starts the events thread. */
    RankParquet(Path dir, int rank, TraceSource source) throws IOException {
        this.dir = dir;
        this.rank = rank;
        this.source = source;
        this.meta = new EventStore(source.name());
        this.stream = new AllocationStream(meta, false, row -> allocationRows().ended(row));
        boolean ok = false;
        try {
            ParquetWriter allocations = open(SqlSchema.ALLOCATIONS, TraceParquet.ALLOCATIONS_NULLABLE);
            allocationRows = new TraceParquet.AllocationWriter(meta, allocations);
            pools = new Rows(open(SqlSchema.POOL_REQUESTS, null));
            scopes = new Rows(open(SqlSchema.SCOPES, null));
            params = new Rows(open(SqlSchema.SCOPE_PARAMS, null));
            markers = new Rows(open(SqlSchema.MARKERS, null));
            tensors = new Rows(open(SqlSchema.PLAN_TENSORS, null));
            eventsThread = new EventsThread(open(SqlSchema.EVENTS, TraceParquet.EVENTS_NULLABLE));
            ok = true;
        } finally {
            if (!ok) {
                closeFiles();
            }
        }
    }

    private TraceParquet.AllocationWriter allocationRows() {
        return allocationRows;
    }

    private ParquetWriter open(SqlSchema.Table t, java.util.Set<String> nullable) throws IOException {
        ParquetWriter w = TraceParquet.open(TraceParquet.file(dir, t, rank), t, nullable);
        files.add(w);
        return w;
    }

    // ---------------------------------------------------------------- metadata

    @Override
    public void onSession(SessionInfo info) {
        meta.onSession(info);
    }

    @Override
    public void onMemory(MemoryInfo memory) {
        meta.onMemory(memory);
        stream.addMemory(memory);
        int id = memory.id();
        if (id >= 0) {
            if (id >= roles.length) {
                roles = Arrays.copyOf(roles, Math.max(id + 1, roles.length * 2));
            }
            roles[id] = TraceTables.ROLES.get(memory.kind());
        }
    }

    @Override
    public void onString(int id, String value) {
        meta.onString(id, value);
    }

    @Override
    public void onThread(int id, String name) {
        meta.onThread(id, name);
    }

    @Override
    public void onFrame(StackFrame frame) {
        meta.onFrame(frame);
    }

    @Override
    public void onStack(StackNode node) {
        meta.onStack(node);
    }

    @Override
    public void onLoss(long count) {
        lost += count;
    }

    @Override
    public void onClose() {
        // the rank is ended by finish(), where a failure can be thrown
    }

    // ---------------------------------------------------------------- events

    @Override
    public void onEvents(EventBatch b) {
        int n = b.size();
        if (n == 0) {
            return;
        }
        if (finished) {
            throw new IllegalStateException("the rank's tables are written");
        }
        eventsThread.offer(b);
        stream.onEvents(b);
        allocationRows.rethrow();
        if (events == 0) {
            firstNs = b.time(0);
        }
        for (int k = 0; k < n; k++) {
            long idx = events + k;
            long t = b.time(k);
            if (t > lastEff) {
                lastEff = t;
            }
            int mem = b.memory(k);
            if (mem >= 0) {
                count(mem, b.aux(k));
            }
            EventKind kind = b.kind(k);
            if (kind != null) {
                table(kind, b, k, idx, mem);
            }
        }
        events += n;
    }

    private void count(int mem, long aux) {
        if (mem >= perMemory.length) {
            int cap = Math.max(mem + 1, perMemory.length * 2);
            perMemory = Arrays.copyOf(perMemory, cap);
            peakAux = Arrays.copyOf(peakAux, cap);
        }
        perMemory[mem]++;
        if (aux > peakAux[mem]) {
            peakAux[mem] = aux;
        }
    }

    /** Event {@code k} of {@code b} (trace index {@code idx}) into the table it belongs to, if any but events. */
    private void table(EventKind kind, EventBatch b, int k, long idx, int mem) {
        switch (kind) {
            case SCOPE_ENTER -> {
                OpenScope s = new OpenScope();
                s.memory = mem;
                s.id = b.ref2(k);
                s.name = meta.string(b.ref(k));
                s.parent = (int) b.c(k);
                long parentDepth = s.parent < 0 ? -1 : scopeDepth.get(s.parent, -1);
                s.depth = parentDepth < 0 ? 0 : (int) parentDepth + 1;
                s.enterEvent = idx;
                s.enterNs = b.time(k);
                scopeDepth.put(s.id, s.depth, -1);
                OpenScope before = openScopes.put(s.id, s);
                if (before != null) {
                    scopeRow(before, -1, 0); // entered again before it exited: the first never exits
                }
            }
            case SCOPE_EXIT -> {
                OpenScope s = openScopes.remove(b.ref2(k));
                if (s != null) {
                    scopeRow(s, idx, b.time(k));
                }
            }
            case SCOPE_PARAM -> {
                String name = meta.string(b.ref(k));
                params.id(b.ref2(k)).text(name).add(b.a(k)).end();
                OpenScope s = openScopes.get(b.ref2(k));
                if (s != null) {
                    if (s.params == null) {
                        s.params = new StringBuilder();
                    } else {
                        s.params.append(", ");
                    }
                    s.params.append(name).append('=').append(b.a(k));
                }
            }
            case MARKER -> markers.add(idx).add(b.time(k)).add(b.thread(k)).text(meta.string(b.ref(k))).end();
            case POOL_REQUEST -> pools.add(mem).add(idx).add(b.time(k)).add(b.thread(k)).add(b.a(k)).add(b.b(k))
                    .add(b.c(k)).add(b.ref(k)).add((b.flags(k) & Event.FLAG_HIT) != 0).add(b.ref2(k)).id(b.site(k)).end();
            case TENSOR_LIVE -> {
                long key = tensorKey(mem, b.ref(k));
                String role = mem >= 0 && mem < roles.length ? roles[mem] : null;
                LiveTensor before = liveTensors.put(key, new LiveTensor(mem, meta.string(b.ref(k)), role, b.a(k), b.b(k), b.c(k),
                        b.time(k), idx));
                if (before != null) {
                    tensorRow(before, -1, 0, 0); // made live again: the first never dies
                }
            }
            case TENSOR_DEAD -> {
                LiveTensor t = liveTensors.remove(tensorKey(mem, b.ref(k)));
                if (t != null) {
                    tensorRow(t, idx, b.time(k), b.c(k));
                }
            }
            default -> {
                // in the events table only
            }
        }
    }

    private static long tensorKey(int mem, int ref) {
        return ((long) mem << 32) | (ref & 0xffffffffL);
    }

    /** A scope's row; {@code exitEvent} -1: it never exited. */
    private void scopeRow(OpenScope s, long exitEvent, long exitNs) {
        scopes.add(s.memory).id(s.id).text(s.name).id(s.parent).add(s.depth).add(s.enterEvent);
        if (exitEvent < 0) {
            scopes.nul().add(s.enterNs).nul().nul();
        } else {
            scopes.add(exitEvent).add(s.enterNs).add(exitNs).add(Math.max(0, exitNs - s.enterNs));
        }
        scopes.text(s.params == null ? null : s.params.toString()).end();
    }

    /** A plan tensor's row; {@code deadEvent} -1: live at the end. */
    private void tensorRow(LiveTensor t, long deadEvent, long deadNs, long deadStep) {
        tensors.add(t.memory()).text(t.tensor()).text(t.role()).add(t.address()).add(t.bytes()).add(t.liveStep());
        if (deadEvent < 0) {
            tensors.nul().add(t.liveNs()).nul().add(t.liveEvent()).nul();
        } else {
            tensors.add(deadStep).add(t.liveNs()).add(deadNs).add(t.liveEvent()).add(deadEvent);
        }
        tensors.end();
    }

    // ---------------------------------------------------------------- the end

    /** Ends the rank: the open rows, the tables made from the metadata, and every file closed. */
    void finish() throws IOException {
        finished = true;
        stream.finish();
        allocationRows.rethrow();
        // the open scopes and tensors, in the order they opened
        List<OpenScope> open = new ArrayList<>(openScopes.values());
        open.sort((x, y) -> Long.compare(x.enterEvent, y.enterEvent));
        for (OpenScope s : open) {
            scopeRow(s, -1, 0);
        }
        openScopes.clear();
        List<LiveTensor> live = new ArrayList<>(liveTensors.values());
        live.sort((x, y) -> Long.compare(x.liveEvent(), y.liveEvent()));
        for (LiveTensor t : live) {
            tensorRow(t, -1, 0, 0);
        }
        liveTensors.clear();
        Map<SqlSchema.Table, ColumnTable> out = new LinkedHashMap<>();
        for (SqlSchema.Table t : List.of(SqlSchema.MEMORIES, SqlSchema.SITES, SqlSchema.FRAMES, SqlSchema.STACKS,
                SqlSchema.THREADS, SqlSchema.STRINGS, SqlSchema.RANKS)) {
            out.put(t, new ColumnTable(t, rank));
        }
        for (MemoryInfo m : meta.memories()) {
            AllocationStream.Memory sa = stream.memory(m.id());
            if (sa != null) {
                memoryRows(m, sa, out);
            }
        }
        TraceTables.frames(meta, out);
        TraceTables.threadsAndStrings(meta, out);
        SessionInfo session = meta.session();
        out.get(SqlSchema.RANKS).add(source.name()).add(source.path()).add(session.name()).add(session.host())
                .add(events).add(events == 0 ? 0 : firstNs).add(events == 0 ? 0 : lastEff).add(lost);
        for (Map.Entry<SqlSchema.Table, ColumnTable> e : out.entrySet()) {
            TraceParquet.writeTable(e.getValue(), TraceParquet.file(dir, e.getKey(), rank));
        }
        eventsThread.finish();
        IOException failed = null;
        for (Closeable c : files) {
            try {
                c.close();
            } catch (IOException e) {
                failed = failed == null ? e : failed;
            }
        }
        if (failed != null) {
            throw failed;
        }
    }

    /** Stops the events thread and closes the files, after a failure (what they hold is discarded by the caller). */
    void abort() {
        finished = true;
        eventsThread.stop();
        closeFiles();
    }

    private void closeFiles() {
        for (Closeable c : files) {
            try {
                c.close();
            } catch (IOException | RuntimeException e) {
                // already failing: the first failure is the one reported
            }
        }
    }

    private void memoryRows(MemoryInfo m, AllocationStream.Memory sa, Map<SqlSchema.Table, ColumnTable> out) {
        int id = m.id();
        long peakEvent = sa.peakEvent();
        out.get(SqlSchema.MEMORIES).add(id).add(m.name()).add(m.kind().name()).add(m.device()).add(m.capacity())
                .add(id < perMemory.length ? perMemory[id] : 0).add(sa.allocations()).add(sa.peakBytes()).id(peakEvent)
                .id(peakEvent < 0 ? -1 : sa.peakNs()).add(id < peakAux.length ? peakAux[id] : 0);
        ColumnTable sites = out.get(SqlSchema.SITES);
        String kind = sa.source().name().toLowerCase(Locale.ROOT);
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
            sites.add(id).add(p).add(inner.label()).add(inner.function()).add(inner.file()).add(inner.line())
                    .add(frames.size()).add(stack.toString()).add(kind);
        }
    }

    /** Rows of a table whose columns are all optional, a value at a time, in the schema's order (the rank left out). */
    private static final class Rows {
        private final ParquetWriter w;
        private int c;

        Rows(ParquetWriter w) {
            this.w = w;
        }

        Rows add(long v) {
            w.column(c++).put(v);
            return this;
        }

        Rows add(boolean v) {
            w.column(c++).put(v);
            return this;
        }

        /** An id: null when negative. */
        Rows id(long v) {
            if (v < 0) {
                return nul();
            }
            return add(v);
        }

        Rows nul() {
            w.column(c++).putNull();
            return this;
        }

        Rows text(String s) {
            w.column(c++).put(s);
            return this;
        }

        void end() {
            c = 0;
            try {
                w.endRows(1);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Writes the {@code events} table on its own thread, from copies of the batches. */
    private static final class EventsThread implements Runnable {
        private static final EventBatch END = new EventBatch(1);

        private final ParquetWriter w;
        private final ArrayBlockingQueue<EventBatch> full = new ArrayBlockingQueue<>(BATCHES + 1);
        private final ArrayBlockingQueue<EventBatch> spare = new ArrayBlockingQueue<>(BATCHES);
        private final Thread thread;
        private final EventColumns columns;
        private volatile Throwable failed;

        EventsThread(ParquetWriter w) {
            this.w = w;
            this.columns = new EventColumns(w);
            for (int i = 0; i < BATCHES; i++) {
                spare.add(new EventBatch(EventStore.BLOCK_EVENTS));
            }
            thread = Thread.ofPlatform().daemon().name("arenascope-parquet-events").start(this);
        }

        /** Hands a copy of {@code b} over (waits while every buffer is in flight). */
        void offer(EventBatch b) {
            rethrow();
            try {
                EventBatch copy = spare.take();
                copy.clear();
                copy.addRange(b, 0, b.size());
                full.put(copy);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new UncheckedIOException(new IOException("writing the events was interrupted"));
            }
        }

        @Override
        public void run() {
            long from = 0;
            try {
                while (true) {
                    EventBatch b = full.take();
                    if (b == END) {
                        return;
                    }
                    if (failed == null) {
                        try {
                            columns.write(b, from);
                        } catch (IOException | RuntimeException e) {
                            failed = e; // keep taking the batches, so the caller never waits on a full queue
                        }
                    }
                    from += b.size();
                    spare.put(b);
                }
            } catch (InterruptedException e) {
                if (failed == null) {
                    failed = e;
                }
            }
        }

        /** Waits for every batch handed over to be written. */
        void finish() throws IOException {
            try {
                full.put(END);
                thread.join();
            } catch (InterruptedException e) {
                thread.interrupt();
                Thread.currentThread().interrupt();
                throw new IOException("writing the events was interrupted", e);
            }
            rethrow();
        }

        void stop() {
            thread.interrupt();
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private void rethrow() {
            Throwable t = failed;
            if (t instanceof IOException e) {
                throw new UncheckedIOException(e);
            }
            if (t instanceof RuntimeException e) {
                throw e;
            }
            if (t != null) {
                throw new UncheckedIOException(new IOException("writing the events stopped: " + t, t));
            }
        }
    }

    /** The events table's columns, a batch at a time, each column in one bulk put where it can. */
    private static final class EventColumns {
        private final ParquetWriter w;
        private final ColumnWriter event;
        private final ColumnWriter time;
        private final ColumnWriter kind;
        private final ColumnWriter flags;
        private final ColumnWriter memory;
        private final ColumnWriter thread;
        private final ColumnWriter[] longs;
        private final ColumnWriter ref;
        private final ColumnWriter ref2;
        private final ColumnWriter site;
        private final ColumnWriter category;
        private final int[] kindId = new int[256];
        private long[] seq = new long[EventStore.BLOCK_EVENTS];

        EventColumns(ParquetWriter w) {
            this.w = w;
            event = w.column(0);
            time = w.column(1);
            kind = w.column(2);
            flags = w.column(3);
            memory = w.column(4);
            thread = w.column(5);
            longs = new ColumnWriter[] {w.column(6), w.column(7), w.column(8), w.column(9), w.column(10)};
            ref = w.column(11);
            ref2 = w.column(12);
            site = w.column(13);
            category = w.column(14);
            Arrays.fill(kindId, -1);
            for (EventKind k : EventKind.values()) {
                kindId[k.code()] = kind.intern(k.name());
            }
        }

        /** {@code b}'s events, the first being event {@code from} of the trace. */
        void write(EventBatch b, long from) throws IOException {
            int rows = b.size();
            EventBatch.Columns c = b.columns();
            if (seq.length < rows) {
                seq = new long[rows];
            }
            for (int r = 0; r < rows; r++) {
                seq[r] = from + r;
            }
            event.putAll(seq, 0, rows);
            time.putAll(c.time(), 0, rows);
            int[] packed = c.packed();
            for (int r = 0; r < rows; r++) {
                kind.putId(kindId[packed[r] & 0xff]);
            }
            for (int r = 0; r < rows; r++) {
                flags.put(packed[r] >>> 8 & 0xff);
            }
            for (int r = 0; r < rows; r++) {
                int m = (packed[r] >>> 16 & 0xffff) - 1;
                if (m < 0) {
                    memory.putNull();
                } else {
                    memory.put(m);
                }
            }
            thread.putAll(c.thread(), 0, rows, false);
            longs[0].putAll(c.a(), 0, rows);
            longs[1].putAll(c.b(), 0, rows);
            longs[2].putAll(c.c(), 0, rows);
            longs[3].putAll(c.used(), 0, rows);
            longs[4].putAll(c.aux(), 0, rows);
            ref.putAll(c.ref(), 0, rows, false);
            ref2.putAll(c.ref2(), 0, rows, false);
            putIds(site, b.siteColumn(), rows);
            putIds(category, b.categoryColumn(), rows);
            w.endRows(rows);
        }

        /** {@code ids[0 .. rows)}, a negative one null; a null array: every row null. */
        private static void putIds(ColumnWriter col, int[] ids, int rows) {
            if (ids == null) {
                for (int r = 0; r < rows; r++) {
                    col.putNull();
                }
            } else {
                col.putAll(ids, 0, rows, true);
            }
        }
    }
}
