package dev.arenascope.core.trace.torch;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import dev.arenascope.core.util.KeyIds;

/**
 * The stack frames of a snapshot, interned as they are met: each distinct frame (function, file,
 * line) and each distinct stack (a sequence of frames) gets a small id. The pickle's memo already
 * shares identical frame dicts; the reader replaces each shared dict by its id the first time it is
 * placed, so a frame is looked at once however often stacks repeat it.
 *
 * <p>Memory is linear in what is distinct and holds no object per frame or stack beyond its stand-in:
 * function and file names are kept once each (a string id), a frame is two longs in a {@link KeyIds}
 * table (the name and file ids; the line) and a stack is its run of frame ids in one pool of int
 * pages, found
 * again by a seeded open-addressing hash over the run (an input cannot aim its stacks at one run of
 * slots). About 50 bytes a distinct frame and 4 bytes a frame of a distinct stack plus 30 a stack;
 * nothing per trace entry.
 *
 * <p>Frames whose function is a C++ internal of PyTorch's capture ({@code torch::unwind},
 * {@code CapturedTraceback}, {@code c10::}, {@code at::}) are marked {@link #internal}.
 *
 * <p>Bad input: a frame name or file name past {@value #MAX_FRAME_TEXT} characters, a line that is not
 * a 64-bit integer, or more than {@value #MAX_POOL} frames in all distinct stacks together (a snapshot
 * of tens of GB), is refused. Not thread-safe.
 */
final class StackTable {
    /** The longest function or file name a frame may carry, in characters. */
    static final int MAX_FRAME_TEXT = 4096;
    /** The most frames the distinct stacks may hold together (the flat array's limit). */
    static final int MAX_POOL = Integer.MAX_VALUE - 16;

    /** A frame's id, standing in for its dict in lists and in the memo. */
    record FrameRef(int id) implements PicklePlacement.StandIn {
        @Override
        public String pythonType() {
            return "dict";
        }

        @Override
        public String what() {
            return "stack frame";
        }
    }

    /** A stack's id, standing in for its frames list in dicts and in the memo. */
    record StackRef(int id) implements PicklePlacement.StandIn {
        @Override
        public String pythonType() {
            return "list";
        }

        @Override
        public String what() {
            return "stack";
        }
    }

    // ---- strings: a function or file name, once each
    private Map<String, Integer> textIds = new HashMap<>();
    private String[] texts = new String[64];
    /**
     * Per text: {@link #INTERNAL_NAME} when, as a function name, it is PyTorch's capture machinery
     * ({@link #isInternal}), {@link #NOT_PYTHON} when, as a file name, it is not a Python file. Decided
     * once per distinct text, not per frame: a snapshot's millions of frames share a few hundred names.
     */
    private byte[] textFlags = new byte[64];
    private int textCount;
    private static final byte INTERNAL_NAME = 1, NOT_PYTHON = 2;

    // ---- the text id of the string in each memo slot a frame's name or file came from (id + 1; 0 = not
    // seen), in pages of SLOT_PAGE slots allocated as slots are seen, valid while the memo's overwrites are
    // slotEpoch: a frame dict naming its strings by memo slot (as PyTorch's pickler writes every one after
    // the first) finds its text ids without a hash lookup of each string. At most 4 bytes a memo slot.
    private static final int SLOT_BITS = 14;
    private static final int SLOT_PAGE = 1 << SLOT_BITS;
    private static final int SLOT_MASK = SLOT_PAGE - 1;
    private int[][] slotTexts = new int[16][];
    private long slotEpoch = -1;

