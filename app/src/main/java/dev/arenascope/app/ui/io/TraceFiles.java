package dev.arenascope.app.ui.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;

import dev.arenascope.app.ui.events.EventRow;
import dev.arenascope.app.ui.task.BackgroundTask;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.perfetto.TraceViewToPerfetto;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.trace.torch.TorchSnapshotToTrace;

/**
 * The window's file operations, all run on worker threads: open a trace by its extension into an
 * {@link EventStore}, save, and export. Errors carry one line naming the file and what was wrong.
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
     * Reads {@code file} (.astrace, .jsonl or a PyTorch .pickle) into a new store.
     *
     * @throws IOException naming the file on unreadable or malformed input
     * @throws java.util.concurrent.CancellationException when cancelled through {@code progress}
     */
    public static TraceView open(Path file, BackgroundTask.Progress progress) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new NoSuchFileException(file.toString(), null, "no such file");
        }
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        long size = Files.size(file);
        EventStore store = new EventStore(file.getFileName().toString());
        EventSink sink = new CancellableSink(store, progress, size);
        progress.update(0, size, "reading");
        if (name.endsWith(".pickle") || name.endsWith(".pkl")) {
            TorchSnapshotToTrace.convert(file, sink);
        } else if (name.endsWith(".astrace")) {
            readAstrace(file, sink);
        } else if (name.endsWith(".jsonl")) {
            readJsonl(file, sink);
        } else {
            throw new IOException(file + ": unknown trace type (expected .astrace, .jsonl or .pickle)");
        }
        progress.checkCancelled();
        return store;
    }

    private static void readAstrace(Path file, EventSink sink) throws IOException {
        throw new IOException(file + ": reading .astrace files arrives with the trace store");
    }

    private static void readJsonl(Path file, EventSink sink) throws IOException {
        throw new IOException(file + ": reading .jsonl files arrives with the trace store");
    }

    /** Writes {@code trace} as .astrace or .jsonl (by the file's extension). */
    public static void save(TraceView trace, Path file, BackgroundTask.Progress progress) throws IOException {
        throw new IOException(file + ": saving arrives with the trace store");
    }

    /** Exports {@code trace} (with {@code baseline} for reports, may be null). */
    public static void export(TraceView trace, TraceView baseline, ExportFormat format, Path file, BackgroundTask.Progress progress)
            throws IOException {
        switch (format) {
            case PERFETTO -> TraceViewToPerfetto.convert(trace, file);
            case CSV -> writeCsv(trace, file, progress);
            case REPORT_HTML -> throw new IOException(file + ": HTML reports are not in this build yet");
        }
    }

    /**
     * Writes one line per event: time, kind, memory, thread, the raw fields and the detail in words.
     * Text fields are quoted when they hold a comma, quote or line break.
     */
    public static void writeCsv(TraceView t, Path file, BackgroundTask.Progress progress) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (var w = Files.newBufferedWriter(tmp)) {
            w.write("index,time_ns,kind,memory,thread,flags,a,b,c,used,aux,ref,ref2,detail\n");
            long n = t.eventCount();
            StringBuilder sb = new StringBuilder(256);
            for (long i = 0; i < n; i++) {
                if ((i & 0xffff) == 0) {
                    progress.checkCancelled();
                    progress.update(i, n, "events");
                }
                Event e = t.event(i);
                sb.setLength(0);
                sb.append(i).append(',').append(e.timeNs()).append(',').append(e.kind().name().toLowerCase(Locale.ROOT)).append(',')
                        .append(csv(EventRow.memoryName(t, e.memory()))).append(',').append(e.thread()).append(',')
                        .append(e.flags()).append(',').append(e.a()).append(',').append(e.b()).append(',').append(e.c()).append(',')
                        .append(e.used()).append(',').append(e.aux()).append(',').append(e.ref()).append(',').append(e.ref2()).append(',')
                        .append(csv(EventRow.detail(t, e))).append('\n');
                w.write(sb.toString());
            }
        }
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    private static String csv(String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
            return s;
        }
        return '"' + s.replace("\"", "\"\"") + '"';
    }

    /** The device a trace was recorded on, for the status bar. */
    public static String deviceOf(TraceView t) {
        SessionInfo s = t.session();
        if (s != null && !s.devices().isEmpty()) {
            var d = s.devices().get(0);
            return d.id() + " — " + d.name();
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
            return n.getFile() + ": no such file";
        }
        if (c instanceof OutOfMemoryError) {
            return "not enough memory to load this trace (raise -Xmx through ARENASCOPE_JVM_OPTS)";
        }
        return c.getMessage() == null ? c.toString() : c.getMessage();
    }

    /** Passes events on, reporting progress and stopping when cancelled. */
    private static final class CancellableSink implements EventSink {
        private final EventSink to;
        private final BackgroundTask.Progress progress;
        private final long size;
        private long events;

        CancellableSink(EventSink to, BackgroundTask.Progress progress, long size) {
            this.to = to;
            this.progress = progress;
            this.size = size;
        }

        @Override
        public void onSession(SessionInfo info) {
            to.onSession(info);
        }

        @Override
        public void onMemory(MemoryInfo memory) {
            to.onMemory(memory);
        }

        @Override
        public void onString(int id, String value) {
            to.onString(id, value);
        }

        @Override
        public void onThread(int id, String name) {
            to.onThread(id, name);
        }

        @Override
        public void onEvents(EventBatch batch) {
            progress.checkCancelled();
            to.onEvents(batch);
            events += batch.size();
            progress.update(-1, -1, String.format(Locale.ROOT, "%,d events", events));
        }

        @Override
        public void onLoss(long count) {
            to.onLoss(count);
        }

        @Override
        public void onClose() {
            to.onClose();
        }
    }
}
