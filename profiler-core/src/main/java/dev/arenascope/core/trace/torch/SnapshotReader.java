package dev.arenascope.core.trace.torch;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongConsumer;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.torch.StackTable.FrameRef;
import dev.arenascope.core.trace.torch.StackTable.StackRef;
import dev.arenascope.core.trace.torch.TraceEntries.EntryRef;

/**
 * Reads a PyTorch memory snapshot pickle into a compact {@link Snapshot} in one pass over its opcodes.
 *
 * <p>While the pickle is read, each value is looked at as it is placed into its container: a dict
 * with a string {@code action} placed into a list (a trace entry) becomes one row of
 * {@link TraceEntries}; a dict with a {@code filename} placed into a list (a stack frame) becomes an
 * interned frame; a list placed under the key {@code frames} becomes an interned stack. Each is
 * replaced in its container and in the pickle's memo by a small reference, so the object graph of
 * the entries never exists: what stays is about 60 bytes per entry plus the distinct frames and stacks.
 * Segments, blocks, settings and annotations stay ordinary values until the walk that follows.
 *
 * <p>The walk then checks the structure and assigns rows to devices. Work is bounded by the honest
 * size of the input: every element visited (trace entries, segments, blocks, annotations, settings)
 * counts against a budget of the input's byte count, so a list repeated through memo references counts
 * each time it is repeated, and a pickle claiming more than it can hold is refused with a
 * {@link SnapshotFormatException} instead of being expanded. Not thread-safe; one instance reads one
 * input.
 */
final class SnapshotReader implements PicklePlacement {
    private static final long BUDGET_SLACK = 1 << 16;

    private final String source;
    private final long inputBytes;
    private final TraceEntries entries = new TraceEntries();
    private final StackTable stacks = new StackTable();
    private final List<String> strings = new ArrayList<>();
    private final Map<String, Integer> stringIds = new HashMap<>();
    private long budget;

    private SnapshotReader(String source, long inputBytes) {
        this.source = source;
        this.inputBytes = inputBytes;
        this.budget = inputBytes + BUDGET_SLACK;
    }

    /** Reads the snapshot in {@code file}, streaming it; {@code progress} (may be null) gets bytes read so far. */
    static Snapshot read(Path file, LongConsumer progress) throws IOException {
        SnapshotReader r = new SnapshotReader(file.toString(), Files.size(file));
        return r.walk(PickleReader.read(file, r, progress));
    }

    /** Reads a snapshot held in memory; {@code source} names it in errors. */
    static Snapshot read(byte[] pickle, String source) throws IOException {
        return read(pickle, source, true);
    }

    /** As {@link #read(byte[], String)}; {@code fast} false turns the reader's fast path for dicts of atoms off (tests). */
    static Snapshot read(byte[] pickle, String source, boolean fast) throws IOException {
        SnapshotReader r = new SnapshotReader(source, pickle.length);
        return r.walk(PickleReader.read(pickle, source, r, fast));
    }

    // ---------------------------------------------------------------- while reading

    private static final Map<String, String> KEYS = new HashMap<>();

    static {
        for (String k : new String[] {"action", "addr", "size", "stream", "time_us", "device_free", "frames", "user_metadata",
                "compile_context", "category", "name", "filename", "line", "N/A"}) {
            KEYS.put(k, k);
        }
    }

    @Override
    public String canonical(String s) {
        String k = KEYS.get(s);
        return k == null ? s : k;
    }

