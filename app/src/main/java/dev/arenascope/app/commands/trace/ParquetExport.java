package dev.arenascope.app.commands.trace;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import dev.arenascope.app.cli.FileArgs;
import dev.arenascope.app.cli.TraceLoader;
import dev.arenascope.app.cli.UsageException;
import dev.arenascope.core.sql.QueryException;
import dev.arenascope.core.sql.SqlSchema;
import dev.arenascope.core.sql.TraceInput;
import dev.arenascope.core.sql.TraceQuery;
import dev.arenascope.core.sql.TraceSource;
import dev.arenascope.core.trace.TraceFormatException;
import dev.arenascope.core.trace.file.AstraceReader;
import dev.arenascope.core.trace.file.FileKind;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.file.OutputFiles;
import dev.arenascope.core.trace.file.ReadReport;

/**
 * {@code convert FILE... --to parquet DIR}: the SQL tables of the traces as Parquet, one hive partition
 * per rank. Nothing is loaded into an engine, and an {@code .astrace} is not loaded at all: its chunks
 * are decoded straight into the table writers ({@link TraceSource#astrace}); a trace of another format
 * is read into a store when its rank's turn comes, then replayed ({@link TraceQuery#exportParquet(List, Path)}).
 * Every file is checked (readable, a known format, an {@code .astrace}'s header) before anything is
 * written; a run that fails leaves DIR as it was (not even created).
 */
final class ParquetExport {
    private ParquetExport() {}

    static int run(String command, String to, List<String> files, boolean force, PrintStream out, PrintStream err) throws Exception {
        if (!to.equals("parquet")) {
            throw new UsageException(command + ": --to must be parquet, got '" + to + "'");
        }
        if (files.size() < 2) {
            throw new UsageException(command + ": --to parquet expects FILE... and the directory DIR last");
        }
        Path dir = Path.of(files.getLast());
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new UsageException(command + ": " + dir + " is a file; name a directory to write the tables in");
        }
        for (SqlSchema.Table t : SqlSchema.TABLES) {
            if (!force && OutputFiles.taken(dir.resolve(t.name()))) {
                throw FileArgs.exists(command, "", dir.resolve(t.name()));
            }
        }
        List<TraceSource> ranks = new ArrayList<>();
        List<String> damage = new ArrayList<>();
        long[] events = {0};
        for (String f : files.subList(0, files.size() - 1)) {
            Path p = FileArgs.trace(command, f);
            ranks.add(source(command, p, damage, events));
        }
        // the tables are written in a hidden folder beside DIR and moved in, each replacing its old folder
        // (with --force) only once all are complete: a run stopped half-way leaves DIR as it was
        boolean made = !Files.exists(dir);
        Files.createDirectories(dir);
        Path staging = Files.createTempDirectory(dir.toAbsolutePath(), ".parquet-");
        boolean done = false;
        try {
            try {
                TraceQuery.exportParquet(ranks, staging);
            } catch (QueryException e) {
                throw new UsageException(command + ": " + e.getMessage(), e);
            }
            for (SqlSchema.Table t : SqlSchema.TABLES) {
                Path target = dir.resolve(t.name());
                if (force && OutputFiles.taken(target)) {
                    Path old = staging.resolve(".old-" + t.name());
                    Files.move(target, old, StandardCopyOption.ATOMIC_MOVE);
                }
                Files.move(staging.resolve(t.name()), target, StandardCopyOption.ATOMIC_MOVE);
            }
            done = true;
        } finally {
            deleteTree(staging);
            if (!done && made) {
                deleteTree(dir);
            }
        }
        for (String d : damage) {
            err.println("arenascope convert: " + d + "; wrote what was sound to " + dir);
        }
        if (!damage.isEmpty()) {
            return 2;
        }
        out.println("wrote " + dir + ": " + SqlSchema.TABLES.size() + " tables of " + ranks.size()
                + (ranks.size() == 1 ? " rank, " : " ranks, ") + events[0] + " events (schema version " + SqlSchema.VERSION + ")");
        return 0;
    }

    /**
     * Rank {@code p}: an {@code .astrace} streamed (its header read now, so a file that is no trace is refused
     * before anything is written), any other format read when its turn comes. The read's damage goes to
     * {@code damage}, its events are added to {@code events[0]}.
     */
    private static TraceSource source(String command, Path p, List<String> damage, long[] events) throws IOException {
        String name = p.getFileName().toString();
        if (FileKind.of(p) == FileKind.ASTRACE || name.endsWith(FileKind.ASTRACE.extension())) {
            try (AstraceReader r = AstraceReader.open(p)) {
                // the header is sound; the chunks are read during the export
            } catch (TraceFormatException | IllegalArgumentException e) {
                throw TraceLoader.unreadable(command, p, e);
            }
            TraceSource streamed = TraceSource.astrace(name, p);
            return new TraceSource(name, p.toString(), sink -> {
                ReadReport report = streamed.feed().into(sink);
                TraceLoader.check(command, p, report);
                note(report, report.events(), damage, events);
                return report;
            });
        }
        return new TraceSource(name, p.toString(), sink -> {
            LoadedTrace t = TraceLoader.load(command, p);
            note(t.report(), t.store().eventCount(), damage, events);
            TraceSource.of(new TraceInput(name, p.toString(), t.store())).feed().into(sink);
            return t.report();
        });
    }

    private static void note(ReadReport report, long read, List<String> damage, long[] events) {
        if (report.damaged()) {
            damage.add(report.summary());
        }
        events[0] += read;
    }
    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
