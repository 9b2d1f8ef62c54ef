package dev.arenascope.app.commands.query;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import dev.arenascope.app.cli.Args;
import dev.arenascope.app.cli.Command;
import dev.arenascope.app.cli.FileArgs;
import dev.arenascope.app.cli.TraceLoader;
import dev.arenascope.app.cli.UsageException;
import dev.arenascope.core.format.Durations;
import dev.arenascope.core.sql.QueryException;
import dev.arenascope.core.sql.TraceInput;
import dev.arenascope.core.sql.TraceQuery;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.file.OutputFiles;
import dev.arenascope.core.trace.file.TraceFormats;

/**
 * {@code arenascope query FILE… --sql "…"}: SQL over traces. Each file is a rank (its position on the
 * command line); the tables are those of {@code docs/guide/sql.md}, loaded through
 * {@link TraceQuery}. Prints the answer as a table, CSV or JSON ({@link ResultWriters}).
 */
public final class QueryCommand implements Command {

    @Override
    public String name() {
        return "query";
    }

    @Override
    public String summary() {
        return "SQL over traces: allocations, sites, scopes, pool requests, events of one trace or many ranks";
    }

    @Override
    public String usage() {
        return """
                Usage: arenascope query FILE... [--sql "SELECT ..." | --file QUERY.sql] [--format table|csv|json]
                                        [--save DB] [--timeout DURATION] [--allow-dir DIR] [--max-rows N]
                                        [--memory-limit SIZE] [--force]

                Loads each FILE (%s) as one rank (0, 1, ... in the order given) into an embedded
                DuckDB and runs the query over its tables: ranks, memories, events, allocations, sites,
                frames, stacks, scopes, scope_params, markers, pool_requests, plan_tensors, threads,
                strings; table macros live_at(t) and peak_of('memory'). Schema and worked questions:
                docs/guide/sql.md. Times are ns since the session start, sizes bytes.

                  --sql TEXT           the query (several statements separated by ';': the last one answers)
                  --file QUERY.sql     the query, from a file
                  --format F           table (default), csv or json (an array of objects)
                  --save DB            also write the tables to a DuckDB database file DB (new), for the
                                       duckdb CLI or a later ATTACH; without a query, only that
                  --force              replace --save DB when it exists (refused otherwise)
                  --timeout D          cancel the query after D (e.g. 30s, 500ms); default none
                  --allow-dir DIR      let the query read and write files under DIR (COPY ... TO,
                                       read_parquet of a folder); otherwise it reads and writes no file
                  --max-rows N         print at most N rows (default 10000 as a table, all as csv or json)
                  --memory-limit SIZE  the engine's memory (native, outside the Java heap; default 2GB)

                Exit codes: 0 answered, 2 bad usage, an unreadable or damaged FILE, a query the engine
                refuses (its message on one line) or one cancelled at --timeout, 1 an I/O error.
                """.formatted(TraceFormats.inputExtensions());
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        Args a = new Args(name(), args, Set.of("force"));
        String sql = a.string("sql", null);
        String file = a.string("file", null);
        String format = a.string("format", "table");
        String save = a.string("save", null);
        String timeout = a.string("timeout", null);
        String allow = a.string("allow-dir", null);
        int maxRows = a.intValue("max-rows", -1);
        String memory = a.string("memory-limit", "2GB");
        boolean force = a.flag("force");
        a.finish();
        if (a.positionals().isEmpty()) {
            throw new UsageException(name() + ": expects one or more trace FILEs (see arenascope query --help)");
        }
        if (sql != null && file != null) {
            throw new UsageException(name() + ": give --sql or --file, not both");
        }
        if (sql == null && file == null && save == null) {
            throw new UsageException(name() + ": nothing to do: give --sql, --file or --save");
        }
        if (!List.of("table", "csv", "json").contains(format)) {
            throw new UsageException(name() + ": --format must be table, csv or json, got '" + format + "'");
        }
        if (maxRows == 0 || maxRows < -1) {
            throw new UsageException(name() + ": --max-rows must be a positive number, got " + maxRows);
        }
        if (file != null) {
            Path q = FileArgs.readable(name(), file);
            sql = Files.readString(q);
            if (sql.isBlank()) {
                throw new UsageException(name() + ": --file " + q + " is empty");
            }
        }
        Duration limit = timeout == null ? null : duration(timeout);
        Path db = null;
        if (save != null) {
            for (String f : a.positionals()) {
                if (OutputFiles.sameFile(Path.of(save), Path.of(f))) {
                    throw new UsageException(name() + ": --save " + save + " is a trace being loaded; name another file");
                }
            }
            db = FileArgs.output(name(), "--save", save, force);
        }
        List<Path> writable = new ArrayList<>();
        if (allow != null) {
            Path dir = Path.of(allow);
            if (!Files.isDirectory(dir)) {
                throw new UsageException(name() + ": --allow-dir " + dir + ": no such directory");
            }
            writable.add(dir);
        }
        TraceQuery.Options options;
        try {
            options = TraceQuery.Options.defaults().withMemoryLimit(memory).withAllowedDirectories(writable);
        } catch (IllegalArgumentException e) {
            throw new UsageException(name() + ": --memory-limit: " + e.getMessage());
        }
        List<TraceInput> ranks = new ArrayList<>();
        List<String> damage = new ArrayList<>();
        for (String f : a.positionals()) {
            Path p = Path.of(f);
            LoadedTrace t = TraceLoader.load(name(), p);
            if (t.report().damaged()) {
                damage.add(t.report().summary());
            }
            ranks.add(new TraceInput(p.getFileName().toString(), p.toString(), t.store()));
        }
        int rowsShown = maxRows > 0 ? maxRows : format.equals("table") ? 10_000 : Integer.MAX_VALUE;
        try (TraceQuery q = TraceQuery.open(ranks, options)) {
            if (db != null) {
                // saved under a fresh hidden name beside DB and moved there once whole (over DB with --force)
                OutputFiles.write(db, force, tmp -> {
                    Files.delete(tmp); // the engine makes the database file itself
                    q.save(tmp);
                    Files.deleteIfExists(tmp.resolveSibling(tmp.getFileName() + ".wal"));
                });
                if (sql == null) {
                    out.println("saved " + db + ": " + q.rowCount("events") + " events, " + q.rowCount("allocations") + " allocations");
                }
            }
            if (sql != null) {
                ResultWriters.Writer w = ResultWriters.of(format, out, rowsShown);
                q.query(sql, limit, w);
                w.finish();
            }
        } catch (QueryException e) {
            throw new UsageException(name() + ": " + e.getMessage(), e);
        }
        out.flush();
        for (String d : damage) {
            err.println("arenascope query: " + d);
        }
        return damage.isEmpty() ? 0 : 2;
    }

    private Duration duration(String text) {
        double ns;
        try {
            ns = Durations.parse(text, 1e9);
        } catch (NumberFormatException e) {
            throw new UsageException(name() + ": --timeout must be a time like 30s or 500ms, got '" + text + "'");
        }
        if (!(ns > 0) || ns > Long.MAX_VALUE / 2.0) {
            throw new UsageException(name() + ": --timeout must be a positive time, got '" + text + "'");
        }
        return Duration.ofNanos(Math.round(ns));
    }
}
