package dev.arenascope.core.sql;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The tables a trace or a job is queried as: their names, columns, types and units, and the schema's
 * version (written into every Parquet file as {@value #VERSION_KEY}). {@code docs/guide/sql.md}
 * describes each column; a test keeps the two in step.
 *
 * <p>Every table has a {@code rank} column first: the trace's position in the list of files given
 * (0 for one trace), so tables of several traces stack into one and a job's ranks compose.
 * Times are nanoseconds since the trace's session start; sizes and gauges are bytes; ids that name
 * nothing ({@code -1} in the trace) are SQL {@code NULL} except in {@code events}, which keeps the
 * trace's raw fields.
 */
public final class SqlSchema {
    private SqlSchema() {}

    /** The schema's version: bumped when a table or column changes meaning, is renamed or removed. */
    public static final int VERSION = 1;
    /** The Parquet key-value metadata key holding {@link #VERSION}. */
    public static final String VERSION_KEY = "arenascope_schema_version";

    /** A column's SQL type. */
    public enum Type {
        INTEGER, BIGINT, VARCHAR, BOOLEAN;

        /** The DuckDB type name. */
        public String sql() {
            return name();
        }
    }

    /**
     * One column.
     *
     * @param unit {@code ns}, {@code B}, {@code count}, {@code id} or empty for text and flags
     */
    public record Column(String name, Type type, String unit) {}

    /** One table. */
    public record Table(String name, List<Column> columns) {
        /** The column's position, -1 when the table has none so named. */
        public int indexOf(String column) {
            for (int i = 0; i < columns.size(); i++) {
                if (columns.get(i).name().equals(column)) {
                    return i;
                }
            }
            return -1;
        }

        /** {@code CREATE TABLE name (col TYPE, ...)}. */
        public String ddl() {
            return "CREATE TABLE " + name + " (" + columns.stream().map(c -> c.name() + " " + c.type().sql())
                    .collect(Collectors.joining(", ")) + ")";
        }
    }

    private static Column i(String name, String unit) {
        return new Column(name, Type.INTEGER, unit);
    }

    private static Column l(String name, String unit) {
        return new Column(name, Type.BIGINT, unit);
    }

    private static Column s(String name) {
        return new Column(name, Type.VARCHAR, "");
    }

    private static Column b(String name) {
        return new Column(name, Type.BOOLEAN, "");
    }

    private static final Column RANK = i("rank", "id");

    public static final Table RANKS = new Table("ranks", List.of(RANK, s("name"), s("path"), s("session"), s("host"),
            l("events", "count"), l("start_ns", "ns"), l("end_ns", "ns"), l("lost_events", "count")));

    public static final Table MEMORIES = new Table("memories", List.of(RANK, i("memory", "id"), s("name"), s("kind"),
            s("device"), l("capacity", "B"), l("events", "count"), l("allocations", "count"), l("peak_bytes", "B"),
            l("peak_event", "id"), l("peak_ns", "ns"), l("peak_aux", "B")));

    public static final Table EVENTS = new Table("events", List.of(RANK, l("event", "id"), l("time_ns", "ns"), s("kind"),
            i("flags", ""), i("memory", "id"), i("thread", "id"), l("a", ""), l("b", "B"), l("c", ""), l("used", "B"),
            l("aux", "B"), i("ref", "id"), i("ref2", "id"), i("site", "id"), i("category_id", "id")));

    public static final Table ALLOCATIONS = new Table("allocations", List.of(RANK, i("memory", "id"), i("allocation", "id"),
            l("alloc_event", "id"), l("free_event", "id"), l("alloc_ns", "ns"), l("free_ns", "ns"), l("lifetime_ns", "ns"),
            l("bytes", "B"), l("requested_bytes", "B"), l("address", "B"), s("descriptor"), i("site", "id"),
            i("stack", "id"), s("category"), i("scope", "id"), b("freed")));

    public static final Table SITES = new Table("sites", List.of(RANK, i("memory", "id"), i("site", "id"), s("label"),
            s("function"), s("file"), i("line", ""), i("depth", "count"), s("stack"), s("source")));

    public static final Table FRAMES = new Table("frames", List.of(RANK, i("frame", "id"), s("function"), s("file"),
            i("line", ""), b("internal")));

    public static final Table STACKS = new Table("stacks", List.of(RANK, i("stack", "id"), i("frame", "id"),
            i("parent", "id"), i("depth", "count")));

    public static final Table SCOPES = new Table("scopes", List.of(RANK, i("memory", "id"), i("scope", "id"), s("name"),
            i("parent", "id"), i("depth", "count"), l("enter_event", "id"), l("exit_event", "id"), l("enter_ns", "ns"),
            l("exit_ns", "ns"), l("duration_ns", "ns"), s("params")));

    public static final Table SCOPE_PARAMS = new Table("scope_params", List.of(RANK, i("scope", "id"), s("name"),
            l("value", "")));

    public static final Table MARKERS = new Table("markers", List.of(RANK, l("event", "id"), l("time_ns", "ns"),
            i("thread", "id"), s("text")));

    public static final Table POOL_REQUESTS = new Table("pool_requests", List.of(RANK, i("memory", "id"), l("event", "id"),
            l("time_ns", "ns"), i("thread", "id"), l("address", "B"), l("bytes", "B"), l("requested_bytes", "B"),
            i("bin", "id"), b("hit"), l("duration_ns", "ns"), i("stack", "id")));

    public static final Table PLAN_TENSORS = new Table("plan_tensors", List.of(RANK, i("memory", "id"), s("tensor"),
            s("role"), l("address", "B"), l("bytes", "B"), l("live_step", "count"), l("dead_step", "count"),
            l("live_ns", "ns"), l("dead_ns", "ns"), l("live_event", "id"), l("dead_event", "id")));

    public static final Table THREADS = new Table("threads", List.of(RANK, i("thread", "id"), s("name")));

    public static final Table STRINGS = new Table("strings", List.of(RANK, i("id", "id"), s("value")));

    /** Every table, in the order the guide documents them. */
    public static final List<Table> TABLES = List.of(RANKS, MEMORIES, EVENTS, ALLOCATIONS, SITES, FRAMES, STACKS, SCOPES,
            SCOPE_PARAMS, MARKERS, POOL_REQUESTS, PLAN_TENSORS, THREADS, STRINGS);

    /** The table so named, or null. */
    public static Table table(String name) {
        return TABLES.stream().filter(t -> t.name().equals(name)).findFirst().orElse(null);
    }

    /**
     * The table macros defined over the tables: {@code live_at(t)} (allocations live at {@code t} ns,
     * allocated at or before it and not freed at or before it) and {@code peak_of(memory_name)} (the
     * allocations live right after the event that first reached that memory's peak, every rank's
     * memory of that name).
     */
    public static final List<String> MACROS = List.of(
            "CREATE MACRO live_at(t) AS TABLE SELECT * FROM allocations WHERE alloc_ns <= t AND (free_ns IS NULL OR free_ns > t)",
            "CREATE MACRO peak_of(memory_name) AS TABLE SELECT a.* FROM allocations a JOIN memories m"
                    + " ON a.rank = m.rank AND a.memory = m.memory WHERE m.name = memory_name"
                    + " AND a.alloc_event <= m.peak_event AND (a.free_event IS NULL OR a.free_event > m.peak_event)");
}
