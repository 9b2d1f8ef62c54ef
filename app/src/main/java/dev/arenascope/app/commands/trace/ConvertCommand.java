package dev.arenascope.app.commands.trace;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import dev.arenascope.app.cli.Args;
import dev.arenascope.app.cli.Command;
import dev.arenascope.app.cli.FileArgs;
import dev.arenascope.app.cli.TraceLoader;
import dev.arenascope.app.cli.UsageException;
import dev.arenascope.core.format.Counts;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.TraceFormatException;
import dev.arenascope.core.trace.file.OutputFiles;
import dev.arenascope.core.trace.file.ReadReport;
import dev.arenascope.core.trace.file.TraceFormats;

/**
 * {@code arenascope convert IN OUT}: streams a trace from one format to another, chosen by extension
 * through {@link TraceFormats} (one table of readers and one of writers). A damaged input is converted
 * as far as it is sound, and the command then exits 2 with one line saying what was wrong and what
 * was recovered.
 */
public final class ConvertCommand implements Command {

    @Override
    public String name() {
        return "convert";
    }

    @Override
    public String summary() {
        return "convert a trace between formats (.astrace, .jsonl, .csv, ...)";
    }

    @Override
    public String usage() {
        return """
                Usage: arenascope convert IN OUT [--force]
                       arenascope convert FILE... --to parquet DIR [--force]

                Converts the trace IN into OUT; each format is chosen by its file extension.
                  reads:  %s
                  writes: %s
                With --to parquet, writes the SQL tables of FILE... (each a rank, in the order given;
                docs/guide/sql.md) as Parquet under DIR: DIR/TABLE/rank=N/data_0.parquet, the schema's
                version in each file's key-value metadata, for DuckDB, Spark, Trino, pandas, polars.
                OUT (or a table's folder under DIR) that exists is refused unless --force is given; the
                output is written under a temporary name and moved into place once complete, so a run
                stopped half-way leaves what was there before.

                A damaged IN (a recording cut off mid-write, flipped bytes, bad lines) is converted as
                far as it is sound; the command then prints one line naming the file and the byte
                offset or line of the first problem and what was recovered, and exits 2.
                Exit codes: 0 converted, 2 bad usage or a damaged/unreadable input, 1 an I/O error.
                """.formatted(TraceFormats.inputExtensions(), TraceFormats.outputExtensions());
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        Args a = new Args(name(), args, Set.of("force"));
        String to = a.string("to", null);
        boolean force = a.flag("force");
        a.finish();
        List<String> pos = a.positionals();
        if (to != null) {
            return ParquetExport.run(name(), to, pos, force, out, err);
        }
        if (pos.size() != 2) {
            throw new UsageException(name() + ": expects IN and OUT, got " + Counts.of(pos.size(), "argument")
                    + " (see arenascope convert --help)");
        }
        Path in = FileArgs.trace(name(), pos.get(0));
        Path outFile = Path.of(pos.get(1));
        TraceFormats.Input reader = TraceFormats.input(in);
        TraceFormats.Output writer = TraceFormats.output(outFile);
        if (writer == null) {
            throw new UsageException(name() + ": " + outFile + ": cannot write '" + TraceFormats.extension(outFile) + "' files (writes "
                    + TraceFormats.outputExtensions() + ")");
        }
        if (OutputFiles.sameFile(in, outFile)) {
            throw new UsageException(name() + ": IN and OUT are the same file");
        }
        FileArgs.output(name(), "", outFile.toString(), force);
        // written under a temporary name beside OUT and moved there once complete: a run stopped half-way
        // (SIGTERM, a full disk, a refused input) leaves OUT as it was, never a cut file that looks whole
        Path tmp = OutputFiles.temporaryFor(outFile);
        ReadReport report;
        try {
            EventSink sink = writer.open(tmp);
            try {
                report = reader.read(in, sink);
            } catch (TraceFormatException e) {
                closeQuietly(sink);
                throw TraceLoader.unreadable(name(), in, e);
            }
            TraceLoader.check(name(), in, report); // damaged with no event: refused, OUT left as it was
            OutputFiles.commit(tmp, outFile, force);
        } finally {
            Files.deleteIfExists(tmp);
        }
        if (report.damaged()) {
            return TraceLoader.finish(name(), report, "wrote what was sound to " + outFile, err);
        }
        out.println("wrote " + outFile + ": " + report.events() + " events");
        return 0;
    }

    private static void closeQuietly(EventSink sink) {
        try {
            sink.onClose();
        } catch (RuntimeException ignored) {
            // the conversion already failed; that error is the one to report
        }
    }
}
