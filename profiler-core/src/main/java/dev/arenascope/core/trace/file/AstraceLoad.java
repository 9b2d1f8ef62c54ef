package dev.arenascope.core.trace.file;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongConsumer;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MetaRecord;
import dev.arenascope.core.trace.codec.ChunkCodec;
import dev.arenascope.core.trace.store.EventStore;

/**
 * Whole-file reading of an {@code .astrace} file, behind {@link AstraceReader#read} and
 * {@link AstraceReader#load}: the pull reader finds and checks frames on the calling thread, up to
 * three worker threads decode them (a window of two frames a worker in flight, so file order is kept),
 * and the calling thread delivers each chunk in order, to a sink as events or to a store as an adopted
 * block. A damaged frame cancels what is in flight behind it; the reader records it and resynchronises,
 * exactly as the pull reader does. Every method runs on the calling thread but the decoding.
 */
final class AstraceLoad {
    private AstraceLoad() {}

    /**
     * Reads {@code path} into {@code sink} (session, metadata, events, losses, then {@code onClose});
     * with {@code store} (the sink itself) chunks are adopted without re-encoding.
     *
     * @param eventsRead told each chunk's event count on the calling thread, or null; may throw to stop
     */
    static ReadReport read(Path path, EventSink sink, EventStore store, LongConsumer eventsRead) throws IOException {
        return readChunks(path, sink, store == null ? null : (c, at) -> store.appendChunk(c), eventsRead);
    }

    /**
     * Where whole chunks go instead of a sink's {@code onEvents}: a store that adopts them (the
     * in-memory store keeps the payload, the out-of-core one indexes the events and remembers where the
     * frame is).
     */
    interface ChunkTarget {
        /** Chunk {@code c}, found at {@code at} in the file (its metadata already delivered). */
        void chunk(ChunkCodec.Chunk c, AstraceReader.Located at);
    }

    /**
     * As {@link #read(Path, EventSink, EventStore, LongConsumer)} with chunks going to {@code target}
     * (null: events go to the sink).
     */
    static ReadReport readChunks(Path path, EventSink sink, ChunkTarget target, LongConsumer eventsRead) throws IOException {
        try (AstraceReader r = AstraceReader.open(path)) {
            return readChunks(r, sink, target, eventsRead);
        }
    }

    /** As {@link #readChunks(Path, EventSink, ChunkTarget, LongConsumer)} on a reader just opened. */
    static ReadReport readChunks(AstraceReader r, EventSink sink, ChunkTarget target, LongConsumer eventsRead) throws IOException {
        sink.onSession(r.session());
        for (MetaRecord m : r.headerMetadata()) {
            if (r.deliverable(m)) {
                m.deliverTo(sink);
            }
        }
        int workers = decodeWorkers();
        if (workers <= 0) {
            for (AstraceReader.Located l; (l = r.locate()) != null; ) {
                AstraceReader.Decoded d = r.decodeLocated(r.codec(), l, null);
                if (d.chunk() == null) {
                    r.skipDamaged(d);
                    continue;
                }
                r.accept(d.chunk(), l.offset());
                deliver(r, d.chunk(), l, sink, target, eventsRead);
            }
        } else {
            readParallel(r, workers, sink, target, eventsRead);
        }
        ReadReport res = r.result();
        long extraLoss = r.unreportedLoss();
        if (extraLoss > 0) {
            sink.onLoss(extraLoss); // losses the footer totals but no surviving chunk carried
        }
        sink.onClose();
        return res;
    }

    /**
     * Threads that decode chunks while the calling thread delivers them: one a core up to three, the
     * caller's share of the work (indexing into a store) being smaller than a chunk's decoding; none
     * on a single core.
     */
    private static int decodeWorkers() {
        int cores = Runtime.getRuntime().availableProcessors();
        return cores < 2 ? 0 : Math.min(3, cores);
    }

    private static void deliver(AstraceReader r, ChunkCodec.Chunk c, AstraceReader.Located at, EventSink sink, ChunkTarget store,
                                LongConsumer eventsRead) {
        for (MetaRecord m : c.meta()) {
            if (r.deliverable(m)) {
                m.deliverTo(sink);
            }
        }
        EventBatch events = c.events();
        r.dropDanglingSites(events);
        int n = events.size();
        if (store != null) {
            store.chunk(c, at);
        } else if (n > 0) {
            sink.onEvents(c.events());
        }
        if (eventsRead != null) {
            eventsRead.accept(n);
        }
    }

    private static void readParallel(AstraceReader r, int workers, EventSink sink, ChunkTarget store, LongConsumer eventsRead)
            throws IOException {
        ExecutorService pool = Executors.newFixedThreadPool(workers, Thread.ofPlatform().daemon().name("astrace-decode-", 0).factory());
        int version = r.version();
        ThreadLocal<ChunkCodec> codecs = ThreadLocal.withInitial(() -> new ChunkCodec(ChunkCodec.DEFAULT_LEVEL, version));
        ArrayDeque<Future<AstraceReader.Decoded>> window = new ArrayDeque<>();
        // a sink sees a batch only during onEvents, so once delivered a chunk's batch decodes another
        ConcurrentLinkedQueue<EventBatch> spare = new ConcurrentLinkedQueue<>();
        try {
            while (true) {
                while (window.size() < workers * 2) {
                    AstraceReader.Located l = r.locate();
                    if (l == null) {
                        break;
                    }
                    window.add(pool.submit(() -> r.decodeLocated(codecs.get(), l, spare.poll())));
                }
                Future<AstraceReader.Decoded> f = window.poll();
                if (f == null) {
                    return;
                }
                AstraceReader.Decoded d = f.get();
                if (d.chunk() == null) {
                    for (Future<AstraceReader.Decoded> rest : window) {
                        rest.cancel(true);
                    }
                    window.clear();
                    r.skipDamaged(d);
                    continue;
                }
                r.accept(d.chunk(), d.at().offset());
                deliver(r, d.chunk(), d.at(), sink, store, eventsRead);
                spare.add(d.chunk().events());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading " + r.source(), e);
        } catch (ExecutionException e) {
            throw new IOException("decoding " + r.source() + " failed: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }
}
