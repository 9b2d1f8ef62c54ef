package dev.arenascope.core.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;

/**
 * A job's rank table and its figures: one {@link RankSummary} per rank (each from its own trace, never
 * from a merged one) and, over the ranks that were read, the worst rank, the median rank, per column the
 * largest, median and smallest value with their ratio and spread (the imbalance), and the outliers.
 *
 * <h2>Definitions</h2>
 * <ul>
 *   <li><b>worst rank</b>: the largest peak live (the first in rank order on ties).</li>
 *   <li><b>median</b>: the lower median (of n values sorted, the one at {@code (n - 1) / 2}); the
 *       <b>median rank</b> is the rank holding it (ranks sorted by peak live, then rank order).</li>
 *   <li><b>imbalance</b>: {@code (max - median) / median} of peak live, in percent (0 when the median is 0).</li>
 *   <li><b>outlier</b>: a rank whose peak live lies further from the median than both 5% of the median and
 *       three scaled median absolute deviations ({@code 3 * 1.4826 * MAD}): robust to the spread a
 *       pipeline's stages have by design, so a rank is named only when it stands apart from the rest.</li>
 * </ul>
 * Immutable.
 *
 * @param ranks      every rank in rank order, failed ones included
 * @param columns    per figure of the table, its job-level statistics (over the ranks read; reserved over
 *                   those that reserve)
 * @param worst      the worst rank's name, null when none was read
 * @param median     the median rank's name, null when none was read
 * @param imbalancePct see above
 * @param outliers   the outliers' names, in rank order
 */
