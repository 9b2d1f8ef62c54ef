package dev.arenascope.core.sql;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.arenascope.core.analysis.AllocationStream;
import dev.arenascope.core.analysis.Allocations;
import dev.arenascope.core.sql.parquet.ColumnWriter;
import dev.arenascope.core.sql.parquet.ParquetWriter;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.trace.store.TraceStore;

/**
 * {@link TraceQuery#exportParquet(List, TraceQuery.Options, Path)}: every table of every rank written
 * with the project's own {@link ParquetWriter}, no engine in the loop, in two passes over each rank's
 * events that run side by side: the {@code events} table (a store block at a time, its columns copied
 * in bulk), and one pass for everything else: scopes, markers, plan tensors, the pool requests (written
 * as met) and every memory's allocations at once ({@link AllocationStream}: an allocation's row is
 * written when it ends, the live ones at the end), so memory is the rank's live allocations and its
 * small tables, not its events or allocations.
 *
 * <h2>The files</h2>
 * {@code dir/TABLE/rank=N/data_0.parquet}, as {@link TraceQuery#exportParquet(Path)} lays them out, with
 * the same column names and SQL types and {@link SqlSchema#VERSION_KEY} in the footer. {@code events}
 * and {@code allocations}: a column that is never null is REQUIRED; the other tables' columns are all
 * OPTIONAL. Row groups of {@value #ROW_GROUP} rows. {@code events} rows are in event order;
 * {@code allocations} rows in the order the allocations ended (the live ones last): the
 * {@code allocation} column numbers them as {@code arenascope sites} does.
 */
final class TraceParquet {
    private TraceParquet() {}

    /** Rows a row group holds. */
    static final int ROW_GROUP = 1 << 20;

    /** The events table's columns that may be null (an id that names nothing, a kind without a name). */
    private static final Set<String> EVENTS_NULLABLE = Set.of("kind", "memory", "site", "category_id");
    private static final Set<String> ALLOCATIONS_NULLABLE = Set.of("free_event", "free_ns", "lifetime_ns", "descriptor",
            "site", "stack", "category", "scope");
    private static final Map<String, String> METADATA = Map.of(SqlSchema.VERSION_KEY, Integer.toString(SqlSchema.VERSION));

