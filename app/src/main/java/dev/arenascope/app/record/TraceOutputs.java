package dev.arenascope.app.record;

import java.io.IOException;
import java.nio.file.Path;

import dev.arenascope.app.cli.UsageException;
import dev.arenascope.core.live.LiveSender;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.TraceFormatException;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.file.ReadReport;
import dev.arenascope.core.trace.file.TraceFormats;
import dev.arenascope.core.trace.store.EventStore;

/** Where {@code record} sends a session and where {@code calibrate} reads one from. */
final class TraceOutputs {
    private TraceOutputs() {}

    /** A trace file writer for {@code file}, by its extension (.astrace, .jsonl, ...). */
    static EventSink fileSink(Path file) throws IOException {
        TraceFormats.Output output = TraceFormats.output(file);
        if (output == null) {
            throw new UsageException("record: --out " + file + ": unknown trace format (writable: " + TraceFormats.outputExtensions() + ")");
        }
        return output.open(file);
    }

    /** A live sender to a running ArenaScope; it connects (and reconnects) in the background. */
    static EventSink liveSink(RecordCommand.LiveTarget target, String workload) {
        return new LiveSender(LiveSender.Options.of(target.host(), target.port(), System.getenv("ARENASCOPE_TOKEN")));
    }

    /**
     * Reads a whole trace into a store.
     *
     * @throws UsageException naming the file (and where it broke) when it cannot be read at all
     */
    static TraceView read(Path file) throws IOException {
        TraceFormats.Input input = TraceFormats.input(file);
        if (input == null) {
            throw new UsageException("calibrate: " + file + ": unknown trace format (readable: " + TraceFormats.inputExtensions() + ")");
        }
        EventStore store = new EventStore(file.getFileName().toString());
        try {
            ReadReport report = input.read(file, store);
            if (report.damaged()) {
                System.err.println("arenascope: " + report.summary());
            }
        } catch (TraceFormatException e) {
            throw new UsageException("calibrate: " + e.getMessage());
        }
        return store;
    }
}
