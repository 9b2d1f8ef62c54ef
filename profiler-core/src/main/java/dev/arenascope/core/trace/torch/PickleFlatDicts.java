package dev.arenascope.core.trace.torch;

/**
 * {@link PickleReader}'s fast path for a dict of atoms, the bulk of a snapshot (every stack frame):
 * the opcodes of such a dict are read in one loop over the bytes already in the window, its items kept
 * in primitive arrays, and handed to the {@link PicklePlacement} without building the dict. What it
 * leaves on the reader's stack and in its memo is exactly what the opcodes one by one would have left;
 * at anything it does not take it hands over to the ordinary path at that exact opcode (nothing read
 * twice). A dict of the same bytes as one read before whose stand-in the placement calls reusable (a
 * frame met again) is answered from {@link PickleBodies} without reading its items. {@code FastPathEquivalenceTest} checks the two paths give the same events or the same
 * refusal. One per reader, on the reading thread.
 */
final class PickleFlatDicts {
    private final PickleReader r;

    PickleFlatDicts(PickleReader r) {
        this.r = r;
    }

    /*
     * The fast path's items, in primitive arrays only: a reference stored into a long-lived array
     * costs G1 a card-marking barrier with a memory fence, and a snapshot has some 100 M such items.
     * A string is kept as its memo index.
     */
    private static final int FLAT_MAX = 32;
    /**
     * The most bytes a dict this path takes spans: a memo opcode, MARK, FLAT_MAX items of at most 10
     * bytes (LONG1 of 8), SETITEMS. The path starts only this far from the window's end (or in the
     * input's last bytes), so inside a file its checks against the window's end never fail: the JIT
     * sees them untaken and does not recompile the loop each time a new one is first met at some
     * window's end, as it did about ten times in the first second of a big import.
     */
    private static final int MARGIN = 5 + 1 + FLAT_MAX * 10 + 1;
    private static final byte T_STR = 0, T_LONG = 1, T_NONE = 2, T_TRUE = 3, T_FALSE = 4;
    private final byte[] flatTag = new byte[FLAT_MAX];
    private final long[] flatVal = new long[FLAT_MAX];
    private final FlatItems flatItems = new FlatItems();
    /** Bodies of dicts read before, with the placement's reusable stand-in for them. */
    private final PickleBodies bodies = new PickleBodies();

    private final class FlatItems implements PicklePlacement.Items {
        int n;

        @Override
        public int size() {
            return n;
        }

        @Override
        public Object at(int i) {
            return switch (flatTag[i]) {
                case T_STR -> r.memo.at((int) flatVal[i]);
                case T_LONG -> (i & 1) == 0 ? (Object) flatVal[i] : PickleReader.LONG; // keys boxed, values unboxed
                case T_NONE -> null;
                case T_TRUE -> Boolean.TRUE;
                default -> Boolean.FALSE;
            };
        }

        @Override
        public long longAt(int i) {
            return flatVal[i];
        }

        @Override
        public int memoSlot(int i) {
            return flatTag[i] == T_STR ? (int) flatVal[i] : -1;
        }

        @Override
        public long memoEpoch() {
            return r.memo.overwrites();
        }

        Object boxed(int i) {
            return flatTag[i] == T_LONG ? (Object) flatVal[i] : at(i);
        }
    }

    /**
     * Reads {@code EMPTY_DICT [MEMOIZE | BINPUT i | LONG_BINPUT i] MARK (key value)* SETITEMS} where every
     * key and value is a string fetched from the memo, an integer, None or a bool. Called just after
     * EMPTY_DICT; when the next opcodes (within the bytes already read) have that shape, they are read
     * here into primitive arrays (no reference stored: see flatTag) and given to the placement
     * without building the dict, and
     * the dict (or what the placement put in its place) ends up on the stack and in the memo exactly as
     * the opcodes one by one would have left it. At anything else (a fresh string, a container, a memo
     * slot that is empty or is the dict's own, more than 16 pairs, the input's end) the dict is built
     * and reading goes on the ordinary way from that opcode, with nothing read twice; false (nothing
     * read) when the opcodes after EMPTY_DICT are not a memo opcode and MARK, or start within
     * {@link #MARGIN} bytes of the window's end while more input follows.
     */
    boolean read() throws PickleFormatException {
        final PickleReader r = this.r;
        final byte[] buf = r.buf;
        final int end = r.lim;
        int p = r.pos;
        long memoIndex = -1;
        if (end - p < MARGIN && r.base + end < r.total || p >= end) {
            return false; // near the window's end, more input to come: the ordinary path (which refills the window) reads it
        }
        int op = buf[p] & 0xff;
        if (op == 0x94) {
            memoIndex = r.memo.count();
            p++;
        } else if (op == 'q' && end - p >= 2) {
            memoIndex = buf[p + 1] & 0xff;
            p += 2;
        } else if (op == 'r' && end - p >= 5) {
            memoIndex = r.le32(p + 1) & 0xffffffffL;
            p += 5;
        }
        if (memoIndex >= r.total || p >= end || buf[p] != '(') {
            return false;
        }
        p++;
        if (end - p >= PickleBodies.BODY_MAX) { // the same bytes as a dict read before?
            int hit = bodies.find(buf, p, r.memo.overwrites());
            if (hit >= 0 && memoIndex >= 0 && r.memo.at((int) memoIndex) == null) { // to an empty slot: none of the body's strings
                Object standIn = r.placement.reused(bodies.standIn(hit));
                r.pos = p + bodies.length(hit);
                r.opStart = r.base + r.pos - 1; // its SETITEMS
                r.push(standIn);
                r.memoPut(memoIndex, standIn);
                return true;
            }
        }
        final int body = p;
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
                        idx = r.le32(p + 1) & 0xffffffffL;
                        p += 5;
                    } else {
                        return handOver(n, memoIndex, at);
                    }
                    if (idx == memoIndex || idx >= r.total || !(r.memo.at((int) idx) instanceof String)) {
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
                    val[n++] = r.le32(p + 1);
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
        r.opStart = r.base + p; // the SETITEMS, as the ordinary path would name it
        r.pos = p + 1;
        FlatItems items = flatItems;
        items.n = n;
        Object result = r.placement.dict(null, items, r.opStart);
        if (result != null && end - body >= PickleBodies.BODY_MAX) {
            bodies.keep(buf, body, p + 1 - body, r.placement.reusable(result), r.memo.overwrites());
        }
        if (result == null) {
            PyDict d = new PyDict();
            for (int i = 0; i < n; i += 2) {
                d.put(items.boxed(i), items.boxed(i + 1));
            }
            result = d;
        }
        r.push(result);
        if (memoIndex >= 0) {
            r.memoPut(memoIndex, result);
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
        r.push(d);
        r.pushMark();
        for (int i = 0; i < n; i++) {
            switch (flatTag[i]) {
                case T_STR -> r.push(r.memo.at((int) flatVal[i]));
                case T_LONG -> r.pushLong(flatVal[i]);
                case T_NONE -> r.push(null);
                case T_TRUE -> r.push(Boolean.TRUE);
                default -> r.push(Boolean.FALSE);
            }
        }
        if (memoIndex >= 0) {
            r.memoPut(memoIndex, d);
        }
        r.pos = p;
        return true;
    }
}
