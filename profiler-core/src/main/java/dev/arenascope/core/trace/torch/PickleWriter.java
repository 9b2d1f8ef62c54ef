package dev.arenascope.core.trace.torch;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Writes pickle opcodes (protocol 4, without framing) for plain data, as CPython's pickler lays
 * them out: containers are memoized as they are opened, dict items and list elements go in batches
 * between MARK and SETITEMS / APPENDS, strings are memoized and written once. Used by the project's
 * snapshot generator and by tests that build hostile pickles; it is not a general pickler (the caller
 * drives the opcodes). Not thread-safe; the caller owns and closes the stream.
 */
public final class PickleWriter {
    private final OutputStream out;
    private final Map<String, Integer> strings = new HashMap<>();
    private final byte[] scratch = new byte[16];
    private int memo;
    private long written;

    public PickleWriter(OutputStream out) throws IOException {
        this.out = out;
        raw(0x80);
        raw(4);
    }

    private void raw(int b) throws IOException {
        out.write(b);
        written++;
    }

    private void raw(byte[] b, int n) throws IOException {
        out.write(b, 0, n);
        written += n;
    }

    /** Bytes written so far. */
    public long written() {
        return written;
    }

    /** The memo index the next {@link #memoize()} will take. */
    public int nextMemo() {
        return memo;
    }

    /** MEMOIZE the value on top of the stack; returns its memo index. */
    public int memoize() throws IOException {
        raw(0x94);
        return memo++;
    }

    /** Pushes memo entry {@code index} (BINGET or LONG_BINGET). */
    public PickleWriter get(int index) throws IOException {
        if (index < 256) {
            raw('h');
            raw(index);
        } else {
            raw('j');
            le(index, 4);
        }
        return this;
    }

    /** Stores the value on top of the stack in memo entry {@code index} (BINPUT or LONG_BINPUT), which may hold another already. */
    public PickleWriter put(int index) throws IOException {
        if (index < 256) {
            raw('q');
            raw(index);
        } else {
            raw('r');
            le(index, 4);
        }
        return this;
    }

    /** EMPTY_DICT, memoized. */
    public PickleWriter dict() throws IOException {
        raw('}');
        memoize();
        return this;
    }

    /** EMPTY_LIST, memoized. */
    public PickleWriter list() throws IOException {
        raw(']');
        memoize();
        return this;
    }

    public PickleWriter mark() throws IOException {
        raw('(');
        return this;
    }

    public PickleWriter setItems() throws IOException {
        raw('u');
        return this;
    }

    public PickleWriter setItem() throws IOException {
        raw('s');
        return this;
    }

    public PickleWriter appends() throws IOException {
        raw('e');
        return this;
    }

    public PickleWriter append() throws IOException {
        raw('a');
        return this;
    }

    /** TUPLE2 of the two values on top, memoized as CPython does. */
    public PickleWriter tuple2() throws IOException {
        raw(0x86);
        memoize();
        return this;
    }

    public PickleWriter none() throws IOException {
        raw('N');
        return this;
    }

    public PickleWriter bool(boolean v) throws IOException {
        raw(v ? 0x88 : 0x89);
        return this;
    }

    public PickleWriter stop() throws IOException {
        raw('.');
        return this;
    }

    /** A string, written and memoized the first time, fetched from the memo after. */
    public PickleWriter str(String s) throws IOException {
        Integer m = strings.get(s);
        if (m != null) {
            return get(m);
        }
        freshStr(s);
        strings.put(s, memo - 1);
        return this;
    }

    /** A string written anew (not shared through the memo), memoized as CPython would. */
    public PickleWriter freshStr(String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length < 256) {
            raw(0x8c);
            raw(b.length);
        } else {
            raw('X');
            le(b.length, 4);
        }
        raw(b, b.length);
        memoize();
        return this;
    }

    /** An int: BININT1 / BININT2 / BININT when it fits, else LONG1 with the fewest bytes. */
    public PickleWriter integer(long v) throws IOException {
        if (v >= 0 && v < 256) {
            raw('K');
            raw((int) v);
        } else if (v >= 0 && v < 65536) {
            raw('M');
            le(v, 2);
        } else if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
            raw('J');
            le(v, 4);
        } else {
            int n = 8;
            while (n > 1 && (v >> (8 * (n - 1) - 1)) == (v >> 63)) {
                n--;
            }
            raw(0x8a);
            raw(n);
            le(v, n);
        }
        return this;
    }

    /** LONG4 of {@code n} bytes of {@code fill} (tests: a huge integer). */
    public PickleWriter hugeInteger(int n, int fill) throws IOException {
        raw(0x8b);
        le(n, 4);
        byte[] chunk = new byte[Math.min(n, 1 << 16)];
        Arrays.fill(chunk, (byte) fill);
        for (int left = n; left > 0; left -= chunk.length) {
            raw(chunk, Math.min(left, chunk.length));
        }
        return this;
    }

    private void le(long v, int n) throws IOException {
        for (int i = 0; i < n; i++) {
            scratch[i] = (byte) (v >>> (8 * i));
        }
        raw(scratch, n);
    }
}
