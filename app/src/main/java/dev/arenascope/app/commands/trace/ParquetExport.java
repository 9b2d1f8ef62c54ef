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
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.file.OutputFiles;

/**
 * {@code convert FILE... --to parquet DIR}: the SQL tables of the traces as Parquet, one hive partition
 * per rank. Nothing is loaded into an engine: each rank's tables are built and written straight to
 * their files, the events streamed from the store ({@link TraceQuery#exportParquet(List, TraceQuery.Options, Path)}).
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
        List<TraceInput> ranks = new ArrayList<>();
        List<String> damage = new ArrayList<>();
        long events = 0;
        for (String f : files.subList(0, files.size() - 1)) {
            Path p = Path.of(f);
            LoadedTrace t = TraceLoader.load(command, p);
            if (t.report().damaged()) {
                damage.add(t.report().summary());
            }
            events += t.store().eventCount();
            ranks.add(new TraceInput(p.getFileName().toString(), p.toString(), t.store()));
        }
        // the tables are written in a hidden folder beside DIR and moved in, each replacing its old folder
        // (with --force) only once all are complete: a run stopped half-way leaves DIR as it was
        Files.createDirectories(dir);
        Path staging = Files.createTempDirectory(dir.toAbsolutePath(), ".parquet-");
        try {
            try {
                TraceQuery.exportParquet(ranks, TraceQuery.Options.defaults(), staging);
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
        } finally {
            deleteTree(staging);
        }
        for (String d : damage) {
            err.println("arenascope convert: " + d + "; wrote what was sound to " + dir);
        }
        if (!damage.isEmpty()) {
            return 2;
        }
        out.println("wrote " + dir + ": " + SqlSchema.TABLES.size() + " tables of " + ranks.size()
                + (ranks.size() == 1 ? " rank, " : " ranks, ") + events + " events (schema version " + SqlSchema.VERSION + ")");
        return 0;
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
