package dev.arenascope.core.pool;

import java.util.Locale;

import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Durations;

/** The text of {@link MemoryPool#allocationReport()}: totals, then one line a bin. Stateless. */
final class PoolReport {
    private PoolReport() {}

    /**
     * @param header   the pool's one line ({@link MemoryPool#header()}, with {@code [closed]} when it is)
     * @param s        its statistics
     * @param active   blocks handed out now, taking {@code used} bytes
     * @param heldCount blocks held now, taking {@code held} bytes
     * @param reserved bytes reserved from the device now
     */
    static String text(String header, PoolStatistics s, int active, long used, int heldCount, long held, long reserved) {
        StringBuilder sb = new StringBuilder();
        sb.append(header).append('\n');
        sb.append(String.format(Locale.ROOT, "  requests %d: %d reuses (hits), %d device allocations (misses, mean %s), %d failed%n",
                s.requests(), s.reuses(), s.allocations(), Durations.format(s.meanAllocNanos()), s.failures()));
        sb.append(String.format(Locale.ROOT, "  returns %d, device frees %d (mean %s), reuse factor %.2f%n",
                s.returns(), s.frees(), Durations.format(s.meanFreeNanos()), s.reuseFactor()));
        sb.append(String.format(Locale.ROOT, "  now: %d blocks in use (%s), %d held (%s), %s reserved; rounding waste %s over all requests%n",
                active, Bytes.format(used), heldCount, Bytes.format(held), Bytes.format(reserved),
                Bytes.format(s.roundingWasteBytes())));
        if (!s.bins().isEmpty()) {
            sb.append(String.format(Locale.ROOT, "  %7s %20s %10s %10s %10s %6s %12s %14s%n",
                    "bin", "alloc size", "requests", "hits", "misses", "held", "held bytes", "rounding waste"));
            for (BinStatistics b : s.bins()) {
                sb.append(String.format(Locale.ROOT, "  %7d %20d %10d %10d %10d %6d %12s %14s%n",
                        b.bin(), b.allocSize(), b.requests(), b.hits(), b.misses(), b.heldBlocks(),
                        Bytes.format(b.heldBytes()), Bytes.format(b.roundingWasteBytes())));
            }
        }
        return sb.toString();
    }
}
