package dev.arenascope.core.trace.torch;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.TreeSet;

import dev.arenascope.core.device.DeviceInfo;
import dev.arenascope.core.device.DeviceKind;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.util.LongLongMap;
import dev.arenascope.core.util.Progress;

/**
 * Turns a {@link Snapshot} into an ArenaScope event stream; see {@link TorchSnapshotToTrace} for the
 * mapping. Blocks live before the trace began come from a backwards replay of each device's rows over
 * the final state (kept as one map of addresses); then the devices' rows are merged by time through a
 * heap (O(entries · log devices)) and turned into events one by one, in batches of
 * {@value #BATCH}. Runs on the caller's thread; the sink is called from it only (a {@link HandOffSink}
 * takes the batches it is handed without a copy).
 */
final class SnapshotEmitter {
    static final int BATCH = 1 << 14;

    private final Snapshot snap;
    private final String source;
    private final EventSink out;
    private EventBatch batch = new EventBatch(BATCH);
    private final Map<String, Integer> strings = new HashMap<>();
    private final Map<Long, Integer> threads = new HashMap<>();
    private StackTexts texts;
    private long[] used = new long[4];
    private long[] aux = new long[4];
    private long events;
    private long latest;
    private int scopes;
    private final Progress progress;
    private long entriesDone;
    private long entriesTotal;

    SnapshotEmitter(Snapshot snap, String source, EventSink out) {
        this(snap, source, out, null);
    }

    /** @param progress told the entries done ({@link Progress#ENTRIES_EMITTED}) after each batch; may be null */
    SnapshotEmitter(Snapshot snap, String source, EventSink out, Progress progress) {
        this.snap = snap;
        this.source = source;
        this.out = out;
        this.progress = progress == Progress.NONE ? null : progress;
    }

