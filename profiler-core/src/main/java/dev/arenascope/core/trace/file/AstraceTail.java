package dev.arenascope.core.trace.file;

import java.io.IOException;
import java.nio.file.Path;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.MetaRecord;
import dev.arenascope.core.trace.codec.ChunkCodec;
import dev.arenascope.core.trace.store.EventStore;

/**
 * Follows an {@code .astrace} file that a recording is still writing (a live-tail open): {@link #open}
 * reads what is sealed into a store, and each {@link #poll()} adds the chunks sealed since, until the
 * writer closes the file ({@link #finished()}). The store grows as a live session's does, so views drawn
 * from it follow the recording.
 *
 * <p>A capped recording ({@link RingCap}) replaces its file when it drops chunks; the tail then stops
 * ({@link Poll#REPLACED}): the store keeps what it read, and opening the file again shows the new
 * window. Reads one chunk at a time on the calling thread (no worker threads: a tail reads little at
 * once). Not thread-safe: one thread polls; the store may be read from any thread meanwhile.
 */
public final class AstraceTail implements AutoCloseable {
    /** What a poll found. */
    public enum Poll {
        /** The recording goes on: call again later. */
        WRITING,
        /** The writer closed the file (or its process is gone): everything is read, nothing more will come. */
        FINISHED,
        /** The path names another file now (a capped recording dropped chunks): reopen to see it. */
        REPLACED
    }

    private final Path path;
    private final EventStore store;
    private AstraceReader reader;
    private boolean sessionDelivered;
    private Poll state = Poll.WRITING;

    private AstraceTail(Path path, EventStore store) {
        this.path = path;
        this.store = store;
    }

    /**
     * Opens {@code path} and reads what is sealed so far into a new store.
     *
     * @throws dev.arenascope.core.trace.TraceFormatException when the file is not a readable {@code .astrace} file
     */
    public static AstraceTail open(Path path) throws IOException {
        AstraceTail t = new AstraceTail(path, EventStore.live(path.getFileName().toString())); // a long recording goes on out of core
        t.reader = AstraceReader.open(path);
        try {
            t.poll();
        } catch (IOException | RuntimeException e) {
            t.close();
            throw e;
        }
        return t;
    }

    /** The store the file is read into. */
    public EventStore store() {
        return store;
    }

    /** What the reads so far found (a file still being written is not damaged). */
    public ReadReport report() {
        return reader.result();
    }

    /** Whether the writer is done with the file (or the tail stopped): no poll will add anything. */
    public boolean finished() {
        return state != Poll.WRITING;
    }

    /**
     * Reads the chunks sealed since the last call into the store.
     *
     * @return whether the recording goes on, ended, or replaced its file
     */
    public Poll poll() throws IOException {
        if (state != Poll.WRITING) {
            return state;
        }
        if (sessionDelivered && !reader.refresh()) {
            state = Poll.REPLACED;
            return state;
        }
        if (reader.headerMissing()) {
            // nothing was sealed when it was opened: open it afresh (its header comes with the first chunk)
            AstraceReader again = AstraceReader.open(path);
            reader.close();
            reader = again;
            if (reader.headerMissing()) {
                if (!reader.stillWriting()) {
                    state = Poll.FINISHED;
                }
                return state;
            }
        }
        if (!sessionDelivered) {
            store.onSession(reader.session());
            for (MetaRecord m : reader.headerMetadata()) {
                if (reader.deliverable(m)) {
                    m.deliverTo(store);
                }
            }
            sessionDelivered = true;
        }
        for (ChunkCodec.Chunk c; (c = reader.nextChunk()) != null; ) {
            for (MetaRecord m : c.meta()) {
                if (reader.deliverable(m)) {
                    m.deliverTo(store);
                }
            }
            EventBatch events = c.events();
            reader.dropDanglingSites(events);
            store.appendChunk(c);
        }
        if (!reader.stillWriting()) {
            long extraLoss = reader.unreportedLoss();
            if (extraLoss > 0) {
                store.onLoss(extraLoss);
            }
            store.onClose();
            state = Poll.FINISHED;
        }
        return state;
    }

    @Override
    public void close() throws IOException {
        if (reader != null) {
            reader.close();
        }
    }
}
