package dev.arenascope.core.sql;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.arenascope.core.analysis.AllocationStream;
import dev.arenascope.core.analysis.Allocations;
import dev.arenascope.core.sql.parquet.ColumnWriter;
import dev.arenascope.core.sql.parquet.ParquetWriter;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.file.ReadReport;

/**
 * {@link TraceQuery#exportParquet(List, Path)}: every table of every rank written with the project's own
 * {@link ParquetWriter}, no engine in the loop, while each rank's trace is read once ({@link RankParquet}:
 * the {@code events} table on a thread of its own, every other table on the reader's), so memory is the
 * rank's metadata and what is open at a time (live allocations, scopes not exited, tensors not dead),
 * not its events or allocations. One rank at a time.
 *
 * <h2>The files</h2>
 * {@code dir/TABLE/rank=N/data_0.parquet}, as {@link TraceQuery#exportParquet(Path)} lays them out, with
 * the same column names and SQL types and {@link SqlSchema#VERSION_KEY} in the footer. {@code events}
 * and {@code allocations}: a column that is never null is REQUIRED; the other tables' columns are all
 * OPTIONAL. Row groups of {@value #ROW_GROUP} rows. {@code events} rows are in event order;
 * {@code allocations}, {@code scopes} and {@code plan_tensors} rows in the order they closed (an
 * allocation ended, a scope exited, a tensor died), the open ones last: the {@code allocation} column
 * numbers the allocations as {@code arenascope sites} does.
 */
final class TraceParquet {
    private TraceParquet() {}

    /** Rows a row group holds. */
    static final int ROW_GROUP = 1 << 20;

    /** The events table's columns that may be null (an id that names nothing, a kind without a name). */
    static final Set<String> EVENTS_NULLABLE = Set.of("kind", "memory", "site", "category_id");
    static final Set<String> ALLOCATIONS_NULLABLE = Set.of("free_event", "free_ns", "lifetime_ns", "descriptor",
            "site", "stack", "category", "scope");
    private static final Map<String, String> METADATA = Map.of(SqlSchema.VERSION_KEY, Integer.toString(SqlSchema.VERSION));

    /**
     * Writes {@code ranks} under {@code dir}, rank {@code i} from {@code ranks.get(i)}, and returns what each
     * read reported (null for a sound one or a store's replay).
     */
    static List<ReadReport> export(List<TraceSource> ranks, Path dir) {
        if (ranks.isEmpty()) {
            throw new IllegalArgumentException("no trace to export");
        }
        for (SqlSchema.Table t : SqlSchema.TABLES) {
            if (Files.exists(dir.resolve(t.name()))) {
                throw new IllegalArgumentException(dir.resolve(t.name()) + " exists already (not overwritten)");
            }
        }
        List<ReadReport> reports = new ArrayList<>();
        try {
            for (int r = 0; r < ranks.size(); r++) {
                RankParquet rank = new RankParquet(dir, r, ranks.get(r));
                try {
                    reports.add(ranks.get(r).feed().into(rank));
                    rank.finish();
                } catch (IOException | RuntimeException e) {
                    rank.abort();
                    throw e;
                }
            }
        } catch (IOException | UncheckedIOException e) {
            String why = e instanceof UncheckedIOException u && u.getCause() != null ? u.getCause().getMessage() : e.getMessage();
            throw new QueryException("writing Parquet to " + dir + " failed: " + QueryException.oneLine(why), false, e);
        }
        return reports;
    }

    static Path file(Path dir, SqlSchema.Table t, int rank) throws IOException {
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

    static ParquetWriter open(Path file, SqlSchema.Table t, Set<String> nullable) throws IOException {
        return new ParquetWriter(file, columns(t, nullable), METADATA, ROW_GROUP);
    }

    /** A table built in Java, every column optional (its nulls as {@link ColumnTable#NULL} or a null text). */
    static void writeTable(ColumnTable t, Path file) throws IOException {
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
    static final class AllocationWriter implements AllocationStream.Sink {
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
        void rethrow() {
            if (failed != null) {
                throw new UncheckedIOException(failed);
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
