package dev.arenascope.core.trace.codec;

import dev.arenascope.core.trace.TraceFormatException;

/**
 * What chunk headers may claim against what the input can honestly hold, so that a small forged file
 * or connection cannot make a reader decompress, allocate or index without bound ("decompression
 * amplification"). zstd turns a few bytes into megabytes of repeated bytes; honest chunks compress
 * their columns 1.5 to 5 times (the project's recorded workloads and synthetic traces), and a writer
 * puts at most 65,536 events (under 6 MiB raw) in a chunk.
 *
 * <ul>
 * <li><b>Per string</b>: {@link #MAX_STRING_BYTES} (names, descriptors, messages, attributes).</li>
 * <li><b>Per chunk</b> ({@link #checkChunk}): a chunk may decompress to at most
 *     {@link #CHUNK_FLOOR} bytes, or {@link #RATIO} times its compressed payload if that is more.
 *     A reader skips a chunk past it as damaged.</li>
 * <li><b>Per file or connection</b> ({@link #charge}): all chunks together may decompress to at
 *     most {@link #STREAM_FLOOR} plus {@link #RATIO} times the compressed bytes read so far. A reader
 *     stops at the first chunk past it (what came before is kept) and says where.</li>
 * </ul>
 * A reader that respects these does work and holds memory proportional to the input's size (times
 * {@link #RATIO}) plus a constant. Not thread-safe: one budget per file or connection, charged in
 * input order.
 */
public final class DecodeBudget {
    /** The longest string (UTF-8 bytes) a metadata record may carry. */
    public static final int MAX_STRING_BYTES = 1 << 20;
    /** How many times its compressed size a chunk, or a whole input, may decompress to. */
    public static final int RATIO = 64;
    /** Raw bytes any one chunk may claim whatever its compressed size (a writer's largest chunk is under 6 MiB). */
    public static final int CHUNK_FLOOR = 8 << 20;
    /** Raw bytes a whole input may decompress to on top of {@link #RATIO} times its compressed bytes. */
    public static final long STREAM_FLOOR = 256L << 20;

    private long compressed;
    private long raw;

    /**
     * Checks one chunk's claim on its own.
     *
     * @throws TraceFormatException at {@code offset} when the chunk claims more than {@link #CHUNK_FLOOR}
     *                              and more than {@link #RATIO} times its payload
     */
    public static void checkChunk(FrameHeader fh, String source, long offset) throws TraceFormatException {
        long allowed = Math.max(CHUNK_FLOOR, (long) RATIO * fh.payloadBytes());
        if (fh.rawBytes() > allowed) {
            throw new TraceFormatException(source, offset, "chunk claims to decompress " + fh.payloadBytes() + " bytes to "
                    + fh.rawBytes() + " (at most " + RATIO + " times, or " + CHUNK_FLOOR + " bytes): refused as a decompression bomb");
        }
    }

    /**
     * Checks the chunk on its own ({@link #checkChunk}) and against everything charged so far, then
     * charges it.
     *
     * @throws TraceFormatException at {@code offset} when the input as a whole would decompress past
     *                              its budget; nothing is charged
     */
    public void charge(FrameHeader fh, String source, long offset) throws TraceFormatException {
        checkChunk(fh, source, offset);
        long c = compressed + FrameHeader.BYTES + fh.payloadBytes();
        long r = raw + fh.rawBytes();
        long allowed = STREAM_FLOOR + RATIO * c;
        if (r > allowed) {
            throw new TraceFormatException(source, offset, "chunks would decompress to " + r + " bytes from " + c
                    + " (at most " + RATIO + " times plus " + STREAM_FLOOR + " bytes): refused as a decompression bomb");
        }
        compressed = c;
        raw = r;
    }

    /** Raw bytes charged so far. */
    public long rawBytes() {
        return raw;
    }

    /** Compressed bytes (frames) charged so far. */
    public long compressedBytes() {
        return compressed;
    }
}
