package dev.arenascope.app.ui.io;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

import dev.arenascope.app.info.AppInfo;
import dev.arenascope.app.ui.task.BackgroundTask;
import dev.arenascope.core.analysis.TraceAnalysis;
import dev.arenascope.core.format.Counts;
import dev.arenascope.core.report.HtmlReportWriter;
import dev.arenascope.core.report.Report;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.ForwardingSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.file.FileKind;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.file.TraceFormats;
import dev.arenascope.core.trace.perfetto.TraceViewToPerfetto;
import dev.arenascope.core.trace.store.TraceStore;
import dev.arenascope.core.util.Progress;

/**
 * The window's file operations, all run on worker threads: open a trace through core's load path
 * into a {@link TraceStore} (with the reader's report), save, and export. Errors carry one line naming the file and what was wrong.
 */
public final class TraceFiles {
    private TraceFiles() {}

    /** What Export writes. */
    public enum ExportFormat {
        PERFETTO("Perfetto / Chrome trace JSON", ".json"),
        CSV("CSV", ".csv"),
        REPORT_HTML("HTML report", ".html");

        private final String label;
        private final String extension;

        ExportFormat(String label, String extension) {
            this.label = label;
            this.extension = extension;
        }

        public String label() {
            return label;
        }

        public String extension() {
            return extension;
        }
    }

