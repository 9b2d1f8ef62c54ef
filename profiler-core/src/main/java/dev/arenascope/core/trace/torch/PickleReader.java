package dev.arenascope.core.trace.torch;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongConsumer;

/**
 * A safe reader of Python pickles (protocols 0 to 5) that holds only data: dicts, lists, tuples, sets,
 * ints, floats, strings, bytes, booleans and None. It never resolves a class and never calls anything:
 * any opcode that would (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, NEWOBJ_EX, EXT1/2/4,
 * PERSID, BINPERSID, and the out-of-band buffer opcodes) is refused with a
 * {@link PickleFormatException} naming the opcode and its byte offset.
 *
 * <p>Python values become: dict → a {@link Map} in insertion order whose keys are indexed by a total
 * order, not by hash codes (an input cannot make lookups quadratic), list → a mutable {@link List},
 * tuple → an unmodifiable {@link List}, set / frozenset → a sorted {@link Set}, int → {@link Long} (or
 * {@link BigInteger} past 64 bits), float → {@link Double}, str → {@link String}, bytes / bytearray →
 * {@code byte[]}, bool → {@link Boolean}, None → {@code null}. Dict keys and set members must be
 * hashable in Python's sense (atoms and tuples of atoms); others are refused.
 *
 * <p>Streaming: a file is read through a window of a few MiB, never whole; a {@link Placement} given
 * by a consumer in this package sees every value as it is placed into a list or dict and may put
 * something compact in its place (and in the memo), so a consumer holds only what it keeps.
 *
 * <p>Bad input never allocates beyond the input's size: every length is checked against the bytes that
 * remain before anything is allocated, memo indices are bounded by the input size, integers are at most
 * {@value #MAX_INT_BYTES} bytes (or {@value #MAX_TEXT_NUMBER} digits), and the reader is a single loop
 * over the opcodes (no recursion on the input's nesting), so it always ends. Not thread-safe; one
 * instance reads one input.
 */
public final class PickleReader {
    /** The longest decimal text (INT, LONG, FLOAT, GET, PUT opcodes) accepted, in characters. */
    public static final int MAX_TEXT_NUMBER = 4300;
    /** The longest binary integer (LONG1, LONG4) accepted, in bytes (a little under 4300 digits). */
    public static final int MAX_INT_BYTES = 1784;
    private static final int MAX_KEY_DEPTH = 64;
    private static final int WINDOW = 4 << 20;

    /**
     * The items of a dict being read: keys at even indices, values at odd ones. A value the reader
     * kept unboxed is {@link #LONG}, its value {@link #longAt}; keys are always boxed.
     */
    interface Items {
        int size();

        Object at(int i);

        long longAt(int i);
    }

    /**
     * A consumer's compact stand-in for a dict or list it took whole (what a {@link Placement} puts in
     * its place): messages name it by the Python type it stands for and what it was read as, the same
     * whether the reader met the dict itself or, after the fast path, only its stand-in.
     */
    interface StandIn {
        /** The Python type it stands for: {@code dict} or {@code list}. */
        String pythonType();

        /** What the consumer read it as, e.g. {@code stack frame}. */
        String what();
    }

    /** Sees each value as it is placed into a container; returns what to store instead (or the value). */
    interface Placement {
        /**
         * Called for lists and dicts only (atoms are never replaced).
         *
         * @param value     the value being placed
         * @param container the list or dict receiving it
         * @param key       the dict key, or null for a list
         * @param offset    the byte offset of the opcode placing it
         */
        Object placed(Object value, Object container, Object key, long offset) throws PickleFormatException;

        /**
         * A fresh, empty dict is about to receive its first items (keys and values alternating, the
         * values already {@link #placed}). Returns what stands for the dict instead (the items are then
         * not stored), or null to fill the dict as usual; {@code d} is null when the dict was read on
         * the fast path for dicts of atoms (it is built only if this returns null). {@code items} is
         * valid during the call only.
         */
        default Object dict(PyDict d, Items items, long offset) throws PickleFormatException {
            return null;
        }

        /** The instance to use for a decoded short string (lets a consumer compare its keys by identity). */
        default String canonical(String s) {
            return s;
        }
    }

    private final String source;
    private final FileChannel channel;
    private final long total;
    private byte[] buf;
    private int pos;
    private int lim;
    private long base; // input offset of buf[0]
    private long opStart;
    private final Placement placement;
    private final LongConsumer progress;
    private long nextProgress;
    private final boolean fast;

    /**
     * Stands on the stack for a 64-bit integer kept unboxed in {@code longs} at the same index (ints are
     * most of a snapshot's values; boxing each one was a third of the reader's garbage). Boxed only when
     * the integer goes into a container other than a dict a {@link Placement} takes whole.
     */
    static final Object LONG = new Object();
    private Object[] stack = new Object[64];
    private long[] longs = new long[64];
    private int sp;
    private final StackItems stackItems = new StackItems();

