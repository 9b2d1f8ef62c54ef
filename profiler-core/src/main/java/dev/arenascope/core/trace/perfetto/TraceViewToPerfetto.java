package dev.arenascope.core.trace.perfetto;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.store.TraceStore;

/**
 * Exports a loaded trace (a {@link TraceView}, e.g. the store) as Perfetto / Chrome trace JSON; see
 * {@link PerfettoJsonWriter} for the layout. A store is replayed block by block; any other view is
 * read event by event in index order, its strings and thread names looked up as events first use them.
 */
public final class TraceViewToPerfetto {
    private TraceViewToPerfetto() {}

    /** Writes {@code view} to {@code out} (created or replaced). */
    public static void convert(TraceView view, Path out) throws IOException {
        try (OutputStream os = new BufferedOutputStream(Files.newOutputStream(out), 1 << 16)) {
            convert(view, os);
        }
    }

    /** Writes {@code view} to {@code out} and closes it. */
    public static void convert(TraceView view, OutputStream out) throws IOException {
        PerfettoJsonWriter w = new PerfettoJsonWriter(out);
        try {
            if (view instanceof TraceStore store) {
                store.replayTo(w); // block by block, with every string and thread; closes the writer
                return;
            }
            w.onSession(view.session());
            for (MemoryInfo m : view.memories()) {
                w.onMemory(m);
            }
            for (int f = 0; f < view.frameCount(); f++) {
                w.onFrame(view.frame(f));
            }
            for (int s = 0; s < view.stackNodeCount(); s++) {
                w.onStack(view.stackNode(s));
            }
            Set<Integer> strings = new HashSet<>();
            Set<Integer> threads = new HashSet<>();
            EventBatch batch = new EventBatch(4096);
            long n = view.eventCount();
            for (long i = 0; i < n; i++) {
                Event e = view.event(i);
                if (threads.add(e.thread())) {
                    String name = view.threadName(e.thread());
                    w.onThread(e.thread(), name == null ? "thread " + e.thread() : name);
                }
                if (e.ref() >= 0 && usesString(e.kind()) && strings.add(e.ref())) {
                    String s = view.string(e.ref());
                    if (s != null) {
                        w.onString(e.ref(), s);
                    }
                }
                if (e.category() >= 0 && strings.add(e.category())) {
                    String s = view.string(e.category());
                    if (s != null) {
                        w.onString(e.category(), s);
                    }
                }
                batch.add(e);
                if (batch.size() == 4096) {
                    w.onEvents(batch);
                    batch.clear();
                }
            }
            if (!batch.isEmpty()) {
                w.onEvents(batch);
            }
            w.countLost(view.lostEvents()); // drawn where the view holds LOSS events
            w.onClose();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    private static boolean usesString(EventKind k) {
        return switch (k) {
            case SCOPE_ENTER, SCOPE_EXIT, SCOPE_PARAM, OUT_OF_MEMORY, MARKER -> true;
            default -> false;
        };
    }
}
