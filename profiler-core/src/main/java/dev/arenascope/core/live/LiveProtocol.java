package dev.arenascope.core.live;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

import dev.arenascope.core.trace.ByteReader;
import dev.arenascope.core.trace.ByteWriter;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.TraceFormatException;
import dev.arenascope.core.trace.codec.ChunkCodec;
import dev.arenascope.core.trace.codec.MetaCodec;

/**
 * The live wire: how a profiled process streams its session to a running ArenaScope over TCP. All
 * integers are little-endian; strings, varints and the session record are those of
 * {@link ChunkCodec} / {@link ByteWriter}.
 *
 * <pre>
 * sender → receiver, once:   HELLO  u32 magic "ASLV" | u32 n (≤ {@value #MAX_HELLO_BYTES}) | n bytes:
 *                                   varint version | string token | i64 sender id | varint connection ordinal
 *                                   | i64 process id | session (MetaCodec.encodeSession)
 * receiver → sender, once:   ACK    u32 magic "ASLA" | u32 n (≤ {@value #MAX_HELLO_BYTES}) | n bytes:
 *                                   varint status ({@link #ACCEPTED}, {@link #BAD_TOKEN}, {@link #BAD_VERSION},
 *                                   {@link #BAD_HELLO}, {@link #REFUSED}) | string message
 * sender → receiver, repeated:      u8 {@link #RECORD_CHUNK} then one ChunkCodec frame (metadata, losses, events)
 *                                   | u8 {@link #RECORD_GOODBYE}: the stream ends cleanly
 * receiver → sender, repeated:      u8 {@link #RECORD_ACK} | i64 events received so far on this connection
 * receiver → sender, at most once:  u8 {@link #RECORD_NOT_STORED} | i64 events stored | u16 n (≤ {@value #MAX_NOT_STORED_BYTES})
 *                                   | n bytes UTF-8: the receiver cannot store the session (a file it cannot create or
 *                                   write); it reads the rest away and closes. Senders before it saw an unknown record
 *                                   and reconnected; this one stops and says why
 * </pre>
 *
 * <p>Each chunk carries the metadata (memories, strings, threads) announced since the previous one;
 * on a new connection the sender first replays all of it, so every connection is a self-contained
 * stream. A connection that ends without GOODBYE is a process that died or a link that was cut: the
 * receiver keeps every complete chunk. Events the sender could not deliver are counted and reported on
 * its next connection as a {@link dev.arenascope.core.trace.MetaRecord.Loss} (receivers call
 * {@code onLoss}); events written but never acknowledged when a link fails count as lost too.
 */
public final class LiveProtocol {
    /** "ASLV" little-endian. */
    public static final int HELLO_MAGIC = 0x564C5341;
    /** "ASLA" little-endian. */
    public static final int ACK_MAGIC = 0x414C5341;
    /**
     * The version a sender speaks; it equals the event layout of its chunks ({@code ChunkCodec.VERSION}):
     * 3 since chunks may carry allocation sites (frames, stack nodes, per-event site and category).
     */
    public static final int VERSION = 3;
    /** The oldest version a receiver accepts (its chunks are decoded in that layout); version 1 is refused. */
    public static final int OLDEST_VERSION = 2;
    /** The port {@code arenascope listen} and the window listen on unless told otherwise. */
    public static final int DEFAULT_PORT = 7766;
    public static final int MAX_HELLO_BYTES = 1 << 20;

    public static final int RECORD_CHUNK = 'C';
    public static final int RECORD_GOODBYE = 'Z';
    public static final int RECORD_ACK = 'K';
    /** Receiver → sender: the session cannot be stored (see the class comment). */
    public static final int RECORD_NOT_STORED = 'N';
    /** The longest "not stored" message, in UTF-8 bytes (a longer one is cut). */
    public static final int MAX_NOT_STORED_BYTES = 1024;

    public static final int ACCEPTED = 0;
    public static final int BAD_TOKEN = 1;
    public static final int BAD_VERSION = 2;
    public static final int BAD_HELLO = 3;
    public static final int REFUSED = 4;

    private LiveProtocol() {}

    /** What a sender says about itself when it connects. */
    public record Hello(int version, String token, long senderId, int connection, long processId, SessionInfo session) {}

    static byte[] encodeHello(Hello h) {
        ByteWriter body = new ByteWriter(256);
        body.varint(h.version());
        body.string(h.token() == null ? "" : h.token());
        body.i64(h.senderId());
        body.varint(h.connection());
        body.i64(h.processId());
        MetaCodec.encodeSession(h.session(), body);
        return envelope(HELLO_MAGIC, body);
    }

