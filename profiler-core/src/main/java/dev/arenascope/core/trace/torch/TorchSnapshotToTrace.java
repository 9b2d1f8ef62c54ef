package dev.arenascope.core.trace.torch;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import dev.arenascope.core.device.DeviceInfo;
import dev.arenascope.core.device.DeviceKind;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.SiteTable;
import dev.arenascope.core.trace.StackFrame;

/**
 * Converts a PyTorch CUDA memory snapshot ({@code torch.cuda.memory._dump_snapshot()}, a pickle of
 * plain data) into an ArenaScope event stream.
 *
 * <p>Each CUDA device becomes one memory named {@code cuda:N} of kind {@link MemoryKind#SEGMENTED}:
 * {@code used} is the bytes of live blocks, {@code aux} the bytes reserved in segments. Trace entries
 * map as: {@code alloc} → {@link EventKind#ALLOC} (a = address, b = c = size, site = the allocation's
 * stack in the session's {@link SiteTable}: frames {@code name}, {@code filename}, {@code line}, those not in
 * a Python file, PyTorch's C++ allocator and unwinder, marked {@link StackFrame#FLAG_INTERNAL}), {@code free_completed} →
 * {@link EventKind#FREE} (a block is live from its {@code alloc} until its {@code free_completed};
 * {@code free_requested} changes nothing), {@code segment_alloc} / {@code segment_map} →
 * {@link EventKind#RESERVE}, {@code segment_free} / {@code segment_unmap} → {@link EventKind#UNRESERVE},
 * {@code oom} → {@link EventKind#OUT_OF_MEMORY} (b = bytes requested, c = {@code device_free}),
 * {@code snapshot} → {@link EventKind#MARKER}. Other actions are skipped and counted.
 *
 * <p>Blocks and segments that were already live when the trace began are reconstructed the way
 * PyTorch's own viewer does it: start from the snapshot's final state ({@code segments[*].blocks} in
 * state {@code active_allocated} or {@code active_pending_free}) and replay the trace backwards (an
 * {@code alloc} means the block was not live before it, a {@code free_completed} that it was). They are
 * emitted at the trace's first instant, before its first entry, with the frames their blocks carry.
 *
 * <p>Time: {@code time_us} (wall-clock microseconds) relative to the earliest entry, when every entry
 * of a device has it; otherwise (older PyTorch) the entry's position, one microsecond per entry. Times
 * are made non-decreasing per device. Streams become threads named {@code stream N}.
 *
 * <p>Bad input: a pickle that is malformed or refers to classes throws {@link PickleFormatException}
 * (file and byte offset); a pickle that is not a snapshot throws {@link SnapshotFormatException} (file
 * and the path of the bad value). Nothing is sent to the sink before the whole file has been checked.
 */
public final class TorchSnapshotToTrace {
    private static final int BATCH = 1 << 14;

    private static final byte ALLOC = 1, FREE_REQUESTED = 2, FREE_COMPLETED = 3, SEGMENT_ALLOC = 4, SEGMENT_FREE = 5,
            SEGMENT_MAP = 6, SEGMENT_UNMAP = 7, OOM = 8, SNAPSHOT = 9, UNKNOWN = 0;

    /**
     * What a conversion did.
     *
     * @param devices        devices (memories) created
     * @param entries        trace entries read over all devices
     * @param events         events sent to the sink
     * @param initialBlocks  blocks found live before the trace began
     * @param skipped        trace entries with an action this converter does not map
     */
    public record Result(int devices, long entries, long events, long initialBlocks, long skipped) {}

    private TorchSnapshotToTrace() {}

    /** Converts the snapshot in {@code in}, sending the stream to {@code out} and closing it. */
    public static Result convert(Path in, EventSink out) throws IOException {
        long size = Files.size(in);
        if (size > Integer.MAX_VALUE - 64) {
            throw new PickleFormatException(in.toString(), 0, "file of " + size + " bytes is larger than the 2 GiB this reader takes");
        }
        return convert(Files.readAllBytes(in), in.toString(), out);
    }

    /** Converts a snapshot held in memory; {@code source} names it in errors and in the session. */
    public static Result convert(byte[] pickle, String source, EventSink out) throws IOException {
        Object root = PickleReader.read(pickle, source);
        Snapshot snap = Snapshot.parse(root, source);
        return new Emitter(snap, source, out).run();
    }

