package dev.arenascope.core.sql;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.duckdb.DuckDBColumnType;
import org.duckdb.DuckDBDataChunkWriter;
import org.duckdb.DuckDBFunctions;
import org.duckdb.DuckDBTableFunction;
import org.duckdb.DuckDBTableFunctionBindInfo;
import org.duckdb.DuckDBTableFunctionCallInfo;
import org.duckdb.DuckDBTableFunctionInitInfo;
import org.duckdb.DuckDBWritableVector;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.store.TraceStore;

/**
 * {@link TraceQuery} on DuckDB's JDBC driver. Tables come in through one Java table function,
 * {@code arenascope_scan(table, rank)}, that fills DuckDB's vectors a chunk at a time from the
 * {@link ColumnTable}s (and, for {@code events}, straight from the store's blocks): {@code INSERT INTO
 * t SELECT * FROM arenascope_scan(...)} loads a table without a row of SQL, and
 * {@code COPY (SELECT ... FROM arenascope_scan('events', r)) TO ...} streams a trace to Parquet without
 * holding it.
 */
final class DuckDbTraceQuery implements TraceQuery {
    private static final String SCAN = "arenascope_scan";

    private final Connection connection;
    private final List<TraceInput> ranks;
    private final List<Map<SqlSchema.Table, ColumnTable>> tables = new ArrayList<>();
    private final Options options;
    private final ScheduledExecutorService timer;
    private final Path tempDir;
    private boolean lockedDown;

