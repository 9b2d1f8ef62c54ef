package dev.arenascope.core.analysis;

import java.util.ArrayList;
import java.util.List;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;

/**
 * What one memory (arena, pool, plan arena or imported device memory) did over a session: its peak,
 * its high-water marks, how much of its footprint was ever in use, and its occupancy over time.
 *
 * <h2>Definitions</h2>
 * <ul>
 *   <li><b>in use</b>: the memory's {@code used} gauge (bytes handed out and not yet released).</li>
 *   <li><b>high-water marks</b>: the most of each gauge at once and when it was first reached. An
 *       arena has {@code forward} ({@code used - aux}), {@code backward} ({@code aux}) and
 *       {@code inUse}; a pool and an imported memory have {@code inUse} and {@code reserved}
 *       ({@code aux}: bytes taken from the device, in use plus held); a plan arena has {@code inUse}.</li>
 *   <li><b>footprint</b>: the bytes the memory needs from its device for this session to run: an arena's
 *       forward plus backward high-water marks (the two ends need not peak together); a pool's or an
 *       imported memory's reserved high-water mark; a plan arena's height (the highest end offset of any
 *       bound or live tensor, else its in-use peak).</li>
 *   <li><b>fragmentation</b> (external): {@code 1 - peakUsed / footprint}, the share of the footprint that
 *       was never in use at the busiest moment: bytes a pool held idle or its device segments left
 *       unused, holes a plan leaves between tensors, or an arena end's room the other end never
 *       needed at the same time. 0 when the memory was filled solid at its peak; NaN with no footprint.</li>
 *   <li><b>rounding waste</b> (internal fragmentation): {@code (allocated - requested) / allocated} over all
 *       allocations and pool requests: the share of handed-out bytes that went to alignment or bin
 *       rounding. NaN with no allocations.</li>
 * </ul>
 *
 * <p>Immutable; {@link Occupancy} arrays must not be modified by callers.
 *
 * @param id                    the memory's id in its session
 * @param name                  the memory's name
 * @param kind                  what sort of memory it is
 * @param device                the device id
 * @param capacityBytes         capacity in bytes, 0 when unbounded or unknown
 * @param peakUsedBytes         the most bytes in use at once
 * @param peakUsedAtNs          when that peak was first reached (ns since the session start), -1 if never used
 * @param highWaterMarks        the high-water marks of the memory's gauges
 * @param footprintBytes        see above
 * @param fragmentation         external fragmentation, see above
 * @param roundingWaste         internal fragmentation, see above
 * @param allocations           allocation and pool-request events
 * @param allocatedBytes        bytes handed out by those, after alignment and rounding
 * @param requestedBytes        bytes asked for by those
 * @param releases              frees, pointer restores and resets
 * @param outOfMemory           requests that could not be served
 * @param occupancy             the gauges over the session, for charts
 */