    // ---------------------------------------------------------------- parsed model

    /** One device's trace in columns. */
    private static final class DeviceTrace {
        final int device;
        int n;
        byte[] action = new byte[16];
        long[] addr = new long[16];
        long[] size = new long[16];
        long[] time = new long[16];
        long[] stream = new long[16];
        long[] extra = new long[16]; // device_free for oom
        Object[] frames = new Object[16];
        boolean timed = true;

        DeviceTrace(int device) {
            this.device = device;
        }

        void add(byte act, long a, long s, long t, long st, long ex, Object fr) {
            if (n == action.length) {
                int cap = n * 2;
                action = java.util.Arrays.copyOf(action, cap);
                addr = java.util.Arrays.copyOf(addr, cap);
                size = java.util.Arrays.copyOf(size, cap);
                time = java.util.Arrays.copyOf(time, cap);
                stream = java.util.Arrays.copyOf(stream, cap);
                extra = java.util.Arrays.copyOf(extra, cap);
                frames = java.util.Arrays.copyOf(frames, cap);
            }
            action[n] = act;
            addr[n] = a;
            size[n] = s;
            time[n] = t;
            stream[n] = st;
            extra[n] = ex;
            frames[n] = fr;
            n++;
        }
    }

    /** A stack as the identities of its frame objects. */
    private static final class StackKey {
        private final Object[] frames;
        private final int hash;