    static Hello readHello(InputStream in, String source) throws IOException {
        byte[] b = readEnvelope(in, HELLO_MAGIC, "hello", source);
        ByteReader r = new ByteReader(b, 0, b.length, source, 8);
        int version = r.count(Integer.MAX_VALUE, "protocol version");
        if (version < OLDEST_VERSION || version > VERSION) {
            return new Hello(version, "", 0, 0, 0, null);
        }
        String token = r.string();
        long id = r.i64();
        int conn = r.count(Integer.MAX_VALUE, "connection ordinal");
        long pid = r.i64();
        SessionInfo s = MetaCodec.decodeSession(r);
        return new Hello(version, token == null ? "" : token, id, conn, pid, s);
    }

    static byte[] encodeAck(int status, String message) {
        ByteWriter body = new ByteWriter(64);
        body.varint(status);
        body.string(message);
        return envelope(ACK_MAGIC, body);
    }

    /** The receiver's answer to a hello. */
    public record Ack(int status, String message) {}

    static Ack readAck(InputStream in, String source) throws IOException {
        byte[] b = readEnvelope(in, ACK_MAGIC, "acknowledgement", source);
        ByteReader r = new ByteReader(b, 0, b.length, source, 8);
        int status = r.count(Integer.MAX_VALUE, "status");
        String msg = r.string();
        return new Ack(status, msg == null ? "" : msg);
    }

    private static byte[] envelope(int magic, ByteWriter body) {
        ByteWriter w = new ByteWriter(body.size() + 8);
        w.u32(magic);
        w.u32(body.size());
        w.bytes(body.array(), 0, body.size());
        return w.toByteArray();
    }

    private static byte[] readEnvelope(InputStream in, int magic, String what, String source) throws IOException {
        byte[] h = in.readNBytes(8);
        if (h.length < 8) {
            throw new TraceFormatException(source, h.length, "connection ended inside the " + what + " (" + h.length + " of 8 header bytes)");
        }
        int m = u32(h, 0);
        if (m != magic) {
            throw new TraceFormatException(source, 0, String.format("not an ArenaScope live %s (magic 0x%08x)", what, m));
        }
        int n = u32(h, 4);
        if (n < 0 || n > MAX_HELLO_BYTES) {
            throw new TraceFormatException(source, 4, what + " length " + Integer.toUnsignedString(n) + " exceeds " + MAX_HELLO_BYTES);
        }
        byte[] b = in.readNBytes(n);
        if (b.length < n) {
            throw new TraceFormatException(source, 8 + b.length, "connection ended inside the " + what + " (" + b.length + " of " + n + " bytes)");
        }
        return b;
    }

    static int u32(byte[] b, int off) {
        return (b[off] & 0xff) | (b[off + 1] & 0xff) << 8 | (b[off + 2] & 0xff) << 16 | (b[off + 3] & 0xff) << 24;
    }

    static void writeAck(OutputStream out, long received) throws IOException {
        byte[] b = new byte[9];
        b[0] = (byte) RECORD_ACK;
        for (int i = 0; i < 8; i++) {
            b[1 + i] = (byte) (received >>> (8 * i));
        }
        out.write(b);
        out.flush();
    }

    /** Writes a {@link #RECORD_NOT_STORED} record: {@code stored} events kept, and why no more will be. */
    static void writeNotStored(OutputStream out, long stored, String why) throws IOException {
        byte[] text = why.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(text.length, MAX_NOT_STORED_BYTES);
        byte[] b = new byte[11 + n];
        b[0] = (byte) RECORD_NOT_STORED;
        for (int i = 0; i < 8; i++) {
            b[1 + i] = (byte) (stored >>> (8 * i));
        }
        b[9] = (byte) n;
        b[10] = (byte) (n >>> 8);
        System.arraycopy(text, 0, b, 11, n);
        out.write(b);
        out.flush();
    }

    /** What follows a {@link #RECORD_NOT_STORED} byte: the events stored and the reason (a length over the bound is refused). */
    record NotStored(long stored, String why) {}

    static NotStored readNotStored(InputStream in, String source) throws IOException {
        long stored = readLongLE(in);
        int lo = in.read();
        int hi = in.read();
        if (lo < 0 || hi < 0) {
            throw new EOFException(source + ": the receiver's 'not stored' record was cut");
        }
        int n = lo | hi << 8;
        if (n > MAX_NOT_STORED_BYTES) {
            throw new IOException(source + ": a 'not stored' message of " + n + " bytes (at most " + MAX_NOT_STORED_BYTES + ")");
        }
        byte[] text = in.readNBytes(n);
        if (text.length < n) {
            throw new EOFException(source + ": the receiver's 'not stored' record was cut");
        }
        return new NotStored(stored, new String(text, StandardCharsets.UTF_8));
    }

    static long readLongLE(InputStream in) throws IOException {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            int c = in.read();
            if (c < 0) {
                throw new EOFException("connection ended inside an acknowledgement");
            }
            v |= (long) c << (8 * i);
        }
        return v;
    }

    /** Constant-time token comparison. */
    static boolean tokenMatches(String expected, String given) {
        return MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8), (given == null ? "" : given).getBytes(StandardCharsets.UTF_8));
    }
}
