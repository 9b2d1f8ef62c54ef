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
 * Immutable.
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
 */
public record PoolBinAnalysis(int memory, String pool, int bin, long binBytes, long requests, long hits, long misses,
                              long requestedBytes, long roundingWasteBytes, long heldBytes, long peakHeldBytes,
                              long releases, double meanRequestNs) implements FigureRow {

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
        Accumulator acc = new Accumulator(view.memories());
        for (long i = 0, n = view.eventCount(); i < n; i++) {
            acc.accept(view.event(i));
        }
        return acc.finish();
    }

    /** Folds pool events, in time order, into per-bin figures. Not thread-safe. */
    static final class Accumulator {
        private final Map<Integer, String> poolNames = new HashMap<>();
        private final Map<Long, Bin> bins = new TreeMap<>();

        Accumulator(List<MemoryInfo> memories) {
            for (MemoryInfo m : memories) {
                poolNames.put(m.id(), m.name());
            }
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
            final Map<Long, Long> heldBlocks = new HashMap<>();

            Bin(int memory, int bin) {
                this.memory = memory;
                this.bin = bin;
            }
        }

        private Bin bin(int memory, int bin) {
            return bins.computeIfAbsent(((long) memory << 32) | (bin & 0xffffffffL), k -> new Bin(memory, bin));
        }

        void accept(Event e) {
            switch (e.kind()) {
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
                        Long bytes = b.heldBlocks.remove(e.a());
                        b.held -= bytes != null ? bytes : Math.min(b.held, e.b());
                    }
                }
                case POOL_HOLD -> {
                    Bin b = bin(e.memory(), e.ref());
                    Long before = b.heldBlocks.put(e.a(), e.b());
                    b.held += e.b() - (before == null ? 0 : before);
                    if (b.held > b.peakHeld) {
                        b.peakHeld = b.held;
                    }
                }
                case POOL_RELEASE -> {
                    Bin b = bin(e.memory(), e.ref());
                    b.releases++;
                    Long bytes = b.heldBlocks.remove(e.a());
                    if (bytes != null) {
                        b.held -= bytes;
                    }
                }
                default -> { }
            }
        }

        List<PoolBinAnalysis> finish() {
            List<PoolBinAnalysis> out = new ArrayList<>();
            for (Bin b : bins.values()) {
                if (b.requests == 0 && b.peakHeld == 0 && b.releases == 0) {
                    continue;
                }
                out.add(new PoolBinAnalysis(b.memory, poolNames.getOrDefault(b.memory, "#" + b.memory), b.bin,
                        b.binBytes, b.requests, b.hits, b.requests - b.hits, b.requested, b.waste, b.held, b.peakHeld,
                        b.releases, b.durations == 0 ? Double.NaN : (double) b.durationSum / b.durations));
            }
            out.sort(Comparator.comparingInt(PoolBinAnalysis::memory).thenComparingInt(PoolBinAnalysis::bin));
            return out;
        }
    }

}
