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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.duckdb.DuckDBColumnType;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBDataChunkWriter;
import org.duckdb.DuckDBFunctions;
import org.duckdb.DuckDBTableFunction;
import org.duckdb.DuckDBTableFunctionBindInfo;
import org.duckdb.DuckDBTableFunctionCallInfo;
import org.duckdb.DuckDBTableFunctionInitInfo;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.trace.store.TraceStore;

/**
 * {@link TraceQuery} on DuckDB's JDBC driver. Tables come in through one Java table function,
 * {@code arenascope_scan(table, rank, threads)}, that fills DuckDB's vectors a chunk at a time from the
 * {@link TableSource}s (and, for {@code events}, straight from the store's blocks): {@code INSERT INTO
 * t SELECT * FROM arenascope_scan(...)} loads a table without a row of SQL, and
 * {@code COPY (SELECT ... FROM arenascope_scan('events', r, n)) TO ...} streams a trace to Parquet without
 * holding it, on {@code n} threads.
 *
 * <h2>The load</h2>
 * The events are copied in on a second connection of the same database while the other tables are
 * built in Java (a site analysis per memory) and copied in on the first, each rank's tables built on a
 * worker while the previous rank's go in: on two cores the load takes about the longer of the two, not
 * their sum. A table's Java rows are dropped as soon as the engine holds them.
 */
final class DuckDbTraceQuery implements TraceQuery {
    private static final String SCAN = "arenascope_scan";
    /** Events a scan thread claims at once: one store block, decoded once. */
    private static final int EVENT_CLAIM = EventStore.BLOCK_EVENTS;