    /** {@code stack[from..to)} as {@link Items}. */
    private final class StackItems implements Items {
        int from, to;

        @Override
        public int size() {
            return to - from;
        }

        @Override
        public Object at(int i) {
            return stack[from + i];
        }

        @Override
        public long longAt(int i) {
            return longs[from + i];
        }
    }

    /*
     * The fast path's items, in primitive arrays only: a reference stored into a long-lived array
     * costs G1 a card-marking barrier with a memory fence, and a snapshot has some 100 M such items.
     * A string is kept as its memo index.
     */
    private static final int FLAT_MAX = 32;
    private static final byte T_STR = 0, T_LONG = 1, T_NONE = 2, T_TRUE = 3, T_FALSE = 4;
    private final byte[] flatTag = new byte[FLAT_MAX];
    private final long[] flatVal = new long[FLAT_MAX];
    private final FlatItems flatItems = new FlatItems();

    private final class FlatItems implements Items {
        int n;

        @Override
        public int size() {
            return n;
        }

        @Override
        public Object at(int i) {
            return switch (flatTag[i]) {
                case T_STR -> memoAt((int) flatVal[i]);
                case T_LONG -> (i & 1) == 0 ? (Object) flatVal[i] : LONG; // keys boxed, values unboxed
                case T_NONE -> null;
                case T_TRUE -> Boolean.TRUE;
                default -> Boolean.FALSE;
            };
        }

        @Override
        public long longAt(int i) {
            return flatVal[i];
        }

        Object boxed(int i) {
            return flatTag[i] == T_LONG ? (Object) flatVal[i] : at(i);
        }
    }
    private int[] marks = new int[16];
    private int mp;
    private static final Object NONE = new Object(); // None in the memo (null there means never stored)
    /*
     * The memo: pages of MEMO_PAGE slots, allocated in order as indices reach them (no array of the
     * whole memo is ever copied to grow it); an index past the next page goes to a map (Python's memo is
     * a dict: indices need not be dense), so a forged index never allocates more than its entry.
     */
    private static final int MEMO_PAGE_BITS = 14;
    private static final int MEMO_PAGE = 1 << MEMO_PAGE_BITS;
    private Object[][] memoPages = new Object[16][];
    private int memoPagesUsed;
    private java.util.TreeMap<Long, Object> memoSparse;
    private int memoCount;

    private PickleReader(byte[] data, FileChannel channel, long total, String source, Placement placement, LongConsumer progress,
                         boolean fast) {
        this.fast = fast;
        this.buf = data;
        this.lim = data.length;
        this.channel = channel;
        this.total = total;
        this.source = source;
        this.placement = placement;
        this.progress = progress;
        this.nextProgress = Math.max(1 << 20, total / 100);
    }

    /** Reads the pickle in {@code file}, streaming it through a window of a few MiB. */
    public static Object read(Path file) throws IOException {
        return read(file, null, null);
    }

