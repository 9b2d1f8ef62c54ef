package dev.arenascope.core.trace.file;

/**
 * Constants of the {@code .astrace} layout ({@code docs/astrace-format.md} is the specification):
 *
 * <pre>
 *   header   "ASTRACE\0"  u16 version  u16 flags  u32 body bytes  u32 CRC32C(body)  body
 *            body = session, varint n, n metadata records (memories, strings, threads known at start)
 *   chunks   ChunkCodec frames: "ASCK" ... (metadata that arrived later travels inside them)
 *   footer   "ASFT"  u32 body bytes  u32 CRC32C(body)  body
 *            body = varint chunks, per chunk (varint offset delta, varint events, zigzag first/last time),
 *                   varint total events, varint lost events
 *   trailer  i64 footer offset  u32 footer bytes (with its 12-byte head)  "ASTE"
 * </pre>
 * All integers little-endian. A file without footer and trailer (a recording that was killed) is
 * still read chunk by chunk up to its last whole chunk.
 */
public final class AstraceFormat {
    private AstraceFormat() {}

    static final byte[] MAGIC = {'A', 'S', 'T', 'R', 'A', 'C', 'E', 0};
    /**
     * The version written: 3 (event layout 3, see {@code ChunkCodec.VERSION}: allocation sites and
     * categories); versions 1 and 2 are read too.
     */
    static final int VERSION = 3;
    /** The oldest version read. */
    static final int OLDEST_VERSION = 1;
    /** Fixed part of the header before its body. */
    static final int HEADER_FIXED = 8 + 2 + 2 + 4 + 4;
    static final int FOOTER_MAGIC = 0x54465341; // "ASFT"
    static final int FOOTER_FIXED = 12;
    static final int TRAILER_MAGIC = 0x45545341; // "ASTE"
    static final int TRAILER_BYTES = 16;
    /** Largest header or footer body a reader accepts. */
    static final int MAX_META_BYTES = 256 << 20;
    /** File name extension. */
    public static final String EXTENSION = ".astrace";
}
