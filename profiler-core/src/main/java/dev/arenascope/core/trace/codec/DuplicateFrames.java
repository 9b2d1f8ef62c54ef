package dev.arenascope.core.trace.codec;

import java.util.TreeMap;

/**
 * Recognizes a chunk that occurs twice in one input (a copied block of a file, a writer that retried):
 * two frames with the same header, checksum included, hold the same events, and a reader that kept
 * both would recover more events than were recorded. Frames are keyed by everything their header
 * says; the CRC32C covers the header and the payload, so a match means the same bytes. (Honest chunks
 * may overlap in time, since late events keep their arrival order, but never repeat a header.)
 *
 * <p>An ordered map, so a forged file full of near-identical headers costs O(log n) a frame, never a
 * hash collision chain. One frame of bookkeeping (about 100 bytes) a chunk. Not thread-safe.
 */
public final class DuplicateFrames {
    private record Key(long a, long b, long c, long d) implements Comparable<Key> {
        @Override
        public int compareTo(Key o) {
            int x = Long.compare(a, o.a);
            if (x == 0) {
                x = Long.compare(b, o.b);
            }
            if (x == 0) {
                x = Long.compare(c, o.c);
            }
            return x != 0 ? x : Long.compare(d, o.d);
        }
    }

    private final TreeMap<Key, Long> seen = new TreeMap<>();

    /**
     * Notes the frame at {@code offset}.
     *
     * @return the offset of an earlier frame with the same header at another offset, or -1 when this is
     *         the first (seeing the same frame at the same offset again is not a duplicate)
     */
    public long firstSeenAt(FrameHeader fh, long offset) {
        Key k = new Key((long) fh.crc() << 32 | (fh.events() & 0xffffffffL), fh.firstTimeNs(), fh.lastTimeNs(),
                (long) fh.payloadBytes() << 32 | (fh.rawBytes() & 0xffffffffL));
        Long prior = seen.putIfAbsent(k, offset);
        return prior == null || prior == offset ? -1 : prior;
    }
}