    @Override
    public Object dict(PyDict d, PicklePlacement.Items items, long offset) throws PickleFormatException {
        int n = items.size();
        Object name = null, file = null, line = null;
        long lineValue = 0;
        int nameSlot = -1, fileSlot = -1;
        boolean frame = false;
        for (int i = 0; i < n; i += 2) {
            Object k = items.at(i);
            if (k == "action" && items.at(i + 1) instanceof String) {
                return new EntryRef(entry(items));
            }
            if (k == "name") {
                name = items.at(i + 1);
                nameSlot = items.memoSlot(i + 1);
            } else if (k == "filename") {
                file = items.at(i + 1);
                fileSlot = items.memoSlot(i + 1);
                frame = true;
            } else if (k == "line") {
                line = items.at(i + 1);
                lineValue = items.longAt(i + 1);
            }
        }
        return frame && n <= 16 ? stacks.frame(name, file, line, lineValue, nameSlot, fileSlot, items.memoEpoch(), source, offset) : null;
    }

    /** A frame's stand-in depends on its name, file and line only (interning has no other effect): its id. */
    @Override
    public int reusable(Object standIn) {
        return stacks.idOf(standIn);
    }

    /**
     * The frames list the reader told of last ({@link #listOfReusables}), its size then and its frames'
     * ids: its stack is made from the ids, without reading each frame's stand-in back.
     */
    private PyList readList;
    private int readCount;
    private int[] readIds = new int[16];

    @Override
    public void listOfReusables(PyList list, int[] numbers, int n) {
        if (n > readIds.length) {
            readIds = new int[Math.max(n, 2 * readIds.length)];
        }
        System.arraycopy(numbers, 0, readIds, 0, n);
        readList = list;
        readCount = n;
    }

    @Override
    public Object reused(int number) {
        return stacks.frameRef(number);
    }

    @Override
    public Object placed(Object value, Object container, Object key, long offset) throws PickleFormatException {
        if (value instanceof PyList l && container instanceof PyDict && (key == "frames" || "frames".equals(key))) {
            // a list the reader made from one it kept holds the frames its numbers name (reused): the
            // stack found for the first such list is noted in its last int for the others
            int[] kept = l.kept;
            boolean made = kept != null && l.size() == kept.length - 1;
            if (made && kept[kept.length - 1] > 0) {
                l.clear();
                l.trimToSize();
                return stacks.stackRef(kept[kept.length - 1] - 1);
            }
            StackRef s;
            if (l == readList && l.size() == readCount) { // its frames' ids are known: every element is a frame
                readList = null;
                s = stacks.stack(readIds, readCount, source, offset);
            } else {
                for (int i = 0, n = l.size(); i < n; i++) {
                    if (!(l.get(i) instanceof FrameRef)) {
                        return value; // not a list of frames; the walk ignores it
                    }
                }
                s = stacks.stack(l, source, offset);
            }
            if (made) {
                kept[kept.length - 1] = s.id() + 1;
            }
            l.clear();
            l.trimToSize();
            return s;
        }
        if (value instanceof PyDict d && key == null && !d.isEmpty() && d.get("action") instanceof String) {
            // an entry filled item by item (SETITEM after SETITEM): read it now
            EntryRef ref = new EntryRef(entry(d));
            d.clear();
            return ref;
        }
        if (value instanceof PyDict d && key == null && d.size() <= 8 && d.containsKey("filename")) {
            FrameRef f = stacks.frame(d.get("name"), d.get("filename"), d.get("line"), 0, source, offset);
            d.clear();
            return f;
        }
        return value;
    }

    private int string(Object o) {
        if (!(o instanceof String s) || s.isEmpty()) {
            return -1;
        }
        Integer id = stringIds.get(s);
        if (id == null) {
            id = strings.size();
            strings.add(s);
            stringIds.put(s, id);
        }
        return id;
    }

    private static final int K_ACTION = 0, K_ADDR = 1, K_SIZE = 2, K_STREAM = 3, K_TIME = 4, K_FRAMES = 5, K_META = 6, K_CONTEXT = 7,
            K_FREE = 8, K_CATEGORY = 9;