    static Object read(Path file, Placement placement, LongConsumer progress) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            PickleReader r = new PickleReader(new byte[(int) Math.min(WINDOW, Math.max(64, size))], ch, size, file.toString(), placement, progress, true);
            r.lim = 0;
            return r.run();
        }
    }

    /**
     * Reads one pickle from {@code data} (bytes after its STOP opcode are ignored).
     *
     * @param source the name used in error messages (a file name)
     * @throws PickleFormatException on malformed, truncated or unsafe input
     */
    public static Object read(byte[] data, String source) throws PickleFormatException {
        return read(data, source, null);
    }

    static Object read(byte[] data, String source, Placement placement) throws PickleFormatException {
        return read(data, source, placement, true);
    }

    /** As {@link #read(byte[], String, Placement)}; {@code fast} false reads every dict opcode by opcode (tests compare the two). */
    static Object read(byte[] data, String source, Placement placement, boolean fast) throws PickleFormatException {
        try {
            return new PickleReader(data, null, data.length, source, placement, null, fast).run();
        } catch (PickleFormatException e) {
            throw e;
        } catch (IOException e) {
            throw new PickleFormatException(source, 0, e.getMessage()); // not reached: no channel
        }
    }

    private PickleFormatException error(String problem) {
        return new PickleFormatException(source, opStart, problem);
    }

    private long left() {
        return total - (base + pos);
    }

    private Object run() throws IOException {
        while (true) {
            if (pos >= lim) {
                fill(1, true);
            }
            opStart = base + pos;
            int op = buf[pos++] & 0xff;
            // the opcodes of a snapshot's bulk, kept in a small loop (the JIT compiles it quickly and
            // recompiles it cheaply); the others are in cold()
            switch (op) {
                case 'h' -> push(memoGet(u8())); // BINGET
                case 'j' -> push(memoGet(s32u())); // LONG_BINGET
                case 0x94 -> memoPut(memoCount, peek()); // MEMOIZE
                case '(' -> pushMark();
                case '}' -> {
                    if (placement == null || !fast || !flatDict()) {
                        push(new PyDict());
                    }
                }
                case ']' -> push(new PyList());
                case 'K' -> pushLong(u8());
                case 'M' -> pushLong(u16());
                case 'J' -> pushLong(s32());
                case 0x8a -> long1();
                case 'u' -> setItems();
                case 'e' -> appends();
                case 0x8c -> push(utf8(length(u8(), "SHORT_BINUNICODE")));
                default -> {
                    if (cold(op)) {
                        return boxed(0);
                    }
                }
            }
        }
    }

    private void long1() throws PickleFormatException { // LONG1: up to 8 bytes stay unboxed
        int n = u8();
        if (n > 0 && n <= 8 && lim - pos >= n) {
            long v = buf[pos + n - 1]; // sign-extended top byte
            for (int i = n - 2; i >= 0; i--) {
                v = v << 8 | (buf[pos + i] & 0xff);
            }
            pos += n;
            pushLong(v);
        } else {
            push(longBytes(n));
        }
    }

    private void setItems() throws PickleFormatException {
        int m = popMark();
        PyDict d = dict(at(m - 1, "SETITEMS"), "SETITEMS");
        putPairs(d, m);
        clear(m);
    }

    private void appends() throws PickleFormatException {
        int m = popMark();
        PyList l = list(at(m - 1, "APPENDS"), "APPENDS");
        l.ensureCapacity(l.size() + sp - m);
        for (int i = m; i < sp; i++) {
            l.add(place(boxed(i), l, null));
        }
        clear(m);
    }

    /** Every other opcode; true at STOP (the value is then the only one on the stack). */
    private boolean cold(int op) throws IOException {
        switch (op) {
            case 0x80 -> { // PROTO
                int proto = u8();
                if (proto > 5) {
                    throw error("unsupported pickle protocol " + proto);
                }
            }
            case 0x95 -> { // FRAME: an 8-byte length; the frame's opcodes follow inline
                long len = u64();
                if (len < 0 || len > left()) {
                    throw error("FRAME of " + Long.toUnsignedString(len) + " bytes exceeds the " + left() + " bytes left");
                }
            }
            case '.' -> { // STOP
                if (sp != 1 || mp != 0) {
                    throw error("STOP with " + sp + " values and " + mp + " marks on the stack (expected exactly one value)");
                }
                return true;
            }
            case '0' -> {
                if (mp > 0 && marks[mp - 1] == sp) {
                    popMark(); // POP on an empty frame drops the mark, as Python does
                } else {
                    pop();
                }
            }
            case '1' -> clear(popMark());
            case '2' -> {
                peek(); // checks there is a value
                if (stack[sp - 1] == LONG) {
                    pushLong(longs[sp - 1]);
                } else {
                    push(stack[sp - 1]);
                }
            }
            case 'N' -> push(null);
            case 0x88 -> push(Boolean.TRUE);
            case 0x89 -> push(Boolean.FALSE);
            case 'I' -> {
                String s = line();
                push(switch (s) {
                    case "00" -> Boolean.FALSE;
                    case "01" -> Boolean.TRUE;
                    default -> parseInt(s);
                });
            }
            case 'L' -> {
                String s = line();
                push(parseInt(s.endsWith("L") ? s.substring(0, s.length() - 1) : s));
            }
            case 0x8b -> {
                int n = s32();
                if (n < 0) {
                    throw error("LONG4 with negative length " + n);
                }
                push(longBytes(n));
            }
            case 'F' -> {
                String s = line();
                try {
                    push(Double.parseDouble(s));
                } catch (NumberFormatException e) {
                    throw error("FLOAT is not a number: '" + clip(s) + "'");
                }
            }
            case 'G' -> push(Double.longBitsToDouble(u64be()));
            case 'S' -> push(quotedString(line()));
            case 'T' -> push(latin1(length(s32u(), "BINSTRING")));
            case 'U' -> push(latin1(length(u8(), "SHORT_BINSTRING")));
            case 'V' -> push(rawUnicodeEscape(line()));
            case 'X' -> push(utf8(length(s32u(), "BINUNICODE")));
            case 0x8d -> push(utf8(length(u64(), "BINUNICODE8")));
            case 'B' -> push(bytes(length(s32u(), "BINBYTES")));
            case 'C' -> push(bytes(length(u8(), "SHORT_BINBYTES")));
            case 0x8e -> push(bytes(length(u64(), "BINBYTES8")));
            case 0x96 -> push(bytes(length(u64(), "BYTEARRAY8")));
            case 'l' -> {
                int m = popMark();
                PyList l = new PyList(sp - m);
                for (int i = m; i < sp; i++) {
                    l.add(place(boxed(i), l, null));
                }
                clear(m);
                push(l);
            }
            case 'a' -> {
                Object v = pop();
                PyList l = list(peek(), "APPEND");
                l.add(place(v, l, null));
            }
            case ')' -> push(List.of());
            case 't' -> {
                int m = popMark();
                Object t = tuple(m, sp);
                clear(m);
                push(t);
            }
            case 0x85 -> tupleOfTop(1);
            case 0x86 -> tupleOfTop(2);
            case 0x87 -> tupleOfTop(3);
            case 'd' -> {
                int m = popMark();
                PyDict d = new PyDict();
                Object r = putPairs(d, m);
                clear(m);
                push(r == null ? d : r);
            }
            case 's' -> {
                if (sp - floor() < 3) {
                    throw error("SETITEM needs a dict, a key and a value on the stack");
                }
                PyDict d = dict(stack[sp - 3], "SETITEM");
                putPairs(d, sp - 2);
                clear(sp - 2);
            }
            case 0x8f -> push(new TreeSet<>(PyOrder.INSTANCE));
            case 0x90 -> { // ADDITEMS
                int m = popMark();
                Set<Object> set = set(at(m - 1, "ADDITEMS"));
                for (int i = m; i < sp; i++) {
                    set.add(key(boxed(i)));
                }
                clear(m);
            }
            case 0x91 -> { // FROZENSET
                int m = popMark();
                Set<Object> set = new TreeSet<>(PyOrder.INSTANCE);
                for (int i = m; i < sp; i++) {
                    set.add(key(boxed(i)));
                }
                clear(m);
                push(Collections.unmodifiableSet(set));
            }
            case 'g' -> push(memoGet(parseIndex(line())));
            case 'p' -> memoPut(parseIndex(line()), peek());
            case 'q' -> memoPut(u8(), peek());
            case 'r' -> memoPut(s32u(), peek());
            case 'c' -> throw refused("GLOBAL", op, "references a class");
            case 0x93 -> throw refused("STACK_GLOBAL", op, "references a class");
            case 'R' -> throw refused("REDUCE", op, "calls an object");
            case 'b' -> throw refused("BUILD", op, "calls __setstate__ on an object");
            case 'i' -> throw refused("INST", op, "instantiates a class");
            case 'o' -> throw refused("OBJ", op, "instantiates a class");
            case 0x81 -> throw refused("NEWOBJ", op, "instantiates a class");
            case 0x92 -> throw refused("NEWOBJ_EX", op, "instantiates a class");
            case 0x82 -> throw refused("EXT1", op, "references a registered class");
            case 0x83 -> throw refused("EXT2", op, "references a registered class");
            case 0x84 -> throw refused("EXT4", op, "references a registered class");
            case 'P' -> throw refused("PERSID", op, "references a persistent object");
            case 'Q' -> throw refused("BINPERSID", op, "references a persistent object");
            case 0x97 -> throw refused("NEXT_BUFFER", op, "needs an out-of-band buffer");
            case 0x98 -> throw refused("READONLY_BUFFER", op, "needs an out-of-band buffer");
            default -> throw error(String.format("unknown opcode 0x%02x", op));
        }
        return false;
    }

    private PickleFormatException refused(String name, int op, String why) {
        return error(String.format("opcode %s (0x%02x) %s; refused (only plain data pickles are read)", name, op, why));
    }

    /**
     * The fast path for a dict of atoms, the bulk of a snapshot (every stack frame):
     * {@code EMPTY_DICT [MEMOIZE | BINPUT i | LONG_BINPUT i] MARK (key value)* SETITEMS} where every key
     * and value is a string fetched from the memo, an integer, None or a bool. Called just after
     * EMPTY_DICT; when the next opcodes (within the bytes already read) have that shape, they are read
     * here into primitive arrays (no reference stored: see flatTag) and given to the {@link Placement}
     * without building the dict, and
     * the dict (or what the placement put in its place) ends up on the stack and in the memo exactly as
     * the opcodes one by one would have left it. At anything else (a fresh string, a container, a memo
     * slot that is empty or is the dict's own, more than 16 pairs, the window's end) the dict is built
     * and reading goes on the ordinary way from that opcode, with nothing read twice; false (nothing
     * read) when the opcodes after EMPTY_DICT are not a memo opcode and MARK.
     */
    private boolean flatDict() throws PickleFormatException {
        final int end = lim;
        int p = pos;
        long memoIndex = -1;
        if (p >= end) {
            return false;
        }
        int op = buf[p] & 0xff;
        if (op == 0x94) {
            memoIndex = memoCount;
            p++;
        } else if (op == 'q' && end - p >= 2) {
            memoIndex = buf[p + 1] & 0xff;
            p += 2;
        } else if (op == 'r' && end - p >= 5) {
            memoIndex = le32(p + 1) & 0xffffffffL;
            p += 5;
        }
        if (memoIndex >= total || p >= end || buf[p] != '(') {
            return false;
        }
        p++;
        final byte[] tag = flatTag;
        final long[] val = flatVal;
        int n = 0;
        while (true) {
            final int at = p; // the opcode being read: reading goes on from here when the fast path leaves
            if (p >= end) {
                return handOver(n, memoIndex, at);
            }
            op = buf[p] & 0xff;
            if (op == 'u') {
                break;
            }
            if (n == FLAT_MAX) {
                return handOver(n, memoIndex, at);
            }
            switch (op) {
                case 'h', 'j' -> {
                    long idx;
                    if (op == 'h' && end - p >= 2) {
                        idx = buf[p + 1] & 0xff;
                        p += 2;
                    } else if (op == 'j' && end - p >= 5) {
                        idx = le32(p + 1) & 0xffffffffL;
                        p += 5;
                    } else {
                        return handOver(n, memoIndex, at);
                    }
                    if (idx == memoIndex || idx >= total || !(memoAt((int) idx) instanceof String)) {
                        return handOver(n, memoIndex, at);
                    }
                    tag[n] = T_STR;
                    val[n++] = idx;
                }
                case 'K' -> {
                    if (end - p < 2) {
                        return handOver(n, memoIndex, at);
                    }
                    tag[n] = T_LONG;
                    val[n++] = buf[p + 1] & 0xff;
                    p += 2;
                }
                case 'M' -> {
                    if (end - p < 3) {
                        return handOver(n, memoIndex, at);
                    }
                    tag[n] = T_LONG;
                    val[n++] = (buf[p + 1] & 0xff) | (buf[p + 2] & 0xff) << 8;
                    p += 3;
                }
                case 'J' -> {
                    if (end - p < 5) {
                        return handOver(n, memoIndex, at);
                    }
                    tag[n] = T_LONG;
                    val[n++] = le32(p + 1);
                    p += 5;
                }
                case 0x8a -> {
                    int len = end - p >= 2 ? buf[p + 1] & 0xff : 0;
                    if (len == 0 || len > 8 || end - p < 2 + len) {
                        return handOver(n, memoIndex, at);
                    }
                    long v = buf[p + 1 + len]; // sign-extended top byte
                    for (int i = len - 1; i >= 1; i--) {
                        v = v << 8 | (buf[p + 1 + i] & 0xff);
                    }
                    tag[n] = T_LONG;
                    val[n++] = v;
                    p += 2 + len;
                }
                case 'N' -> {
                    tag[n++] = T_NONE;
                    p++;
                }
                case 0x88 -> {
                    tag[n++] = T_TRUE;
                    p++;
                }
                case 0x89 -> {
                    tag[n++] = T_FALSE;
                    p++;
                }
                default -> {
                    return handOver(n, memoIndex, at);
                }
            }
        }
        if ((n & 1) != 0) {
            return handOver(n, memoIndex, p); // odd: the ordinary path says so with its offset
        }
        opStart = base + p; // the SETITEMS, as the ordinary path would name it
        pos = p + 1;
        FlatItems items = flatItems;
        items.n = n;
        Object result = placement.dict(null, items, opStart);
        if (result == null) {
            PyDict d = new PyDict();
            for (int i = 0; i < n; i += 2) {
                d.put(items.boxed(i), items.boxed(i + 1));
            }
            result = d;
        }
        push(result);
        if (memoIndex >= 0) {
            memoPut(memoIndex, result);
        }
        return true;
    }

    /**
     * Leaves the fast path at {@code p} (an opcode it does not take) in the state the opcodes one by
     * one would have reached there: the dict below a mark, the {@code n} items read so far above it,
     * the dict in its memo slot. Reading goes on from {@code p} the ordinary way.
     */
    private boolean handOver(int n, long memoIndex, int p) throws PickleFormatException {
        PyDict d = new PyDict();
        push(d);
        pushMark();
        for (int i = 0; i < n; i++) {
            switch (flatTag[i]) {
                case T_STR -> push(memoAt((int) flatVal[i]));
                case T_LONG -> pushLong(flatVal[i]);
                case T_NONE -> push(null);
                case T_TRUE -> push(Boolean.TRUE);
                default -> push(Boolean.FALSE);
            }
        }
        if (memoIndex >= 0) {
            memoPut(memoIndex, d);
        }
        pos = p;
        return true;
    }

    private int le32(int p) {
        return (buf[p] & 0xff) | (buf[p + 1] & 0xff) << 8 | (buf[p + 2] & 0xff) << 16 | (buf[p + 3] & 0xff) << 24;
    }

    /** Lets the consumer replace a value as it goes into a container, and in the memo slot it came from. */
    private Object place(Object v, Object container, Object key) throws PickleFormatException {
        if (placement == null || !(v instanceof PyDict || v instanceof PyList)) {
            return v; // atoms are never replaced
        }
        if (v instanceof PyDict d && d.replacement != null) {
            return d.replacement;
        }
        if (v instanceof PyList l && l.replacement != null) {
            return l.replacement;
        }
        Object r = placement.placed(v, container, key, opStart);
        if (r != v) {
            int slot = -1;
            if (v instanceof PyDict d) {
                slot = d.memo;
                d.replacement = r;
            } else if (v instanceof PyList l) {
                slot = l.memo;
                l.replacement = r;
            }
            if (slot >= 0 && memoAt(slot) == v) {
                memoSet(slot, r);
            }
        }
        return r;
    }

    // ---- stack ----

    private int floor() {
        return mp > 0 ? marks[mp - 1] : 0;
    }

    private void push(Object v) {
        if (sp == stack.length) {
            grow();
        }
        stack[sp++] = v;
    }

    private void pushLong(long v) {
        if (sp == stack.length) {
            grow();
        }
        longs[sp] = v;
        stack[sp++] = LONG;
    }

    private void grow() {
        stack = Arrays.copyOf(stack, sp * 2);
        longs = Arrays.copyOf(longs, sp * 2);
    }

    /** The value at {@code stack[i]}, an unboxed integer boxed. */
    private Object boxed(int i) {
        Object o = stack[i];
        return o == LONG ? (Object) longs[i] : o;
    }

    private Object pop() throws PickleFormatException {
        if (sp == 0 || (mp > 0 && marks[mp - 1] == sp)) {
            throw error("pop from an empty stack");
        }
        Object v = boxed(--sp);
        stack[sp] = null;
        return v;
    }

    private Object peek() throws PickleFormatException {
        if (sp == 0 || (mp > 0 && marks[mp - 1] == sp)) {
            throw error("the stack is empty");
        }
        return boxed(sp - 1);
    }

    private Object at(int i, String what) throws PickleFormatException {
        if (i < 0 || (mp > 0 && marks[mp - 1] > i)) {
            throw error(what + " has no target below its mark");
        }
        return boxed(i);
    }

    private void pushMark() {
        if (mp == marks.length) {
            marks = Arrays.copyOf(marks, mp * 2);
        }
        marks[mp++] = sp;
    }

    private int popMark() throws PickleFormatException {
        if (mp == 0) {
            throw error("no MARK on the stack");
        }
        return marks[--mp];
    }

    private void clear(int from) {
        Arrays.fill(stack, from, sp, null);
        sp = from;
    }

    private void tupleOfTop(int n) throws PickleFormatException {
        if (sp - floor() < n) {
            throw error("TUPLE" + n + " needs " + n + " values on the stack");
        }
        Object t = tuple(sp - n, sp);
        clear(sp - n);
        push(t);
    }

    private Object tuple(int from, int to) {
        Object[] t = new Object[to - from];
        for (int i = from; i < to; i++) {
            t[i - from] = boxed(i);
        }
        return Collections.unmodifiableList(Arrays.asList(t));
    }

    /** Puts the pairs {@code stack[m..sp)} into {@code d}; returns what the consumer put in its place, or null. */
    private Object putPairs(PyDict d, int m) throws PickleFormatException {
        if (d.replacement != null) { // before the item count: the fast path, holding only the stand-in, refuses it so too
            throw changedAfterRead(d.replacement);
        }
        if (((sp - m) & 1) != 0) {
            throw error("odd number of items for a dict (" + (sp - m) + ")");
        }
        for (int i = m; i < sp; i += 2) {
            Object k = key(boxed(i));
            stack[i] = k;
            if (stack[i + 1] != LONG) {
                stack[i + 1] = place(stack[i + 1], d, k);
            }
        }
        if (placement != null && d.isEmpty()) {
            stackItems.from = m;
            stackItems.to = sp;
            Object r = placement.dict(d, stackItems, opStart);
            if (r != null) {
                d.replacement = r;
                if (d.memo >= 0 && memoAt(d.memo) == d) {
                    memoSet(d.memo, r);
                }
                return r;
            }
        }
        for (int i = m; i < sp; i += 2) {
            d.put(stack[i], boxed(i + 1));
        }
        return null;
    }

    private PyList list(Object o, String what) throws PickleFormatException {
        if (o instanceof PyList l) {
            return l;
        }
        throw error(what + " on a " + typeName(o) + ", not a list");
    }

    private PyDict dict(Object o, String what) throws PickleFormatException {
        if (o instanceof PyDict d) {
            return d;
        }
        if (o instanceof StandIn s && s.pythonType().equals("dict")) {
            throw changedAfterRead(s); // a dict the fast path left as its stand-in
        }
        throw error(what + " on a " + typeName(o) + ", not a dict");
    }

    private PickleFormatException changedAfterRead(Object replacement) {
        return error("a dict is changed after it was read as " + (replacement instanceof StandIn s ? "a " + s.what() : typeName(replacement)));
    }

    @SuppressWarnings("unchecked")
    private Set<Object> set(Object o) throws PickleFormatException {
        if (o instanceof TreeSet<?> s) {
            return (Set<Object>) s;
        }
        throw error("ADDITEMS on a " + typeName(o) + ", not a set");
    }

    /** A dict key or set member: it must be hashable (atoms, or tuples of hashable values). */
    private Object key(Object k) throws PickleFormatException {
        if (k instanceof String) {
            return k;
        }
        if (!hashable(k, 0)) {
            throw error("unhashable dict key or set member of type " + typeName(k));
        }
        return k;
    }

    private static boolean hashable(Object k, int depth) {
        if (k == null || k instanceof String || k instanceof Long || k instanceof Boolean || k instanceof Double
                || k instanceof BigInteger) {
            return true;
        }
        if (depth < MAX_KEY_DEPTH && k instanceof List<?> l && !(k instanceof PyList)) {
            for (Object o : l) {
                if (!hashable(o, depth + 1)) {
                    return false;
                }
            }
            return true;
        }
        return false;
    }

    static String typeName(Object o) {
        if (o == LONG) {
            return "int";
        }
        return switch (o) {
            case null -> "None";
            case PyDict d when d.replacement != null -> typeName(d.replacement); // named as its stand-in, as the fast path sees it
            case PyList l when l.replacement != null -> typeName(l.replacement);
            case PyList l -> "list";
            case List<?> l -> "tuple";
            case Map<?, ?> m -> "dict";
            case Set<?> s -> "set";
            case String s -> "str";
            case Long l -> "int";
            case BigInteger b -> "int";
            case Double d -> "float";
            case Boolean b -> "bool";
            case byte[] b -> "bytes";
            case StandIn s -> s.pythonType() + " read as a " + s.what();
            default -> o.getClass().getSimpleName();
        };
    }

    // ---- memo ----

    private void memoPut(long index, Object v) throws PickleFormatException {
        if (index < 0 || index >= total) {
            throw error("memo index " + index + " is out of range for a pickle of " + total + " bytes");
        }
        int i = (int) index;
        Object val = v == null ? NONE : v;
        int p = i >>> MEMO_PAGE_BITS;
        if (p < memoPagesUsed) { // the common case: a slot in a page in use
            Object[] page = memoPages[p];
            if (page[i & (MEMO_PAGE - 1)] == null) {
                memoCount++;
            }
            page[i & (MEMO_PAGE - 1)] = val;
        } else {
            if (memoAt(i) == null) {
                memoCount++;
            }
            memoSet(i, val);
        }
        if (v instanceof PyDict d && d.memo < 0) {
            d.memo = i;
        } else if (v instanceof PyList l && l.memo < 0) {
            l.memo = i;
        }
    }

    private Object memoGet(long index) throws PickleFormatException {
        Object v = index < 0 || index >= total ? null : memoAt((int) index);
        if (v == null) {
            throw error("memo index " + index + " was never stored");
        }
        return v == NONE ? null : v;
    }

    /** The memo slot {@code i} (0 &lt;= i &lt; total), or null when it was never stored. */
    private Object memoAt(int i) {
        int p = i >>> MEMO_PAGE_BITS;
        if (p < memoPagesUsed) {
            return memoPages[p][i & (MEMO_PAGE - 1)];
        }
        return memoSparse == null ? null : memoSparse.get((long) i);
    }

    /**
     * Stores memo slot {@code i}. The next page in order is allocated only while the pages in use are
     * at least half full ({@code memoCount}), so pages never take more than about 8 bytes per slot
     * stored, whatever indices a pickle names; other slots go to the sparse map.
     */
    private void memoSet(int i, Object v) {
        int p = i >>> MEMO_PAGE_BITS;
        if (p == memoPagesUsed && memoCount >= (long) p * (MEMO_PAGE / 2)) {
            if (p == memoPages.length) {
                memoPages = Arrays.copyOf(memoPages, p * 2);
            }
            Object[] page = new Object[MEMO_PAGE];
            if (memoSparse != null) {
                var moved = memoSparse.subMap((long) p << MEMO_PAGE_BITS, (long) (p + 1) << MEMO_PAGE_BITS);
                for (var e : moved.entrySet()) {
                    page[(int) (e.getKey() & (MEMO_PAGE - 1))] = e.getValue();
                }
                moved.clear();
            }
            memoPages[memoPagesUsed++] = page;
        }
        if (p < memoPagesUsed) {
            memoPages[p][i & (MEMO_PAGE - 1)] = v;
        } else {
            if (memoSparse == null) {
                memoSparse = new java.util.TreeMap<>();
            }
            memoSparse.put((long) i, v);
        }
    }

    // ---- bytes ----

    /**
     * Makes {@code n} bytes available at {@code pos}, reading on from the channel; a request past the
     * end of the input is refused as truncated (or, with {@code op}, as a pickle without STOP).
     */
    private void fill(long n, boolean op) throws PickleFormatException {
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
        } catch (java.nio.channels.ClosedByInterruptException e) {
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
            progress.accept(base + lim);
        }
    }

    /**
     * Cancellation: the reading thread was interrupted (a user's cancel). Not a format error: a
     * {@link java.util.concurrent.CancellationException}; the read is abandoned and everything it held
     * becomes garbage. The thread's interrupt status is set again for the caller.
     */
    private java.util.concurrent.CancellationException cancelled() {
        Thread.currentThread().interrupt();
        return new java.util.concurrent.CancellationException(source + ": import cancelled after " + (base + lim) + " of " + total + " bytes");
    }

    private void need(long n) throws PickleFormatException {
        if (n > lim - pos) {
            fill(n, false);
        }
    }

    private int u8() throws PickleFormatException {
        if (pos >= lim) {
            fill(1, false);
        }
        return buf[pos++] & 0xff;
    }

    private int u16() throws PickleFormatException {
        need(2);
        int v = (buf[pos] & 0xff) | (buf[pos + 1] & 0xff) << 8;
        pos += 2;
        return v;
    }

    private int s32() throws PickleFormatException {
        need(4);
        int v = (buf[pos] & 0xff) | (buf[pos + 1] & 0xff) << 8 | (buf[pos + 2] & 0xff) << 16 | (buf[pos + 3] & 0xff) << 24;
        pos += 4;
        return v;
    }

    private long s32u() throws PickleFormatException {
        return s32() & 0xffffffffL;
    }

    private long u64() throws PickleFormatException {
        need(8);
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = v << 8 | (buf[pos + i] & 0xff);
        }
        pos += 8;
        return v;
    }

    private long u64be() throws PickleFormatException {
        need(8);
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = v << 8 | (buf[pos + i] & 0xff);
        }
        pos += 8;
        return v;
    }

    /** Checks a length read from the input against the bytes left (unsigned), then makes them available. */
    private int length(long n, String what) throws PickleFormatException {
        if (n < 0 || n > left()) {
            throw error(what + " length " + Long.toUnsignedString(n) + " exceeds the " + left() + " bytes left");
        }
        if (n > Integer.MAX_VALUE - 64) {
            throw error(what + " length " + n + " is larger than the 2 GiB one value may take");
        }
        need(n);
        return (int) n;
    }

    private String utf8(int n) {
        String s = ascii(n) ? new String(buf, pos, n, StandardCharsets.ISO_8859_1) : new String(buf, pos, n, StandardCharsets.UTF_8);
        pos += n;
        return placement != null && n <= 16 ? placement.canonical(s) : s;
    }

    private boolean ascii(int n) {
        for (int i = pos, end = pos + n; i < end; i++) {
            if (buf[i] < 0) {
                return false;
            }
        }
        return true;
    }

    private String latin1(int n) {
        String s = new String(buf, pos, n, StandardCharsets.ISO_8859_1);
        pos += n;
        return s;
    }

    private byte[] bytes(int n) {
        byte[] b = Arrays.copyOfRange(buf, pos, pos + n);
        pos += n;
        return b;
    }

    private Object longBytes(int n) throws PickleFormatException {
        if (n > left()) {
            need(n); // refused as truncated
        }
        if (n > MAX_INT_BYTES) {
            throw error("integer of " + n + " bytes is longer than the " + MAX_INT_BYTES + " this reader takes");
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
    private String line() throws PickleFormatException {
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

    private Object parseInt(String s) throws PickleFormatException {
        String t = s.strip();
        if (t.length() > MAX_TEXT_NUMBER) {
            throw error("integer text of " + t.length() + " digits is longer than " + MAX_TEXT_NUMBER);
        }
        try {
            BigInteger b = new BigInteger(t);
            return b.bitLength() < 64 ? (Object) b.longValue() : b;
        } catch (NumberFormatException e) {
            throw error("not an integer: '" + clip(s) + "'");
        }
    }

    private long parseIndex(String s) throws PickleFormatException {
        Object v = parseInt(s);
        if (v instanceof Long l) {
            return l;
        }
        throw error("memo index out of range: '" + clip(s) + "'");
    }

    private String quotedString(String s) throws PickleFormatException {
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

    private String rawUnicodeEscape(String s) throws PickleFormatException {
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

    private int hex(String s, int from, int digits) throws PickleFormatException {
        if (from + digits > s.length()) {
            throw error("truncated escape in a text string");
        }
        try {
            return (int) Long.parseLong(s.substring(from, from + digits), 16);
        } catch (NumberFormatException e) {
            throw error("bad hex escape in a text string");
        }
    }

    private static String clip(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "..." : s;
    }
}
