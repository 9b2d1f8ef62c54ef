package dev.arenascope.core.trace.torch;

import java.util.Arrays;

/**
 * The trace entries of a snapshot in columns, one row per entry as it completed in the pickle (about
 * 60 bytes a row instead of a dict of boxed values). Which device a row belongs to is decided later,
 * by the {@code device_traces} list that holds it. Not thread-safe.
 */
final class TraceEntries {
    static final byte UNKNOWN = 0, ALLOC = 1, FREE_REQUESTED = 2, FREE_COMPLETED = 3, SEGMENT_ALLOC = 4, SEGMENT_FREE = 5,
            SEGMENT_MAP = 6, SEGMENT_UNMAP = 7, OOM = 8, SNAPSHOT = 9;
    /** {@link #time} of an entry without {@code time_us}. */
    static final long NO_TIME = Long.MIN_VALUE;

    /** A row's id, standing in for the entry's dict in its list and in the memo. */
    record EntryRef(int row) {}

    int n;
    byte[] action = new byte[1024];
    long[] addr = new long[1024];
    long[] size = new long[1024];
    long[] time = new long[1024];
    long[] stream = new long[1024];
    long[] extra = new long[1024]; // device_free of an oom entry
    int[] stack = new int[1024];   // StackTable id, 0 = no frames
    int[] meta = new int[1024];    // string id of user_metadata, -1 = none
    int[] context = new int[1024]; // string id of compile_context, -1 = none
    int[] category = new int[1024];// string id of category, -1 = none
    /** Per row: null, or why the entry cannot be read (reported only if the row is in device_traces). */
    String[] problem = new String[1024];

    int add(byte act, long a, long s, long t, long st, long ex, int stk, int md, int ctx, int cat, String bad) {
        if (n == action.length) {
            int cap = n + (n >> 1);
            action = Arrays.copyOf(action, cap);
            addr = Arrays.copyOf(addr, cap);
            size = Arrays.copyOf(size, cap);
            time = Arrays.copyOf(time, cap);
            stream = Arrays.copyOf(stream, cap);
            extra = Arrays.copyOf(extra, cap);
            stack = Arrays.copyOf(stack, cap);
            meta = Arrays.copyOf(meta, cap);
            context = Arrays.copyOf(context, cap);
            category = Arrays.copyOf(category, cap);
            problem = Arrays.copyOf(problem, cap);
        }
        action[n] = act;
        addr[n] = a;
        size[n] = s;
        time[n] = t;
        stream[n] = st;
        extra[n] = ex;
        stack[n] = stk;
        meta[n] = md;
        context[n] = ctx;
        category[n] = cat;
        problem[n] = bad;
        return n++;
    }

    static byte action(String s) {
        return switch (s) {
            case "alloc" -> ALLOC;
            case "free_requested" -> FREE_REQUESTED;
            case "free_completed" -> FREE_COMPLETED;
            case "segment_alloc" -> SEGMENT_ALLOC;
            case "segment_free" -> SEGMENT_FREE;
            case "segment_map" -> SEGMENT_MAP;
            case "segment_unmap" -> SEGMENT_UNMAP;
            case "oom" -> OOM;
            case "snapshot" -> SNAPSHOT;
            default -> UNKNOWN;
        };
    }
}