    /** Which of an entry's keys {@code k} is, by identity with the canonical instances ({@link #canonical}); -1 for none. */
    private static int entryKey(String k) {
        if (k == "action") {
            return K_ACTION;
        } else if (k == "addr") {
            return K_ADDR;
        } else if (k == "size") {
            return K_SIZE;
        } else if (k == "stream") {
            return K_STREAM;
        } else if (k == "time_us") {
            return K_TIME;
        } else if (k == "frames") {
            return K_FRAMES;
        } else if (k == "user_metadata") {
            return K_META;
        } else if (k == "compile_context") {
            return K_CONTEXT;
        } else if (k == "device_free") {
            return K_FREE;
        } else if (k == "category") {
            return K_CATEGORY;
        }
        return -1;
    }

    /** A row for a trace entry's items {@code kv[from..to)}; a problem is kept with the row and reported if it is in {@code device_traces}. */
    private int entry(PicklePlacement.Items kv) {
        byte act = TraceEntries.UNKNOWN;
        Object frames = null, meta = null, ctx = null, cat = null;
        Object action = null;
        // the integers: their value, unboxed where the reader left them so ({@link PickleReader#LONG})
        Object addr = null, size = null, stream = null, time = null, free = null;
        long vAddr = 0, vSize = 0, vStream = 0, vTime = 0, vFree = 0;
        for (int i = 0, n = kv.size(); i < n; i += 2) {
            if (!(kv.at(i) instanceof String k)) {
                continue;
            }
            Object v = kv.at(i + 1);
            long lv = kv.longAt(i + 1);
            int key = entryKey(k);
            if (key < 0) { // a key not made canonical (a long string, or one read the ordinary way): by value
                String c = KEYS.get(k);
                key = c == null || c == k ? -1 : entryKey(c);
            }
            switch (key) {
                case K_ACTION -> action = v;
                case K_ADDR -> {
                    addr = v;
                    vAddr = lv;
                }
                case K_SIZE -> {
                    size = v;
                    vSize = lv;
                }
                case K_STREAM -> {
                    stream = v;
                    vStream = lv;
                }
                case K_TIME -> {
                    time = v;
                    vTime = lv;
                }
                case K_FRAMES -> frames = v;
                case K_META -> meta = v;
                case K_CONTEXT -> ctx = v;
                case K_FREE -> {
                    free = v;
                    vFree = lv;
                }
                case K_CATEGORY -> cat = v;
                default -> { } // a key this reader does not use
            }
        }
        String bad = null;
        long a = 0, s = 0, st = 0, t = TraceEntries.NO_TIME, ex = 0;
        if (!(action instanceof String as)) {
            bad = "entry has no string 'action'";
        } else {
            act = TraceEntries.action(as);
        }
        try {
            if (act != TraceEntries.UNKNOWN) {
                boolean loose = act == TraceEntries.OOM || act == TraceEntries.SNAPSHOT;
                a = loose ? opt(addr, vAddr, "addr") : integer(addr, vAddr, "addr", Long.MIN_VALUE);
                s = act == TraceEntries.SNAPSHOT ? Math.max(0, opt(size, vSize, "size")) : integer(size, vSize, "size", 0);
                st = opt(stream, vStream, "stream");
                if (time == PickleReader.LONG) {
                    t = vTime == TraceEntries.NO_TIME ? vTime + 1 : vTime;
                } else if (time instanceof Long l) {
                    t = l == TraceEntries.NO_TIME ? l + 1 : l;
                } else if (time != null) {
                    throw new Bad("'time_us' is a " + PyTypes.typeName(time) + ", not an integer");
                }
                ex = act == TraceEntries.OOM ? Math.max(0, opt(free, vFree, "device_free")) : 0;
            }
        } catch (Bad b) {
            bad = b.getMessage();
        }
        int stack = frames instanceof StackRef r ? r.id() : 0;
        int context = "N/A".equals(ctx) ? -1 : string(ctx); // PyTorch's "none"
        return entries.add(act, a, s, t, st, ex, stack, string(meta), context, string(cat), bad);
    }

