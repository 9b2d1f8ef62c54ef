package dev.arenascope.core.trace.torch;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import dev.arenascope.core.util.LongLongMap;

/**
 * A PyTorch snapshot as an allocator's history, for replaying it through a model of the caching
 * allocator: per device, its trace entries in order (action, address, size, stream, time), the
 * segments and live blocks when the trace began ({@link StartState}: the final state run backwards)
 * and those of the final state, and the file's {@code allocator_settings}.
 *
 * <p>Sizes are the file's: an {@code alloc}, {@code free_requested} or {@code free_completed} entry
 * carries the bytes requested, a segment entry the segment's bytes, an {@code oom} the request rounded
 * (its {@code device_free} is {@link Device#extra}). A block live at the start and freed in the trace is
 * known by its request alone ({@link Block#sizeKnown} false): what it spanned is the replay's to infer.
 *
 * <p>Memory: about 40 bytes per entry beside the snapshot's own reading ({@link SnapshotReader}).
 */
public final class TorchAllocatorTrace {
    public static final byte ALLOC = TraceEntries.ALLOC, FREE_REQUESTED = TraceEntries.FREE_REQUESTED,
            FREE_COMPLETED = TraceEntries.FREE_COMPLETED, SEGMENT_ALLOC = TraceEntries.SEGMENT_ALLOC,
            SEGMENT_FREE = TraceEntries.SEGMENT_FREE, SEGMENT_MAP = TraceEntries.SEGMENT_MAP,
            SEGMENT_UNMAP = TraceEntries.SEGMENT_UNMAP, OOM = TraceEntries.OOM, SNAPSHOT = TraceEntries.SNAPSHOT,
            OTHER = TraceEntries.UNKNOWN;

    /** A segment: {@code pool} is its private pool ({@code segment_pool_id}, e.g. {@code 1.0}), null for the default pools. */
    public record Segment(long address, long size, long stream, String pool, boolean small, boolean expandable) {}

    /**
     * A block in use: {@code size} its bytes where {@code sizeKnown}, else the bytes requested;
     * {@code pending}: its free was requested and has not completed.
     */
    public record Block(long address, long size, long requested, long stream, boolean pending, boolean sizeKnown) {}

    /**
     * One device's history.
     *
     * @param time microseconds ({@code time_us}), or -1 where an entry has none
     * @param extra an {@code oom} entry's {@code device_free}, else 0
     */
    public record Device(int index, byte[] action, long[] address, long[] size, long[] stream, long[] time, long[] extra,
                         List<Segment> startSegments, List<Block> startBlocks, List<Segment> finalSegments, List<Block> finalBlocks) {
        public int entries() {
            return action.length;
        }

        /** The action's name as the file spells it. */
        public static String actionName(byte a) {
            return switch (a) {
                case ALLOC -> "alloc";
                case FREE_REQUESTED -> "free_requested";
                case FREE_COMPLETED -> "free_completed";
                case SEGMENT_ALLOC -> "segment_alloc";
                case SEGMENT_FREE -> "segment_free";
                case SEGMENT_MAP -> "segment_map";
                case SEGMENT_UNMAP -> "segment_unmap";
                case OOM -> "oom";
                case SNAPSHOT -> "snapshot";
                default -> "other";
            };
        }
    }

    private final String source;
    private final Map<String, String> settings;
    private final List<Device> devices;

    private TorchAllocatorTrace(String source, Map<String, String> settings, List<Device> devices) {
        this.source = source;
        this.settings = settings;
        this.devices = devices;
    }

    /** Reads a snapshot; bad input throws {@link PickleFormatException} or {@link SnapshotFormatException} naming the file and place. */
    public static TorchAllocatorTrace read(Path file) throws IOException {
        return of(SnapshotReader.read(file, null), file.toString());
    }

    /** Reads a snapshot held in memory. */
    public static TorchAllocatorTrace read(byte[] pickle, String source) throws IOException {
        return of(SnapshotReader.read(pickle, source), source);
    }

    private static TorchAllocatorTrace of(Snapshot snap, String source) {
        List<Device> out = new ArrayList<>();
        TreeSet<Integer> ids = new TreeSet<>();
        ids.addAll(snap.traces().keySet());
        ids.addAll(snap.segments().keySet());
        TraceEntries e = snap.entries();
        for (int d : ids) {
            int[] rows = snap.traces().getOrDefault(d, new int[0]);
            int n = rows.length;
            byte[] action = new byte[n];
            long[] addr = new long[n], size = new long[n], stream = new long[n], time = new long[n], extra = new long[n];
            for (int i = 0; i < n; i++) {
                int r = rows[i];
                action[i] = e.problem(r) != null ? OTHER : e.action(r);
                addr[i] = e.addr(r);
                size[i] = e.size(r);
                stream[i] = e.stream(r);
                time[i] = e.time(r) == TraceEntries.NO_TIME ? -1 : e.time(r);
                extra[i] = e.extra(r);
            }
            List<Snapshot.Segment> segs = snap.segments().getOrDefault(d, List.of());
            List<Snapshot.Block> blocks = snap.liveBlocks().getOrDefault(d, List.of());
            StartState st = StartState.of(e, rows, segs, blocks);
            List<Segment> startSegs = new ArrayList<>();
            for (Snapshot.Segment s : st.segments().values()) {
                startSegs.add(new Segment(s.addr(), s.size(), s.stream(), s.pool(), s.small(), s.expandable()));
            }
            List<Block> startBlocks = new ArrayList<>();
            LongLongMap alive = st.alive();
            for (long a : alive.sortedKeys()) {
                long v = alive.get(a, 0);
                if (v < 0) {
                    Snapshot.Block b = blocks.get((int) (-1 - v));
                    boolean pending = b.pending() && !st.requested().containsKey(a);
                    startBlocks.add(new Block(a, b.size(), b.requested(), b.stream(), pending, true));
                } else {
                    int r = (int) v;
                    startBlocks.add(new Block(a, e.size(r), e.size(r), e.stream(r), false, false));
                }
            }
            List<Segment> finalSegs = new ArrayList<>();
            for (Snapshot.Segment s : segs) {
                finalSegs.add(new Segment(s.addr(), s.size(), s.stream(), s.pool(), s.small(), s.expandable()));
            }
            finalSegs.sort((x, y) -> Long.compare(x.address(), y.address()));
            List<Block> finalBlocks = new ArrayList<>();
            for (Snapshot.Block b : blocks) {
                finalBlocks.add(new Block(b.addr(), b.size(), b.requested(), b.stream(), b.pending(), true));
            }
            finalBlocks.sort((x, y) -> Long.compare(x.address(), y.address()));
            out.add(new Device(d, action, addr, size, stream, time, extra, List.copyOf(startSegs), List.copyOf(startBlocks),
                    List.copyOf(finalSegs), List.copyOf(finalBlocks)));
        }
        return new TorchAllocatorTrace(source, Map.copyOf(snap.settings()), List.copyOf(out));
    }

    /** The file it was read from. */
    public String source() {
        return source;
    }

    /** {@code allocator_settings} flattened: {@code allocator_settings.KEY} (and {@code .KEY.SUBKEY} for a dict) = text. */
    public Map<String, String> settings() {
        return settings;
    }

    /** The devices, by index. */
    public List<Device> devices() {
        return devices;
    }
}