    /**
     * Reads {@code file} (.astrace, .jsonl or a PyTorch .pickle) into a new store through core's one
     * load path ({@link TraceFormats#load(Path, String, Progress)}), with the reader's
     * report of what it recovered and what was damaged.
     *
     * @throws IOException naming the file on unreadable or malformed input
     * @throws java.util.concurrent.CancellationException when cancelled through {@code progress}
     */
    public static LoadedTrace open(Path file, Progress progress) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new NoSuchFileException(file.toString(), null, Files.isDirectory(file) ? "a directory, not a trace file" : "no such file");
        }
        FileKind kind = FileKind.of(file);
        if (kind != FileKind.ASTRACE && kind != FileKind.JSONL && kind != FileKind.PICKLE) {
            throw new IOException(FileKind.refusal(file, kind));
        }
        progress.update(-1, -1, "reading");
        long size = Files.size(file);
        LoadForecast forecast = LoadForecast.start(size);
        String name = String.valueOf(file.getFileName());
        // a snapshot's two phases on one bar: the read fills its first part, making events the rest
        LoadForecast.TimeLeft left = new LoadForecast.TimeLeft();
        LoadedTrace loaded = TraceFormats.load(file, kind.extension(), (done, total, stage) -> {
            progress.checkCancelled();
            if (Progress.ENTRIES_EMITTED.equals(stage)) {
                // a snapshot's second phase, on the reading thread: its entries made into events, of all of them
                long parts = LoadForecast.parts(true, done, total);
                left.note(parts, System.nanoTime());
                progress.update(parts, LoadForecast.PARTS, LoadForecast.emittingText(done, total, left.seconds()));
                return;
            }
            if (!Progress.BYTES_READ.equals(stage)) { // the events stored so far
                if (kind != FileKind.PICKLE) { // a snapshot's import says more through its entries, on the other thread
                    progress.update(-1, -1, Counts.of(done, "event"));
                }
                return;
            }
            // the slow part of a snapshot's import: its size read so far, the time left, and a load that
            // will not fit refused now rather than after minutes of full collections
            String refusal = forecast.refusal(name, done, LoadForecast.heapAfterCollection());
            if (refusal != null) {
                throw new NotEnoughMemory(refusal);
            }
            long parts = LoadForecast.parts(false, done, size);
            left.note(parts, System.nanoTime());
            progress.update(parts, LoadForecast.PARTS, forecast.progressText(done, left.seconds()));
        });
        progress.checkCancelled();
        return loaded;
    }

    /**
     * Writes {@code trace} in the format its extension names (.astrace, .jsonl; also .csv and Perfetto
     * .json). Written to a temporary file first and moved into place, so a failed or cancelled save
     * leaves any earlier file as it was.
     */
    public static void save(TraceView trace, Path file, Progress progress) throws IOException {
        TraceFormats.Output out = TraceFormats.output(file);
        if (out == null) {
            throw new IOException(file + ": cannot write '" + TraceFormats.extension(file) + "' (writes " + TraceFormats.outputExtensions() + ")");
        }
        if (!(trace instanceof TraceStore store)) {
            throw new IOException(file + ": only recorded or loaded sessions can be saved");
        }
        String name = file.getFileName().toString();
        int dot = name.lastIndexOf('.');
        Path tmp = file.resolveSibling(name.substring(0, dot) + ".saving" + name.substring(dot));
        EventSink sink = out.open(tmp);
        boolean ok = false;
        try {
            store.replayTo(new CancellableSink(sink, progress, store.eventCount()));
            ok = true;
        } finally {
            if (!ok) {
                try {
                    sink.onClose();
                } catch (RuntimeException ignored) {
                    // the partial file is deleted below
                }
                Files.deleteIfExists(tmp);
            }
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
    }

    /** Exports {@code trace} (with {@code baseline} for reports, may be null). */
    public static void export(TraceView trace, TraceView baseline, ExportFormat format, Path file, Progress progress)
            throws IOException {
        switch (format) {
            case PERFETTO -> {
                progress.update(-1, -1, "Perfetto JSON");
                TraceViewToPerfetto.convert(trace, file);
            }
            case CSV -> save(trace, file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".csv") ? file
                    : file.resolveSibling(file.getFileName() + ".csv"), progress);
            case REPORT_HTML -> {
                progress.update(-1, -1, "analysing");
                TraceAnalysis a = TraceAnalysis.of(trace);
                String source = trace.session() == null ? "" : trace.session().name();
                Report r = baseline == null ? Report.of(a, AppInfo.tool(), source)
                        : Report.compare(a, TraceAnalysis.of(baseline), null, AppInfo.tool(), source,
                        baseline.session() == null ? "baseline" : baseline.session().name());
                Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
                try (Writer w = Files.newBufferedWriter(tmp)) {
                    HtmlReportWriter.write(r, w);
                }
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    /** The device a trace was recorded on, for the status bar. */
    public static String deviceOf(TraceView t) {
        SessionInfo s = t.session();
        if (s != null && !s.devices().isEmpty()) {
            return s.devices().get(0).label();
        }
        for (MemoryInfo m : t.memories()) {
            if (m.device() != null && !m.device().isEmpty()) {
                return m.device();
            }
        }
        return "";
    }

    /** One line for an error dialog. */
    public static String describe(Throwable e) {
        Throwable c = e;
        while (c.getCause() != null && c.getMessage() == null) {
            c = c.getCause();
        }
        if (c instanceof NoSuchFileException n) {
            return n.getFile() + ": " + (n.getReason() == null ? "no such file" : n.getReason());
        }
        if (c instanceof OutOfMemoryError) {
            return "not enough memory to load this trace (raise -Xmx through ARENASCOPE_JVM_OPTS)";
        }
        return c.getMessage() == null ? c.toString() : c.getMessage();
    }

    /** A load refused because the file will not fit in the heap; its message says by how much and what to do. */
    public static final class NotEnoughMemory extends RuntimeException {
        public NotEnoughMemory(String message) {
            super(message, null, false, false);
        }
    }

    /** Passes events on, reporting progress and stopping when cancelled. */
    private static final class CancellableSink extends ForwardingSink {
        private final Progress progress;
        private final long totalEvents;
        private long events;

        /** @param totalEvents events expected, or -1 when unknown */
        CancellableSink(EventSink to, Progress progress, long totalEvents) {
            super(to);
            this.progress = progress;
            this.totalEvents = totalEvents;
        }

        @Override
        public void onEvents(EventBatch batch) {
            progress.checkCancelled();
            to.onEvents(batch);
            events += batch.size();
            progress.update(totalEvents > 0 ? events : -1, totalEvents, Counts.of(events, "event"));
        }
    }
}