    private final Connection connection;
    private final List<TraceInput> ranks;
    /** The sources not yet read, by table name and rank ({@link #key}). */
    private final Map<String, TableSource> sources = new ConcurrentHashMap<>();
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
            deleteTree(tempDir);
            throw new QueryException("the SQL engine (DuckDB's JDBC driver, org.duckdb:duckdb_jdbc) is not on the class path", false, e);
        } catch (SQLException e) {
            deleteTree(tempDir);
            throw new QueryException("the SQL engine did not start: " + QueryException.oneLine(e.getMessage()), false, e);
        }
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "arenascope-sql-timeout");
            t.setDaemon(true);
            return t;
        });
        try {
            DuckDBFunctions.tableFunction().withName(SCAN).withParameter(DuckDBColumnType.VARCHAR)
                    .withParameter(DuckDBColumnType.INTEGER).withParameter(DuckDBColumnType.INTEGER)
                    .withFunction(new Scan()).register(connection);
            load();
        } catch (SQLException | RuntimeException e) {
            close();
            throw failure("loading the tables failed: ", e);
        }
    }

    private static QueryException failure(String what, Throwable e) {
        Throwable t = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        return t instanceof QueryException q ? q : new QueryException(what + QueryException.oneLine(t.getMessage()), false, t);
    }

    private static String key(SqlSchema.Table t, int rank) {
        return t.name() + "/" + rank;
    }

    /** Worker threads for building tables and the events' copy, ended by {@link ExecutorService#shutdownNow()}. */
    private static ExecutorService workers(int n) {
        AtomicInteger count = new AtomicInteger();
        return Executors.newFixedThreadPool(n, r -> {
            Thread t = new Thread(r, "arenascope-sql-load-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** The tables of each rank, built on a worker, in rank order. */
    private List<Future<Map<SqlSchema.Table, TableSource>>> build(ExecutorService pool) {
        List<Future<Map<SqlSchema.Table, TableSource>>> built = new ArrayList<>();
        for (int r = 0; r < ranks.size(); r++) {
            int rank = r;
            built.add(pool.submit(() -> TraceTables.build(ranks.get(rank), rank)));
        }
        return built;
    }

    /** Runs {@code sql} on a second connection of the database, on a worker; its statement is kept for a cancel. */
    private Future<?> onSecondConnection(ExecutorService pool, List<String> sql, AtomicReference<Statement> running) {
        return pool.submit(() -> {
            try (Connection c = ((DuckDBConnection) connection).duplicate(); Statement s = c.createStatement()) {
                running.set(s);
                for (String q : sql) {
                    s.execute(q);
                }
            } finally {
                running.set(null);
            }
            return null;
        });
    }

    private void load() throws SQLException {
        ExecutorService pool = workers(2);
        AtomicReference<Statement> events = new AtomicReference<>();
        Future<?> eventsDone = null;
        try (Statement s = connection.createStatement()) {
            for (SqlSchema.Table t : SqlSchema.TABLES) {
                if (t == SqlSchema.EVENTS && !options.eventsTable()) {
                    s.execute("CREATE VIEW events AS " + scanAll(t));
                } else {
                    s.execute(t.ddl());
                }
            }
            if (options.eventsTable()) {
                List<String> inserts = new ArrayList<>();
                for (int r = 0; r < ranks.size(); r++) {
                    inserts.add("INSERT INTO events " + scan(SqlSchema.EVENTS, r, 1, true));
                }
                eventsDone = onSecondConnection(pool, inserts, events);
            }
            List<Future<Map<SqlSchema.Table, TableSource>>> built = build(pool);
            for (int r = 0; r < ranks.size(); r++) {
                Map<SqlSchema.Table, TableSource> tables = built.get(r).get();
                built.set(r, null);
                for (Map.Entry<SqlSchema.Table, TableSource> e : tables.entrySet()) {
                    sources.put(key(e.getKey(), r), e.getValue());
                    s.execute("INSERT INTO " + e.getKey().name() + " " + scan(e.getKey(), r, 1, true));
                    sources.remove(key(e.getKey(), r)); // the engine holds it now
                }
            }
            if (eventsDone != null) {
                eventsDone.get();
                eventsDone = null;
            }
            for (String m : SqlSchema.MACROS) {
                s.execute(m);
            }
        } catch (ExecutionException e) {
            throw failure("loading the tables failed: ", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new QueryException("loading the tables was interrupted", false, e);
        } finally {
            stop(pool, events, eventsDone);
            sources.clear();
        }
    }

    /** Ends the workers: a copy still running on the second connection is cancelled and waited for. */
    private static void stop(ExecutorService pool, AtomicReference<Statement> running, Future<?> pending) {
        if (pending != null) {
            Statement st = running.get();
            try {
                if (st != null) {
                    st.cancel();
                }
            } catch (SQLException ignored) {
                // it ended as we asked
            }
            try {
                pending.get();
            } catch (ExecutionException | RuntimeException ignored) {
                // the failure that brought us here is the one to tell
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        pool.shutdownNow();
    }

    private String scanAll(SqlSchema.Table t) {
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < ranks.size(); r++) {
            sb.append(r == 0 ? "" : " UNION ALL ").append(scan(t, r, 1, true));
        }
        return sb.toString();
    }

    /**
     * The scan of table {@code t} of rank {@code r} on {@code threads} threads, with the table's columns
     * ({@code withRank} false: all but the rank, as a hive partition's file holds them): the events'
     * kind comes out of the function as its code (a number is a bulk copy, a string a call per row)
     * and is named here.
     */
    private static String scan(SqlSchema.Table t, int r, int threads, boolean withRank) {
        String from = " FROM " + SCAN + "('" + t.name() + "', " + r + ", " + threads + ")";
        if (t != SqlSchema.EVENTS && withRank) {
            return "SELECT *" + from;
        }
        StringBuilder kinds = new StringBuilder("[");
        for (int code = 1; code < KIND_NAMES.length; code++) {
            kinds.append(code > 1 ? ", " : "").append(KIND_NAMES[code] == null ? "NULL" : "'" + KIND_NAMES[code] + "'");
        }
        StringBuilder cols = new StringBuilder();
        for (SqlSchema.Column c : t.columns()) {
            if (!withRank && c.name().equals("rank")) {
                continue;
            }
            cols.append(cols.isEmpty() ? "" : ", ")
                    .append(t == SqlSchema.EVENTS && c.name().equals("kind") ? kinds + "][kind_code] AS kind" : c.name());
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

    /** Refuses a {@code dir} that holds a table's folder already. */
    private static void requireFree(Path dir) {
        for (SqlSchema.Table t : SqlSchema.TABLES) {
            if (Files.exists(dir.resolve(t.name()))) {
                throw new IllegalArgumentException(dir.resolve(t.name()) + " exists already (not overwritten)");
            }
        }
    }

    @Override
    public void exportParquet(Path dir) {
        requireOpenFiles("export");
        requireFree(dir);
        try (Statement s = connection.createStatement()) {
            for (int r = 0; r < ranks.size(); r++) {
                for (SqlSchema.Table t : SqlSchema.TABLES) {
                    String from = t == SqlSchema.EVENTS ? scan(t, r, 1, false)
                            : "SELECT * EXCLUDE (rank) FROM " + t.name() + " WHERE rank = " + r;
                    s.execute(copyTo(dir, t, r, from));
                }
            }
        } catch (SQLException e) {
            throw new QueryException("writing Parquet to " + dir + " failed: " + QueryException.oneLine(e.getMessage()), false, e);
        }
    }

    /**
     * {@code COPY (select) TO 'dir/TABLE/rank=R/data_0.parquet'}, the schema's version in the file's
     * key-value metadata; the folders are made here (a hive partition per rank, as {@code PARTITION_BY}
     * lays them out, without its buffering of every partition at once).
     */
    private static String copyTo(Path dir, SqlSchema.Table t, int rank, String select) {
        Path folder = dir.resolve(t.name()).resolve("rank=" + rank);
        try {
            Files.createDirectories(folder);
        } catch (IOException e) {
            throw new QueryException("cannot make " + folder + ": " + e.getMessage(), false, e);
        }
        return "COPY (" + select + ") TO " + literal(folder.resolve("data_0.parquet").toAbsolutePath().toString())
                + " (FORMAT parquet, KV_METADATA {" + SqlSchema.VERSION_KEY + ": '" + SqlSchema.VERSION + "'})";
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

    /** What a scan reads: a table of a rank, on so many threads (events only; other tables on one). */
    private record Target(SqlSchema.Table table, int rank, int threads) {}

    /** Where a scan is, for all its threads: the next row not yet claimed. */
    private static final class Claims {
        final AtomicLong next = new AtomicLong();
        final TableSource source;

        Claims(TableSource source) {
            this.source = source;
        }
    }

    /** One scan thread's claimed events: {@code [at, end)}, held decoded in {@code batch} from {@code base}. */
    private static final class Local {
        long at;
        long end;
        long base;
        EventBatch batch;
        EventVectors.Run run;
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

    private final class Scan implements DuckDBTableFunction<Target, Claims, Local> {
        @Override
        public Target bind(DuckDBTableFunctionBindInfo info) {
            String name = info.getParameter(0).getString();
            int rank = info.getParameter(1).getInt();
            int threads = info.getParameter(2).getInt();
            SqlSchema.Table t = SqlSchema.table(name);
            if (t == null || rank < 0 || rank >= ranks.size()) {
                throw new IllegalArgumentException("no table " + name + " of rank " + rank);
            }
            for (SqlSchema.Column c : t.columns()) {
                if (t == SqlSchema.EVENTS && c.name().equals("kind")) {
                    info.addResultColumn("kind_code", DuckDBColumnType.INTEGER); // named by scan()
                } else {
                    info.addResultColumn(c.name(), type(c.type()));
                }
            }
            if (t == SqlSchema.EVENTS) {
                if (t.columns().size() != EventVectors.count()) {
                    throw new IllegalStateException("the events table has " + t.columns().size() + " columns, its scan writes "
                            + EventVectors.count());
                }
                info.setCardinality(ranks.get(rank).view().eventCount(), true);
            }
            return new Target(t, rank, t == SqlSchema.EVENTS ? Math.max(1, threads) : 1);
        }

        @Override
        public Claims init(DuckDBTableFunctionInitInfo info) {
            Target target = info.getBindData();
            info.setMaxThreads(target.threads());
            if (target.table() == SqlSchema.EVENTS) {
                return new Claims(null);
            }
            TableSource source = sources.get(key(target.table(), target.rank()));
            if (source == null) {
                throw new IllegalStateException("table " + target.table().name() + " of rank " + target.rank()
                        + " is in the engine already (query the table)");
            }
            return new Claims(source);
        }

        @Override
        public Local localInit(DuckDBTableFunctionInitInfo info) {
            return new Local();
        }

        @Override
        public long apply(DuckDBTableFunctionCallInfo call, DuckDBDataChunkWriter out) {
            Target target = call.getBindData();
            Claims claims = call.getInitData();
            int capacity = (int) out.capacity();
            if (target.table() == SqlSchema.EVENTS) {
                return events(ranks.get(target.rank()).view(), target.rank(), claims, call.getLocalInitData(), out, capacity);
            }
            // one thread: the claim is the chunk
            long from = claims.next.get();
            int rows = claims.source.write(from, capacity, out);
            claims.next.addAndGet(rows);
            return rows;
        }

        private long events(TraceView view, int rank, Claims claims, Local l, DuckDBDataChunkWriter out, int capacity) {
            if (l.at >= l.end) {
                long n = view.eventCount();
                long from = claims.next.getAndAdd(EVENT_CLAIM);
                if (from >= n) {
                    return 0;
                }
                long to = Math.min(n, from + EVENT_CLAIM);
                if (l.batch == null) {
                    l.batch = new EventBatch(EVENT_CLAIM);
                }
                l.batch.clear();
                TraceStore.copy(view, from, to, l.batch);
                l.at = from;
                l.base = from;
                l.end = from + l.batch.size();
                if (l.at >= l.end) {
                    return 0;
                }
            }
            int rows = (int) Math.min(capacity, l.end - l.at);
            if (l.run == null || l.run.ints.length < rows) {
                l.run = new EventVectors.Run(Math.max(rows, capacity));
            }
            EventVectors.write(l.batch, (int) (l.at - l.base), rows, l.at, rank, out, l.run);
            l.at += rows;
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