    // ---- frames: (name id << 32 | file id, line) in a KeyIds table; a frame's id is its id there. The
    // table only stores them (appended, no index of its own): they are found through frameSlots, an
    // open-addressing index holding each key beside its id, so a lookup that finds its frame reads one
    // slot of 16 bytes (one cache line) rather than an index slot and then the key elsewhere in memory.
    // Slot i is frameSlots[2i] = name id << 32 | file id and frameSlots[2i + 1] = line << 32 | (id + 1)
    // (0 = empty), for a line that fits an int; a frame whose line does not (none in PyTorch's files) is
    // found through wideFrames instead. On a snapshot whose 15 M frame dicts name 2.2 M frames drawn in
    // no order, the lookup is a miss in memory each time: two misses a lookup were about half of the read.
    // slotRefs[i] is the stand-in of the frame in slot i: read at the slot's index, not at the frame's id,
    // its miss overlaps the slot's instead of waiting for the id the slot holds (frameRefs by id serves
    // reused stand-ins, read only when a frame is met again without a lookup).
    private final KeyIds frameKeys = new KeyIds(2);
    private long[] frameSlots = new long[2 * 64];
    private FrameRef[] slotRefs = new FrameRef[64];
    private int frameSlotsUsed;
    private KeyIds wideFrames;
    private int[] wideFrameIds;
    private FrameRef[] frameRefs = new FrameRef[64];

    // ---- stacks: stack s is frames start[s] .. start[s + 1] of the pool; 0 is the empty stack. The pool
    // is kept in pages of POOL_PAGE frame ids (position q at pool[q >>> POOL_BITS][q & POOL_MASK], a run
    // may cross a page's end), so it never copies itself to grow: at 1 M all-distinct allocations the
    // copies of one flat array were some 120 MB of garbage that a serial collector promotes and keeps.
    static final int POOL_BITS = 16;
    static final int POOL_PAGE = 1 << POOL_BITS;
    private static final int POOL_MASK = POOL_PAGE - 1;
    private int[][] pool = new int[16][];
    // Each stack's start, hash and stand-in likewise in pages of ROW_PAGE stacks (a stack's start at
    // starts[s >>> ROW_BITS][s & ROW_MASK]): at 2 M distinct stacks, three arrays grown by half each time
    // they filled left ~60 MB of old copies.
    static final int ROW_BITS = 14;
    static final int ROW_PAGE = 1 << ROW_BITS;
    private static final int ROW_MASK = ROW_PAGE - 1;
    private int[][] starts = {new int[ROW_PAGE]};
    private int[][] hashes = {new int[ROW_PAGE]};
    private StackRef[][] stackRefs = {new StackRef[ROW_PAGE]};
    private int stackCount;
    /** Stack id + 1 per slot; 0 = empty. */
    private int[] stackSlots = new int[1024];
    private final long seed = ThreadLocalRandom.current().nextLong() | 1;

    StackTable() {
        stackRefs[0][0] = new StackRef(0);
        stackCount = 1; // start[0] = start[1] = 0: the empty stack
    }

    private int textId(String s) {
        Integer id = textIds.get(s);
        if (id == null) {
            id = textCount++;
            if (id == texts.length) {
                texts = Arrays.copyOf(texts, id * 2);
                textFlags = Arrays.copyOf(textFlags, id * 2);
            }
            texts[id] = s;
            textFlags[id] = (byte) ((isInternal(s) ? INTERNAL_NAME : 0) | (s.endsWith(".py") ? 0 : NOT_PYTHON));
            textIds.put(s, id);
        }
        return id;
    }

    /**
     * The frame held by a frame dict ({@code name}, {@code filename}, {@code line}); a {@code line} of
     * {@link PickleReader#LONG} is the integer {@code lineValue}.
     */
    FrameRef frame(Object name, Object file, Object line, long lineValue, String source, long offset) throws PickleFormatException {
        return frame(name, file, line, lineValue, -1, -1, -1, source, offset);
    }

