package dev.arenascope.core.analysis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.util.LongLongMap;

/**
 * One bin of a binned pool over a session, derived from its
 * {@link EventKind#POOL_REQUEST}, {@link EventKind#POOL_HOLD} and {@link EventKind#POOL_RELEASE} events.
 *
 * <h2>Definitions</h2>
 * <ul>
 *   <li><b>hit</b>: a request served from a block the bin held; <b>miss</b>: one that took a new block
 *       from the device.</li>
 *   <li><b>held bytes</b>: bytes of blocks returned to the bin and not yet handed out again or given back
 *       to the device (tracked per block address).</li>
 *   <li><b>rounding waste</b>: {@code sum(bin size - requested)} over the bin's requests.</li>
 *   <li><b>reuse factor</b>: {@code requests / misses}, how many requests each block taken from the device
 *       served on average; {@code requests} when there was no miss (every block came from before the trace),
 *       NaN with no request.</li>
 * </ul>
 * The one pool-bin model of the project: reports list these rows, and the window's pool histograms
 * read the same rows from a live {@link Accumulator}. Immutable.
 *
 * @param memory           the pool's memory id
 * @param pool             the pool's name
 * @param bin              the bin number
 * @param binBytes         the bin's block size (largest block handed out by it)
 * @param requests         requests served by the bin
 * @param hits             requests served from held blocks
 * @param misses           requests that took a new block
 * @param requestedBytes   bytes asked for
 * @param roundingWasteBytes bytes handed out beyond what was asked
 * @param heldBytes        bytes held at the end of the trace
 * @param peakHeldBytes    the most bytes held at once
 * @param releases         blocks given back to the device
 * @param meanRequestNs    mean request duration in ns (NaN when not recorded)
 * @param heldBlocks       blocks held at the end of the trace
 */
