package dev.arenascope.app.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import dev.arenascope.app.cli.UsageException;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.trace.torch.TorchSnapshotToTrace;

/**
 * Reads a trace file of any supported format into an {@link EventStore}, chosen by extension:
 * {@code .pickle} (a PyTorch CUDA memory snapshot). Unreadable or malformed input becomes a
 * one-line {@link UsageException} naming the file and, where the reader knows it, the byte offset.
 */
final class TraceLoader {
    private TraceLoader() {}

    /** The formats {@link #load} reads, for messages. */
    static final String FORMATS = ".pickle (PyTorch memory snapshot)";

    static TraceView load(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new UsageException("report: cannot read " + file + ": " + (Files.exists(file) ? "not a regular file" : "no such file"));
        }
        if (!Files.isReadable(file)) {
            throw new UsageException("report: cannot read " + file + ": permission denied");
        }
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        EventStore store = new EventStore(file.getFileName().toString());
        try {
            if (name.endsWith(".pickle") || name.endsWith(".pkl")) {
                TorchSnapshotToTrace.convert(file, store);
            } else {
                throw new UsageException("report: " + file + ": unknown trace format (reads " + FORMATS + ")");
            }
        } catch (IOException e) {
            throw new UsageException("report: " + (e.getMessage() == null ? file + ": " + e : e.getMessage()));
        }
        return store;
    }
}
