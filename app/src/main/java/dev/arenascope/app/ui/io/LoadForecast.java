package dev.arenascope.app.ui.io;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.Arrays;
import java.util.Locale;

import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Counts;
import dev.arenascope.core.format.Durations;

/**
 * How a file's load is going, from the bytes read of its size: the share done, the time left
 * ({@link TimeLeft}), and whether it will fit in the heap at all, projected from the heap the load has taken
 * so far (measured after collections, so garbage does not count). A load projected well past the heap
 * is refused once a fair part of the file is read, not after minutes of full collections. Pure but for
 * {@link #heapAfterCollection()}; one per load, on the loading thread.
 *
 * @param fileBytes   the file's size
 * @param maxHeap     the heap's limit ({@code -Xmx})
 * @param heapAtStart heap in use after collection when the load began
 */
public record LoadForecast(long fileBytes, long maxHeap, long heapAtStart) {
    /** The share of the file read before a refusal may be made (the trend is noise below it). */
    public static final double MIN_SHARE = 0.15;
    /** How far past the heap a projection must go to refuse (the projection is linear; the load may be less). */
    public static final double MARGIN = 1.15;

    /** A forecast for a load of {@code fileBytes} starting now. */
    public static LoadForecast start(long fileBytes) {
        return new LoadForecast(fileBytes, Runtime.getRuntime().maxMemory(), heapAfterCollection());
    }

    /**
     * The share of a snapshot's open its read takes; the rest is its entries made into events. Measured in
     * the window's open of the worst-shape snapshots (every stack distinct), 2026-12-03: 200 k allocations
     * 3.19 s of 5.07 s (63%), 1 M allocations 17.3 s of 24.6 s (70%).
     */
    public static final double READ_SHARE = 0.67;
    /** The scale the bar counts a whole open in: both phases on one scale, so the bar never runs back to empty. */
    public static final long PARTS = 1_000_000;

    /**
     * Where the whole open is, in {@link #PARTS}: the read fills the first {@link #READ_SHARE} of the bar
     * ({@code done} bytes of {@code total}), making events the rest ({@code done} entries of {@code total}).
     */
    public static long parts(boolean emitting, long done, long total) {
        double share = total <= 0 ? 0 : Math.clamp((double) done / total, 0, 1);
        return Math.round(PARTS * (emitting ? READ_SHARE + (1 - READ_SHARE) * share : READ_SHARE * share));
    }

    /**
     * The time left of a whole open, at the rate of its latest half: from the earliest report at which at
     * least half of what is done now was done, to now. The rate since the start runs high where an import
     * speeds up as it goes (a phase's first batches pay for compiling its code: the 1 M-allocation
     * snapshot's events said "about 75 s left" at 1% where 7 s were left). One per open, on its reading thread.
     */
    public static final class TimeLeft {
        private long[] at = new long[64];
        private long[] parts = new long[64];
        private int n;

        /** The open stands at {@code doneParts} of {@link #PARTS} at {@code nowNanos}. */
        public void note(long doneParts, long nowNanos) {
            if (n == at.length) {
                at = Arrays.copyOf(at, 2 * n);
                parts = Arrays.copyOf(parts, 2 * n);
            }
            at[n] = nowNanos;
            parts[n] = doneParts;
            n++;
        }

        /** Seconds left at the latest half's rate, or -1 before there is one (under half a second of it). */
        public double seconds() {
            if (n < 2) {
                return -1;
            }
            long now = parts[n - 1];
            int from = 0;
            while (from < n - 1 && parts[from] < now / 2) {
                from++;
            }
            long moved = now - parts[from];
            double elapsed = (at[n - 1] - at[from]) / 1e9;
            if (moved <= 0 || elapsed < 0.5) {
                return -1;
            }
            return Math.max(0, (PARTS - now) * elapsed / moved);
        }
    }

    /** The heap the whole file will take, projected linearly from what the part read took. */
    public long projectedHeap(long bytesRead, long heapNow) {
        if (bytesRead <= 0) {
            return heapNow;
        }
        double grown = Math.max(0, heapNow - heapAtStart);
        return heapAtStart + (long) (grown * ((double) fileBytes / bytesRead));
    }

    /** Why the load will not fit (one line, with the figures and what to do), or null while it may. */
    public String refusal(String fileName, long bytesRead, long heapNow) {
        if (fileBytes <= 0 || bytesRead < MIN_SHARE * fileBytes || maxHeap <= 0 || maxHeap == Long.MAX_VALUE) {
            return null;
        }
        long need = projectedHeap(bytesRead, heapNow);
        if (need <= MARGIN * maxHeap) {
            return null;
        }
        long suggest = (long) Math.ceil(need * 1.25 / (1L << 30));
        return String.format(Locale.ROOT, "Not enough memory to open %s: after %s of its %s the load holds %s, so the whole file"
                + " needs about %s of heap and this window has %s. Start ArenaScope with more (ARENASCOPE_JVM_OPTS=-Xmx%dg).",
                fileName, Bytes.format(bytesRead), Bytes.format(fileBytes), Bytes.format(Math.max(0, heapNow - heapAtStart)),
                Bytes.format(need), Bytes.format(maxHeap), Math.max(1, suggest));
    }

    /** The status line's words: {@code read 120 MiB of 463 MiB (26%), about 40 s left} (of the whole open; -1: not known yet). */
    public String progressText(long bytesRead, double secondsLeft) {
        String share = fileBytes > 0 ? String.format(Locale.ROOT, " (%.0f%%)", 100.0 * Math.min(bytesRead, fileBytes) / fileBytes) : "";
        return "read " + Bytes.format(bytesRead) + " of " + Bytes.format(fileBytes) + share + leftWords(secondsLeft);
    }

    /**
     * The status line's words in a snapshot's second phase, its entries made into events:
     * {@code making events: 1,200,000 of 2,200,000 entries (55%), about 20 s left} (-1: not known yet).
     */
    public static String emittingText(long done, long total, double secondsLeft) {
        String share = total > 0 ? String.format(Locale.ROOT, " (%.0f%%)", 100.0 * Math.min(done, total) / total) : "";
        return String.format(Locale.ROOT, "making events: %,d of %,d %s", done, total, Counts.noun(total, "entry", "entries"))
                + share + leftWords(secondsLeft);
    }

    /** {@code ", about 40 s left"}, or nothing before there is a rate ({@code left < 0}). */
    private static String leftWords(double left) {
        return left < 0 ? "" : ", about " + (left < 1 ? "a second" : left < 120 ? String.format(Locale.ROOT, "%.0f s", left)
                : Durations.format((long) (left * 1e9))) + " left";
    }

    /**
     * Heap in use as the last collections left it: each heap pool's usage after its latest collection
     * (live data, not garbage), its current usage where it reports none.
     */
    public static long heapAfterCollection() {
        long sum = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() != MemoryType.HEAP || !p.isValid()) {
                continue;
            }
            MemoryUsage after = p.getCollectionUsage();
            MemoryUsage now = p.getUsage();
            if (after != null && after.getUsed() > 0) {
                sum += after.getUsed();
            } else if (after == null && now != null) {
                sum += now.getUsed();
            }
        }
        return sum;
    }
}