    private int entry(PyDict d) {
        Object[] kv = new Object[2 * d.size()];
        for (int i = 0; i < d.size(); i++) {
            kv[2 * i] = d.keyAt(i) instanceof String k ? canonical(k) : d.keyAt(i);
            kv[2 * i + 1] = d.valueAt(i);
        }
        return entry(new PicklePlacement.Items() { // boxed values: no unboxed ints here
            @Override
            public int size() {
                return kv.length;
            }

            @Override
            public Object at(int i) {
                return kv[i];
            }

            @Override
            public long longAt(int i) {
                return 0;
            }
        });
    }

    /** A problem with one value of the snapshot; cheap (no stack trace). */
    private static final class Bad extends Exception {
        Bad(String message) {
            super(message, null, false, false);
        }
    }

    private static long integer(Object v, String key, long min) throws Bad {
        if (v instanceof Long l && l >= min) {
            return l;
        }
        if (v instanceof BigInteger b && b.signum() > 0 && b.bitLength() <= 64 && min == Long.MIN_VALUE) {
            return b.longValue(); // an address past 2^63, kept as its unsigned bits
        }
        if (v == null || !(v instanceof Long || v instanceof BigInteger)) {
            throw new Bad("has no integer '" + key + "'" + (v == null ? "" : " (found a " + PyTypes.typeName(v) + ")"));
        }
        throw new Bad("'" + key + "' is out of range: " + (v instanceof Long l ? l.toString() : "an integer of " + ((BigInteger) v).bitLength() + " bits"));
    }

    private static long opt(Object v, String key) throws Bad {
        return v == null ? 0 : integer(v, key, Long.MIN_VALUE);
    }

    /** An integer that may be unboxed: {@code v} is {@link PickleReader#LONG} and its value {@code lv}. */
    private static long integer(Object v, long lv, String key, long min) throws Bad {
        if (v == PickleReader.LONG) {
            if (lv >= min) {
                return lv;
            }
            v = lv; // out of range: boxed for the message
        }
        return integer(v, key, min);
    }

    private static long opt(Object v, long lv, String key) throws Bad {
        return v == null ? 0 : integer(v, lv, key, Long.MIN_VALUE);
    }

    // ---------------------------------------------------------------- the walk

    private void spend(long n, String where) throws SnapshotFormatException {
        budget -= n;
        if (budget < 0) {
            throw new SnapshotFormatException(source, where, "the snapshot repeats its contents through memo references beyond what its "
                    + inputBytes + " bytes can honestly hold; refused");
        }
    }