public record JobSummary(List<RankSummary> ranks, List<Column> columns, String worst, String median, double imbalancePct,
                         List<String> outliers) {

    /** Aliases a user may name ranks by. */
    public static final String WORST = "WORST";
    public static final String MEDIAN = "MEDIAN";

    public JobSummary {
        ranks = List.copyOf(ranks);
        columns = List.copyOf(columns);
        outliers = List.copyOf(outliers);
    }

    /**
     * One column's job figures.
     *
     * @param key          stable name ({@code peak_live_bytes}, ...)
     * @param label        words for tables
     * @param bytes        whether the values are bytes
     * @param ranks        ranks the statistics cover
     * @param max          the largest value
     * @param maxRank      the first rank holding it
     * @param median       the lower median
     * @param min          the smallest value
     */
    public record Column(String key, String label, boolean bytes, int ranks, long max, String maxRank, long median, long min) {
        /** {@code max / median}; NaN when the median is 0. */
        public double maxOverMedian() {
            return median == 0 ? Double.NaN : (double) max / median;
        }

        /** {@code max - min}. */
        public long spread() {
            return max - min;
        }
    }

    /** The summary of {@code ranks} (in rank order). */
    public static JobSummary of(List<RankSummary> ranks) {
        List<RankSummary> read = ranks.stream().filter(RankSummary::loaded).toList();
        List<Column> cols = new ArrayList<>();
        cols.add(column("peak_live_bytes", "peak live", true, read, RankSummary::peakLiveBytes));
        cols.add(column("peak_reserved_bytes", "peak reserved", true,
                read.stream().filter(r -> r.peakReservedBytes() >= 0).toList(), RankSummary::peakReservedBytes));
        cols.add(column("out_of_memory", "out of memory", false, read, RankSummary::outOfMemory));
        cols.add(column("allocations", "allocations", false, read, RankSummary::allocations));
        cols.removeIf(c -> c.ranks() == 0);
        if (read.isEmpty()) {
            return new JobSummary(ranks, cols, null, null, 0, List.of());
        }
        RankSummary worst = read.getFirst();
        for (RankSummary r : read) {
            if (r.peakLiveBytes() > worst.peakLiveBytes()) {
                worst = r;
            }
        }
        List<RankSummary> sorted = new ArrayList<>(read);
        sorted.sort(Comparator.comparingLong(RankSummary::peakLiveBytes).thenComparingInt(read::indexOf));
        RankSummary med = sorted.get((sorted.size() - 1) / 2);
        long m = med.peakLiveBytes();
        double imbalance = m == 0 ? 0 : 100.0 * (worst.peakLiveBytes() - m) / m;
        long[] dev = read.stream().mapToLong(r -> Math.abs(r.peakLiveBytes() - m)).sorted().toArray();
        double mad = dev[(dev.length - 1) / 2] * 1.4826;
        List<String> outliers = new ArrayList<>();
        for (RankSummary r : read) {
            long d = Math.abs(r.peakLiveBytes() - m);
            if (read.size() >= 3 && d > 0.05 * m && d > 3 * mad) {
                outliers.add(r.rank());
            }
        }
        return new JobSummary(ranks, cols, worst.rank(), med.rank(), imbalance, outliers);
    }

    private static Column column(String key, String label, boolean bytes, List<RankSummary> rows, ToLongFunction<RankSummary> f) {
        if (rows.isEmpty()) {
            return new Column(key, label, bytes, 0, 0, null, 0, 0);
        }
        long[] v = rows.stream().mapToLong(f).toArray();
        long[] s = v.clone();
        Arrays.sort(s);
        int at = 0;
        for (int i = 1; i < v.length; i++) {
            if (v[i] > v[at]) {
                at = i;
            }
        }
        return new Column(key, label, bytes, v.length, s[s.length - 1], rows.get(at).rank(), s[(s.length - 1) / 2], s[0]);
    }

    /** The column with this key, or null. */
    public Column column(String key) {
        return columns.stream().filter(c -> c.key().equals(key)).findFirst().orElse(null);
    }

    /** The ranks that could not be read. */
    public List<RankSummary> failed() {
        return ranks.stream().filter(r -> !r.loaded()).toList();
    }

    /** The ranks read. */
    public List<RankSummary> read() {
        return ranks.stream().filter(RankSummary::loaded).toList();
    }

    /**
     * The rank a user named: {@link #WORST}, {@link #MEDIAN} (any case), a rank's name ({@code rank3},
     * {@code snapshot.pickle}) or its number ({@code 3}).
     *
     * @throws IllegalArgumentException naming the ranks there are, when none is called so or it was not read
     */
    public RankSummary rank(String name) {
        String n = name.trim();
        String resolved = n.equalsIgnoreCase(WORST) ? worst : n.equalsIgnoreCase(MEDIAN) ? median : n;
        if (resolved == null) {
            throw new IllegalArgumentException("no rank of the job could be read, so there is no " + n.toUpperCase(Locale.ROOT) + " rank");
        }
        for (RankSummary r : ranks) {
            if (r.rank().equals(resolved) || r.number() >= 0 && !r.duplicateName() && String.valueOf(r.number()).equals(resolved)) {
                if (!r.loaded()) {
                    throw new IllegalArgumentException("rank " + r.rank() + " could not be read: " + r.failureLine());
                }
                return r;
            }
        }
        List<String> names = ranks.stream().map(RankSummary::rank).toList();
        String shown = names.size() <= 12 ? String.join(", ", names) : String.join(", ", names.subList(0, 12)) + ", ... (" + names.size() + ")";
        throw new IllegalArgumentException("no rank named '" + n + "' (the job has: " + shown + "; or WORST, MEDIAN)");
    }

    /** The ranks read whose peak live is over {@code limitBytes}, largest first. */
    public List<RankSummary> over(long limitBytes) {
        return read().stream().filter(r -> r.peakLiveBytes() > limitBytes)
                .sorted(Comparator.comparingLong(RankSummary::peakLiveBytes).reversed()).toList();
    }

    /** The worst rank's row, or null. */
    public RankSummary worstRank() {
        return worst == null ? null : rank(worst);
    }

    /** The median rank's row, or null. */
    public RankSummary medianRank() {
        return median == null ? null : rank(median);
    }
}