    /**
     * As {@link #frame(Object, Object, Object, long, String, long)}, the name and file fetched from memo slots
     * {@code nameSlot} and {@code fileSlot} (-1: not from the memo) while the memo's overwrites were
     * {@code epoch}: a slot whose string was seen before gives its text id at once (one load from a page of
     * ints), without hashing the string or checking it again.
     */
    FrameRef frame(Object name, Object file, Object line, long lineValue, int nameSlot, int fileSlot, long epoch, String source, long offset)
            throws PickleFormatException {
        long l;
        if (line == PickleReader.LONG) {
            l = lineValue;
        } else if (line == null) {
            l = -1;
        } else if (line instanceof Long v) {
            l = v;
        } else {
            throw new PickleFormatException(source, offset, "a stack frame's 'line' is a "
                    + (line instanceof BigInteger b ? "integer of " + b.bitLength() + " bits" : PyTypes.typeName(line))
                    + ", not a 64-bit integer");
        }
        if ((nameSlot >= 0 || fileSlot >= 0) && epoch != slotEpoch) { // a memo slot was overwritten: what the slots held may have changed
            Arrays.fill(slotTexts, null);
            slotEpoch = epoch;
        }
        int nameId = slotText(nameSlot);
        if (nameId < 0) {
            nameId = textId(text(name, "name", source, offset));
            noteSlotText(nameSlot, nameId);
        }
        int fileId = slotText(fileSlot);
        if (fileId < 0) {
            fileId = textId(text(file, "filename", source, offset));
            noteSlotText(fileSlot, fileId);
        }
        long key = (long) nameId << 32 | (fileId & 0xFFFF_FFFFL);
        FrameRef f;
        if (l == (int) l) {
            f = frameOf(key, (int) l);
        } else {
            int before = frameKeys.size();
            int id = wideFrameId(key, l);
            f = id == before ? newFrameRef(id) : frameRefs[id];
        }
        lastFrame = f; // one instance per frame: the memo slots holding it cost a reference each
        lastFrameId = f.id();
        return f;
    }

    /** The stand-in of new frame {@code id}. */
    private FrameRef newFrameRef(int id) {
        if (id == frameRefs.length) {
            frameRefs = Arrays.copyOf(frameRefs, id * 2);
        }
        return frameRefs[id] = new FrameRef(id);
    }

    /** The stand-in {@link #frame} returned last, and its id. */
    private FrameRef lastFrame;
    private int lastFrameId;

    /**
     * The id of frame stand-in {@code standIn}, or -1 when it is not one. The stand-in just returned is
     * known without reading it: on a snapshot of millions of distinct frames each is a cache miss.
     */
    int idOf(Object standIn) {
        if (standIn == lastFrame && standIn != null) {
            return lastFrameId;
        }
        return standIn instanceof FrameRef f ? f.id() : -1;
    }

    /** The text id of the string memo slot {@code slot} held when it was last seen here, or -1 (not seen, or -1). */
    private int slotText(int slot) {
        if (slot < 0) {
            return -1;
        }
        int p = slot >>> SLOT_BITS;
        int[] page = p < slotTexts.length ? slotTexts[p] : null;
        return page == null ? -1 : page[slot & SLOT_MASK] - 1;
    }

    private void noteSlotText(int slot, int textId) {
        if (slot < 0) {
            return;
        }
        int p = slot >>> SLOT_BITS;
        if (p >= slotTexts.length) {
            slotTexts = Arrays.copyOf(slotTexts, Math.max(p + 1, 2 * slotTexts.length));
        }
        if (slotTexts[p] == null) {
            slotTexts[p] = new int[SLOT_PAGE];
        }
        slotTexts[p][slot & SLOT_MASK] = textId + 1;
    }

    private long frameHash(long key, int line) {
        long x = (key ^ seed) * 0x9E3779B97F4A7C15L ^ (line * 0xC2B2AE3D27D4EB4FL);
        x ^= x >>> 32;
        x *= 0xD6E8FEB86659FD93L;
        return x ^ x >>> 29;
    }

