package dev.arenascope.core.analysis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Every figure of a trace beside a baseline trace's: rows are matched by section and subject (memory
 * name, scope path, pool and bin, plan arena), figures by key.
 *
 * <h2>What counts as a regression</h2>
 * A figure whose value moved in its worse direction ({@link Figure#better()}) by more than
 * {@link #NOISE_PCT} percent of the baseline's value, or any amount when the baseline is 0. Only
 * figures of rows in both traces are compared: a row only in the current trace (a memory, scope, bin or
 * plan arena the baseline did not have) is listed as {@link Presence#ADDED added} ({@link #added()}) and a
 * row only in the baseline as {@link Presence#REMOVED removed} ({@link #removed()}); neither is a
 * regression or an improvement, and their changes have no delta. {@link #gate(double)} keeps the
 * regressions of peak figures ({@link Figure#peak()}) that grew by more than a given percentage, which is
 * what {@code arenascope report --fail-on-regression} exits 4 on. Immutable.
 *
 */
public final class TraceDiff {

    /** Relative changes at or below this many percent are not regressions (floating-point noise). */
    public static final double NOISE_PCT = 0.01;

    private final TraceAnalysis current;
    private final TraceAnalysis baseline;
    private final List<Change> changes;
    private final Map<String, Change> byFigure = new HashMap<>();
    private final Map<String, FigureRow> baselineRows = new HashMap<>();

    private TraceDiff(TraceAnalysis current, TraceAnalysis baseline, List<Change> changes) {
        this.current = current;
        this.baseline = baseline;
        this.changes = List.copyOf(changes);
        for (Change c : this.changes) {
            if (c.now() != null) {
                byFigure.putIfAbsent(c.section() + "\u0000" + c.subject() + "\u0000" + c.figure().key(), c);
            }
        }
        for (FigureRow b : baseline.rows()) {
            baselineRows.putIfAbsent(key(b), b);
        }
    }

    /** The trace under review. */
    public TraceAnalysis current() {
        return current;
    }

    /** The trace it is compared with. */
    public TraceAnalysis baseline() {
        return baseline;
    }

    /** One entry per figure of every row of either trace, current rows first, in row then figure order. */
    public List<Change> changes() {
        return changes;
    }

    /** Whether a row is in both traces, only the current one, or only the baseline. */
    public enum Presence {
        BOTH, ADDED, REMOVED
    }

    /**
     * One figure beside its baseline.
     *
     * @param section  the row's section
     * @param subject  the row's subject
     * @param now      the current figure, or null when the row was removed
     * @param was      the baseline's figure, or null when the row was added
     * @param presence which traces have the row
     */
    public record Change(String section, String subject, Figure now, Figure was, Presence presence) {

        /** The figure's definition (key, label, unit, direction). */
        public Figure figure() {
            return now != null ? now : was;
        }

        /** Current value, 0 when removed; NaN when undefined. */
        public double value() {
            return now == null ? 0 : now.value();
        }

        /** Baseline value, 0 when added; NaN when undefined. */
        public double baselineValue() {
            return was == null ? 0 : was.value();
        }

        /** {@code value - baselineValue}; NaN when either is undefined or the figure is in one trace only. */
        public double delta() {
            return presence == Presence.BOTH ? value() - baselineValue() : Double.NaN;
        }

        /**
         * The change in percent of the baseline; ±Infinity from a baseline of 0; NaN when undefined or the
         * figure is in one trace only.
         */
        public double deltaPct() {
            double was0 = baselineValue();
            double d = delta();
            if (Double.isNaN(d)) {
                return Double.NaN;
            }
            if (was0 == 0) {
                return d == 0 ? 0 : d > 0 ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
            }
            return d / Math.abs(was0) * 100.0;
        }

        /**
         * How far the figure moved on the scale it is judged by: for a share ({@link Figure.Unit#RATIO},
         * fragmentation say) the change in percentage points ({@code 0.0048 → 0.0096} is +0.48, not
         * +100%), for every other figure the change in percent of the baseline.
         */
        public double change() {
            if (figure().unit() == Figure.Unit.RATIO) {
                double d = delta();
                return Double.isNaN(d) ? Double.NaN : d * 100.0;
            }
            return deltaPct();
        }

        /** Whether the figure moved in its worse direction past {@link #NOISE_PCT} (only figures in both traces do). */
        public boolean regression() {
            return movedPastNoise(1);
        }

        /** Whether the figure moved in its better direction past {@link #NOISE_PCT}. */
        public boolean improvement() {
            return movedPastNoise(-1);
        }

        /** Whether the figure moved past the noise toward worse ({@code toward = 1}) or better ({@code -1}). */
        private boolean movedPastNoise(int toward) {
            if (presence != Presence.BOTH) {
                return false;
            }
            double pct = change();
            if (Double.isNaN(pct)) {
                return false;
            }
            return switch (figure().better()) {
                case LOWER -> toward * pct > NOISE_PCT;
                case HIGHER -> -toward * pct > NOISE_PCT;
                case NEITHER -> false;
            };
        }

        /** How bad a regression is, for sorting: the {@link #change()} in the worse direction (points for shares). */
        public double severity() {
            double pct = change();
            return figure().better() == Figure.Better.HIGHER ? -pct : pct;
        }
    }

    /** Compares {@code current} with {@code baseline}. */
    public static TraceDiff of(TraceAnalysis current, TraceAnalysis baseline) {
        Map<String, FigureRow> before = new HashMap<>();
        for (FigureRow r : baseline.rows()) {
            before.putIfAbsent(key(r), r);
        }
        List<Change> changes = new ArrayList<>();
        Set<String> matched = new HashSet<>();
        for (FigureRow r : current.rows()) {
            String k = key(r);
            FigureRow b = before.get(k);
            if (b != null && matched.add(k)) {
                for (Figure f : r.figures()) {
                    Figure was = b.figure(f.key());
                    changes.add(new Change(r.section(), r.subject(), f, was, was == null ? Presence.ADDED : Presence.BOTH));
                }
            } else {
                for (Figure f : r.figures()) {
                    changes.add(new Change(r.section(), r.subject(), f, null, Presence.ADDED));
                }
            }
        }
        for (FigureRow b : baseline.rows()) {
            if (!matched.contains(key(b))) {
                for (Figure f : b.figures()) {
                    changes.add(new Change(b.section(), b.subject(), null, f, Presence.REMOVED));
                }
            }
        }
        return new TraceDiff(current, baseline, changes);
    }

    private static String key(FigureRow r) {
        return r.section() + "\u0000" + r.subject();
    }

    /** The change of one figure of one current row, or null. */
    public Change change(FigureRow row, String figureKey) {
        return byFigure.get(key(row) + "\u0000" + figureKey);
    }

    /** Rows only in the baseline (one change per figure). */
    public List<Change> removed() {
        return changes.stream().filter(c -> c.presence() == Presence.REMOVED).toList();
    }

    /**
     * Rows only in the current trace (one change per figure), not figures that a row in both traces
     * gained.
     */
    public List<Change> added() {
        return changes.stream().filter(c -> c.presence() == Presence.ADDED && !baselineRows.containsKey(c.section() + "\u0000" + c.subject())).toList();
    }

    /** Every regression, worst first (peaks before other figures at equal severity). */
    public List<Change> regressions() {
        return changes.stream().filter(Change::regression)
                .sorted(Comparator.comparingDouble(Change::severity).reversed()
                        .thenComparing(c -> !c.figure().peak())
                        .thenComparing(Change::section).thenComparing(Change::subject))
                .toList();
    }

    /** Every improvement, best first. */
    public List<Change> improvements() {
        return changes.stream().filter(Change::improvement)
                .sorted(Comparator.comparingDouble(Change::severity)).toList();
    }

    /** The peak figures that grew by more than {@code pct} percent: what fails a regression gate. */
    public List<Change> gate(double pct) {
        return regressions().stream().filter(c -> c.figure().peak() && c.deltaPct() > pct).toList();
    }
}
