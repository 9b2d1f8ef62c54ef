package dev.arenascope.core.trace.torch;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The stack frames of a snapshot, interned as they are met: each distinct frame (function, file,
 * line) and each distinct stack (a sequence of frames) gets a small id. The pickle's memo already
 * shares identical frame dicts; the reader replaces each shared dict by its id the first time it is
 * placed, so a frame is looked at once however often stacks repeat it.
 *
 * <p>Frames whose function is a C++ internal of PyTorch's capture ({@code torch::unwind},
 * {@code CapturedTraceback}, {@code c10::}, {@code at::}) are marked {@link #internal}.
 *
 * <p>Keys are ordered values ({@link Comparable}), so a {@link HashMap} keeps lookups O(log n) even
 * when an input makes hash codes collide. Bad input: a frame name or file name past
 * {@value #MAX_FRAME_TEXT} characters, or a line that is not a 64-bit integer, is refused. Not
 * thread-safe.
 */
final class StackTable {
    /** The longest function or file name a frame may carry, in characters. */
    static final int MAX_FRAME_TEXT = 4096;

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

    private record FrameKey(String name, String file, long line) implements Comparable<FrameKey> {
        @Override
        public int compareTo(FrameKey o) {
            int c = name.compareTo(o.name);
            if (c == 0) {
                c = file.compareTo(o.file);
            }
            return c != 0 ? c : Long.compare(line, o.line);
        }
    }

    private record StackKey(int[] frames) implements Comparable<StackKey> {
        @Override
        public boolean equals(Object o) {
            return o instanceof StackKey k && Arrays.equals(frames, k.frames);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(frames);
        }

        @Override
        public int compareTo(StackKey o) {
            return Arrays.compare(frames, o.frames);
        }
    }

    private final Map<FrameKey, Integer> frameIds = new HashMap<>();
    private final Map<StackKey, Integer> stackIds = new HashMap<>();
    private String[] names = new String[64];
    private String[] files = new String[64];
    private long[] lines = new long[64];
    private boolean[] internal = new boolean[64];
    private int frames;
    private int[][] stacks = new int[64][];
    private FrameRef[] frameRefs = new FrameRef[64];
    private StackRef[] stackRefs = new StackRef[64];
    private int stackCount;
    private static final int[] EMPTY = new int[0];

    StackTable() {
        stackIds.put(new StackKey(EMPTY), 0);
        stacks[0] = EMPTY;
        stackRefs[0] = new StackRef(0);
        stackCount = 1;
    }

    /*
     * A cache in front of frameIds keyed by the identity of the name and file strings: a pickle shares
     * each distinct string through its memo, so a frame dict written again (the same function, file and
     * line in another stack) finds its frame here without building a key or hashing text. Identity hash
     * codes are the JVM's, not the input's, so an input cannot make this table's probes collide; it holds
     * at most twice the distinct frames (it is cleared and refilled past that), and a miss falls back to
     * frameIds, which compares by value.
     */
    private Object[] cacheName = new Object[1024];
    private Object[] cacheFile = new Object[1024];
    private long[] cacheLine = new long[1024];
    private int[] cacheId = new int[1024];
    private int cached;

    /**
     * The frame held by a frame dict ({@code name}, {@code filename}, {@code line}); a {@code line} of
     * {@link PickleReader#LONG} is the integer {@code lineValue}.
     */
    FrameRef frame(Object name, Object file, Object line, long lineValue, String source, long offset) throws PickleFormatException {
        long l;
        if (line == PickleReader.LONG) {
            l = lineValue;
        } else if (line == null) {
            l = -1;
        } else if (line instanceof Long v) {
            l = v;
        } else {
            throw new PickleFormatException(source, offset, "a stack frame's 'line' is a "
                    + (line instanceof java.math.BigInteger b ? "integer of " + b.bitLength() + " bits" : PyTypes.typeName(line))
                    + ", not a 64-bit integer");
        }
        int mask = cacheId.length - 1;
        int h = mix(System.identityHashCode(name) * 31 + System.identityHashCode(file), l) & mask;
        for (; cacheName[h] != null; h = (h + 1) & mask) {
            if (cacheName[h] == name && cacheFile[h] == file && cacheLine[h] == l) {
                return frameRefs[cacheId[h]];
            }
        }
        String n = text(name, "name", source, offset);
        String f = text(file, "filename", source, offset);
        FrameKey k = new FrameKey(n, f, l);
        Integer id = frameIds.get(k);
        if (id == null) {
            id = frames;
            if (frames == names.length) {
                int cap = frames * 2;
                names = Arrays.copyOf(names, cap);
                files = Arrays.copyOf(files, cap);
                lines = Arrays.copyOf(lines, cap);
                internal = Arrays.copyOf(internal, cap);
                frameRefs = Arrays.copyOf(frameRefs, cap);
            }
            frameRefs[frames] = new FrameRef(frames);
            names[frames] = n;
            files[frames] = f;
            lines[frames] = l;
            internal[frames] = isInternal(n);
            frames++;
            frameIds.put(k, id);
        }
        cache(n, f, l, id);
        return frameRefs[id]; // one instance per frame: the memo slots holding it cost a reference each
    }

    private void cache(Object name, Object file, long line, int id) {
        if (2 * (cached + 1) > cacheId.length) {
            int cap = cacheId.length;
            if (cap < 4 * Math.max(frames, 256)) {
                cap *= 2; // room for the distinct frames
            } // else: more distinct strings than frames (equal strings not shared): start over at this size
            cacheName = new Object[cap];
            cacheFile = new Object[cap];
            cacheLine = new long[cap];
            cacheId = new int[cap];
            cached = 0;
        }
        int mask = cacheId.length - 1;
        int h = mix(System.identityHashCode(name) * 31 + System.identityHashCode(file), line) & mask;
        while (cacheName[h] != null) {
            h = (h + 1) & mask;
        }
        cacheName[h] = name;
        cacheFile[h] = file;
        cacheLine[h] = line;
        cacheId[h] = id;
        cached++;
    }

    private static int mix(int a, long b) {
        long x = (a * 0x9E3779B97F4A7C15L) ^ (b * 0xC2B2AE3D27D4EB4FL);
        x ^= x >>> 29;
        x *= 0xBF58476D1CE4E5B9L;
        return (int) (x ^ (x >>> 32));
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

    /** The stack of a list of frame refs (other elements are refused by the caller). */
    StackRef stack(int[] frameIds) {
        StackKey k = new StackKey(frameIds);
        Integer id = stackIds.get(k);
        if (id == null) {
            id = stackCount;
            if (stackCount == stacks.length) {
                stacks = Arrays.copyOf(stacks, stackCount * 2);
                stackRefs = Arrays.copyOf(stackRefs, stackCount * 2);
            }
            stackRefs[stackCount] = new StackRef(stackCount);
            stacks[stackCount++] = frameIds;
            stackIds.put(k, id);
        }
        return stackRefs[id];
    }

    /*
     * A cache in front of stackIds: open addressing over stack ids, probed with a hash seeded per table
     * (an input cannot aim at it), compared against the stored frames, so a stack met again costs no
     * allocation. A probe that runs past MAX_PROBE slots gives up and uses stackIds (whose keys are
     * ordered, so even crafted collisions stay O(log n)).
     */
    private static final int MAX_PROBE = 32;
    private final long seed = java.util.concurrent.ThreadLocalRandom.current().nextLong() | 1;
    private int[] stackSlots = new int[1024]; // stack id + 1; 0 = empty
    private int stackSlotsUsed;

    private int[] scratch = new int[16];

    private int stackHash(int[] ids, int n) {
        long h = seed;
        for (int i = 0; i < n; i++) {
            h = (h ^ ids[i]) * 0x9E3779B97F4A7C15L;
            h ^= h >>> 31;
        }
        return (int) (h ^ (h >>> 32));
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
        int mask = stackSlots.length - 1;
        int h = stackHash(ids, n) & mask;
        int probe = 0;
        for (; stackSlots[h] != 0 && probe < MAX_PROBE; h = (h + 1) & mask, probe++) {
            int id = stackSlots[h] - 1;
            if (Arrays.equals(stacks[id], 0, stacks[id].length, ids, 0, n)) {
                return stackRefs[id];
            }
        }
        StackRef r = stack(Arrays.copyOf(ids, n));
        if (probe < MAX_PROBE) {
            if (2 * (stackSlotsUsed + 1) > stackSlots.length) {
                rehashStacks();
            } else {
                stackSlots[h] = r.id() + 1;
                stackSlotsUsed++;
            }
        }
        return r;
    }

    /** Doubles the stack cache and puts every stack known into it (those that probe too far are left to stackIds). */
    private void rehashStacks() {
        stackSlots = new int[Math.max(1024, Integer.highestOneBit(Math.max(1, stackCount)) * 4)];
        stackSlotsUsed = 0;
        int mask = stackSlots.length - 1;
        for (int id = 1; id < stackCount; id++) {
            int[] f = stacks[id];
            long x = seed;
            for (int v : f) {
                x = (x ^ v) * 0x9E3779B97F4A7C15L;
                x ^= x >>> 31;
            }
            int h = (int) (x ^ (x >>> 32)) & mask;
            for (int probe = 0; probe < MAX_PROBE; probe++, h = (h + 1) & mask) {
                if (stackSlots[h] == 0) {
                    stackSlots[h] = id + 1;
                    stackSlotsUsed++;
                    break;
                }
            }
        }
    }

    /** The stand-in of stack {@code id} (one instance per stack). */
    StackRef stackRef(int id) {
        return stackRefs[id];
    }

    /** The stand-in of frame {@code id} (one instance per frame). */
    FrameRef frameRef(int id) {
        return frameRefs[id];
    }

    int frameCount() {
        return frames;
    }

    int stackCount() {
        return stackCount;
    }

    /** The frames of stack {@code id}, outermost last as PyTorch lists them (0 is the empty stack). */
    int[] frames(int id) {
        return stacks[id];
    }

    String name(int frame) {
        return names[frame];
    }

    String file(int frame) {
        return files[frame];
    }

    long line(int frame) {
        return lines[frame];
    }

    boolean internal(int frame) {
        return internal[frame];
    }

    /** A frame as one line of text: {@code name at file:line}. */
    String text(int frame) {
        return names[frame] + " at " + files[frame] + ":" + (lines[frame] < 0 ? "?" : Long.toString(lines[frame]));
    }
}
