package dev.arenascope.core.trace.file;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongConsumer;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.ForwardingSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.perfetto.PerfettoJsonWriter;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.trace.torch.TorchSnapshotToTrace;
import dev.arenascope.core.util.Progress;

/**
 * The trace formats ArenaScope reads and writes, chosen by file extension: one table of readers and
 * one of writers, so a new format is one line in each. Used by {@code arenascope convert}, {@code stats}
 * and the window's open and save.
 */
public final class TraceFormats {
    private TraceFormats() {}

    /** Reads a whole file into a sink (ending with {@code onClose}) and reports what it recovered. */
    @FunctionalInterface
    public interface Input {
        ReadReport read(Path file, EventSink sink) throws IOException;

        /**
         * Reads as {@link #read(Path, EventSink)}, telling {@code progress} how far into the file the
         * reader got ({@link Progress#BYTES_READ}) where it can; the default tells it nothing.
         */
        default ReadReport read(Path file, EventSink sink, Progress progress) throws IOException {
            return read(file, sink);
        }
    }

    /** The PyTorch snapshot reader: it reports the bytes it has parsed, the slow part of its import. */
    private static final Input TORCH = new Input() {
        @Override
        public ReadReport read(Path file, EventSink sink) throws IOException {
            return readTorchSnapshot(file, sink, null);
        }

        @Override
        public ReadReport read(Path file, EventSink sink, Progress progress) throws IOException {
            return readTorchSnapshot(file, sink, progress);
        }
    };

    /** Opens a file for writing as a sink; the file is complete once the sink's {@code onClose} returns. */
    @FunctionalInterface
    public interface Output {
        EventSink open(Path file) throws IOException;
    }

    private static final Map<String, Input> INPUTS = new LinkedHashMap<>();
    private static final Map<String, Output> OUTPUTS = new LinkedHashMap<>();

    static {
        INPUTS.put(".astrace", AstraceReader::read);
        INPUTS.put(".jsonl", JsonlReader::read);
        OUTPUTS.put(".astrace", AstraceWriter::new);
        OUTPUTS.put(".jsonl", JsonlWriter::new);
        OUTPUTS.put(".csv", CsvWriter::new);
        INPUTS.put(".pickle", TORCH);
        OUTPUTS.put(".json", file -> new PerfettoJsonWriter(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)));
    }

    /** A PyTorch CUDA memory snapshot: parsed whole (it is refused whole when bad), then streamed. */
    private static ReadReport readTorchSnapshot(Path file, EventSink sink, Progress progress) throws IOException {
        TorchSnapshotToTrace.Result r = TorchSnapshotToTrace.convert(file, sink, progress);
        return new ReadReport(file.toString(), r.events(), r.entries(), "trace entries", Files.size(file), -1, 0, 0, List.of());
    }

    /** Registers (or replaces) a reader for an extension such as {@code .pickle}. */
    public static synchronized void registerInput(String extension, Input input) {
        INPUTS.put(extension.toLowerCase(Locale.ROOT), input);
    }

    /** Registers (or replaces) a writer for an extension such as {@code .json}. */
    public static synchronized void registerOutput(String extension, Output output) {
        OUTPUTS.put(extension.toLowerCase(Locale.ROOT), output);
    }

    /** The extension of a file name ({@code .astrace}), lower-cased; empty when it has none. */
    public static String extension(Path file) {
        String n = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        int dot = n.lastIndexOf('.');
        return dot <= 0 ? "" : n.substring(dot);
    }

    /** The reader for a file, or null when its extension is not one ArenaScope reads. */
    public static synchronized Input input(Path file) {
        return INPUTS.get(extension(file));
    }

    /** The writer for a file, or null when its extension is not one ArenaScope writes. */
    public static synchronized Output output(Path file) {
        return OUTPUTS.get(extension(file));
    }

    /**
     * Loads a file into a new store ({@code .astrace} chunks are adopted without re-encoding).
     *
     * @throws IllegalArgumentException when the extension is not readable
     */
    public static LoadedTrace load(Path file) throws IOException {
        return load(file, null);
    }

    /**
     * Loads a file into a new store as {@link #load(Path)} does, telling {@code progress} the events read
     * so far ({@link Progress#EVENTS_READ}, on one thread, in order: the calling thread, or for a PyTorch
     * snapshot the import's sink thread, see {@code TorchSnapshotToTrace}) and, for a PyTorch snapshot,
     * the bytes of the file parsed ({@link Progress#BYTES_READ}, on the calling thread). A report may throw
     * an unchecked exception (a {@code CancellationException} when the user cancels) to stop the read; it
     * propagates with the file closed and the partial store dropped.
     *
     * @param progress told how far the read got, or null
     * @throws IllegalArgumentException when the extension is not readable
     */
    public static LoadedTrace load(Path file, Progress progress) throws IOException {
        return load(file, extension(file), progress);
    }

    /**
     * Loads a file with the reader of {@code extension} whatever the file is called (a caller that
     * recognised the content, say a trace saved without its extension).
     *
     * @param extension e.g. {@code .astrace}
     * @throws IllegalArgumentException when no reader has that extension
     */
    public static LoadedTrace load(Path file, String extension, Progress progress) throws IOException {
        return load(file, extension, progress, null);
    }

    /**
     * Loads as {@link #load(Path, Progress)} does, handing {@code tap} too every memory and every batch
     * of events as they go into the store, on the thread that stores them (what a caller computes while
     * the file is parsed rather than by reading the store back). An {@code .astrace}'s chunks are adopted
     * by the store without being decoded, so {@code tap} sees none of its events: compare its count with
     * the store's.
     *
     * @param tap told the memories and events, or null
     */
    public static LoadedTrace load(Path file, EventSink tap, Progress progress) throws IOException {
        return load(file, extension(file), progress, tap);
    }

    private static LoadedTrace load(Path file, String extension, Progress progress, EventSink tap) throws IOException {
        String ext = extension.toLowerCase(Locale.ROOT);
        if (ext.equals(AstraceFormat.EXTENSION)) {
            return AstraceReader.load(file, progress);
        }
        LongConsumer eventsRead = Progress.eventsRead(progress);
        Input in;
        synchronized (TraceFormats.class) {
            in = INPUTS.get(ext);
        }
        if (in == null) {
            throw new IllegalArgumentException(file + ": unknown trace format '" + ext + "' (reads " + inputExtensions() + ")");
        }
        EventStore store = new EventStore(String.valueOf(file.getFileName()));
        EventSink sink = eventsRead == null && tap == null ? store : new ForwardingSink(store) {
            @Override
            public void onMemory(MemoryInfo memory) {
                to.onMemory(memory);
                if (tap != null) {
                    tap.onMemory(memory);
                }
            }

            @Override
            public void onEvents(EventBatch batch) {
                to.onEvents(batch);
                if (tap != null) {
                    tap.onEvents(batch);
                }
                if (eventsRead != null) {
                    eventsRead.accept(batch.size());
                }
            }
        };
        return new LoadedTrace(store, progress == null || progress == Progress.NONE ? in.read(file, sink) : in.read(file, sink, progress));
    }

    /** Extensions readable, e.g. {@code .astrace, .jsonl}. */
    public static synchronized String inputExtensions() {
        return String.join(", ", INPUTS.keySet());
    }

    /** Extensions writable. */
    public static synchronized String outputExtensions() {
        return String.join(", ", OUTPUTS.keySet());
    }
}
