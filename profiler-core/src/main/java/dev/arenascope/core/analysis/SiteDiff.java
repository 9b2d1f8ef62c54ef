package dev.arenascope.core.analysis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.core.trace.StackFrame;

/**
 * Two by-site answers of different traces compared site by site. Sites are matched by their frames'
 * function, file and line (ids and addresses differ between traces), so a site that exists only in
 * one trace is listed as {@link Status#ADDED} or {@link Status#REMOVED}.
 *
 * @param baseline    the baseline's answer
 * @param current     the current trace's answer
 * @param entries     per site, by the size of the change (largest absolute delta first)
 */
public record SiteDiff(SiteBreakdown baseline, SiteBreakdown current, List<Entry> entries) {

    public SiteDiff {
        entries = List.copyOf(entries);
    }

    /** How a site changed. */
    public enum Status {
        ADDED, REMOVED, CHANGED, SAME
    }

    /**
     * One site's change.
     *
     * @param label          the innermost frame's label
     * @param frames         the site's frames, innermost first (the current trace's, else the baseline's)
     * @param baselineBytes  bytes at the site in the baseline (0 when added)
     * @param currentBytes   bytes at the site now (0 when removed)
     * @param baselineCount  allocations in the baseline
     * @param currentCount   allocations now
     * @param status         added, removed, changed or the same
     */
    public record Entry(String label, List<StackFrame> frames, long baselineBytes, long currentBytes, long baselineCount,
                        long currentCount, Status status) {
        /** {@code currentBytes - baselineBytes}. */
        public long deltaBytes() {
            return currentBytes - baselineBytes;
        }
    }

    private record Location(String function, String file, int line) {}

    /** Compares {@code current} against {@code baseline}. */
    public static SiteDiff between(SiteBreakdown baseline, SiteBreakdown current) {
        Map<List<Location>, SiteBreakdown.Row[]> bySite = new LinkedHashMap<>();
        for (SiteBreakdown.Row r : baseline.rows()) {
            bySite.computeIfAbsent(key(r), k -> new SiteBreakdown.Row[2])[0] = merge(bySite.get(key(r)), 0, r);
        }
        for (SiteBreakdown.Row r : current.rows()) {
            bySite.computeIfAbsent(key(r), k -> new SiteBreakdown.Row[2])[1] = merge(bySite.get(key(r)), 1, r);
        }
        List<Entry> out = new ArrayList<>();
        for (SiteBreakdown.Row[] pair : bySite.values()) {
            SiteBreakdown.Row b = pair[0];
            SiteBreakdown.Row c = pair[1];
            SiteBreakdown.Row any = c != null ? c : b;
            long bb = b == null ? 0 : b.bytes();
            long cb = c == null ? 0 : c.bytes();
            Status st = b == null ? Status.ADDED : c == null ? Status.REMOVED
                    : bb == cb && b.count() == c.count() ? Status.SAME : Status.CHANGED;
            out.add(new Entry(any.label(), any.frames(), bb, cb, b == null ? 0 : b.count(), c == null ? 0 : c.count(), st));
        }
        out.sort((x, y) -> Long.compare(Math.abs(y.deltaBytes()), Math.abs(x.deltaBytes())));
        return new SiteDiff(baseline, current, out);
    }

    private static SiteBreakdown.Row merge(SiteBreakdown.Row[] pair, int side, SiteBreakdown.Row r) {
        SiteBreakdown.Row old = pair == null ? null : pair[side];
        if (old == null) {
            return r;
        }
        // two rows with the same locations (a folded "(other sites)" row, or flags that differ)
        return new SiteBreakdown.Row(r.label(), r.frames(), old.bytes() + r.bytes(), old.count() + r.count(),
                old.stillLiveBytes() + r.stillLiveBytes());
    }

    private static List<Location> key(SiteBreakdown.Row r) {
        if (r.frames().isEmpty()) {
            return List.of(new Location(r.label(), "", -1));
        }
        List<Location> k = new ArrayList<>(r.frames().size());
        for (StackFrame f : r.frames()) {
            k.add(new Location(f.function(), f.file(), f.line()));
        }
        return k;
    }
}
