package dev.arenascope.app.commands.record;

import java.io.IOException;
import java.nio.file.Path;

import dev.arenascope.app.cli.UsageException;
import dev.arenascope.core.live.LiveSender;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.codec.ChunkCodec;
import dev.arenascope.core.trace.file.AstraceWriter;
import dev.arenascope.core.trace.file.RingCap;
import dev.arenascope.core.trace.file.TraceFormats;

/** Where {@code record} sends a session. */
final class TraceOutputs {
    private TraceOutputs() {}

    /**
     * A trace file writer into {@code writing}, in the format of {@code file}'s extension (.astrace, .jsonl,
     * ...); an .astrace one kept within {@code cap} when not null.
     */
    static EventSink fileSink(Path writing, Path file, RingCap cap) throws IOException {
        if (cap != null) {
            return new AstraceWriter(writing, ChunkCodec.DEFAULT_LEVEL, cap);
        }
        TraceFormats.Output output = TraceFormats.output(file);
        if (output == null) {
            throw new UsageException("record: --out " + file + ": unknown trace format (writable: " + TraceFormats.outputExtensions() + ")");
        }
        return output.open(writing);
    }

    /** A live sender to a running ArenaScope; it connects (and reconnects) in the background. */
    static EventSink liveSink(RecordCommand.LiveTarget target, String workload) {
        return new LiveSender(LiveSender.Options.of(target.host(), target.port(), System.getenv("ARENASCOPE_TOKEN")));
    }
}