    static void export(List<TraceInput> ranks, Path dir) {
        if (ranks.isEmpty()) {
            throw new IllegalArgumentException("no trace to export");
        }
        for (SqlSchema.Table t : SqlSchema.TABLES) {
            if (Files.exists(dir.resolve(t.name()))) {
                throw new IllegalArgumentException(dir.resolve(t.name()) + " exists already (not overwritten)");
            }
        }
        ExecutorService events = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "arenascope-parquet-events");
            t.setDaemon(true);
            return t;
        });
        try {
            for (int r = 0; r < ranks.size(); r++) {
                TraceView v = ranks.get(r).view();
                Path eventsFile = file(dir, SqlSchema.EVENTS, r);
                Future<?> done = events.submit(() -> {
                    writeEvents(v, eventsFile);
                    return null;
                });
                try {
                    writeTables(ranks.get(r), r, dir);
                } catch (RuntimeException | IOException e) {
                    done.cancel(true);
                    throw e;
                }
                done.get();
            }
        } catch (IOException | UncheckedIOException e) {
            throw new QueryException("writing Parquet to " + dir + " failed: " + QueryException.oneLine(e.getMessage()), false, e);
        } catch (ExecutionException e) {
            Throwable c = e.getCause() == null ? e : e.getCause();
            throw new QueryException("writing Parquet to " + dir + " failed: " + QueryException.oneLine(c.getMessage()), false, c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new QueryException("writing Parquet was interrupted", false, e);
        } finally {
            events.shutdownNow();
        }
    }

    private static Path file(Path dir, SqlSchema.Table t, int rank) throws IOException {
        Path folder = dir.resolve(t.name()).resolve("rank=" + rank);
        Files.createDirectories(folder);
        return folder.resolve("data_0.parquet");
    }

    private static ParquetWriter.Type type(SqlSchema.Type t) {
        return switch (t) {
            case INTEGER -> ParquetWriter.Type.INT32;
            case BIGINT -> ParquetWriter.Type.INT64;
            case VARCHAR -> ParquetWriter.Type.STRING;
            case BOOLEAN -> ParquetWriter.Type.BOOLEAN;
        };
    }

    /** The table's columns but the rank (the partition's name holds it); {@code nullable}: null for every column. */
    static List<ParquetWriter.Column> columns(SqlSchema.Table t, Set<String> nullable) {
        List<ParquetWriter.Column> out = new ArrayList<>();
        for (SqlSchema.Column c : t.columns()) {
            if (!c.name().equals("rank")) {
                out.add(new ParquetWriter.Column(c.name(), type(c.type()), nullable == null || nullable.contains(c.name())));
            }
        }
        return out;
    }

    private static ParquetWriter open(Path file, SqlSchema.Table t, Set<String> nullable) throws IOException {
        return new ParquetWriter(file, columns(t, nullable), METADATA, ROW_GROUP);
    }

    // ---------------------------------------------------------------- events

    private static final String[] KIND_NAMES = new String[EventKind.maxCode() + 1];

    static {
        for (EventKind k : EventKind.values()) {
            KIND_NAMES[k.code()] = k.name();
        }
    }

    /** The events table of {@code v}: a store block at a time, each column in one bulk put. */
    static void writeEvents(TraceView v, Path file) throws IOException {
        try (ParquetWriter w = open(file, SqlSchema.EVENTS, EVENTS_NULLABLE)) {
            ColumnWriter event = w.column(0);
            ColumnWriter time = w.column(1);
            ColumnWriter kind = w.column(2);
            ColumnWriter flags = w.column(3);
            ColumnWriter memory = w.column(4);
            ColumnWriter thread = w.column(5);
            ColumnWriter[] longs = {w.column(6), w.column(7), w.column(8), w.column(9), w.column(10)};
            ColumnWriter ref = w.column(11);
            ColumnWriter ref2 = w.column(12);
            ColumnWriter site = w.column(13);
            ColumnWriter category = w.column(14);
            int[] kindId = new int[256];
            Arrays.fill(kindId, -1);
            for (int code = 0; code < KIND_NAMES.length; code++) {
                kindId[code] = kind.intern(KIND_NAMES[code]);
            }
            EventBatch b = new EventBatch(EventStore.BLOCK_EVENTS);
            long[] seq = new long[EventStore.BLOCK_EVENTS];
            long n = v.eventCount();
            for (long from = 0; from < n; ) {
                if (Thread.currentThread().isInterrupted()) {
                    throw new IOException("the events' export was stopped");
                }
                b.clear();
                TraceStore.copy(v, from, Math.min(n, from + EventStore.BLOCK_EVENTS), b);
                int rows = b.size();
                if (rows == 0) {
                    break;
                }
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
                from += rows;
            }
        }
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

    // ---------------------------------------------------------------- every other table

    private static void writeTables(TraceInput input, int rank, Path dir) throws IOException {
        TraceView v = input.view();
        Map<SqlSchema.Table, ColumnTable> out = new LinkedHashMap<>();
        for (SqlSchema.Table t : SqlSchema.TABLES) {
            if (t != SqlSchema.EVENTS && t != SqlSchema.ALLOCATIONS && t != SqlSchema.POOL_REQUESTS) {
                out.put(t, new ColumnTable(t, rank));
            }
        }
        long[] perMemory = new long[TraceTables.maxMemoryId(v) + 2];
        AllocationStream stream;
        try (ParquetWriter allocations = open(file(dir, SqlSchema.ALLOCATIONS, rank), SqlSchema.ALLOCATIONS, ALLOCATIONS_NULLABLE);
             ParquetWriter pools = open(file(dir, SqlSchema.POOL_REQUESTS, rank), SqlSchema.POOL_REQUESTS, null)) {
            AllocationWriter rows = new AllocationWriter(v, allocations);
            stream = new AllocationStream(v, false, rows);
            TraceTables.events(v, out, perMemory, stream, (b, k, idx) -> poolRequest(pools, b, k, idx));
            stream.finish();
            rows.failure();
        }
        for (AllocationStream.Memory m : stream.memories()) {
            memoryRows(v, m, out, perMemory);
        }
        TraceTables.frames(v, out);
        TraceTables.threadsAndStrings(v, out);
        out.get(SqlSchema.RANKS).add(input.name()).add(input.path()).add(v.session().name()).add(v.session().host())
                .add(v.eventCount()).add(v.startNs()).add(v.endNs()).add(v.lostEvents());
        for (Map.Entry<SqlSchema.Table, ColumnTable> e : out.entrySet()) {
            writeTable(e.getValue(), file(dir, e.getKey(), rank));
        }
    }

    private static void poolRequest(ParquetWriter w, EventBatch b, int k, long idx) {
        w.column(0).put(b.memory(k));
        w.column(1).put(idx);
        w.column(2).put(b.time(k));
        w.column(3).put(b.thread(k));
        w.column(4).put(b.a(k));
        w.column(5).put(b.b(k));
        w.column(6).put(b.c(k));
        w.column(7).put(b.ref(k));
        w.column(8).put((b.flags(k) & Event.FLAG_HIT) != 0);
        w.column(9).put(b.ref2(k));
        w.column(10).putOrNull(b.site(k), -1);
        endRow(w);
    }

    private static void endRow(ParquetWriter w) {
        try {
            w.endRows(1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The memories row and sites rows of one memory, as {@code TraceTables} makes them from its site analysis. */
    private static void memoryRows(TraceView v, AllocationStream.Memory sa, Map<SqlSchema.Table, ColumnTable> out, long[] perMemory) {
        MemoryInfo m = sa.info();
        long peakEvent = sa.peakEvent();
        out.get(SqlSchema.MEMORIES).add(m.id()).add(m.name()).add(m.kind().name()).add(m.device()).add(m.capacity())
                .add(perMemory[m.id()]).add(sa.allocations()).add(sa.peakBytes()).id(peakEvent).id(peakEvent < 0 ? -1 : sa.peakNs())
                .add(v.peakAux(m.id()));
        ColumnTable sites = out.get(SqlSchema.SITES);
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
            sites.add(m.id()).add(p).add(inner.label()).add(inner.function()).add(inner.file()).add(inner.line())
                    .add(frames.size()).add(stack.toString()).add(source);
        }
    }

    /** A table built in Java, every column optional (its nulls as {@link ColumnTable#NULL} or a null text). */
    private static void writeTable(ColumnTable t, Path file) throws IOException {
        List<ParquetWriter.Column> cols = columns(t.table, null);
        try (ParquetWriter w = new ParquetWriter(file, cols, METADATA, ROW_GROUP)) {
            int rows = (int) t.rows();
            for (int from = 0; from < rows || from == 0 && rows == 0; from += ROW_GROUP) {
                int to = Math.min(rows, from + ROW_GROUP);
                for (int c = 1; c < t.table.columns().size(); c++) {
                    ColumnWriter col = w.column(c - 1);
                    if (t.type(c) == SqlSchema.Type.VARCHAR) {
                        for (int r = from; r < to; r++) {
                            col.put(t.text(c, r));
                        }
                    } else {
                        long[] numbers = t.numbers(c);
                        for (int r = from; r < to; r++) {
                            col.putOrNull(numbers[r], ColumnTable.NULL);
                        }
                    }
                }
                w.endRows(to - from);
                if (rows == 0) {
                    break;
                }
            }
        }
    }

    /** The allocations table's rows, written as the stream hands them over. */
    private static final class AllocationWriter implements AllocationStream.Sink {
        private final TraceView view;
        private final ParquetWriter w;
        private final ColumnWriter[] col;
        /** Dictionary ids of descriptors by the trace's string id (-2: not looked up yet). */
        private int[] descriptorIds = new int[64];
        /** Dictionary ids of categories by memory and category number (-2: not looked up yet). */
        private int[][] categoryIds = new int[0][];
        private IOException failed;

        AllocationWriter(TraceView view, ParquetWriter w) {
            this.view = view;
            this.w = w;
            col = new ColumnWriter[SqlSchema.ALLOCATIONS.columns().size() - 1];
            for (int c = 0; c < col.length; c++) {
                col[c] = w.column(c);
            }
            Arrays.fill(descriptorIds, -2);
        }

        @Override
        public void ended(AllocationStream.Row a) {
            if (failed != null) {
                return;
            }
            col[0].put(a.memory);
            col[1].put(a.number);
            col[2].put(a.startEvent);
            col[3].putOrNull(a.endEvent, -1);
            col[4].put(a.startNs);
            boolean freed = a.endNs != Allocations.NEVER;
            if (freed) {
                col[5].put(a.endNs);
                col[6].put(a.endNs - a.startNs);
            } else {
                col[5].putNull();
                col[6].putNull();
            }
            col[7].put(a.bytes);
            col[8].put(a.requestedBytes);
            col[9].put(a.address);
            col[10].putId(descriptor(a.descriptor));
            col[11].putOrNull(a.path, -1);
            col[12].putOrNull(a.stack, -1);
            col[13].putId(category(a));
            col[14].putOrNull(a.scope, -1);
            col[15].put(freed);
            try {
                w.endRows(1);
            } catch (IOException e) {
                failed = e;
            }
        }

        /** Throws what writing a row met, if anything (the stream's sink cannot throw it). */
        void failure() throws IOException {
            if (failed != null) {
                throw failed;
            }
        }

        private int descriptor(int id) {
            if (id < 0) {
                return -1;
            }
            if (id >= descriptorIds.length) {
                int old = descriptorIds.length;
                descriptorIds = Arrays.copyOf(descriptorIds, Math.max(id + 1, old * 2));
                Arrays.fill(descriptorIds, old, descriptorIds.length, -2);
            }
            int d = descriptorIds[id];
            if (d == -2) {
                d = descriptorIds[id] = col[10].intern(view.string(id));
            }
            return d;
        }

        private int category(AllocationStream.Row a) {
            if (a.memory >= categoryIds.length) {
                categoryIds = Arrays.copyOf(categoryIds, a.memory + 1);
            }
            int[] ids = categoryIds[a.memory];
            if (ids == null || a.categoryNumber >= ids.length) {
                int old = ids == null ? 0 : ids.length;
                ids = categoryIds[a.memory] = ids == null ? new int[Math.max(8, a.categoryNumber + 1)]
                        : Arrays.copyOf(ids, Math.max(old * 2, a.categoryNumber + 1));
                Arrays.fill(ids, old, ids.length, -2);
            }
            int d = ids[a.categoryNumber];
            if (d == -2) {
                d = ids[a.categoryNumber] = "(none)".equals(a.category) ? -1 : col[13].intern(a.category);
            }
            return d;
        }
    }
}
