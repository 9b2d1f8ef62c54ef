package dev.arenascope.core.trace.torch;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.channels.FileChannel;
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
 * <p>Streaming: a file is read through a window of a few MiB, never whole; a {@link PicklePlacement} given
 * by a consumer in this package sees every value as it is placed into a list or dict and may put
 * something compact in its place (and in the memo), so a consumer holds only what it keeps.
 *
 * <p>Bad input never allocates beyond the input's size: every length is checked against the bytes that
 * remain before anything is allocated, memo indices are bounded by the input size, integers are at most
 * {@value #MAX_INT_BYTES} bytes (or {@value #MAX_TEXT_NUMBER} digits), and the reader is a single loop
 * over the opcodes (no recursion on the input's nesting), so it always ends. Not thread-safe; one
 * instance reads one input.
 *
 * <p>Rooms: this class is the opcode loop, the stack and the containers; the byte window and the
 * decoding of arguments are its superclass {@link PickleInput}; the memo's storage is
 * {@link PickleMemo}; the fast path for dicts of atoms is {@link PickleFlatDicts} (with its memory of
 * bodies already read, {@link PickleBodies}), and for lists of such dicts met again (frames lists)
 * {@link PickleFrameLists}; what a consumer sees
 * is {@link PicklePlacement}; Python type names and hashability are {@link PyTypes}.
 */
public final class PickleReader extends PickleInput {
    /** The longest decimal text (INT, LONG, FLOAT, GET, PUT opcodes) accepted, in characters. */
    public static final int MAX_TEXT_NUMBER = 4300;
    /** The longest binary integer (LONG1, LONG4) accepted, in bytes (a little under 4300 digits). */
    public static final int MAX_INT_BYTES = 1784;
    private static final int WINDOW = 4 << 20;
    /** Bytes kept ahead of each opcode in the window while the input goes on: a short string with its length byte and more. */
    private static final int SLACK = 320;

    /**
     * Stands on the stack for a 64-bit integer kept unboxed in {@code longs} at the same index (ints are
     * most of a snapshot's values; boxing each one was a third of the reader's garbage). Boxed only when
     * the integer goes into a container other than a dict a {@link PicklePlacement} takes whole.
     */
    static final Object LONG = new Object();
    private Object[] stack = new Object[64];
    private long[] longs = new long[64];
    private int sp;
    private final StackItems stackItems = new StackItems();

    /** {@code stack[from..to)} as {@link PicklePlacement.Items}. */
    private final class StackItems implements PicklePlacement.Items {
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

    private int[] marks = new int[16];
    private int mp;
    private static final Object NONE = new Object(); // None in the memo (null there means never stored)
    final PicklePlacement placement;
    private final boolean fast;

    final PickleMemo memo = new PickleMemo();
    private final PickleFlatDicts flat = new PickleFlatDicts(this);
    private final PickleFrameLists lists = new PickleFrameLists(this, flat);

    private PickleReader(byte[] data, FileChannel channel, long total, String source, PicklePlacement placement, LongConsumer progress,
                         boolean fast) {
        super(data, channel, total, source, progress);
        this.fast = fast;
        this.placement = placement;
    }

    /** Reads the pickle in {@code file}, streaming it through a window of a few MiB. */
    public static Object read(Path file) throws IOException {
        return read(file, null, null);
    }

    static Object read(Path file, PicklePlacement placement, LongConsumer progress) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            PickleReader r = new PickleReader(new byte[(int) Math.min(WINDOW, Math.max(64, size))], ch, size, file.toString(), placement, progress, true);
            Object read = r.run();
            r.reportEnd();
            return read;
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

    static Object read(byte[] data, String source, PicklePlacement placement) throws PickleFormatException {
        return read(data, source, placement, true);
    }

    /** As {@link #read(byte[], String, PicklePlacement)}; {@code fast} false reads every dict opcode by opcode (tests compare the two). */
    static Object read(byte[] data, String source, PicklePlacement placement, boolean fast) throws PickleFormatException {
        try {
            return new PickleReader(data, null, data.length, source, placement, null, fast).run();
        } catch (PickleFormatException e) {
            throw e;
        } catch (IOException e) {
            throw new PickleFormatException(source, 0, e.getMessage()); // not reached: no channel
        }
    }

    private Object run() throws IOException {
        while (true) {
            if (lim - pos < SLACK) {
                // the window is topped up before an opcode gets near its end, so the argument reads'
                // own refills (rare events the JIT first meets late, recompiling this loop each time)
                // happen only at the input's end
                if (base + lim < total) {
                    fill(Math.min(SLACK, left()), false);
                }
                if (pos >= lim) {
                    fill(1, true); // the input's end: refused as truncated
                }
            }
            opStart = base + pos;
            int op = buf[pos++] & 0xff;
            // the opcodes of a snapshot's bulk, kept in a small loop (the JIT compiles it quickly and
            // recompiles it cheaply); the others are in cold()
            switch (op) {
                case 'h' -> push(memoGet(u8())); // BINGET
                case 'j' -> push(memoGet(s32u())); // LONG_BINGET
                case 0x94 -> memoPut(memo.count(), peek()); // MEMOIZE
                case '(' -> pushMark();
                case '}' -> {
                    if (placement == null || !fast || !flat.read()) {
                        push(new PyDict());
                    }
                }
                case ']' -> {
                    if (placement == null || !fast || !lists.read()) {
                        push(new PyList());
                    }
                }
                case 'K' -> pushLong(u8());
                case 'M' -> pushLong(u16());
                case 'J' -> pushLong(s32());
                case 0x8a -> long1();
                case 'u' -> setItems();
                case 'e' -> appends();
                case 0x8c -> push(str(length(u8(), "SHORT_BINUNICODE")));
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

    /**
     * APPENDS of values the placement gave already (its stand-ins, never a dict, a list or an unboxed
     * integer), as {@link #appends} leaves it without handing each to the placement again: {@link #place}
     * would look at each stand-in's class, a load from an object met nowhere else on this path.
     */
    void appendsPlaced() throws PickleFormatException {
        int m = popMark();
        PyList l = list(at(m - 1, "APPENDS"), "APPENDS");
        l.ensureCapacity(l.size() + sp - m);
        for (int i = m; i < sp; i++) {
            l.add(stack[i]);
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
                    throw error("the file ends early (truncated or damaged): a FRAME of " + Long.toUnsignedString(len)
                            + " bytes announced, " + left() + " bytes left");
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
            case 'X' -> push(str(length(s32u(), "BINUNICODE")));
            case 0x8d -> push(str(length(u64(), "BINUNICODE8")));
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

    /** A UTF-8 string of {@code n} bytes at {@code pos}; a short one as the consumer's canonical instance. */
    private String str(int n) {
        String s = utf8(n);
        return placement != null && n <= 16 ? placement.canonical(s) : s;
    }

    private PickleFormatException refused(String name, int op, String why) {
        return error(String.format("opcode %s (0x%02x) %s; refused (only plain data pickles are read)", name, op, why));
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
            if (slot >= 0 && memo.at(slot) == v) {
                memo.set(slot, r);
            }
        }
        return r;
    }

    // ---- stack ----

    private int floor() {
        return mp > 0 ? marks[mp - 1] : 0;
    }

    void push(Object v) {
        if (sp == stack.length) {
            grow();
        }
        stack[sp++] = v;
    }

    void pushLong(long v) {
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

    /** Values on the stack (for the fast paths' checks). */
    int depth() {
        return sp;
    }

    /** Marks on the stack. */
    int marks() {
        return mp;
    }

    /** The value on top of the stack, as stored (an unboxed integer is {@link #LONG}). */
    Object top() {
        return stack[sp - 1];
    }

    void pushMark() {
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
            if (stack[i] == LONG) {
                stack[i] = k; // an integer key, boxed (a slot is written only when it changes: each write to this long-lived array costs the collector a barrier)
            }
            Object v = stack[i + 1];
            if (v != LONG) {
                Object p = place(v, d, k);
                if (p != v) {
                    stack[i + 1] = p;
                }
            }
        }
        if (placement != null && d.isEmpty()) {
            stackItems.from = m;
            stackItems.to = sp;
            Object r = placement.dict(d, stackItems, opStart);
            if (r != null) {
                d.replacement = r;
                if (d.memo >= 0 && memo.at(d.memo) == d) {
                    memo.set(d.memo, r);
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
        throw error(what + " on a " + PyTypes.typeName(o) + ", not a list");
    }

    private PyDict dict(Object o, String what) throws PickleFormatException {
        if (o instanceof PyDict d) {
            return d;
        }
        if (o instanceof PicklePlacement.StandIn s && s.pythonType().equals("dict")) {
            throw changedAfterRead(s); // a dict the fast path left as its stand-in
        }
        throw error(what + " on a " + PyTypes.typeName(o) + ", not a dict");
    }

    private PickleFormatException changedAfterRead(Object replacement) {
        return error("a dict is changed after it was read as " + (replacement instanceof PicklePlacement.StandIn s ? "a " + s.what() : PyTypes.typeName(replacement)));
    }

    @SuppressWarnings("unchecked")
    private Set<Object> set(Object o) throws PickleFormatException {
        if (o instanceof TreeSet<?> s) {
            return (Set<Object>) s;
        }
        throw error("ADDITEMS on a " + PyTypes.typeName(o) + ", not a set");
    }

    /** A dict key or set member: it must be hashable (atoms, or tuples of hashable values). */
    private Object key(Object k) throws PickleFormatException {
        if (k instanceof String) {
            return k;
        }
        if (!PyTypes.hashable(k)) {
            throw error("unhashable dict key or set member of type " + PyTypes.typeName(k));
        }
        return k;
    }

    // ---- memo ----

    void memoPut(long index, Object v) throws PickleFormatException {
        if (index < 0 || index >= total) {
            throw error("memo index " + index + " is out of range for a pickle of " + total + " bytes");
        }
        int i = (int) index;
        memo.put(i, v == null ? NONE : v);
        if (v instanceof PyDict d && d.memo < 0) {
            d.memo = i;
        } else if (v instanceof PyList l && l.memo < 0) {
            l.memo = i;
        }
    }

    private Object memoGet(long index) throws PickleFormatException {
        Object v = index < 0 || index >= total ? null : memo.at((int) index);
        if (v == null) {
            throw error("memo index " + index + " was never stored");
        }
        return v == NONE ? null : v;
    }

}
