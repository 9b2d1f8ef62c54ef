package dev.arenascope.app.ui.io;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.Locale;

import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Counts;
import dev.arenascope.core.format.Durations;

/**
 * How a file's load is going, from the bytes read of its size: the share done, the time left at the
 * rate so far, and whether it will fit in the heap at all, projected from the heap the load has taken
 * so far (measured after collections, so garbage does not count). A load projected well past the heap
 * is refused once a fair part of the file is read, not after minutes of full collections. Pure but for
 * {@link #heapAfterCollection()}; one per load, on the loading thread.
 *
 * @param fileBytes   the file's size
 * @param maxHeap     the heap's limit ({@code -Xmx})
 * @param heapAtStart heap in use after collection when the load began
 * @param startNanos  {@link System#nanoTime()} when it began
 */
public record LoadForecast(long fileBytes, long maxHeap, long heapAtStart, long startNanos) {
    /** The share of the file read before a refusal may be made (the trend is noise below it). */
    public static final double MIN_SHARE = 0.15;
    /** How far past the heap a projection must go to refuse (the projection is linear; the load may be less). */
    public static final double MARGIN = 1.15;

    /** A forecast for a load of {@code fileBytes} starting now. */
    public static LoadForecast start(long fileBytes) {
        return new LoadForecast(fileBytes, Runtime.getRuntime().maxMemory(), heapAfterCollection(), System.nanoTime());
    }

    /** Seconds left at the rate so far, or -1 before there is a rate. */
    public double secondsLeft(long bytesRead, long nowNanos) {
        double elapsed = (nowNanos - startNanos) / 1e9;
        if (bytesRead <= 0 || elapsed <= 0.5 || fileBytes <= 0) {
            return -1;
        }
        return Math.max(0, (fileBytes - bytesRead) * elapsed / bytesRead);
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

    /** The status line's words: {@code read 120 MiB of 463 MiB (26%), about 40 s left}. */
    public String progressText(long bytesRead, long nowNanos) {
        double left = secondsLeft(bytesRead, nowNanos);
        String share = fileBytes > 0 ? String.format(Locale.ROOT, " (%.0f%%)", 100.0 * Math.min(bytesRead, fileBytes) / fileBytes) : "";
        return "read " + Bytes.format(bytesRead) + " of " + Bytes.format(fileBytes) + share + leftWords(left);
    }

    /**
     * The status line's words in a snapshot's second phase, its entries made into events:
     * {@code making events: 1,200,000 of 2,200,000 entries (55%), about 20 s left}; the time left at the
     * rate since {@code startNanos}, the phase's first report.
     */
    public static String emittingText(long done, long total, long startNanos, long nowNanos) {
        double elapsed = (nowNanos - startNanos) / 1e9;
        double left = done <= 0 || elapsed <= 0.5 || total <= 0 ? -1 : Math.max(0, (total - done) * elapsed / done);
        String share = total > 0 ? String.format(Locale.ROOT, " (%.0f%%)", 100.0 * Math.min(done, total) / total) : "";
        return String.format(Locale.ROOT, "making events: %,d of %,d %s", done, total, Counts.noun(total, "entry", "entries"))
                + share + leftWords(left);
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