public record PoolBinAnalysis(int memory, String pool, int bin, long binBytes, long requests, long hits, long misses,
                              long requestedBytes, long roundingWasteBytes, long heldBytes, long peakHeldBytes,
                              long releases, double meanRequestNs, long heldBlocks) implements FigureRow {

    /** {@code hits / requests}, NaN with no request. */
    public double hitRate() {
        return requests == 0 ? Double.NaN : (double) hits / requests;
    }

    /** {@code requests / misses} (see the class comment). */
    public double reuseFactor() {
        return requests == 0 ? Double.NaN : misses == 0 ? requests : (double) requests / misses;
    }

    @Override
    public String section() {
        return "poolBins";
    }

    @Override
    public String subject() {
        return pool + ": bin " + bin;
    }

    @Override
    public List<Figure> figures() {
        List<Figure> f = new ArrayList<>();
        f.add(new Figure("binBytes", "block size", Figure.Unit.BYTES, binBytes, Figure.Better.NEITHER, false));
        f.add(Figure.count("requests", "requests", requests, Figure.Better.NEITHER));
        f.add(Figure.count("hits", "hits", hits, Figure.Better.HIGHER));
        f.add(Figure.count("misses", "misses", misses, Figure.Better.LOWER));
        f.add(Figure.ratio("hitRate", "hit rate", hitRate(), Figure.Better.HIGHER));
        f.add(Figure.bytes("heldBytes", "held at end", heldBytes, false));
        f.add(Figure.bytes("peakHeldBytes", "peak held", peakHeldBytes, false));
        f.add(Figure.bytes("roundingWasteBytes", "rounding waste", roundingWasteBytes, false));
        f.add(new Figure("reuseFactor", "reuse", Figure.Unit.FACTOR, reuseFactor(), Figure.Better.HIGHER, false));
        return f;
    }

    /** Every bin of every pool in the trace, by pool then bin (one pass over its events). */
    public static List<PoolBinAnalysis> of(TraceView view) {
        Accumulator acc = new Accumulator();
        for (long i = 0, n = view.eventCount(); i < n; i++) {
            acc.accept(view.event(i));
        }
        return acc.snapshot(view.memories());
    }

    /**
     * Folds pool events, in the trace's order, into per-bin figures; incremental: it may be fed more
     * events after any {@link #snapshot}, so a live session's rows cost what its new events cost.
     * Memory: one entry per bin and per block held at the moment (held blocks are tracked by address in
     * a {@link LongLongMap}, whose seeded hash a trace cannot aim). Not thread-safe: one thread feeds and
     * queries it; the rows it returns are immutable.
     */
    public static final class Accumulator {
        private static final long ABSENT = Long.MIN_VALUE;
        private final Map<Long, Bin> bins = new TreeMap<>();

        /** An accumulator that has seen no event. */
        public Accumulator() {
        }

        private static final class Bin {
            final int memory;
            final int bin;
            long binBytes;
            long requests;
            long hits;
            long requested;
            long waste;
            long held;
            long peakHeld;
            long releases;
            long durationSum;
            long durations;
            final LongLongMap heldBlocks = new LongLongMap(); // address -> bytes

            Bin(int memory, int bin) {
                this.memory = memory;
                this.bin = bin;
            }
        }

        private Bin bin(int memory, int bin) {
            return bins.computeIfAbsent(((long) memory << 32) | (bin & 0xffffffffL), k -> new Bin(memory, bin));
        }

        /** Folds one event (events other than pool requests, holds and releases are ignored). */
        public void accept(Event e) {
            EventKind kind = e.kind();
            if (kind == null) {
                return;
            }
            switch (kind) {
                case POOL_REQUEST -> {
                    Bin b = bin(e.memory(), e.ref());
                    b.requests++;
                    b.binBytes = Math.max(b.binBytes, e.b());
                    long asked = e.c() > 0 && e.c() <= e.b() ? e.c() : e.b();
                    b.requested += asked;
                    b.waste += e.b() - asked;
                    if (e.ref2() > 0) {
                        b.durationSum += e.ref2();
                        b.durations++;
                    }
                    if (e.has(Event.FLAG_HIT)) {
                        b.hits++;
                        long bytes = b.heldBlocks.remove(e.a(), ABSENT);
                        b.held -= bytes != ABSENT ? bytes : Math.min(b.held, e.b());
                    }
                }
                case POOL_HOLD -> {
                    Bin b = bin(e.memory(), e.ref());
                    long before = b.heldBlocks.put(e.a(), e.b(), ABSENT);
                    b.held += e.b() - (before == ABSENT ? 0 : before);
                    if (b.held > b.peakHeld) {
                        b.peakHeld = b.held;
                    }
                }
                case POOL_RELEASE -> {
                    Bin b = bin(e.memory(), e.ref());
                    b.releases++;
                    long bytes = b.heldBlocks.remove(e.a(), ABSENT);
                    if (bytes != ABSENT) {
                        b.held -= bytes;
                    }
                }
                default -> { }
            }
        }

        /**
         * The bins so far, by pool then bin (bins that saw no request, hold or release left out); the
         * accumulator is not changed.
         *
         * @param memories names the pools (the trace's memories as known now)
         */
        public List<PoolBinAnalysis> snapshot(List<MemoryInfo> memories) {
            Map<Integer, String> poolNames = new HashMap<>();
            for (MemoryInfo m : memories) {
                poolNames.put(m.id(), m.name());
            }
            List<PoolBinAnalysis> out = new ArrayList<>();
            for (Bin b : bins.values()) {
                if (b.requests == 0 && b.peakHeld == 0 && b.releases == 0) {
                    continue;
                }
                out.add(new PoolBinAnalysis(b.memory, poolNames.getOrDefault(b.memory, "#" + b.memory), b.bin,
                        b.binBytes, b.requests, b.hits, b.requests - b.hits, b.requested, b.waste, b.held, b.peakHeld,
                        b.releases, b.durations == 0 ? Double.NaN : (double) b.durationSum / b.durations, b.heldBlocks.size()));
            }
            out.sort(Comparator.comparingInt(PoolBinAnalysis::memory).thenComparingInt(PoolBinAnalysis::bin));
            return out;
        }
    }

}