    DuckDbTraceQuery(List<TraceInput> ranks, Options options) {
        if (ranks.isEmpty()) {
            throw new IllegalArgumentException("no trace to query");
        }
        this.ranks = List.copyOf(ranks);
        this.options = options;
        for (int r = 0; r < ranks.size(); r++) {
            tables.add(TraceTables.build(ranks.get(r), r));
        }
        try {
            tempDir = Files.createTempDirectory("arenascope-sql-");
        } catch (IOException e) {
            throw new QueryException("cannot make the engine's temporary directory: " + e.getMessage(), false, e);
        }
        Properties p = new Properties();
        p.setProperty("memory_limit", options.memoryLimit());
        p.setProperty("threads", Integer.toString(options.threads()));
        p.setProperty("temp_directory", tempDir.toString());
        p.setProperty("autoinstall_known_extensions", "false");
        p.setProperty("autoload_known_extensions", "false");
        try {
            Class.forName("org.duckdb.DuckDBDriver");
            connection = DriverManager.getConnection("jdbc:duckdb:", p);
        } catch (ClassNotFoundException e) {
            throw new QueryException("the SQL engine (DuckDB's JDBC driver, org.duckdb:duckdb_jdbc) is not on the class path", false, e);
        } catch (SQLException e) {
            throw new QueryException("the SQL engine did not start: " + QueryException.oneLine(e.getMessage()), false, e);
        }
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "arenascope-sql-timeout");
            t.setDaemon(true);
            return t;
        });
        try {
            DuckDBFunctions.tableFunction().withName(SCAN).withParameter(DuckDBColumnType.VARCHAR)
                    .withParameter(DuckDBColumnType.INTEGER).withFunction(new Scan()).register(connection);
            load();
        } catch (SQLException | RuntimeException e) {
            close();
            throw e instanceof QueryException q ? q
                    : new QueryException("loading the tables failed: " + QueryException.oneLine(e.getMessage()), false, e);
        }
    }

    private void load() throws SQLException {
        try (Statement s = connection.createStatement()) {
            for (SqlSchema.Table t : SqlSchema.TABLES) {
                if (t == SqlSchema.EVENTS && !options.eventsTable()) {
                    s.execute("CREATE VIEW events AS " + scanAll(t));
                    continue;
                }
                s.execute(t.ddl());
                for (int r = 0; r < ranks.size(); r++) {
                    s.execute("INSERT INTO " + t.name() + " " + scan(t, r));
                }
            }
            for (String m : SqlSchema.MACROS) {
                s.execute(m);
            }
        }
        // the column buffers are in the engine now; events stay readable from the stores for the view
        for (Map<SqlSchema.Table, ColumnTable> m : tables) {
            m.clear();
        }
    }

    private String scanAll(SqlSchema.Table t) {
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < ranks.size(); r++) {
            sb.append(r == 0 ? "" : " UNION ALL ").append(scan(t, r));
        }
        return sb.toString();
    }

    /**
     * The scan of table {@code t} of rank {@code r} with the table's columns: the events' kind comes out of
     * the function as its code (a number is a bulk copy, a string a call per row) and is named here.
     */
    private static String scan(SqlSchema.Table t, int r) {
        String from = " FROM " + SCAN + "('" + t.name() + "', " + r + ")";
        if (t != SqlSchema.EVENTS) {
            return "SELECT *" + from;
        }
        StringBuilder kinds = new StringBuilder("[");
        for (int code = 1; code < KIND_NAMES.length; code++) {
            kinds.append(code > 1 ? ", " : "").append(KIND_NAMES[code] == null ? "NULL" : "'" + KIND_NAMES[code] + "'");
        }
        StringBuilder cols = new StringBuilder();
        for (SqlSchema.Column c : t.columns()) {
            cols.append(cols.isEmpty() ? "" : ", ")
                    .append(c.name().equals("kind") ? kinds + "][kind_code] AS kind" : c.name());
        }
        return "SELECT " + cols + from;
    }

    @Override
    public long rowCount(String table) {
        SqlSchema.Table t = SqlSchema.table(table);
        if (t == null) {
            throw new IllegalArgumentException("no table named '" + table + "'");
        }
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM " + t.name())) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new QueryException(QueryException.oneLine(e.getMessage()), false, e);
        }
    }

    @Override
    public void save(Path databaseFile) {
        requireOpenFiles("save");
        if (Files.exists(databaseFile)) {
            throw new IllegalArgumentException(databaseFile + " exists already (not overwritten)");
        }
        try (Statement s = connection.createStatement()) {
            s.execute("ATTACH " + literal(databaseFile.toAbsolutePath().toString()) + " AS saved");
            try {
                for (SqlSchema.Table t : SqlSchema.TABLES) {
                    s.execute("CREATE TABLE saved." + t.name() + " AS SELECT * FROM " + t.name());
                }
                for (String m : SqlSchema.MACROS) {
                    s.execute(m.replace("CREATE MACRO ", "CREATE MACRO saved."));
                }
            } finally {
                s.execute("DETACH saved");
            }
        } catch (SQLException e) {
            throw new QueryException("saving " + databaseFile + " failed: " + QueryException.oneLine(e.getMessage()), false, e);
        }
    }

    @Override
    public void exportParquet(Path dir) {
        requireOpenFiles("export");
        String kv = "KV_METADATA {" + SqlSchema.VERSION_KEY + ": '" + SqlSchema.VERSION + "'}";
        try (Statement s = connection.createStatement()) {
            Files.createDirectories(dir);
            for (SqlSchema.Table t : SqlSchema.TABLES) {
                Path target = dir.resolve(t.name());
                if (Files.exists(target)) {
                    throw new IllegalArgumentException(target + " exists already (not overwritten)");
                }
                String from = t == SqlSchema.EVENTS ? "(" + scanAll(t) + ")" : t.name();
                s.execute("COPY (SELECT * FROM " + from + ") TO " + literal(target.toAbsolutePath().toString())
                        + " (FORMAT parquet, PARTITION_BY (rank), " + kv + ")");
            }
        } catch (SQLException e) {
            throw new QueryException("writing Parquet to " + dir + " failed: " + QueryException.oneLine(e.getMessage()), false, e);
        } catch (IOException e) {
            throw new QueryException("cannot make " + dir + ": " + e.getMessage(), false, e);
        }
    }

    private void requireOpenFiles(String what) {
        if (lockedDown) {
            throw new IllegalStateException("cannot " + what + " after the first query (queries close the engine off from files)");
        }
    }

    /** Closes the engine off from the file system for good, but for the writable directories. */
    private void lockDown() throws SQLException {
        if (lockedDown) {
            return;
        }
        try (Statement s = connection.createStatement()) {
            if (!options.allowedDirectories().isEmpty()) {
                StringBuilder list = new StringBuilder("[");
                for (Path d : options.allowedDirectories()) {
                    String dir = d.toAbsolutePath().normalize().toString();
                    list.append(list.length() > 1 ? ", " : "").append(literal(dir.endsWith("/") ? dir : dir + "/"));
                }
                s.execute("SET allowed_directories = " + list.append(']'));
            }
            s.execute("SET enable_external_access = false");
            s.execute("SET lock_configuration = true");
        }
        lockedDown = true;
    }

    @Override
    public QueryResult query(String sql, Duration timeout, int maxRows) {
        List<String>[] head = new List[2];
        List<List<Object>> rows = new ArrayList<>();
        boolean[] more = {false};
        query(sql, timeout, new RowSink() {
            @Override
            public void columns(List<String> names, List<String> types) {
                head[0] = names;
                head[1] = types;
            }

            @Override
            public boolean row(Object[] values) {
                if (rows.size() >= maxRows) {
                    more[0] = true;
                    return false;
                }
                rows.add(Arrays.asList(values));
                return true;
            }
        });
        return new QueryResult(head[0] == null ? List.of() : head[0], head[1] == null ? List.of() : head[1], rows, more[0]);
    }

    @Override
    public void query(String sql, Duration timeout, RowSink sink) {
        if (sql == null || sql.isBlank()) {
            throw new QueryException("the query is empty", false, null);
        }
        AtomicBoolean cancelled = new AtomicBoolean();
        ScheduledFuture<?> alarm = null;
        try {
            lockDown();
            try (Statement s = connection.createStatement()) {
                if (timeout != null && !timeout.isZero() && !timeout.isNegative()) {
                    alarm = timer.schedule(() -> {
                        cancelled.set(true);
                        try {
                            s.cancel();
                        } catch (SQLException ignored) {
                            // the query ended as the alarm rang
                        }
                    }, timeout.toNanos(), TimeUnit.NANOSECONDS);
                }
                boolean hasRows = s.execute(sql);
                if (!hasRows) {
                    sink.columns(List.of("rows"), List.of("BIGINT"));
                    sink.row(new Object[] {(long) Math.max(0, s.getUpdateCount())});
                    return;
                }
                try (ResultSet rs = s.getResultSet()) {
                    ResultSetMetaData md = rs.getMetaData();
                    int n = md.getColumnCount();
                    List<String> names = new ArrayList<>(n);
                    List<String> types = new ArrayList<>(n);
                    for (int c = 1; c <= n; c++) {
                        names.add(md.getColumnLabel(c));
                        types.add(md.getColumnTypeName(c));
                    }
                    sink.columns(names, types);
                    while (rs.next()) {
                        Object[] row = new Object[n];
                        for (int c = 0; c < n; c++) {
                            row[c] = plain(rs.getObject(c + 1));
                        }
                        if (!sink.row(row)) {
                            break;
                        }
                    }
                }
            }
        } catch (SQLException e) {
            if (cancelled.get()) {
                throw new QueryException("the query ran past " + describe(timeout) + " and was cancelled", true, e);
            }
            throw new QueryException(QueryException.oneLine(e.getMessage()), false, e);
        } finally {
            if (alarm != null) {
                alarm.cancel(false);
            }
        }
    }

    private static String describe(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
    }

    /** A JDBC value as a plain Java value. */
    private static Object plain(Object v) {
        return switch (v) {
            case null -> null;
            case Long l -> l;
            case Integer i -> i;
            case Short s -> s.intValue();
            case Byte b -> b.intValue();
            case Double d -> d;
            case Float f -> f.doubleValue();
            case Boolean b -> b;
            case String s -> s;
            case BigDecimal d -> d;
            case BigInteger b -> b;
            default -> v.toString();
        };
    }

    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    @Override
    public void close() {
        if (timer != null) {
            timer.shutdownNow();
        }
        try {
            if (connection != null) {
                connection.close();
            }
        } catch (SQLException ignored) {
            // closing: nothing to tell
        }
        deleteTree(tempDir);
    }

    private static void deleteTree(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // a temporary file the engine still holds; the OS's temp cleaning takes it
                }
            });
        } catch (IOException ignored) {
            // as above
        }
    }

    // ---------------------------------------------------------------- the table function

    /** What a scan reads: a table of a rank. */
    private record Target(SqlSchema.Table table, int rank) {}

    /** Where a scan is. */
    private static final class Cursor {
        long next;
        EventBatch batch;
        long[][] columns;

        long[][] columns(int rows) {
            if (columns == null || columns[0].length < rows) {
                columns = new long[SqlSchema.EVENTS.columns().size()][rows];
            }
            return columns;
        }
    }

    private static DuckDBColumnType type(SqlSchema.Type t) {
        return switch (t) {
            case INTEGER -> DuckDBColumnType.INTEGER;
            case BIGINT -> DuckDBColumnType.BIGINT;
            case VARCHAR -> DuckDBColumnType.VARCHAR;
            case BOOLEAN -> DuckDBColumnType.BOOLEAN;
        };
    }

    private static final String[] KIND_NAMES = new String[EventKind.maxCode() + 1];

    static {
        for (EventKind k : EventKind.values()) {
            KIND_NAMES[k.code()] = k.name();
        }
    }

    private final class Scan implements DuckDBTableFunction<Target, Cursor, Object> {
        @Override
        public Target bind(DuckDBTableFunctionBindInfo info) {
            String name = info.getParameter(0).getString();
            int rank = info.getParameter(1).getInt();
            SqlSchema.Table t = SqlSchema.table(name);
            if (t == null || rank < 0 || rank >= ranks.size()) {
                throw new IllegalArgumentException("no table " + name + " of rank " + rank);
            }
            for (SqlSchema.Column c : t.columns()) {
                if (t == SqlSchema.EVENTS && c.name().equals("kind")) {
                    info.addResultColumn("kind_code", DuckDBColumnType.INTEGER); // named by EVENTS_SELECT
                } else {
                    info.addResultColumn(c.name(), type(c.type()));
                }
            }
            return new Target(t, rank);
        }

        @Override
        public Cursor init(DuckDBTableFunctionInitInfo info) {
            info.setMaxThreads(1);
            return new Cursor();
        }

        @Override
        public long apply(DuckDBTableFunctionCallInfo call, DuckDBDataChunkWriter out) {
            Target target = call.getBindData();
            Cursor cursor = call.getInitData();
            int capacity = (int) out.capacity();
            if (target.table() == SqlSchema.EVENTS) {
                return events(ranks.get(target.rank()).view(), target.rank(), cursor, out, capacity);
            }
            ColumnTable t = tables.get(target.rank()).get(target.table());
            if (t == null) {
                throw new IllegalStateException("table " + target.table().name() + " was loaded already");
            }
            int from = (int) cursor.next;
            int rows = Math.min(capacity, t.rows() - from);
            for (int c = 0, w = target.table().columns().size(); c < w; c++) {
                DuckDBWritableVector vec = out.vector(c);
                switch (t.type(c)) {
                    case VARCHAR -> {
                        for (int r = 0; r < rows; r++) {
                            String v = t.text(c, from + r);
                            if (v == null) {
                                vec.setNull(r);
                            } else {
                                vec.setString(r, v);
                            }
                        }
                    }
                    case BOOLEAN -> VectorWrites.booleans(vec, t.numbers(c), from, rows);
                    case INTEGER -> VectorWrites.numbers(vec, false, t.numbers(c), from, rows, ColumnTable.NULL);
                    case BIGINT -> VectorWrites.numbers(vec, true, t.numbers(c), from, rows, ColumnTable.NULL);
                }
            }
            cursor.next += rows;
            return rows;
        }

        private long events(TraceView view, int rank, Cursor cursor, DuckDBDataChunkWriter out, int capacity) {
            long from = cursor.next;
            int rows = (int) Math.min(capacity, view.eventCount() - from);
            if (rows <= 0) {
                return 0;
            }
            EventBatch b = cursor.batch == null ? cursor.batch = new EventBatch(capacity) : cursor.batch;
            b.clear();
            TraceStore.copy(view, from, from + rows, b);
            rows = b.size();
            long[][] cols = cursor.columns(rows);
            for (int r = 0; r < rows; r++) {
                cols[0][r] = rank;
                cols[1][r] = from + r;
                cols[2][r] = b.time(r);
                cols[3][r] = b.kindCode(r);
                cols[4][r] = b.flags(r);
                int mem = b.memory(r);
                cols[5][r] = mem < 0 ? ColumnTable.NULL : mem;
                cols[6][r] = b.thread(r);
                cols[7][r] = b.a(r);
                cols[8][r] = b.b(r);
                cols[9][r] = b.c(r);
                cols[10][r] = b.used(r);
                cols[11][r] = b.aux(r);
                cols[12][r] = b.ref(r);
                cols[13][r] = b.ref2(r);
                int site = b.site(r);
                cols[14][r] = site < 0 ? ColumnTable.NULL : site;
                int cat = b.category(r);
                cols[15][r] = cat < 0 ? ColumnTable.NULL : cat;
            }
            List<SqlSchema.Column> columns = SqlSchema.EVENTS.columns();
            for (int c = 0; c < columns.size(); c++) {
                VectorWrites.numbers(out.vector(c), columns.get(c).type() == SqlSchema.Type.BIGINT, cols[c], 0, rows, ColumnTable.NULL);
            }
            cursor.next += rows;
            return rows;
        }
    }

    /** For tests: the settings the engine runs with. */
    Map<String, String> settings() {
        Map<String, String> out = new HashMap<>();
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("SELECT name, value FROM duckdb_settings() WHERE name IN ('memory_limit', 'threads')")) {
            while (rs.next()) {
                out.put(rs.getString(1), rs.getString(2));
            }
        } catch (SQLException e) {
            throw new QueryException(QueryException.oneLine(e.getMessage()), false, e);
        }
        return out;
    }
}