    private Snapshot walk(Object root) throws SnapshotFormatException {
        Object segs;
        Object traces = null;
        Object annotations = null;
        Map<String, String> settings = new LinkedHashMap<>();
        if (root instanceof PyDict m) {
            if (!m.containsKey("segments")) {
                throw new SnapshotFormatException(source, "", "not a PyTorch memory snapshot: the top-level dict has no 'segments'");
            }
            segs = m.get("segments");
            traces = m.get("device_traces");
            annotations = m.get("external_annotations");
            if (m.get("allocator_settings") instanceof PyDict s) {
                spend(s.size(), "allocator_settings");
                for (int i = 0; i < s.size(); i++) {
                    Object v = s.valueAt(i);
                    if (s.keyAt(i) instanceof String key && (v instanceof String || v instanceof Long || v instanceof Boolean || v instanceof Double)) {
                        settings.put("allocator_settings." + key, clip(String.valueOf(v)));
                    } else if (s.keyAt(i) instanceof String key && v instanceof PyDict sub && sub.size() <= 64) {
                        // roundup_power2_divisions: {interval start in MiB: divisions}
                        for (int j = 0; j < sub.size(); j++) {
                            if (sub.keyAt(j) instanceof String k2 && k2.length() <= 32 && sub.valueAt(j) instanceof Long n) {
                                settings.put("allocator_settings." + key + "." + k2, Long.toString(n));
                            }
                        }
                    }
                }
            }
        } else if (root instanceof PyList) {
            segs = root; // the oldest snapshots are a bare list of segments
        } else {
            throw new SnapshotFormatException(source, "", "not a PyTorch memory snapshot: the pickle holds a "
                    + PyTypes.typeName(root) + ", not a dict");
        }
        Map<Integer, List<Snapshot.Segment>> segments = new TreeMap<>();
        Map<Integer, List<Snapshot.Block>> blocks = new TreeMap<>();
        List<?> segList = list(segs, "segments");
        spend(segList.size(), "segments");
        for (int i = 0; i < segList.size(); i++) {
            String where = "segments[" + i + "]";
            PyDict s = map(segList.get(i), where);
            spend(s.size(), where);
            int device = (int) integer(s, "device", where, 0, Integer.MAX_VALUE);
            long addr = integer(s, "address", where, Long.MIN_VALUE, Long.MAX_VALUE);
            long total = integer(s, "total_size", where, 0, Long.MAX_VALUE);
            long stream = optInteger(s, "stream", where);
            String pool = pool(s.get("segment_pool_id"));
            Object type = s.get("segment_type");
            boolean small = type instanceof String t ? t.equals("small") : total == 2L << 20;
            boolean expandable = Boolean.TRUE.equals(s.get("is_expandable"));
            segments.computeIfAbsent(device, d -> new ArrayList<>()).add(new Snapshot.Segment(addr, total, stream, pool, small, expandable));
            Object bl = s.get("blocks");
            if (bl == null) {
                continue;
            }
            List<?> bList = list(bl, where + ".blocks");
            spend(bList.size(), where + ".blocks");
            for (int j = 0; j < bList.size(); j++) {
                String bw = where + ".blocks[" + j + "]";
                PyDict b = map(bList.get(j), bw);
                Object state = b.get("state");
                if ("active_allocated".equals(state) || "active_pending_free".equals(state)) {
                    long baddr = integer(b, "address", bw, Long.MIN_VALUE, Long.MAX_VALUE);
                    long bsize = integer(b, "size", bw, 0, Long.MAX_VALUE);
                    int stack = b.get("frames") instanceof StackRef r ? r.id() : historyStack(b.get("history"), bw);
                    long req = b.get("requested_size") instanceof Long q && q >= 0 && q <= bsize ? q : bsize;
                    blocks.computeIfAbsent(device, d -> new ArrayList<>()).add(new Snapshot.Block(baddr, bsize, stream, stack,
                            "active_pending_free".equals(state), req));
                }
            }
        }
        Map<Integer, int[]> rows = new TreeMap<>();
        long skipped = 0;
        if (traces != null) {
            List<?> perDevice = list(traces, "device_traces");
            spend(perDevice.size(), "device_traces");
            if (perDevice.size() > EventBatch.MAX_MEMORY_ID) {
                throw new SnapshotFormatException(source, "device_traces", perDevice.size() + " devices; at most " + EventBatch.MAX_MEMORY_ID + " are supported");
            }
            for (int d = 0; d < perDevice.size(); d++) {
                List<?> list = list(perDevice.get(d), "device_traces[" + d + "]");
                spend(list.size(), "device_traces[" + d + "]");
                int[] mine = new int[list.size()];
                int k = 0;
                for (int i = 0; i < list.size(); i++) {
                    Object e = list.get(i);
                    int row;
                    if (e instanceof EntryRef r) {
                        row = r.row();
                    } else if (e instanceof PyDict pd) {
                        row = entry(pd); // an entry that did not read as one while the pickle was read
                    } else {
                        throw new SnapshotFormatException(source, "device_traces[" + d + "][" + i + "]", "expected a dict, found a " + PyTypes.typeName(e));
                    }
                    if (entries.problem(row) != null) {
                        throw new SnapshotFormatException(source, "device_traces[" + d + "][" + i + "]", entries.problem(row));
                    }
                    if (entries.action(row) == TraceEntries.UNKNOWN) {
                        skipped++;
                        continue;
                    }
                    mine[k++] = row;
                }
                if (k > 0) {
                    rows.put(d, k == mine.length ? mine : Arrays.copyOf(mine, k));
                }
            }
        }
        List<Snapshot.Annotation> notes = new ArrayList<>();
        if (annotations instanceof PyList al) {
            spend(al.size(), "external_annotations");
            for (int i = 0; i < al.size(); i++) {
                if (al.get(i) instanceof PyDict a) {
                    spend(a.size(), "external_annotations[" + i + "]");
                    Object name = a.get("name");
                    Object time = a.get("time_us");
                    Object dev = a.get("device");
                    Object stage = a.get("stage");
                    if (name instanceof String n && time instanceof Long t) {
                        notes.add(new Snapshot.Annotation(dev instanceof Long l && l >= 0 && l <= Integer.MAX_VALUE ? (int) (long) l : -1,
                                clip(n), stage instanceof String st ? clip(st) : "", t));
                    }
                }
            }
        }
        TreeSet<Integer> devices = new TreeSet<>(rows.keySet());
        devices.addAll(segments.keySet());
        if (devices.size() > EventBatch.MAX_MEMORY_ID) {
            throw new SnapshotFormatException(source, "", devices.size() + " devices; at most " + EventBatch.MAX_MEMORY_ID + " are supported");
        }
        stacks.doneReading();
        return new Snapshot(entries, stacks, strings, rows, segments, blocks, settings, notes, skipped, inputBytes);
    }