    /** Checks what the stream will cost, then sends it; nothing reaches the sink when the check refuses. */
    TorchSnapshotToTrace.Result run() throws SnapshotFormatException {
        TreeSet<Integer> devices = new TreeSet<>();
        devices.addAll(snap.traces().keySet());
        devices.addAll(snap.segments().keySet());
        devices.addAll(snap.liveBlocks().keySet());
        TraceEntries e = snap.entries();
        long t0 = Long.MAX_VALUE;
        int timedDevices = 0;
        Map<Integer, Boolean> timedOf = new HashMap<>();
        for (var t : snap.traces().entrySet()) {
            boolean timed = true;
            long min = Long.MAX_VALUE;
            for (int r : t.getValue()) {
                if (e.time(r) == TraceEntries.NO_TIME) {
                    timed = false;
                    break;
                }
                min = Math.min(min, e.time(r));
            }
            timedOf.put(t.getKey(), timed);
            if (timed) {
                timedDevices++;
                t0 = Math.min(t0, min);
            }
        }
        boolean timed = timedDevices > 0;
        if (!timed) {
            t0 = 0;
        }
        long entries = 0;
        for (int[] rows : snap.traces().values()) {
            entries += rows.length;
        }
        entriesTotal = entries;
        if (progress != null) {
            progress.update(0, entries, Progress.ENTRIES_EMITTED);
        }

        Map<String, String> attrs = new LinkedHashMap<>();
        attrs.put("source", "pytorch-snapshot");
        attrs.put("file", source);
        boolean allTimed = timedDevices == snap.traces().size();
        attrs.put("time", allTimed && timed ? "time_us"
                : timed ? "time_us where every entry has it, else entry order (1 us per entry)" : "entry order (1 us per entry)");
        attrs.put("time_axis", allTimed && timed ? "time" : timed ? "mixed" : "entry_order");
        if (snap.skipped() > 0) {
            attrs.put("skipped_entries", Long.toString(snap.skipped()));
        }
        attrs.putAll(snap.settings());
        attrs.put("frames", Integer.toString(snap.stacks().frameCount()));
        attrs.put("stacks", Integer.toString(snap.stacks().stackCount() - 1));
        if (!snap.annotations().isEmpty()) {
            attrs.put("external_annotations", Integer.toString(snap.annotations().size()));
        }
        List<DeviceInfo> infos = new ArrayList<>();
        for (int d : devices) {
            infos.add(new DeviceInfo(DeviceKind.CUDA, d, "cuda:" + d + " (PyTorch snapshot)", 0, 0));
        }
        String name = Path.of(source).getFileName() == null ? source : Path.of(source).getFileName().toString();
        out.onSession(new SessionInfo(name, "unknown", timed ? usToNs(t0) : 0, infos, attrs));

        texts = new StackTexts(snap, this::string, out.sharedSites());
        int id = 0;
        List<DeviceState> states = new ArrayList<>();
        for (int d : devices) {
            boolean devTimed = timedOf.getOrDefault(d, false);
            Map<String, String> mattrs = new LinkedHashMap<>(snap.settings());
            mattrs.put("source", "pytorch-snapshot");
            mattrs.put("time_axis", devTimed ? "time" : "entry_order");
            out.onMemory(new MemoryInfo(id, "cuda:" + d, MemoryKind.SEGMENTED, "cuda:" + d, 0, mattrs));
            DeviceState st = new DeviceState(d, id++, snap.traces().get(d), devTimed, t0);
            // private pools (CUDA graphs): one memory each, beside the device's default pools
            for (Snapshot.Segment s : snap.segments().getOrDefault(d, List.of())) {
                st.segmentAt.put(s.addr(), s);
                if (s.pool() != null && !st.poolMemory.containsKey(s.pool())) {
                    Map<String, String> pattrs = new LinkedHashMap<>(mattrs);
                    pattrs.put("segment_pool_id", s.pool());
                    out.onMemory(new MemoryInfo(id, "cuda:" + d + " pool " + s.pool(), MemoryKind.SEGMENTED, "cuda:" + d, 0, pattrs));
                    st.poolMemory.put(s.pool(), id++);
                }
            }
            states.add(st);
        }
        used = new long[Math.max(1, id)];
        aux = new long[Math.max(1, id)];
        List<List<Snapshot.Annotation>> notesOf = annotations(devices, timed);

        long initialBlocks = 0;
        PriorityQueue<DeviceState> heap = new PriorityQueue<>((a, b) -> a.nextTime() != b.nextTime()
                ? Long.compare(a.nextTime(), b.nextTime()) : Integer.compare(a.device, b.device));
        int k = 0;
        for (DeviceState st : states) {
            st.notes = notesOf.get(k++);
            initialBlocks += st.emitInitial(snap.segments().getOrDefault(st.device, List.of()), snap.liveBlocks().getOrDefault(st.device, List.of()));
            if (st.hasNext()) {
                heap.add(st);
            }
        }
        if (heap.size() == 1) { // one device: nothing to merge
            DeviceState st = heap.poll();
            while (st.hasNext()) {
                st.emitNext();
            }
        }
        while (!heap.isEmpty()) {
            DeviceState st = heap.poll();
            st.emitNext();
            if (st.hasNext()) {
                heap.add(st);
            }
        }
        for (DeviceState st : states) {
            st.finish();
        }
        flush();
        if (progress != null) {
            progress.update(entries, entries, Progress.ENTRIES_EMITTED);
        }
        out.onClose();
        return new TorchSnapshotToTrace.Result(devices.size(), entries, events, initialBlocks, snap.skipped());
    }

    /** Annotations per device (those naming no device go to the first); untimed traces cannot place them. */
    private List<List<Snapshot.Annotation>> annotations(TreeSet<Integer> devices, boolean timed) {
        List<List<Snapshot.Annotation>> per = new ArrayList<>();
        List<Integer> order = new ArrayList<>(devices);
        for (int i = 0; i < order.size(); i++) {
            per.add(new ArrayList<>());
        }
        if (!timed || order.isEmpty()) {
            return per;
        }
        for (Snapshot.Annotation a : snap.annotations()) {
            int i = a.device() < 0 ? 0 : order.indexOf(a.device());
            per.get(i < 0 ? 0 : i).add(a);
        }
        for (List<Snapshot.Annotation> l : per) {
            l.sort((x, y) -> Long.compare(x.timeUs(), y.timeUs()));
        }
        return per;
    }