    /** The stand-in of the frame (key, line), a new frame (appended to frameKeys) if it has none. */
    private FrameRef frameOf(long key, int line) {
        final long[] t = frameSlots;
        final FrameRef[] refs = slotRefs;
        final int mask = refs.length - 1;
        final long tag = (long) line << 32;
        for (int i = (int) frameHash(key, line) & mask; ; i = (i + 1) & mask) {
            FrameRef ref = refs[i]; // its address needs only i: fetched while the slot is
            long b = t[2 * i + 1];
            if (b == 0) {
                int id = frameKeys.append(key, line);
                t[2 * i] = key;
                t[2 * i + 1] = tag | (id + 1L);
                FrameRef f = refs[i] = newFrameRef(id);
                if (++frameSlotsUsed * 3L > 2L * (mask + 1)) { // two thirds full: doubled
                    growFrameSlots();
                }
                return f;
            }
            if ((b & 0xFFFF_FFFF_0000_0000L) == tag && t[2 * i] == key) {
                return ref;
            }
        }
    }

    private void growFrameSlots() {
        long[] old = frameSlots;
        FrameRef[] oldRefs = slotRefs;
        long[] t = new long[2 * old.length];
        FrameRef[] refs = new FrameRef[2 * oldRefs.length];
        int mask = refs.length - 1;
        for (int j = 0; j < old.length; j += 2) {
            long b = old[j + 1];
            if (b != 0) {
                int i = (int) frameHash(old[j], (int) (b >> 32)) & mask;
                while (t[2 * i + 1] != 0) {
                    i = (i + 1) & mask;
                }
                t[2 * i] = old[j];
                t[2 * i + 1] = b;
                refs[i] = oldRefs[j >>> 1];
            }
        }
        frameSlots = t;
        slotRefs = refs;
    }

    /** The id of the frame (key, line), as {@link #frameOf} finds it, for a line that does not fit an int. */
    private int wideFrameId(long key, long line) {
        if (wideFrames == null) {
            wideFrames = new KeyIds(2);
            wideFrameIds = new int[16];
        }
        int before = wideFrames.size();
        int w = wideFrames.intern(key, line);
        if (w < before) {
            return wideFrameIds[w];
        }
        if (w == wideFrameIds.length) {
            wideFrameIds = Arrays.copyOf(wideFrameIds, 2 * w);
        }
        return wideFrameIds[w] = frameKeys.append(key, line);
    }

    private static String text(Object o, String what, String source, long offset) throws PickleFormatException {
        if (o == null) {
            return "";
        }
        if (o instanceof String s) {
            if (s.length() > MAX_FRAME_TEXT) {
                throw new PickleFormatException(source, offset, "a stack frame's '" + what + "' of " + s.length()
                        + " characters is longer than the " + MAX_FRAME_TEXT + " a frame may have");
            }
            return s;
        }
        throw new PickleFormatException(source, offset, "a stack frame's '" + what + "' is a " + PyTypes.typeName(o) + ", not a str");
    }

    /** Whether a function name is PyTorch's C++ capture machinery rather than the program's code. */
    static boolean isInternal(String name) {
        return name.contains("torch::unwind") || name.contains("CapturedTraceback") || name.startsWith("c10::")
                || name.startsWith("at::") || name.contains(" c10::") || name.contains(" at::");
    }

    private int[] scratch = new int[16];

    private int stackHash(int[] ids, int from, int n) {
        long h = seed ^ n;
        for (int i = from; i < from + n; i++) {
            h = (h ^ ids[i]) * 0x9E3779B97F4A7C15L;
            h ^= h >>> 31;
        }
        h *= 0xBF58476D1CE4E5B9L;
        return (int) (h ^ (h >>> 32));
    }