    /** Older snapshots keep a block's allocation stack in its {@code history}: the last record is the current one. */
    private int historyStack(Object history, String where) throws SnapshotFormatException {
        if (history instanceof PyList h && !h.isEmpty()) {
            spend(h.size(), where + ".history");
            if (h.getLast() instanceof PyDict last && last.get("frames") instanceof StackRef r) {
                return r.id();
            }
        }
        return 0;
    }

    private static String pool(Object id) {
        if (id instanceof List<?> t && !(id instanceof PyList) && t.size() == 2 && t.get(0) instanceof Long a && t.get(1) instanceof Long b) {
            return a == 0 && b == 0 ? null : a + "." + b;
        }
        return null;
    }

    private static String clip(String s) {
        return s.length() > 256 ? s.substring(0, 256) + "..." : s;
    }

    private List<?> list(Object o, String where) throws SnapshotFormatException {
        if (o instanceof List<?> l) {
            return l;
        }
        throw new SnapshotFormatException(source, where, "expected a list, found a " + PyTypes.typeName(o));
    }

    private PyDict map(Object o, String where) throws SnapshotFormatException {
        if (o instanceof PyDict m) {
            return m;
        }
        throw new SnapshotFormatException(source, where, "expected a dict, found a " + PyTypes.typeName(o));
    }

    private long integer(PyDict m, String key, String where, long min, long max) throws SnapshotFormatException {
        Object v = m.get(key);
        if (v instanceof Long l && l >= min && l <= max) {
            return l;
        }
        try {
            if (v instanceof Long l && l < min && min == 0) {
                throw new Bad("'" + key + "' is out of range: " + l);
            }
            if (max == Integer.MAX_VALUE && v instanceof Long l) {
                throw new Bad("'" + key + "' is out of range: " + l);
            }
            return integer(v, key, min);
        } catch (Bad b) {
            throw new SnapshotFormatException(source, where, b.getMessage());
        }
    }

    private long optInteger(PyDict m, String key, String where) throws SnapshotFormatException {
        return m.get(key) == null ? 0 : integer(m, key, where, Long.MIN_VALUE, Long.MAX_VALUE);
    }
}
