package dev.arenascope.core.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.arenascope.core.analysis.MemorySites;
import dev.arenascope.core.analysis.SiteBreakdown;
import dev.arenascope.core.analysis.SiteDiff;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Percent;
import dev.arenascope.core.trace.StackFrame;

/**
 * The report's allocation-site tables, for each memory whose allocations carry stacks: who held it at
 * its peak by site and by category and, with a baseline, how each site changed (sites matched by their
 * frames' function, file and line). HTML and Markdown print these; JSON writes the same data in full.
 */
final class SiteTables {
    /** Sites listed per memory in the HTML and Markdown tables (JSON lists every site). */
    static final int TOP_SITES = 15;

    private SiteTables() {}

    static List<ReportTable> all(Report r) {
        List<ReportTable> t = new ArrayList<>();
        for (MemorySites ms : r.trace().sites()) {
            t.add(bySite(r, ms));
            t.add(byCategory(ms));
            MemorySites base = baseline(r, ms.memory());
            if (base != null) {
                t.add(changes(ms, SiteDiff.between(base.bySite(), ms.bySite())));
            }
        }
        return t;
    }

    /** The baseline's sites of the memory named {@code name}, or null. */
    static MemorySites baseline(Report r, String name) {
        if (!r.hasBaseline()) {
            return null;
        }
        return r.diff().baseline().sites().stream().filter(s -> s.memory().equals(name)).findFirst().orElse(null);
    }

    private static String anchor(String prefix, String memory) {
        return prefix + "-" + memory.replaceAll("[^A-Za-z0-9_-]", "_");
    }

    /** Up to three frames of a site, innermost first, as the second line of its cell. */
    static String callers(List<StackFrame> frames) {
        if (frames.size() <= 1) {
            return null;
        }
        StringBuilder sb = new StringBuilder("← ");
        for (int k = 1; k < Math.min(frames.size(), 4); k++) {
            if (k > 1) {
                sb.append(" ← ");
            }
            sb.append(frames.get(k).function());
        }
        if (frames.size() > 4) {
            sb.append(" ← …");
        }
        return sb.toString();
    }

    /**
     * The sites at the peak: the first {@link #TOP_SITES} rows of the answer the window's Sites view and
     * {@code arenascope sites --at peak} give, the rest folded into one {@code (N other sites)} row so the
     * table adds up to the peak; the note states the question and its total as they do.
     */
    private static ReportTable bySite(Report r, MemorySites ms) {
        SiteBreakdown sb = ms.bySite();
        List<List<ReportTable.Cell>> rows = new ArrayList<>();
        for (SiteBreakdown.Row row : sb.top(TOP_SITES).rows()) {
            rows.add(List.of(new ReportTable.Cell(row.label(), callers(row.frames()), null, true),
                    ReportTable.Cell.of(Bytes.format(row.bytes())),
                    ReportTable.Cell.of(Percent.of(row.bytes(), sb.totalBytes())),
                    ReportTable.Cell.of(Units.count(row.count()))));
        }
        String note = question(sb) + ", by the call stack that allocated it, "
                + "innermost frame first; runtime-internal frames hidden. The sites add up to the peak."
                + (sb.sampling() == null ? "" : " Stacks were sampled (" + sb.sampling() + "): unsampled allocations count under (no site).");
        return new ReportTable(anchor("sites", ms.memory()), "At the peak, by site: " + ms.memory(), note,
                List.of("site", "bytes", "share", "allocations"), List.of(false, true, true, true), rows,
                Math.max(0, sb.rows().size() - TOP_SITES));
    }

    /** {@code Live at the peak (… B at … s): 13.0 GiB in 504 allocations}: the question and total as the window and the CLI print them. */
    static String question(SiteBreakdown sb) {
        String q = sb.question();
        return (q.isEmpty() ? q : Character.toUpperCase(q.charAt(0)) + q.substring(1)) + ": " + Bytes.format(sb.totalBytes())
                + " in " + Units.count(sb.totalCount()) + " allocations";
    }

    private static ReportTable byCategory(MemorySites ms) {
        SiteBreakdown sb = ms.byCategory();
        List<List<ReportTable.Cell>> rows = new ArrayList<>();
        for (SiteBreakdown.Row row : sb.rows()) {
            rows.add(List.of(new ReportTable.Cell(row.label(), null, null, true), ReportTable.Cell.of(Bytes.format(row.bytes())),
                    ReportTable.Cell.of(Percent.of(row.bytes(), sb.totalBytes())),
                    ReportTable.Cell.of(Units.count(row.count()))));
        }
        return new ReportTable(anchor("categories", ms.memory()), "At the peak, by category: " + ms.memory(),
                question(sb) + ". The allocation's own category, else an arena's innermost scope or a plan tensor's role; (none) without one.",
                List.of("category", "bytes", "share", "allocations"), List.of(false, true, true, true), rows, 0);
    }

    private static ReportTable changes(MemorySites ms, SiteDiff d) {
        List<List<ReportTable.Cell>> rows = new ArrayList<>();
        List<SiteDiff.Entry> changed = d.entries().stream().filter(e -> e.status() != SiteDiff.Status.SAME).toList();
        for (SiteDiff.Entry e : changed.subList(0, Math.min(TOP_SITES, changed.size()))) {
            long delta = e.deltaBytes();
            rows.add(List.of(new ReportTable.Cell(e.label(), callers(e.frames()), null, true),
                    ReportTable.Cell.of(Bytes.format(e.currentBytes())), ReportTable.Cell.of(Bytes.format(e.baselineBytes())),
                    ReportTable.Cell.of((delta >= 0 ? "+" : "−") + Bytes.format(Math.abs(delta))),
                    ReportTable.Cell.of(e.status().name().toLowerCase(Locale.ROOT))));
        }
        return new ReportTable(anchor("site-changes", ms.memory()), "Site changes at the peak: " + ms.memory(),
                "Bytes live at each trace's peak per site, now against the baseline, largest change first; sites are matched by "
                        + "function, file and line, and those in one trace only are listed as added or removed.",
                List.of("site", "now", "baseline", "delta", "status"), List.of(false, true, true, true, false), rows,
                Math.max(0, changed.size() - TOP_SITES));
    }
}