    /** Microseconds to nanoseconds, saturating instead of overflowing (forged times stay finite). */
    static long usToNs(long us) {
        long limit = Long.MAX_VALUE / 1000;
        return us < 0 ? 0 : us > limit ? limit * 1000 : us * 1000;
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

    private int thread(long stream) {
        Integer id = threads.get(stream);
        if (id == null) {
            id = threads.size() + 1;
            threads.put(stream, id);
            out.onThread(id, stream == 0 ? "default stream" : "stream " + stream);
        }
        return id;
    }

    private void emit(long time, EventKind kind, int memory, int thread, long a, long b, long c, int ref, int ref2) {
        emit(time, kind, memory, thread, a, b, c, ref, ref2, -1, -1);
    }

    private void emit(long time, EventKind kind, int memory, int thread, long a, long b, long c, int ref, int ref2, int site, int category) {
        if (site >= 0 || category >= 0) {
            batch.add(time, EventBatch.pack(kind.code(), 0, memory), thread, a, b, c, used[memory], aux[memory], ref, ref2, site, category);
        } else {
            batch.add(time, EventBatch.pack(kind.code(), 0, memory), thread, a, b, c, used[memory], aux[memory], ref, ref2);
        }
        events++;
        latest = Math.max(latest, time);
        if (batch.size() == BATCH) {
            flush();
        }
    }

    private void flush() {
        if (!batch.isEmpty()) {
            texts.announceNew(out); // frames and stack nodes before the events that name them
            if (out instanceof HandOffSink h) {
                batch = h.handOver(batch); // no copy: the worker owns it now
            } else {
                out.onEvents(batch);
                batch.clear();
            }
            if (progress != null) {
                progress.update(entriesDone, entriesTotal, Progress.ENTRIES_EMITTED);
            }
        }
    }

    /** One device's replay: its live blocks and segments and its position in the trace. */
    private final class DeviceState {
        final int device;
        final int memory;
        final int[] rows;
        final boolean timed;
        final long t0;
        final TreeMap<Long, Snapshot.Segment> segmentAt = new TreeMap<>();
        final Map<String, Integer> poolMemory = new HashMap<>();
        final LongLongMap live = new LongLongMap();     // address -> size of the block live there
        final LongLongMap reserved = new LongLongMap(); // address -> bytes reserved there
        final HashMap<Long, Integer> liveMemory = new HashMap<>();
        List<Snapshot.Annotation> notes = List.of();
        int nextNote;
        long lastTime;
        int next;
        int meta = -1;
        int scope = -1;

        DeviceState(int device, int memory, int[] rows, boolean timed, long t0) {
            this.device = device;
            this.memory = memory;
            this.rows = rows;
            this.timed = timed;
            this.t0 = t0;
        }

        /** The memory an address belongs to: its segment's private pool, else the device's default pools. */
        int memoryOf(long addr) {
            if (poolMemory.isEmpty()) {
                return memory;
            }
            var s = segmentAt.floorEntry(addr);
            if (s != null && s.getValue().pool() != null && addr - s.getKey() < s.getValue().size()) {
                return poolMemory.get(s.getValue().pool());
            }
            return memory;
        }

        long emitInitial(List<Snapshot.Segment> segments, List<Snapshot.Block> blocks) {
            TraceEntries e = snap.entries();
            StartState start0 = StartState.of(e, rows, segments, blocks);
            LongLongMap alive = start0.alive();
            LongLongMap requested = start0.requested();
            long start = rows == null ? 0 : time(0);
            lastTime = start;
            for (Snapshot.Segment s : start0.segments().values()) {
                int m = memoryOf(s.addr());
                reserved.put(s.addr(), reserved.get(s.addr(), 0) + s.size(), 0);
                aux[m] += s.size();
                emit(start, EventKind.RESERVE, m, thread(s.stream()), s.addr(), s.size(), 0, -1, -1);
            }
            long[] sorted = alive.sortedKeys();
            int beforeRecording = sorted.length == 0 ? -1 : string(Event.BEFORE_RECORDING);
            for (long addr : sorted) {
                long v = alive.get(addr, 0);
                Snapshot.Block b = v < 0 ? blocks.get((int) (-1 - v)) : null;
                int r = (int) v;
                long size = b != null ? b.size() : e.size(r);
                long stream = b != null ? b.stream() : e.stream(r);
                int stack = b != null ? b.stack() : e.stack(r);
                int m = memoryOf(addr);
                live.put(addr, size, 0);
                if (m != memory) {
                    liveMemory.put(addr, m);
                }
                used[m] += size;
                emit(start, EventKind.ALLOC, m, thread(stream), addr, size, size, -1, -1, texts.site(stack), beforeRecording);
                if (b != null && b.pending() && !requested.containsKey(addr)) {
                    // pending in the final state, its request older than the trace: pending from the start
                    emit(start, EventKind.FREE_REQUESTED, m, thread(stream), addr, size, 0, -1, -1);
                }
            }
            return sorted.length;
        }

        private long time(int i) {
            TraceEntries e = snap.entries();
            long t = timed ? usToNs(e.time(rows[i]) - t0) : i * 1000L;
            return Math.max(t, lastTime);
        }

        boolean hasNext() {
            return rows != null && next < rows.length;
        }

        long nextTime() {
            return time(next);
        }

        private void notesUpTo(long timeNs, boolean all) {
            while (nextNote < notes.size()) {
                Snapshot.Annotation a = notes.get(nextNote);
                long t = Math.max(lastTime, usToNs(a.timeUs() - t0));
                if (!all && t > timeNs) {
                    return;
                }
                nextNote++;
                lastTime = t;
                String text = a.stage().isEmpty() ? a.name() : a.name() + " " + a.stage();
                emit(t, EventKind.MARKER, memory, thread(0), 0, 0, 0, string(text), -1);
            }
        }

        private void scopeTo(int newMeta, long t, int th) {
            if (newMeta == meta) {
                return;
            }
            if (scope >= 0) {
                emit(t, EventKind.SCOPE_EXIT, memory, th, 0, 0, 0, texts.metaName(meta), scope);
                scope = -1;
            }
            meta = newMeta;
            if (newMeta >= 0) {
                scope = scopes++;
                emit(t, EventKind.SCOPE_ENTER, memory, th, 0, 0, -1, texts.metaName(newMeta), scope);
            }
        }

        void emitNext() {
            TraceEntries e = snap.entries();
            int i = next++;
            entriesDone++;
            int r = rows[i];
            long t = time(i);
            if (timed) {
                notesUpTo(t, false);
            }
            lastTime = t;
            long addr = e.addr(r);
            long size = e.size(r);
            int th = thread(e.stream(r));
            scopeTo(e.meta(r), t, th);
            switch (e.action(r)) {
                case TraceEntries.ALLOC -> {
                    int m = memoryOf(addr);
                    long old = live.put(addr, size, -1);
                    if (old >= 0) {
                        Integer om = liveMemory.isEmpty() ? null : liveMemory.remove(addr);
                        used[om == null ? memory : om] -= old; // a block at the same address was never freed: it is replaced
                    }
                    if (m != memory) {
                        liveMemory.put(addr, m);
                    }
                    used[m] += size;
                    emit(t, EventKind.ALLOC, m, th, addr, size, size, texts.text(e.context(r), e.category(r)), scope,
                            texts.site(e.stack(r)), texts.category(e.category(r), e.meta(r)));
                }
                case TraceEntries.FREE_COMPLETED -> {
                    long old = live.remove(addr, -1);
                    Integer om = liveMemory.isEmpty() ? null : liveMemory.remove(addr);
                    int m = om != null ? om : old >= 0 ? memory : memoryOf(addr);
                    if (old >= 0) {
                        used[m] -= old;
                    }
                    emit(t, EventKind.FREE, m, th, addr, size, 0, -1, -1);
                }
                case TraceEntries.SEGMENT_ALLOC, TraceEntries.SEGMENT_MAP -> {
                    int m = memoryOf(addr);
                    reserved.put(addr, reserved.get(addr, 0) + size, 0);
                    aux[m] += size;
                    emit(t, EventKind.RESERVE, m, th, addr, size, 0, -1, -1);
                }
                case TraceEntries.SEGMENT_FREE, TraceEntries.SEGMENT_UNMAP -> {
                    int m = memoryOf(addr);
                    long had = reserved.get(addr, -1);
                    long released = had < 0 ? 0 : Math.min(had, size);
                    if (had >= 0) {
                        if (had - released > 0) {
                            reserved.put(addr, had - released, 0);
                        } else {
                            reserved.remove(addr, 0);
                        }
                    }
                    aux[m] -= released;
                    emit(t, EventKind.UNRESERVE, m, th, addr, size, 0, -1, -1);
                }
                case TraceEntries.OOM -> emit(t, EventKind.OUT_OF_MEMORY, memory, th, addr, size, e.extra(r),
                        string("CUDA out of memory: " + size + " bytes requested, " + e.extra(r) + " bytes free on the device"), scope);
                case TraceEntries.FREE_REQUESTED -> { // pending: the block stays live until free_completed
                    Integer om = liveMemory.isEmpty() ? null : liveMemory.get(addr);
                    emit(t, EventKind.FREE_REQUESTED, om != null ? om : memoryOf(addr), th, addr, size, 0, -1, -1);
                }
                case TraceEntries.SNAPSHOT -> emit(t, EventKind.MARKER, memory, th, 0, 0, 0, string("snapshot"), -1);
                default -> { }
            }
        }

        /** Closes the open scope and places the annotations after the last entry. */
        void finish() {
            lastTime = Math.max(lastTime, latest); // after every device's last event: threads are shared
            notesUpTo(Long.MAX_VALUE, true);
            if (scope >= 0) {
                emit(lastTime, EventKind.SCOPE_EXIT, memory, thread(0), 0, 0, 0, texts.metaName(meta), scope);
                scope = -1;
            }
        }
    }
}
