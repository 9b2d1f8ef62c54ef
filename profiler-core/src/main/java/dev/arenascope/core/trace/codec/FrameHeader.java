package dev.arenascope.core.trace.codec;

import java.util.zip.CRC32C;

import dev.arenascope.core.trace.ByteReader;
import dev.arenascope.core.trace.ByteWriter;
import dev.arenascope.core.trace.TraceFormatException;

/**
 * The fixed 36-byte header in front of every chunk's compressed payload:
 * <pre>
 *   u32 magic "ASCK"  u32 payload bytes  u32 raw bytes  u32 events
 *   i64 first time ns  i64 last (largest) time ns  u32 CRC32C of the 32 bytes before it and the payload
 * </pre>
 *
 * @param payloadBytes the compressed payload's length
 * @param rawBytes     the payload's length once decompressed
 * @param events       the events the payload holds
 * @param firstTimeNs  the first event's time (0 when there are none)
 * @param lastTimeNs   the largest event time (0 when there are none)
 * @param crc          the CRC32C the header states
 */
public record FrameHeader(int payloadBytes, int rawBytes, int events, long firstTimeNs, long lastTimeNs, int crc) {
    /** "ASCK" little-endian: the first four bytes of every frame. */
    public static final int MAGIC = 0x4B435341;
    /** Bytes of a frame header. */
    public static final int BYTES = 36;

    /**
     * Parses and range-checks a frame header (the checksum is checked with the payload, by
     * {@link #checkCrc}).
     *
     * @param h      at least {@link #BYTES} bytes from {@code off}
     * @param offset where the header starts in {@code source}, for messages
     * @throws TraceFormatException naming the offset of a bad magic or an out-of-range length or count
     */
    public static FrameHeader parse(byte[] h, int off, String source, long offset) throws TraceFormatException {
        ByteReader r = new ByteReader(h, off, BYTES, source, offset);
        int magic = r.u32();
        if (magic != MAGIC) {
            throw new TraceFormatException(source, offset, "not a chunk (bad chunk magic 0x" + Integer.toHexString(magic) + ")");
        }
        int payload = r.u32();
        int rawLen = r.u32();
        int events = r.u32();
        long first = r.i64();
        long last = r.i64();
        int c = r.u32();
        if (payload <= 0 || payload > ChunkCodec.MAX_RAW_BYTES) {
            throw new TraceFormatException(source, offset + 4, "chunk payload length " + Integer.toUnsignedString(payload) + " out of range");
        }
        if (rawLen <= 0 || rawLen > ChunkCodec.MAX_RAW_BYTES) {
            throw new TraceFormatException(source, offset + 8, "chunk raw length " + Integer.toUnsignedString(rawLen) + " out of range");
        }
        if (events < 0 || events > ChunkCodec.MAX_EVENTS) {
            throw new TraceFormatException(source, offset + 12, "chunk event count " + Integer.toUnsignedString(events) + " out of range");
        }
        return new FrameHeader(payload, rawLen, events, first, last, c);
    }

    /**
     * Writes a header with zero payload length and checksum at the start of the (cleared) {@code frame};
     * {@link #seal} fills them in once the payload follows.
     */
    static void begin(ByteWriter frame, int rawBytes, int events, long first, long last) {
        frame.clear();
        frame.u32(MAGIC);
        frame.u32(0);
        frame.u32(rawBytes);
        frame.u32(events);
        frame.i64(first);
        frame.i64(last);
        frame.u32(0);
    }

    /** Completes a frame whose {@code payloadBytes} follow its header in {@code frame}'s array. */
    static void seal(ByteWriter frame, int payloadBytes, CRC32C crc) {
        frame.putU32(4, payloadBytes);
        byte[] f = frame.array();
        crc.reset();
        crc.update(f, 0, 32);
        crc.update(f, BYTES, payloadBytes);
        frame.putU32(32, (int) crc.getValue());
        frame.setSize(BYTES + payloadBytes);
    }

    /** Checks this header's CRC32C over its own first 32 bytes and the payload. */
    void checkCrc(byte[] header, int headerOff, byte[] payload, int payloadOff, CRC32C c32,
                  String source, long offset) throws TraceFormatException {
        c32.reset();
        c32.update(header, headerOff, 32);
        c32.update(payload, payloadOff, payloadBytes);
        if ((int) c32.getValue() != crc) {
            throw new TraceFormatException(source, offset, "chunk checksum mismatch (CRC32C 0x"
                    + Integer.toHexString((int) c32.getValue()) + ", header says 0x" + Integer.toHexString(crc) + ")");
        }
    }
}
