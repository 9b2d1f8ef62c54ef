package dev.arenascope.core.trace.torch;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The trace entries of a snapshot in columns, one row per entry as it completed in the pickle (about
 * 50 bytes a row instead of a dict of boxed values). Columns are kept in pages of {@value #PAGE} rows,
 * so growing never copies what is there (a whole-column copy at 2 M rows was a spike of hundreds of
 * MB); what few rows have (an out-of-memory entry's {@code device_free}, a problem) is kept by row,
 * and a page of a column that most snapshots leave at its default (stream 0, no metadata, context or
 * category) exists only once a row of that page has another value: a 2 M-entry trace keeps 40 MB less
 * for the collector to copy.
 * Which device a row belongs to is decided later, by the {@code device_traces} list that holds it. Not
 * thread-safe.
 */
final class TraceEntries {
    static final byte UNKNOWN = 0, ALLOC = 1, FREE_REQUESTED = 2, FREE_COMPLETED = 3, SEGMENT_ALLOC = 4, SEGMENT_FREE = 5,
            SEGMENT_MAP = 6, SEGMENT_UNMAP = 7, OOM = 8, SNAPSHOT = 9;
    /** {@link #time} of an entry without {@code time_us}. */
    static final long NO_TIME = Long.MIN_VALUE;
    private static final int BITS = 16;
    static final int PAGE = 1 << BITS;
    private static final int MASK = PAGE - 1;

    /** A row's id, standing in for the entry's dict in its list and in the memo. */
    record EntryRef(int row) implements PicklePlacement.StandIn {
        @Override
        public String pythonType() {
            return "dict";
        }

        @Override
        public String what() {
            return "trace entry";
        }
    }

    private int n;
    private byte[][] action = new byte[8][];
    private long[][] addr = new long[8][];
    private long[][] size = new long[8][];
    private long[][] time = new long[8][];
    private long[][] stream = new long[8][]; // a null page: every row 0
    private int[][] stack = new int[8][];   // StackTable id, 0 = no frames
    private int[][] meta = new int[8][];    // string id of user_metadata, -1 = none (a null page: every row)
    private int[][] context = new int[8][]; // string id of compile_context, -1 = none
    private int[][] category = new int[8][];// string id of category, -1 = none
    private final Map<Integer, Long> extra = new HashMap<>();     // device_free of an oom entry
    private final Map<Integer, String> problem = new HashMap<>(); // why an entry cannot be read

    /** Rows added so far. */
    int size() {
        return n;
    }

    int add(byte act, long a, long s, long t, long st, long ex, int stk, int md, int ctx, int cat, String bad) {
        int p = n >>> BITS, i = n & MASK;
        if (i == 0) {
            if (p == action.length) {
                int cap = p * 2;
                action = Arrays.copyOf(action, cap);
                addr = Arrays.copyOf(addr, cap);
                size = Arrays.copyOf(size, cap);
                time = Arrays.copyOf(time, cap);
                stream = Arrays.copyOf(stream, cap);
                stack = Arrays.copyOf(stack, cap);
                meta = Arrays.copyOf(meta, cap);
                context = Arrays.copyOf(context, cap);
                category = Arrays.copyOf(category, cap);
            }
            // the first page grows from small (most snapshots are small); later pages are whole
            int len = p == 0 ? 1024 : PAGE;
            action[p] = new byte[len];
            addr[p] = new long[len];
            size[p] = new long[len];
            time[p] = new long[len];
            stack[p] = new int[len];
        } else if (p == 0 && i == action[0].length) {
            int len = Math.min(PAGE, i * 2);
            action[0] = Arrays.copyOf(action[0], len);
            addr[0] = Arrays.copyOf(addr[0], len);
            size[0] = Arrays.copyOf(size[0], len);
            time[0] = Arrays.copyOf(time[0], len);
            stack[0] = Arrays.copyOf(stack[0], len);
            if (stream[0] != null) {
                stream[0] = Arrays.copyOf(stream[0], len);
            }
            meta[0] = grown(meta[0], len);
            context[0] = grown(context[0], len);
            category[0] = grown(category[0], len);
        }
        action[p][i] = act;
        addr[p][i] = a;
        size[p][i] = s;
        time[p][i] = t;
        stack[p][i] = stk;
        if (st != 0) {
            if (stream[p] == null) {
                stream[p] = new long[action[p].length];
            }
            stream[p][i] = st;
        }
        if (ctx != -1) {
            page(context, p)[i] = ctx;
        }
        if (cat != -1) {
            page(category, p)[i] = cat;
        }
        if (md != -1) {
            page(meta, p)[i] = md;
        }
        if (ex != 0) {
            extra.put(n, ex);
        }
        if (bad != null) {
            problem.put(n, bad);
        }
        return n++;
    }

    /** Page {@code p} of an int column whose default is -1, made (all -1) when it has none yet. */
    private int[] page(int[][] column, int p) {
        int[] page = column[p];
        if (page == null) {
            page = new int[action[p].length];
            Arrays.fill(page, -1);
            column[p] = page;
        }
        return page;
    }

    /** The first page of an int column grown to {@code len} rows (the new rows -1), or null while it has none. */
    private static int[] grown(int[] page, int len) {
        if (page == null) {
            return null;
        }
        int old = page.length;
        int[] g = Arrays.copyOf(page, len);
        Arrays.fill(g, old, len, -1);
        return g;
    }

    byte action(int r) {
        return action[r >>> BITS][r & MASK];
    }

    long addr(int r) {
        return addr[r >>> BITS][r & MASK];
    }

    long size(int r) {
        return size[r >>> BITS][r & MASK];
    }

    /** {@code time_us}, or {@link #NO_TIME}. */
    long time(int r) {
        return time[r >>> BITS][r & MASK];
    }

    long stream(int r) {
        long[] page = stream[r >>> BITS];
        return page == null ? 0 : page[r & MASK];
    }

    int stack(int r) {
        return stack[r >>> BITS][r & MASK];
    }

    int meta(int r) {
        int[] page = meta[r >>> BITS];
        return page == null ? -1 : page[r & MASK];
    }

    int context(int r) {
        int[] page = context[r >>> BITS];
        return page == null ? -1 : page[r & MASK];
    }

    int category(int r) {
        int[] page = category[r >>> BITS];
        return page == null ? -1 : page[r & MASK];
    }

    /** {@code device_free} of an out-of-memory entry, else 0. */
    long extra(int r) {
        return extra.getOrDefault(r, 0L);
    }

    /** Why row {@code r} cannot be read, or null. */
    String problem(int r) {
        return problem.isEmpty() ? null : problem.get(r);
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