    /** The stack of frames {@code ids[0..n)} (frame ids of this table), innermost first. */
    StackRef stack(int[] ids, int n, String source, long offset) throws PickleFormatException {
        if (n == 0) {
            return stackRefs[0][0];
        }
        int hash = stackHash(ids, 0, n);
        int mask = stackSlots.length - 1;
        int h = hash & mask;
        for (; stackSlots[h] != 0; h = (h + 1) & mask) {
            int id = stackSlots[h] - 1;
            if (hashes[id >>> ROW_BITS][id & ROW_MASK] == hash && depth(id) == n && poolEquals(start(id), ids, n)) {
                return stackRef(id);
            }
        }
        int end = start(stackCount);
        if ((long) end + n > MAX_POOL) {
            throw new PickleFormatException(source, offset, "the snapshot's distinct stacks hold more than " + MAX_POOL
                    + " frames together; refused");
        }
        poolWrite(end, ids, n);
        int id = stackCount++;
        int p = stackCount >>> ROW_BITS; // the page of start[id + 1]; that of id's hash and stand-in is the same or the one before
        if (p == starts.length) {
            starts = Arrays.copyOf(starts, 2 * p);
            hashes = Arrays.copyOf(hashes, 2 * p);
            stackRefs = Arrays.copyOf(stackRefs, 2 * p);
        }
        if (starts[p] == null) {
            starts[p] = new int[ROW_PAGE];
            hashes[p] = new int[ROW_PAGE];
            stackRefs[p] = new StackRef[ROW_PAGE];
        }
        starts[p][stackCount & ROW_MASK] = end + n;
        hashes[id >>> ROW_BITS][id & ROW_MASK] = hash;
        StackRef ref = new StackRef(id);
        stackRefs[id >>> ROW_BITS][id & ROW_MASK] = ref;
        stackSlots[h] = id + 1;
        if (2 * stackCount > stackSlots.length) {
            rehashStacks();
        }
        return ref;
    }

    /** Where stack {@code id} starts in the pool ({@code id <= stackCount}: the end of the last one). */
    private int start(int id) {
        return starts[id >>> ROW_BITS][id & ROW_MASK];
    }

    /** Whether the pool from position {@code q} holds {@code ids[0..n)}. */
    private boolean poolEquals(int q, int[] ids, int n) {
        for (int i = 0; i < n; ) {
            int[] page = pool[q >>> POOL_BITS];
            int at = q & POOL_MASK, k = Math.min(n - i, POOL_PAGE - at);
            if (!Arrays.equals(page, at, at + k, ids, i, i + k)) {
                return false;
            }
            i += k;
            q += k;
        }
        return true;
    }

    /** Writes {@code ids[0..n)} to the pool from position {@code q} (its end), adding pages as it needs them. */
    private void poolWrite(int q, int[] ids, int n) {
        for (int i = 0; i < n; ) {
            int p = q >>> POOL_BITS;
            if (p == pool.length) {
                pool = Arrays.copyOf(pool, 2 * p);
            }
            if (pool[p] == null) {
                pool[p] = new int[POOL_PAGE];
            }
            int at = q & POOL_MASK, k = Math.min(n - i, POOL_PAGE - at);
            System.arraycopy(ids, i, pool[p], at, k);
            i += k;
            q += k;
        }
    }

    /** Doubles the stack index. */
    private void rehashStacks() {
        stackSlots = new int[stackSlots.length * 2];
        int mask = stackSlots.length - 1;
        for (int id = 1; id < stackCount; id++) {
            int h = hashes[id >>> ROW_BITS][id & ROW_MASK] & mask;
            while (stackSlots[h] != 0) {
                h = (h + 1) & mask;
            }
            stackSlots[h] = id + 1;
        }
    }