        StackKey(Object[] frames) {
            this.frames = frames;
            int h = 1;
            for (Object f : frames) {
                h = 31 * h + System.identityHashCode(f);
            }
            this.hash = h;
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof StackKey k) || k.frames.length != frames.length) {
                return false;
            }
            for (int i = 0; i < frames.length; i++) {
                if (frames[i] != k.frames[i]) {
                    return false;
                }
            }
            return true;
        }
    }

    private record Block(long addr, long size, long stream, Object frames) {}

    private record Segment(long addr, long size, long stream) {}

    private record Snapshot(Map<Integer, DeviceTrace> traces, Map<Integer, List<Segment>> segments,
                            Map<Integer, List<Block>> liveBlocks, Map<String, String> settings, long skipped) {

        static Snapshot parse(Object root, String source) throws SnapshotFormatException {
            Object segs;
            Object traces = null;
            Map<String, String> settings = new LinkedHashMap<>();
            if (root instanceof Map<?, ?> m) {
                if (!m.containsKey("segments")) {
                    throw new SnapshotFormatException(source, "", "not a PyTorch memory snapshot: the top-level dict has no 'segments'");
                }
                segs = m.get("segments");
                traces = m.get("device_traces");
                if (m.get("allocator_settings") instanceof Map<?, ?> s) {
                    s.forEach((k, v) -> {
                        if (k instanceof String key && (v instanceof String || v instanceof Long || v instanceof Boolean || v instanceof Double)) {
                            settings.put("allocator_settings." + key, String.valueOf(v));
                        }
                    });
                }
            } else if (root instanceof List<?>) {
                segs = root; // the oldest snapshots are a bare list of segments
            } else {
                throw new SnapshotFormatException(source, "", "not a PyTorch memory snapshot: the pickle holds a "
                        + PickleReader.typeName(root) + ", not a dict");
            }
            Map<Integer, List<Segment>> segments = new TreeMap<>();
            Map<Integer, List<Block>> blocks = new TreeMap<>();
            List<?> segList = list(segs, source, "segments");
            for (int i = 0; i < segList.size(); i++) {
                String where = "segments[" + i + "]";
                Map<?, ?> s = map(segList.get(i), source, where);
                int device = (int) integer(s, "device", source, where, 0, Integer.MAX_VALUE);
                long addr = integer(s, "address", source, where, Long.MIN_VALUE, Long.MAX_VALUE);
                long total = integer(s, "total_size", source, where, 0, Long.MAX_VALUE);
                long stream = optInteger(s, "stream", source, where);
                segments.computeIfAbsent(device, d -> new ArrayList<>()).add(new Segment(addr, total, stream));
                Object bl = s.get("blocks");
                if (bl == null) {
                    continue;
                }
                List<?> bList = list(bl, source, where + ".blocks");
                for (int j = 0; j < bList.size(); j++) {
                    String bw = where + ".blocks[" + j + "]";
                    Map<?, ?> b = map(bList.get(j), source, bw);
                    Object state = b.get("state");
                    if ("active_allocated".equals(state) || "active_pending_free".equals(state)) {
                        long baddr = integer(b, "address", source, bw, Long.MIN_VALUE, Long.MAX_VALUE);
                        long bsize = integer(b, "size", source, bw, 0, Long.MAX_VALUE);
                        blocks.computeIfAbsent(device, d -> new ArrayList<>()).add(new Block(baddr, bsize, stream, b.get("frames")));
                    }
                }
            }
            Map<Integer, DeviceTrace> out = new TreeMap<>();
            long skipped = 0;
            if (traces != null) {
                List<?> perDevice = list(traces, source, "device_traces");
                for (int d = 0; d < perDevice.size(); d++) {
                    List<?> entries = list(perDevice.get(d), source, "device_traces[" + d + "]");
                    DeviceTrace t = new DeviceTrace(d);
                    for (int i = 0; i < entries.size(); i++) {
                        String where = "device_traces[" + d + "][" + i + "]";
                        Map<?, ?> e = map(entries.get(i), source, where);
                        byte act = action(e.get("action"), source, where);
                        if (act == UNKNOWN) {
                            skipped++;
                            continue;
                        }
                        long addr = act == OOM || act == SNAPSHOT ? optInteger(e, "addr", source, where)
                                : integer(e, "addr", source, where, Long.MIN_VALUE, Long.MAX_VALUE);
                        long size = act == SNAPSHOT ? Math.max(0, optInteger(e, "size", source, where))
                                : integer(e, "size", source, where, 0, Long.MAX_VALUE);
                        long stream = optInteger(e, "stream", source, where);
                        long time = 0;
                        Object tu = e.get("time_us");
                        if (tu instanceof Long l) {
                            time = l;
                        } else if (tu != null) {
                            throw new SnapshotFormatException(source, where, "'time_us' is a " + PickleReader.typeName(tu) + ", not an integer");
                        } else {
                            t.timed = false;
                        }
                        long extra = act == OOM ? Math.max(0, optInteger(e, "device_free", source, where)) : 0;
                        t.add(act, addr, size, time, stream, extra, e.get("frames"));
                    }
                    if (t.n > 0) {
                        out.put(d, t);
                    }
                }
            }
            TreeSet<Integer> devices = new TreeSet<>(out.keySet());
            devices.addAll(segments.keySet());
            if (devices.size() > EventBatch.MAX_MEMORY_ID) {
                throw new SnapshotFormatException(source, "", devices.size() + " devices; at most " + EventBatch.MAX_MEMORY_ID + " are supported");
            }
            return new Snapshot(out, segments, blocks, settings, skipped);
        }

        private static byte action(Object a, String source, String where) throws SnapshotFormatException {
            if (!(a instanceof String s)) {
                throw new SnapshotFormatException(source, where, "entry has no string 'action'");
            }
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

        private static List<?> list(Object o, String source, String where) throws SnapshotFormatException {
            if (o instanceof List<?> l) {
                return l;
            }
            throw new SnapshotFormatException(source, where, "expected a list, found a " + PickleReader.typeName(o));
        }

        private static Map<?, ?> map(Object o, String source, String where) throws SnapshotFormatException {
            if (o instanceof Map<?, ?> m) {
                return m;
            }
            throw new SnapshotFormatException(source, where, "expected a dict, found a " + PickleReader.typeName(o));
        }

        private static long integer(Map<?, ?> m, String key, String source, String where, long min, long max) throws SnapshotFormatException {
            Object v = m.get(key);
            if (v instanceof Long l && l >= min && l <= max) {
                return l;
            }
            if (v instanceof BigInteger b && b.signum() > 0 && b.bitLength() <= 64 && min == Long.MIN_VALUE) {
                return b.longValue(); // an address past 2^63, kept as its unsigned bits
            }
            if (v == null || !(v instanceof Long || v instanceof BigInteger)) {
                throw new SnapshotFormatException(source, where, "has no integer '" + key + "'"
                        + (v == null ? "" : " (found a " + PickleReader.typeName(v) + ")"));
            }
            throw new SnapshotFormatException(source, where, "'" + key + "' is out of range: " + v);
        }

        private static long optInteger(Map<?, ?> m, String key, String source, String where) throws SnapshotFormatException {
            Object v = m.get(key);
            if (v == null) {
                return 0;
            }
            return integer(m, key, source, where, Long.MIN_VALUE, Long.MAX_VALUE);
        }
    }

    // ---------------------------------------------------------------- emitting

    /** Microseconds to nanoseconds, saturating instead of overflowing (forged times stay finite). */
    private static long usToNs(long us) {
        long limit = Long.MAX_VALUE / 1000;
        return us < 0 ? 0 : us > limit ? limit * 1000 : us * 1000;
    }

    private static final class Emitter {
        private final Snapshot snap;
        private final String source;
        private final EventSink out;
        private final EventBatch batch = new EventBatch(BATCH);
        private final Map<String, Integer> strings = new HashMap<>();
        private final IdentityHashMap<Object, Integer> frameIds = new IdentityHashMap<>();
        private final IdentityHashMap<Object, Integer> frameOf = new IdentityHashMap<>();
        private final SiteTable sites = new SiteTable();
        private final HashMap<StackKey, Integer> stackIds = new HashMap<>();
        private final Map<Long, Integer> threads = new HashMap<>();
        private long events;

        Emitter(Snapshot snap, String source, EventSink out) {
            this.snap = snap;
            this.source = source;
            this.out = out;
        }

        Result run() {
            TreeSet<Integer> devices = new TreeSet<>();
            devices.addAll(snap.traces.keySet());
            devices.addAll(snap.segments.keySet());
            devices.addAll(snap.liveBlocks.keySet());
            long t0 = Long.MAX_VALUE;
            int timedDevices = 0;
            for (DeviceTrace t : snap.traces.values()) {
                if (t.timed) {
                    timedDevices++;
                    for (int i = 0; i < t.n; i++) {
                        t0 = Math.min(t0, t.time[i]);
                    }
                }
            }
            boolean timed = timedDevices > 0;
            if (!timed) {
                t0 = 0;
            }
            long entries = 0;
            for (DeviceTrace t : snap.traces.values()) {
                entries += t.n;
            }

            Map<String, String> attrs = new LinkedHashMap<>();
            attrs.put("source", "pytorch-snapshot");
            attrs.put("file", source);
            attrs.put("time", timedDevices == snap.traces.size() && timed ? "time_us"
                    : timed ? "time_us where every entry has it, else entry order (1 us per entry)" : "entry order (1 us per entry)");
            if (snap.skipped > 0) {
                attrs.put("skipped_entries", Long.toString(snap.skipped));
            }
            List<DeviceInfo> infos = new ArrayList<>();
            for (int d : devices) {
                infos.add(new DeviceInfo(DeviceKind.CUDA, d, "cuda:" + d + " (PyTorch snapshot)", 0, 0));
            }
            String name = Path.of(source).getFileName() == null ? source : Path.of(source).getFileName().toString();
            out.onSession(new SessionInfo(name, "unknown", timed ? usToNs(t0) : 0, infos, attrs));

            Map<Integer, Integer> memoryOf = new HashMap<>();
            int id = 0;
            for (int d : devices) {
                Map<String, String> mattrs = new LinkedHashMap<>(snap.settings);
                mattrs.put("source", "pytorch-snapshot");
                out.onMemory(new MemoryInfo(id, "cuda:" + d, MemoryKind.SEGMENTED, "cuda:" + d, 0, mattrs));
                memoryOf.put(d, id++);
            }

            long initialBlocks = 0;
            List<DeviceState> states = new ArrayList<>();
            for (int d : devices) {
                DeviceTrace trace = snap.traces.get(d);
                DeviceState st = new DeviceState(memoryOf.get(d), trace, trace != null && trace.timed, t0);
                initialBlocks += st.emitInitial(snap.segments.getOrDefault(d, List.of()), snap.liveBlocks.getOrDefault(d, List.of()));
                states.add(st);
            }
            // merge the devices' entries by time (one device is the common case)
            while (true) {
                DeviceState next = null;
                for (DeviceState st : states) {
                    if (st.hasNext() && (next == null || st.nextTime() < next.nextTime())) {
                        next = st;
                    }
                }
                if (next == null) {
                    break;
                }
                next.emitNext();
            }
            flush();
            out.onClose();
            return new Result(devices.size(), entries, events, initialBlocks, snap.skipped);
        }

        private int string(String s) {
            Integer id = strings.get(s);
            if (id == null) {
                id = strings.size();
                strings.put(s, id);
                out.onString(id, s);
            }
            return id;
        }

        /** The site of a {@code frames} list (innermost first, as PyTorch records them), -1 for none. */
        private int frames(Object frames) {
            if (!(frames instanceof List<?> l) || l.isEmpty()) {
                return -1;
            }
            Integer id = frameIds.get(frames);
            if (id != null) {
                return id;
            }
            // each entry has its own frames list, but the frame dicts in it are shared through the
            // pickle's memo: a stack is identified by the identities of its frames
            StackKey key = new StackKey(l.toArray());
            id = stackIds.get(key);
            if (id == null) {
                int site = -1;
                for (int k = l.size() - 1; k >= 0; k--) {
                    site = sites.node(site, frame(l.get(k)));
                }
                sites.announceNew(out); // before the batch that carries the site
                id = site;
                stackIds.put(key, id);
            }
            frameIds.put(frames, id);
            return id;
        }

        private int frame(Object f) {
            Integer id = frameOf.get(f);
            if (id == null) {
                String function;
                String file;
                long line;
                if (f instanceof Map<?, ?> m) {
                    function = atom(m.get("name"));
                    file = m.get("filename") instanceof String fn ? fn : "";
                    line = m.get("line") instanceof Long ln ? ln : 0;
                } else {
                    function = atom(f);
                    file = "";
                    line = 0;
                }
                int flags = file.endsWith(".py") ? 0 : StackFrame.FLAG_INTERNAL;
                id = sites.frame(function, file, (int) Math.max(0, Math.min(Integer.MAX_VALUE, line)), flags);
                frameOf.put(f, id);
            }
            return id;
        }

        /** A frame field as text; containers (which may even hold themselves) are only named. */
        private static String atom(Object o) {
            return o instanceof String || o instanceof Long || o instanceof Double || o instanceof Boolean
                    || o instanceof java.math.BigInteger ? o.toString() : "<" + PickleReader.typeName(o) + ">";
        }

        private int thread(long stream) {
            Integer id = threads.get(stream);
            if (id == null) {
                id = threads.size() + 1;
                threads.put(stream, id);
                out.onThread(id, stream == 0 ? "default stream" : "stream " + stream);
            }
            return id;
        }

        private void emit(long time, EventKind kind, int memory, int thread, long a, long b, long c, long used, long aux, int ref) {
            emit(time, kind, memory, thread, a, b, c, used, aux, ref, -1);
        }

        private void emit(long time, EventKind kind, int memory, int thread, long a, long b, long c, long used, long aux, int ref,
                          int site) {
            batch.add(time, EventBatch.pack(kind.code(), 0, memory), thread, a, b, c, used, aux, ref, -1, site, -1);
            events++;
            if (batch.size() == BATCH) {
                flush();
            }
        }

        private void flush() {
            if (!batch.isEmpty()) {
                out.onEvents(batch);
                batch.clear();
            }
        }

        /** One device's replay: its live blocks and segments and its position in the trace. */
        private final class DeviceState {
            final int memory;
            final DeviceTrace trace;
            final boolean timed;
            final long t0;
            final Map<Long, Long> live = new HashMap<>();
            final Map<Long, Long> reserved = new HashMap<>();
            long used;
            long aux;
            long lastTime;
            int next;

            DeviceState(int memory, DeviceTrace trace, boolean timed, long t0) {
                this.memory = memory;
                this.trace = trace;
                this.timed = timed;
                this.t0 = t0;
            }

            long emitInitial(List<Segment> segments, List<Block> blocks) {
                TreeMap<Long, Segment> segs = new TreeMap<>();
                for (Segment s : segments) {
                    segs.put(s.addr, s);
                }
                TreeMap<Long, Block> alive = new TreeMap<>();
                for (Block b : blocks) {
                    alive.put(b.addr, b);
                }
                if (trace != null) {
                    for (int i = trace.n - 1; i >= 0; i--) {
                        long addr = trace.addr[i];
                        switch (trace.action[i]) {
                            case ALLOC -> alive.remove(addr);
                            case FREE_COMPLETED -> alive.put(addr, new Block(addr, trace.size[i], trace.stream[i], trace.frames[i]));
                            case SEGMENT_ALLOC -> segs.remove(addr);
                            case SEGMENT_FREE -> segs.put(addr, new Segment(addr, trace.size[i], trace.stream[i]));
                            case SEGMENT_MAP -> {
                                Segment s = segs.get(addr);
                                if (s != null) {
                                    long left = s.size - trace.size[i];
                                    if (left > 0) {
                                        segs.put(addr, new Segment(addr, left, s.stream));
                                    } else {
                                        segs.remove(addr);
                                    }
                                }
                            }
                            case SEGMENT_UNMAP -> {
                                Segment s = segs.get(addr);
                                segs.put(addr, new Segment(addr, (s == null ? 0 : s.size) + trace.size[i], trace.stream[i]));
                            }
                            default -> { }
                        }
                    }
                }
                long start = trace == null ? 0 : time(0);
                lastTime = start;
                for (Segment s : segs.values()) {
                    reserved.merge(s.addr, s.size, Long::sum);
                    aux += s.size;
                    emit(start, EventKind.RESERVE, memory, thread(s.stream), s.addr, s.size, 0, used, aux, -1);
                }
                for (Block b : alive.values()) {
                    live.put(b.addr, b.size);
                    used += b.size;
                    emit(start, EventKind.ALLOC, memory, thread(b.stream), b.addr, b.size, b.size, used, aux, -1, frames(b.frames));
                }
                return alive.size();
            }

            private long time(int i) {
                long t = timed ? usToNs(trace.time[i] - t0) : i * 1000L;
                return Math.max(t, lastTime);
            }

            boolean hasNext() {
                return trace != null && next < trace.n;
            }

            long nextTime() {
                return time(next);
            }

            void emitNext() {
                int i = next++;
                long t = time(i);
                lastTime = t;
                long addr = trace.addr[i];
                long size = trace.size[i];
                int th = thread(trace.stream[i]);
                switch (trace.action[i]) {
                    case ALLOC -> {
                        Long old = live.put(addr, size);
                        if (old != null) {
                            used -= old; // a block at the same address was never freed: it is replaced
                        }
                        used += size;
                        emit(t, EventKind.ALLOC, memory, th, addr, size, size, used, aux, -1, frames(trace.frames[i]));
                    }
                    case FREE_COMPLETED -> {
                        Long old = live.remove(addr);
                        if (old != null) {
                            used -= old;
                        }
                        emit(t, EventKind.FREE, memory, th, addr, size, 0, used, aux, -1);
                    }
                    case SEGMENT_ALLOC, SEGMENT_MAP -> {
                        reserved.merge(addr, size, Long::sum);
                        aux += size;
                        emit(t, EventKind.RESERVE, memory, th, addr, size, 0, used, aux, -1);
                    }
                    case SEGMENT_FREE, SEGMENT_UNMAP -> {
                        Long had = reserved.get(addr);
                        long released = had == null ? 0 : Math.min(had, size);
                        if (had != null) {
                            if (had - released > 0) {
                                reserved.put(addr, had - released);
                            } else {
                                reserved.remove(addr);
                            }
                        }
                        aux -= released;
                        emit(t, EventKind.UNRESERVE, memory, th, addr, size, 0, used, aux, -1);
                    }
                    case OOM -> emit(t, EventKind.OUT_OF_MEMORY, memory, th, addr, size, trace.extra[i], used, aux,
                            string("CUDA out of memory: " + size + " bytes requested, " + trace.extra[i] + " bytes free on the device"));
                    case SNAPSHOT -> emit(t, EventKind.MARKER, memory, th, 0, 0, 0, used, aux, string("snapshot"));
                    default -> { } // free_requested: the block stays live until free_completed
                }
            }
        }
    }
}
