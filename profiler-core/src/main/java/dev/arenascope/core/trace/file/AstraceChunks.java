package dev.arenascope.core.trace.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.SiteTable;
import dev.arenascope.core.trace.TraceFormatException;
import dev.arenascope.core.trace.codec.ChunkCodec;
import dev.arenascope.core.trace.codec.FrameHeader;
import dev.arenascope.core.trace.store.ChunkSource;
import dev.arenascope.core.trace.store.OutOfCoreStore;

/**
 * An {@code .astrace} file's chunks read back one at a time for an {@link OutOfCoreStore}: the frame
 * at the offset the index names, its header compared with what was indexed (size, event count, times,
 * checksum) and its checksum checked again, then decoded. Each read opens the file afresh (a few
 * microseconds beside a chunk's decoding), so the store holds no file handle and a file replaced
 * underneath is noticed rather than read through a stale handle. Sites naming a stack node the site
 * table does not hold are dropped, as a whole-file read drops them. Thread-safe (one codec a thread).
 */
final class AstraceChunks implements ChunkSource {
    private final Path path;
    private final String source;
    private volatile SiteTable sites = new SiteTable();
    private final ThreadLocal<ChunkCodec> codecs;

    /** @param version the file's format version (its chunks' event layout) */
    AstraceChunks(Path path, int version) {
        this.path = path;
        this.source = path.toString();
        this.codecs = ThreadLocal.withInitial(() -> new ChunkCodec(ChunkCodec.DEFAULT_LEVEL, version));
    }

    /** The store's site table, once it is built: sites naming a node past it are dropped. */
    void sites(SiteTable table) {
        sites = table;
    }

    @Override
    public EventBatch read(int n, OutOfCoreStore.ChunkRef ref) {
        byte[] f = new byte[ref.frameBytes()];
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            ByteBuffer bb = ByteBuffer.wrap(f);
            while (bb.hasRemaining()) {
                if (ch.read(bb, ref.offset() + bb.position()) < 0) {
                    throw new IllegalStateException(source + " at byte " + (ref.offset() + bb.position())
                            + ": the file ends inside chunk " + n + " (it changed since it was indexed)");
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(source + ": chunk " + n + " at byte " + ref.offset() + " cannot be read: " + e.getMessage(), e);
        }
        try {
            FrameHeader fh = FrameHeader.parse(f, 0, source, ref.offset());
            if (fh.crc() != ref.crc() || fh.events() != ref.events() || ChunkCodec.FRAME_HEADER_BYTES + fh.payloadBytes() != ref.frameBytes()
                    || fh.firstTimeNs() != ref.firstTimeNs() || fh.lastTimeNs() != ref.lastTimeNs()) {
                throw new IllegalStateException(source + " at byte " + ref.offset() + ": chunk " + n + " is not the chunk that was indexed");
            }
            EventBatch events = codecs.get().decodeFrame(f, 0, fh, f, ChunkCodec.FRAME_HEADER_BYTES, source, ref.offset()).events();
            if (events.hasSites()) {
                int nodes = sites.nodeCount();
                for (int i = 0; i < events.size(); i++) {
                    if (events.site(i) >= nodes) {
                        events.setSite(i, -1, events.category(i));
                    }
                }
            }
            return events;
        } catch (TraceFormatException e) {
            throw new IllegalStateException(e.getMessage() + " (chunk " + n + ", which read soundly when it was indexed)", e);
        }
    }
}