    /** The stack of a list of frame refs (tests: frame ids innermost first). */
    StackRef stack(int[] frameIds) {
        try {
            return stack(frameIds, frameIds.length, "", 0);
        } catch (PickleFormatException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The stack of a frames list whose elements are {@link FrameRef}s; any other element is refused
     * ({@link PickleFormatException} at {@code offset}).
     */
    StackRef stack(List<?> list, String source, long offset) throws PickleFormatException {
        int n = list.size();
        if (n > scratch.length) {
            scratch = new int[Math.max(n, 2 * scratch.length)];
        }
        final int[] ids = scratch;
        for (int i = 0; i < n; i++) {
            if (list.get(i) instanceof FrameRef f) {
                ids[i] = f.id();
            } else {
                throw new PickleFormatException(source, offset, "a stack's frame " + i + " is a " + PyTypes.typeName(list.get(i))
                        + ", not a dict of name, filename and line");
            }
        }
        return stack(ids, n, source, offset);
    }

    /** Frees what only reading needed (the indexes and the stand-ins); the frames and stacks stay readable. */
    void doneReading() {
        stackSlots = new int[1];
        textIds = null; // no frame is added now: the ids stay in the frames' keys
        slotTexts = null;
        frameSlots = null;
        slotRefs = null;
        wideFrames = null;
        wideFrameIds = null;
        frameKeys.trim();
        // the pool and the starts keep their last page's room: a trimmed copy of a flat array, made
        // when it is largest, was more garbage than the room it gave back (1 M all-distinct
        // allocations, serial collector: 1,884 MiB peak resident with the copies, 1,689 without)
        hashes = null;
        frameRefs = null;
        lastFrame = null;
        stackRefs = null;
        scratch = null;
    }

    /** The stand-in of stack {@code id} (one instance per stack). */
    StackRef stackRef(int id) {
        return stackRefs[id >>> ROW_BITS][id & ROW_MASK];
    }

    /** The stand-in of frame {@code id} (one instance per frame). */
    FrameRef frameRef(int id) {
        return frameRefs[id];
    }

    /** Frames in all distinct stacks together (a bound on the site-trie nodes they make). */
    int poolSize() {
        return start(stackCount);
    }

    int frameCount() {
        return frameKeys.size();
    }

    int stackCount() {
        return stackCount;
    }

    /** Frames in stack {@code id}. */
    int depth(int id) {
        return start(id + 1) - start(id);
    }

    /** Frame {@code i} of stack {@code id}, innermost first (0 the innermost, as PyTorch lists them). */
    int frameAt(int id, int i) {
        int q = start(id) + i;
        return pool[q >>> POOL_BITS][q & POOL_MASK];
    }

    /** The frames of stack {@code id}, outermost last as PyTorch lists them (0 is the empty stack); a copy. */
    int[] frames(int id) {
        int[] f = new int[depth(id)];
        for (int i = 0; i < f.length; i++) {
            f[i] = frameAt(id, i);
        }
        return f;
    }

    String name(int frame) {
        return texts[nameText(frame)];
    }

    String file(int frame) {
        return texts[fileText(frame)];
    }

    /** The text id of frame {@code frame}'s function name ({@link #text(int)}: the same id, the same string). */
    int nameText(int frame) {
        return (int) (frameKeys.key(frame) >>> 32);
    }

    /** The text id of frame {@code frame}'s file name. */
    int fileText(int frame) {
        return (int) frameKeys.key(frame);
    }

    /** Distinct function and file names: text ids are {@code 0 .. textCount() - 1}. */
    int textCount() {
        return textCount;
    }

    /** The function or file name of text id {@code text}. */
    String textOf(int text) {
        return texts[text];
    }

    long line(int frame) {
        return frameKeys.key2(frame);
    }

    /** Whether frame {@code frame}'s function is PyTorch's capture machinery ({@link #isInternal}). */
    boolean internal(int frame) {
        return (textFlags[nameText(frame)] & INTERNAL_NAME) != 0;
    }

    /**
     * Whether frame {@code frame} is the runtime's rather than the program's: PyTorch's capture
     * machinery ({@link #internal}), or any frame outside a Python file (the interpreter's own
     * {@code _PyEval_EvalFrameDefault}, {@code THPVariable_dealloc}, ... with {@code stacks="all"}).
     */
    boolean runtime(int frame) {
        return (textFlags[nameText(frame)] & INTERNAL_NAME) != 0 || (textFlags[fileText(frame)] & NOT_PYTHON) != 0;
    }

    /** A frame as one line of text: {@code name at file:line}. */
    String text(int frame) {
        long l = line(frame);
        return name(frame) + " at " + file(frame) + ":" + (l < 0 ? "?" : Long.toString(l));
    }
}
