package dev.arenascope.core.trace.torch;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CancellationException;
import java.util.function.LongConsumer;

/**
 * The bytes of a pickle as {@link PickleReader} sees them: a window of a few MiB over the file (or the
 * whole array given), refilled as reading goes on, and the decoding of opcode arguments (fixed-width
 * integers, lengths, strings, protocol 0's text arguments). Every length is checked against the bytes
 * left in the input before anything is allocated; a request past the end is refused as truncated.
 * Errors name the source and the byte offset of the opcode being read ({@link #opStart}).
 *
 * <p>A superclass rather than a field of the reader so that the opcode loop reads {@link #buf} and
 * {@link #pos} as its own fields (no indirection per opcode). The reading thread's interrupt is checked
 * at every refill (a {@link java.util.concurrent.CancellationException}); progress is reported there
 * too. Not thread-safe.
 */
abstract sealed class PickleInput permits PickleReader {
    final String source;
    private final FileChannel channel;
    final long total;
    byte[] buf;
    int pos;
    int lim;
    long base; // input offset of buf[0]
    long opStart;
    private final LongConsumer progress;
    private long nextProgress;
    private long reported;

    /**
     * @param data     the first window (for a channel: empty, {@code lim} 0) or the whole input
     * @param channel  where further bytes come from, or null when {@code data} is the whole input
     * @param total    the input's size in bytes
     * @param progress told the bytes read so far about every 1% of the input (at least 1 MiB apart); may be null
     */
    PickleInput(byte[] data, FileChannel channel, long total, String source, LongConsumer progress) {
        this.buf = data;
        this.lim = channel == null ? data.length : 0;
        this.channel = channel;
        this.total = total;
        this.source = source;
        this.progress = progress;
        this.nextProgress = Math.max(1 << 20, total / 100);
    }

    /** A refusal at the opcode being read. */
    PickleFormatException error(String problem) {
        return new PickleFormatException(source, opStart, problem);
    }

    /** Bytes of the input after {@link #pos}. */
    long left() {
        return total - (base + pos);
    }

    /**
     * Makes {@code n} bytes available at {@code pos}, reading on from the channel; a request past the
     * end of the input is refused as truncated (or, with {@code op}, as a pickle without STOP).
     */
    void fill(long n, boolean op) throws PickleFormatException {
        if (n > left()) {
            if (op) {
                opStart = base + pos;
                throw error("truncated: the pickle ends without a STOP opcode");
            }
            throw error("truncated: needs " + n + " bytes, " + left() + " left");
        }
        if (lim - pos >= n) {
            return;
        }
        int keep = lim - pos;
        if (n > buf.length) {
            byte[] nb = new byte[(int) Math.max(n, Math.min((long) buf.length * 2, left()))];
            System.arraycopy(buf, pos, nb, 0, keep);
            buf = nb;
        } else {
            System.arraycopy(buf, pos, buf, 0, keep);
        }
        base += pos;
        pos = 0;
        lim = keep;
        try {
            ByteBuffer bb = ByteBuffer.wrap(buf, lim, buf.length - lim);
            while (lim < n) {
                int r = channel.read(bb);
                if (r < 0) {
                    throw error("truncated: the file ended while being read");
                }
                lim += r;
            }
        } catch (ClosedByInterruptException e) {
            throw cancelled();
        } catch (PickleFormatException e) {
            throw e;
        } catch (IOException e) {
            throw new PickleFormatException(source, base + lim, "read failed: " + e.getMessage());
        }
        if (Thread.interrupted()) {
            throw cancelled();
        }
        if (progress != null && base + lim >= nextProgress) {
            nextProgress = base + lim + Math.max(1 << 20, total / 100);
            reported = base + lim;
            progress.accept(reported);
        }
    }

    /**
     * Tells the progress the whole input read, once the pickle is: the last refill may have come less than a
     * report's step after the one before, and a small file's last report stood at 92% of it while the
     * snapshot's events were being made.
     */
    void reportEnd() {
        if (progress != null && reported < total) {
            reported = total;
            progress.accept(total);
        }
    }

    /**
     * Cancellation: the reading thread was interrupted (a user's cancel). Not a format error: a
     * {@link java.util.concurrent.CancellationException}; the read is abandoned and everything it held
     * becomes garbage. The thread's interrupt status is set again for the caller.
     */
    CancellationException cancelled() {
        Thread.currentThread().interrupt();
        return new CancellationException(source + ": import cancelled after " + (base + lim) + " of " + total + " bytes");
    }

    void need(long n) throws PickleFormatException {
        if (n > lim - pos) {
            fill(n, false);
        }
    }

    int u8() throws PickleFormatException {
        if (pos >= lim) {
            fill(1, false);
        }
        return buf[pos++] & 0xff;
    }

    int u16() throws PickleFormatException {
        need(2);
        int v = (buf[pos] & 0xff) | (buf[pos + 1] & 0xff) << 8;
        pos += 2;
        return v;
    }

    int s32() throws PickleFormatException {
        need(4);
        int v = (buf[pos] & 0xff) | (buf[pos + 1] & 0xff) << 8 | (buf[pos + 2] & 0xff) << 16 | (buf[pos + 3] & 0xff) << 24;
        pos += 4;
        return v;
    }

    long s32u() throws PickleFormatException {
        return s32() & 0xffffffffL;
    }