public record MemoryAnalysis(int id, String name, MemoryKind kind, String device, long capacityBytes,
                             long peakUsedBytes, long peakUsedAtNs, List<HighWater> highWaterMarks,
                             long footprintBytes, double fragmentation, double roundingWaste,
                             long allocations, long allocatedBytes, long requestedBytes, long releases,
                             long outOfMemory, Occupancy occupancy) implements FigureRow {

    public MemoryAnalysis {
        highWaterMarks = List.copyOf(highWaterMarks);
    }

    /**
     * A high-water mark.
     *
     * @param key   stable name: {@code inUse}, {@code forward}, {@code backward} or {@code reserved}
     * @param bytes the most bytes at once
     * @param atNs  when first reached, -1 if the gauge never rose above 0
     */
    public record HighWater(String key, long bytes, long atNs) {}

    /**
     * A memory's gauges over {@code [fromNs, toNs]} folded into equal buckets, per bucket the most of
     * each gauge; a bucket with no event carries the value before it.
     *
     * @param fromNs      start of the first bucket
     * @param toNs        end of the last bucket
     * @param usedMax     per bucket, most bytes in use
     * @param auxMax      per bucket, most of the second gauge (backward end, reserved)
     * @param forwardMax  per bucket, most bytes of an arena's forward end ({@code used - aux}); equals usedMax otherwise
     */
    public record Occupancy(long fromNs, long toNs, long[] usedMax, long[] auxMax, long[] forwardMax) {
        public int buckets() {
            return usedMax.length;
        }
    }

    /** The high-water mark with this key, or null. */
    public HighWater highWater(String key) {
        for (HighWater h : highWaterMarks) {
            if (h.key().equals(key)) {
                return h;
            }
        }
        return null;
    }

    @Override
    public String section() {
        return "memories";
    }

    @Override
    public String subject() {
        return name;
    }

    @Override
    public List<Figure> figures() {
        List<Figure> f = new ArrayList<>();
        f.add(Figure.bytes("peakUsedBytes", "peak in use", peakUsedBytes, true));
        f.add(Figure.time("peakUsedAtNs", "peak at", peakUsedAtNs));
        for (HighWater h : highWaterMarks) {
            if (!h.key().equals("inUse")) {
                f.add(Figure.bytes(h.key() + "HighWaterBytes", h.key() + " high-water", h.bytes(), true));
            }
        }
        f.add(Figure.bytes("footprintBytes", "footprint", footprintBytes, true));
        f.add(new Figure("capacityBytes", "capacity", Figure.Unit.BYTES, capacityBytes > 0 ? capacityBytes : Double.NaN,
                Figure.Better.NEITHER, false));
        f.add(Figure.ratio("fragmentation", "fragmentation", fragmentation, Figure.Better.LOWER));
        f.add(Figure.ratio("roundingWaste", "rounding waste", roundingWaste, Figure.Better.LOWER));
        f.add(Figure.count("allocations", "allocations", allocations, Figure.Better.NEITHER));
        f.add(new Figure("allocatedBytes", "allocated", Figure.Unit.BYTES, allocatedBytes, Figure.Better.NEITHER, false));
        f.add(Figure.count("outOfMemory", "out of memory", outOfMemory, Figure.Better.LOWER));
        return f;
    }

    /** Folds one memory's events, in time order, into a {@link MemoryAnalysis}. Not thread-safe. */
    static final class Accumulator {
        private final MemoryInfo info;
        private final long fromNs;
        private final long spanNs;
        private final int buckets;
        // the buckets touched so far, in bucket order (a memory's events come in time order, so almost
        // always appended): a memory costs what its events touch, not the whole chart, until finish
        private int[] idx = new int[0];
        private long[] usedMax = new long[0];
        private long[] auxMax = new long[0];
        private long[] forwardMax = new long[0];
        private long[] usedLast = new long[0];
        private long[] auxLast = new long[0];
        private int touchedCount;
        private long peakUsed;
        private long peakUsedAt = -1;
        private long peakAux;
        private long peakAuxAt = -1;
        private long peakForward;
        private long peakForwardAt = -1;
        private long extent;
        private long allocations;
        private long allocated;
        private long requested;
        private long releases;
        private long oom;

        Accumulator(MemoryInfo info, long fromNs, long toNs, int buckets) {
            this.info = info;
            this.fromNs = fromNs;
            this.spanNs = Math.max(1, toNs - fromNs + 1);
            this.buckets = buckets;
        }

        /** The footprint so far, as {@link #finish} reckons it (what the report ranks memories by). */
        long footprint() {
            return switch (info.kind()) {
                case ARENA -> peakForward + peakAux;
                case POOL, SEGMENTED -> Math.max(peakAux, peakUsed);
                default -> Math.max(extent, peakUsed);
            };
        }

        /** The slot of bucket {@code b} in the touched arrays, made when it is new. */
        private int slot(int b) {
            int n = touchedCount;
            if (n > 0 && idx[n - 1] == b) {
                return n - 1;
            }
            int at = n > 0 && b < idx[n - 1] ? java.util.Arrays.binarySearch(idx, 0, n, b) : -(n + 1);
            if (at >= 0) {
                return at;
            }
            at = -(at + 1);
            if (n == idx.length) {
                int cap = Math.min(buckets, Math.max(4, n * 2));
                idx = java.util.Arrays.copyOf(idx, cap);
                usedMax = java.util.Arrays.copyOf(usedMax, cap);
                auxMax = java.util.Arrays.copyOf(auxMax, cap);
                forwardMax = java.util.Arrays.copyOf(forwardMax, cap);
                usedLast = java.util.Arrays.copyOf(usedLast, cap);
                auxLast = java.util.Arrays.copyOf(auxLast, cap);
            }
            if (at < n) { // an event earlier than the last one's bucket: kept in order
                System.arraycopy(idx, at, idx, at + 1, n - at);
                for (long[] col : new long[][] {usedMax, auxMax, forwardMax, usedLast, auxLast}) {
                    System.arraycopy(col, at, col, at + 1, n - at);
                }
            }
            idx[at] = b;
            usedMax[at] = Long.MIN_VALUE;
            auxMax[at] = Long.MIN_VALUE;
            forwardMax[at] = Long.MIN_VALUE;
            touchedCount = n + 1;
            return at;
        }

        void accept(Event e) {
            long t = e.timeNs();
            long used = e.used();
            long aux = e.aux();
            long forward = info.kind().forward(used, aux);
            if (used > peakUsed) {
                peakUsed = used;
                peakUsedAt = t;
            }
            if (aux > peakAux) {
                peakAux = aux;
                peakAuxAt = t;
            }
            if (forward > peakForward) {
                peakForward = forward;
                peakForwardAt = t;
            }
            int n = buckets;
            int i = slot((int) Math.min(n - 1, Math.max(0, (long) ((double) (t - fromNs) / spanNs * n))));
            usedMax[i] = Math.max(usedMax[i], used);
            auxMax[i] = Math.max(auxMax[i], aux);
            forwardMax[i] = Math.max(forwardMax[i], forward);
            usedLast[i] = used;
            auxLast[i] = aux;
            switch (e.kind()) {
                case ALLOC, POOL_REQUEST -> {
                    allocations++;
                    allocated += e.b();
                    requested += e.c() > 0 && e.c() <= e.b() ? e.c() : e.b();
                    if (e.kind() == EventKind.ALLOC && isPlan()) {
                        extent = Math.max(extent, e.a() + e.b());
                    }
                }
                case PLAN_BIND, TENSOR_LIVE -> extent = Math.max(extent, e.a() + e.b());
                case FREE, POINTER_RESTORE, RESET -> releases++;
                case OUT_OF_MEMORY -> oom++;
                default -> { }
            }
        }

        private boolean isPlan() {
            return switch (info.kind()) {
                case PLAN_SCRATCH, PLAN_PERSISTENT, PLAN_CONSTANT -> true;
                default -> false;
            };
        }

        /**
         * The memory's analysis; with {@code chart}, its occupancy in the buckets asked for, else in one
         * bucket (its peaks over the whole span), which is what a memory not charted costs.
         */
        MemoryAnalysis finish(boolean chart) {
            int n = chart ? buckets : 1;
            long[] uMax = new long[n];
            long[] aMax = new long[n];
            long[] fMax = new long[n];
            if (!chart) {
                uMax[0] = peakUsed;
                aMax[0] = peakAux;
                fMax[0] = peakForward;
            } else {
                long carryUsed = 0;
                long carryAux = 0;
                int k = 0;
                for (int i = 0; i < n; i++) {
                    if (k < touchedCount && idx[k] == i) {
                        uMax[i] = usedMax[k];
                        aMax[i] = auxMax[k];
                        fMax[i] = forwardMax[k];
                        carryUsed = usedLast[k];
                        carryAux = auxLast[k];
                        k++;
                    } else {
                        uMax[i] = carryUsed;
                        aMax[i] = carryAux;
                        fMax[i] = info.kind().forward(carryUsed, carryAux);
                    }
                }
            }
            List<HighWater> marks = new ArrayList<>();
            marks.add(new HighWater("inUse", peakUsed, peakUsedAt));
            long footprint;
            switch (info.kind()) {
                case ARENA -> {
                    marks.add(new HighWater("forward", peakForward, peakForwardAt));
                    marks.add(new HighWater("backward", peakAux, peakAuxAt));
                    footprint = peakForward + peakAux;
                }
                case POOL, SEGMENTED -> {
                    marks.add(new HighWater("reserved", peakAux, peakAuxAt));
                    footprint = Math.max(peakAux, peakUsed);
                }
                default -> footprint = Math.max(extent, peakUsed);
            }
            double fragmentation = footprint > 0 ? 1.0 - (double) peakUsed / footprint : Double.NaN;
            double waste = roundingWaste(allocated, requested);
            return new MemoryAnalysis(info.id(), info.name(), info.kind(), info.device(), info.capacity(),
                    peakUsed, peakUsedAt, marks, footprint, fragmentation, waste, allocations, allocated, requested,
                    releases, oom, new Occupancy(fromNs, fromNs + spanNs - 1, uMax, aMax, fMax));
        }
    }

    /**
     * Rounding waste as every view states it, the report's column and the window's pool figures alike:
     * {@code (allocated - requested) / allocated}, the share of handed-out bytes that went to alignment
     * or bin rounding; NaN when nothing was handed out. Print it with {@link dev.arenascope.core.format.Percent}.
     */
    public static double roundingWaste(long allocatedBytes, long requestedBytes) {
        return allocatedBytes > 0 ? (double) (allocatedBytes - requestedBytes) / allocatedBytes : Double.NaN;
    }
}
