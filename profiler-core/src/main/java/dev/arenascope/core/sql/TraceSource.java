package dev.arenascope.core.sql;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.file.AstraceReader;
import dev.arenascope.core.trace.file.ReadReport;
import dev.arenascope.core.trace.store.TraceStore;

/**
 * One rank for {@link TraceQuery#exportParquet(List, Path)}: its name ({@code ranks.name}), where it came
 * from ({@code ranks.path}), and how its session, metadata and events reach a sink, read once, in order.
 * An {@code .astrace} file is decoded straight into the sink ({@link #astrace}): no store is built.
 */
public record TraceSource(String name, String path, Feed feed) {

    /** Delivers one trace to {@code sink} as {@link EventSink} orders it; what the read recovered, or null for a sound one. */
    @FunctionalInterface
    public interface Feed {
        ReadReport into(EventSink sink) throws IOException;
    }

    public TraceSource {
        if (name == null || feed == null) {
            throw new IllegalArgumentException("a trace source needs a name and a feed");
        }
        path = path == null ? "" : path;
    }

    /** {@code file} ({@code .astrace}) read as it is written out: decoded on the reader's threads, never held. */
    public static TraceSource astrace(String name, Path file) {
        return new TraceSource(name, file.toString(), sink -> AstraceReader.read(file, sink));
    }

    /** A trace already in a store, replayed from it. */
    public static TraceSource of(TraceInput in) {
        if (!(in.view() instanceof TraceStore store)) {
            throw new IllegalArgumentException(in.name() + ": only a store's trace can be replayed into Parquet");
        }
        return new TraceSource(in.name(), in.path(), sink -> {
            store.replayTo(sink);
            return null;
        });
    }
}