    long u64() throws PickleFormatException {
        need(8);
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = v << 8 | (buf[pos + i] & 0xff);
        }
        pos += 8;
        return v;
    }

    long u64be() throws PickleFormatException {
        need(8);
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = v << 8 | (buf[pos + i] & 0xff);
        }
        pos += 8;
        return v;
    }

    /** Checks a length read from the input against the bytes left (unsigned), then makes them available. */
    int length(long n, String what) throws PickleFormatException {
        if (n < 0 || n > left()) {
            throw error("the file ends early (truncated or damaged): " + what + " of " + Long.toUnsignedString(n)
                    + " bytes announced, " + left() + " bytes left");
        }
        if (n > Integer.MAX_VALUE - 64) {
            throw error(what + " length " + n + " is larger than the 2 GiB one value may take");
        }
        need(n);
        return (int) n;
    }

    String utf8(int n) {
        String s = ascii(n) ? new String(buf, pos, n, StandardCharsets.ISO_8859_1) : new String(buf, pos, n, StandardCharsets.UTF_8);
        pos += n;
        return s;
    }

    boolean ascii(int n) {
        for (int i = pos, end = pos + n; i < end; i++) {
            if (buf[i] < 0) {
                return false;
            }
        }
        return true;
    }

    String latin1(int n) {
        String s = new String(buf, pos, n, StandardCharsets.ISO_8859_1);
        pos += n;
        return s;
    }

    byte[] bytes(int n) {
        byte[] b = Arrays.copyOfRange(buf, pos, pos + n);
        pos += n;
        return b;
    }

    Object longBytes(int n) throws PickleFormatException {
        if (n > left()) {
            need(n); // refused as truncated
        }
        if (n > PickleReader.MAX_INT_BYTES) {
            throw error("integer of " + n + " bytes is longer than the " + PickleReader.MAX_INT_BYTES + " this reader takes");
        }
        need(n);
        if (n == 0) {
            return 0L;
        }
        if (n <= 8) {
            long v = buf[pos + n - 1]; // sign-extended top byte
            for (int i = n - 2; i >= 0; i--) {
                v = v << 8 | (buf[pos + i] & 0xff);
            }
            pos += n;
            return v;
        }
        byte[] be = new byte[n];
        for (int i = 0; i < n; i++) {
            be[i] = buf[pos + n - 1 - i];
        }
        pos += n;
        BigInteger b = new BigInteger(be);
        return b.bitLength() < 64 ? (Object) b.longValue() : b;
    }

    /** The text up to the next newline (protocol 0 opcodes), without the newline. */
    String line() throws PickleFormatException {
        int end = pos;
        while (true) {
            while (end < lim && buf[end] != '\n') {
                end++;
            }
            if (end < lim) {
                break;
            }
            long have = lim - pos;
            if (have >= left()) {
                throw error("truncated: a text argument has no terminating newline");
            }
            int off = end - pos;
            fill(Math.min(left(), Math.max(have + 1, have * 2)), false);
            end = pos + off;
        }
        String s = new String(buf, pos, end - pos, StandardCharsets.ISO_8859_1);
        pos = end + 1;
        return s;
    }

    Object parseInt(String s) throws PickleFormatException {
        String t = s.strip();
        if (t.length() > PickleReader.MAX_TEXT_NUMBER) {
            throw error("integer text of " + t.length() + " digits is longer than " + PickleReader.MAX_TEXT_NUMBER);
        }
        try {
            BigInteger b = new BigInteger(t);
            return b.bitLength() < 64 ? (Object) b.longValue() : b;
        } catch (NumberFormatException e) {
            throw error("not an integer: '" + clip(s) + "'");
        }
    }

    long parseIndex(String s) throws PickleFormatException {
        Object v = parseInt(s);
        if (v instanceof Long l) {
            return l;
        }
        throw error("memo index out of range: '" + clip(s) + "'");
    }

    String quotedString(String s) throws PickleFormatException {
        if (s.length() < 2 || (s.charAt(0) != '\'' && s.charAt(0) != '"') || s.charAt(s.length() - 1) != s.charAt(0)) {
            throw error("STRING argument is not quoted: '" + clip(s) + "'");
        }
        String body = s.substring(1, s.length() - 1);
        StringBuilder sb = new StringBuilder(body.length());
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c != '\\' || i + 1 == body.length()) {
                sb.append(c);
                continue;
            }
            char e = body.charAt(++i);
            switch (e) {
                case 'n' -> sb.append('\n');
                case 't' -> sb.append('\t');
                case 'r' -> sb.append('\r');
                case '\\', '\'', '"' -> sb.append(e);
                case 'x' -> {
                    sb.append((char) hex(body, i + 1, 2));
                    i += 2;
                }
                default -> sb.append('\\').append(e);
            }
        }
        return sb.toString();
    }

    String rawUnicodeEscape(String s) throws PickleFormatException {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length() && (s.charAt(i + 1) == 'u' || s.charAt(i + 1) == 'U')) {
                int digits = s.charAt(i + 1) == 'u' ? 4 : 8;
                int cp = hex(s, i + 2, digits);
                if (!Character.isValidCodePoint(cp)) {
                    throw error("bad code point in UNICODE: " + cp);
                }
                sb.appendCodePoint(cp);
                i += 1 + digits;
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    int hex(String s, int from, int digits) throws PickleFormatException {
        if (from + digits > s.length()) {
            throw error("truncated escape in a text string");
        }
        try {
            return (int) Long.parseLong(s.substring(from, from + digits), 16);
        } catch (NumberFormatException e) {
            throw error("bad hex escape in a text string");
        }
    }

    static String clip(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "..." : s;
    }

    int le32(int p) {
        return (buf[p] & 0xff) | (buf[p + 1] & 0xff) << 8 | (buf[p + 2] & 0xff) << 16 | (buf[p + 3] & 0xff) << 24;
    }
}
