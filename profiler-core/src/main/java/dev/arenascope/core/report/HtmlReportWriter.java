package dev.arenascope.core.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

import dev.arenascope.core.analysis.Figure;
import dev.arenascope.core.analysis.MemoryAnalysis;
import dev.arenascope.core.analysis.PlanAnalysis;
import dev.arenascope.core.analysis.PoolBinAnalysis;
import dev.arenascope.core.analysis.TraceAnalysis;
import dev.arenascope.core.analysis.TraceDiff;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Counts;
import dev.arenascope.core.trace.file.RingWindow;

/**
 * Writes a report as one self-contained HTML5 file: inline CSS, inline SVG occupancy charts, no
 * scripts, no external resources; readable offline and printable (A4 landscape). With a baseline,
 * the gate's verdict and the regressions come first and every figure shows its change. Stateless.
 */
public final class HtmlReportWriter {
    /** Charts drawn at most; further memories are listed in the tables only. */
    public static final int MAX_CHARTS = 24;

    private static final String CSS = loadCss();

    private HtmlReportWriter() {}

    private static String loadCss() {
        try (InputStream in = HtmlReportWriter.class.getResourceAsStream("report.css")) {
            if (in == null) {
                throw new IllegalStateException("report.css is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void write(Report r, Writer out) throws IOException {
        TraceAnalysis a = r.trace();
        StringBuilder sb = new StringBuilder(64 * 1024);
        String title = "Memory report: " + a.session().name();
        sb.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
                .append("<meta name=\"generator\" content=\"").append(Html.esc(r.generator())).append("\">\n")
                .append("<title>").append(Html.esc(title)).append("</title>\n<style>\n").append(CSS).append("</style>\n</head>\n<body>\n");
        header(sb, r);
        sb.append("<main>\n");
        if (r.hasBaseline()) {
            gateBanner(sb, r);
        }
        kpis(sb, r);
        if (r.hasBaseline()) {
            ReportTable reg = ReportTables.regressions(r);
            if (reg.rows().isEmpty()) {
                sb.append("<section id=\"regressions\">\n<h2>Regressions</h2>\n<p class=\"note\">No figure got worse against the baseline.</p>\n</section>\n");
            } else {
                table(sb, reg, r);
            }
        }
        charts(sb, r);
        for (ReportTable t : ReportTables.all(r)) {
            table(sb, t, r);
        }
        if (r.hasBaseline()) {
            ReportTable imp = ReportTables.improvements(r);
            if (!imp.rows().isEmpty()) {
                table(sb, imp, r);
            }
            List<String> added = ReportTables.addedSubjects(r);
            if (!added.isEmpty()) {
                sb.append("<section id=\"added\">\n<h2>Added: only in this trace</h2>\n<p class=\"note\">Not compared, so neither regressions nor improvements.</p>\n<ul class=\"added\">\n");
                added.forEach(s -> sb.append("<li>").append(Html.esc(s)).append("</li>\n"));
                sb.append("</ul>\n</section>\n");
            }
            List<String> removed = ReportTables.removedSubjects(r);
            if (!removed.isEmpty()) {
                sb.append("<section id=\"removed\">\n<h2>Removed: only in the baseline</h2>\n<ul class=\"removed\">\n");
                removed.forEach(s -> sb.append("<li>").append(Html.esc(s)).append("</li>\n"));
                sb.append("</ul>\n</section>\n");
            }
        }
        session(sb, r);
        sb.append("</main>\n<footer>").append(Html.esc(r.generator()))
                .append(" · figures as defined in docs/report-schema.md · the same figures are available as JSON (--format json)</footer>\n</body>\n</html>\n");
        out.write(sb.toString());
    }

    private static void header(StringBuilder sb, Report r) {
        var s = r.trace().session();
        sb.append("<header class=\"top\">\n<div class=\"brand\">ArenaScope <span>memory report</span></div>\n<h1>")
                .append(Html.esc(s.name())).append("</h1>\n<p class=\"meta\">");
        List<String> parts = new ArrayList<>();
        if (!r.source().isEmpty()) {
            parts.add("<b>" + Html.esc(r.source()) + "</b>");
        }
        if (r.hasBaseline()) {
            String b = r.baselineSource().isEmpty() ? r.diff().baseline().session().name() : r.baselineSource();
            parts.add("against baseline <b>" + Html.esc(b) + "</b>");
        }
        parts.add(Html.esc(s.host()));
        parts.add(Html.esc(Units.instant(s.startEpochNs())));
        parts.add(Html.esc(Units.duration(s.durationNs())));
        parts.add(Html.esc(Units.count(s.events())) + " events");
        sb.append(String.join(" · ", parts)).append("</p>\n</header>\n");
    }

    private static void gateBanner(StringBuilder sb, Report r) {
        List<TraceDiff.Change> failed = r.gateFailures();
        int regressions = r.diff().regressions().size();
        if (r.gatePct() == null) {
            if (regressions > 0) {
                sb.append("<div class=\"banner fail\">").append(Counts.of(regressions, "figure"))
                        .append(" got worse against the baseline <small>(no gate set)</small></div>\n");
            } else {
                sb.append("<div class=\"banner pass\">No figure got worse against the baseline</div>\n");
            }
            return;
        }
        String pct = Units.format(Figure.Unit.RATIO, r.gatePct() / 100);
        if (failed.isEmpty()) {
            sb.append("<div class=\"banner pass\">Gate passed: no peak grew more than ").append(Html.esc(pct))
                    .append(" <small>").append(Counts.of(regressions, "other regression")).append(" below the gate</small></div>\n");
        } else {
            TraceDiff.Change worst = failed.getFirst();
            sb.append("<div class=\"banner fail\">Gate failed: ").append(Counts.of(failed.size(), "peak"))
                    .append(" grew more than ").append(Html.esc(pct)).append(" <small>worst: ")
                    .append(Html.esc(worst.subject() + " " + worst.figure().label() + " " + Units.changePct(worst)))
                    .append("</small></div>\n");
        }
    }

    private static void kpis(StringBuilder sb, Report r) {
        TraceAnalysis a = r.trace();
        TraceAnalysis b = r.hasBaseline() ? r.diff().baseline() : null;
        sb.append("<section class=\"kpis\" aria-label=\"summary\">\n");
        long footprint = a.memories().stream().mapToLong(MemoryAnalysis::footprintBytes).sum();
        Long bFootprint = b == null ? null : b.memories().stream().mapToLong(MemoryAnalysis::footprintBytes).sum();
        kpi(sb, "Total footprint", Bytes.format(footprint), Units.exactBytes(footprint) + " over "
                + Counts.of(a.memories().size(), "memory", "memories"), chip(footprint, bFootprint, true));
        MemoryAnalysis largest = a.memories().stream().max(Comparator.comparingLong(MemoryAnalysis::peakUsedBytes)).orElse(null);
        if (largest != null) {
            MemoryAnalysis bl = b == null ? null : b.memory(largest.name());
            kpi(sb, "Largest peak in use", Bytes.format(largest.peakUsedBytes()),
                    Units.exactBytes(largest.peakUsedBytes()) + " · " + largest.name() + " at " + Units.instant(a.session(), largest.peakUsedAtNs()),
                    chip(largest.peakUsedBytes(), bl == null ? null : bl.peakUsedBytes(), true));
        }
        long requests = a.poolBins().stream().mapToLong(PoolBinAnalysis::requests).sum();
        if (requests > 0) {
            long hits = a.poolBins().stream().mapToLong(PoolBinAnalysis::hits).sum();
            kpi(sb, "Pool hit rate", Units.percent((double) hits / requests), Units.count(hits) + " of " + Units.count(requests) + " requests from held blocks", "");
        }
        long height = a.plans().stream().mapToLong(PlanAnalysis::heightBytes).sum();
        if (height > 0) {
            long lb = a.plans().stream().mapToLong(PlanAnalysis::lowerBoundBytes).sum();
            kpi(sb, "Plan efficiency", Units.percent((double) lb / height), "lower bound " + Bytes.format(lb) + " of height " + Bytes.format(height), "");
        }
        var s = a.session();
        RingWindow ring = RingWindow.of(s.attributes());
        String dropped = ring == null || !ring.dropped() ? ""
                : " · " + Units.count(ring.droppedEvents()) + " older events dropped (capped recording: the kept window only)";
        kpi(sb, "Events", Units.count(s.events()), (s.lostEvents() == 0 ? "none lost" : Units.count(s.lostEvents()) + " lost") + dropped,
                "");
        kpi(sb, "Duration", Units.duration(s.durationNs()), Units.instant(s.startEpochNs()), "");
        sb.append("</section>\n");
    }

    /** A change chip for a KPI tile, and the baseline value after it; empty without a baseline. */
    private static String chip(long now, Long was, boolean lowerIsBetter) {
        if (was == null) {
            return "";
        }
        if (was == 0) {
            return now == 0 ? "<span class=\"chg\">±0%</span>" : "<span class=\"chg bad\">new</span>";
        }
        double pct = (now - was) * 100.0 / was;
        String cls = Math.abs(pct) <= TraceDiff.NOISE_PCT ? "" : (pct > 0) == lowerIsBetter ? " bad" : " good";
        return "<span class=\"chg" + cls + "\">" + String.format(Locale.ROOT, Math.abs(pct) >= 10 ? "%+.1f%%" : "%+.2f%%", pct)
                + "</span> <span class=\"was\">was " + Html.esc(Bytes.format(was)) + "</span>";
    }

    private static void kpi(StringBuilder sb, String label, String value, String sub, String chip) {
        sb.append("<div class=\"kpi\"><div class=\"label\">").append(Html.esc(label)).append("</div><div class=\"value\">")
                .append(Html.esc(value)).append("</div><div class=\"sub\">").append(Html.esc(sub)).append("</div>");
        if (!chip.isEmpty()) {
            sb.append("<div class=\"sub\">").append(chip).append("</div>");
        }
        sb.append("</div>\n");
    }

    private static void charts(StringBuilder sb, Report r) {
        List<MemoryAnalysis> drawn = r.trace().memories().stream()
                .filter(m -> m.peakUsedBytes() > 0 || m.footprintBytes() > 0)
                .sorted(Comparator.comparingLong(MemoryAnalysis::footprintBytes).reversed())
                .limit(MAX_CHARTS)
                .sorted(Comparator.comparingInt(MemoryAnalysis::id))
                .toList();
        if (drawn.isEmpty()) {
            return;
        }
        sb.append("<section id=\"occupancy\">\n<h2>Occupancy</h2>\n<p class=\"note\">Bytes over the session, one chart per memory; each bucket shows the most bytes it saw.</p>\n<div class=\"charts").append(drawn.size() == 1 ? " single" : "").append("\">\n");
        for (MemoryAnalysis m : drawn) {
            MemoryAnalysis base = r.hasBaseline() ? r.diff().baseline().memory(m.name()) : null;
            String kind = m.kind().name().toLowerCase(Locale.ROOT);
            String badge = kind.startsWith("plan_") ? "plan" : kind;
            sb.append("<div class=\"card\">\n<h3>").append(Html.esc(m.name())).append(" <span class=\"badge ").append(badge).append("\">")
                    .append(Html.esc(kind.replace('_', ' '))).append("</span></h3>\n<div class=\"figs\">peak ")
                    .append(Html.esc(Bytes.format(m.peakUsedBytes()))).append(" at ").append(Html.esc(Units.instant(r.trace().session(), m.peakUsedAtNs())));
            for (MemoryAnalysis.HighWater h : m.highWaterMarks()) {
                if (!h.key().equals("inUse")) {
                    sb.append(" · ").append(Html.esc(h.key())).append(' ').append(Html.esc(Bytes.format(h.bytes())));
                }
            }
            sb.append(" · footprint ").append(Html.esc(Bytes.format(m.footprintBytes())))
                    .append(" · fragmentation ").append(Html.esc(Units.percent(m.fragmentation())));
            if (m.capacityBytes() > 0) {
                sb.append(" · capacity ").append(Html.esc(Bytes.format(m.capacityBytes())));
            }
            sb.append("</div>\n").append(OccupancyChart.svg(m, base, drawn.size() == 1 ? OccupancyChart.WIDE : OccupancyChart.WIDTH, r.stretchBaseline(),
                    r.trace().session().timeAxis()))
                    .append("\n<div class=\"legend\">");
            for (OccupancyChart.Legend l : OccupancyChart.legend(m, base != null, r.stretchBaseline())) {
                sb.append("<span><i class=\"").append(l.swatch()).append("\"></i>").append(Html.esc(l.text())).append("</span>");
            }
            sb.append("</div>\n</div>\n");
        }
        sb.append("</div>\n");
        long more = r.trace().memories().stream().filter(m -> m.peakUsedBytes() > 0 || m.footprintBytes() > 0).count() - drawn.size();
        if (more > 0) {
            sb.append("<p class=\"more\">").append(more).append(" smaller memories are in the table below only.</p>\n");
        }
        sb.append("</section>\n");
    }

    private static void table(StringBuilder sb, ReportTable t, Report r) {
        sb.append("<section id=\"").append(t.id()).append("\">\n<h2>").append(Html.esc(t.title())).append("</h2>\n");
        if (!t.note().isEmpty()) {
            sb.append("<p class=\"note\">").append(Html.esc(t.note())).append("</p>\n");
        }
        sb.append("<div class=\"tablewrap\">\n<table>\n<thead><tr>");
        for (int i = 0; i < t.columns().size(); i++) {
            sb.append(t.numeric().get(i) ? "<th class=\"num\">" : "<th>").append(Html.esc(t.columns().get(i))).append("</th>");
        }
        sb.append("</tr></thead>\n<tbody>\n");
        boolean changeTable = t.id().equals("regressions") || t.id().equals("improvements");
        for (List<ReportTable.Cell> row : t.rows()) {
            sb.append("<tr>");
            for (int i = 0; i < row.size(); i++) {
                ReportTable.Cell c = row.get(i);
                String col = t.columns().get(i);
                String cls = c.emphasis() ? "name" : t.numeric().get(i) ? "num" : col.equals("model") || col.equals("params at peak") ? "code" : "";
                if (changeTable && col.equals("gate") && c.text().equals("fails gate")) {
                    cls = "gate";
                }
                sb.append(cls.isEmpty() ? "<td>" : "<td class=\"" + cls + "\">");
                sb.append(cell(c, changeTable));
                sb.append("</td>");
            }
            sb.append("</tr>\n");
        }
        sb.append("</tbody>\n</table>\n</div>\n");
        if (t.omitted() > 0) {
            sb.append("<p class=\"more\">").append(t.omitted()).append(" more not shown (all are in the JSON report).</p>\n");
        }
        sb.append("</section>\n");
    }

    private static String cell(ReportTable.Cell c, boolean changeTable) {
        String text = Html.esc(c.text());
        String sub = c.sub() == null ? "" : "<span class=\"sub\">" + Html.esc(c.sub()) + "</span>";
        TraceDiff.Change ch = c.change();
        if (ch == null) {
            return text + sub;
        }
        String cls = ch.regression() ? " bad" : ch.improvement() ? " good" : "";
        if (changeTable) {
            return "<span class=\"chg" + cls + "\">" + text + "</span>" + sub;
        }
        if (ch.presence() == TraceDiff.Presence.ADDED) {
            return text + "<span class=\"chg\">added</span>" + sub;
        }
        double pct = ch.deltaPct();
        if (Double.isNaN(pct) || pct == 0) {
            return text + sub;
        }
        String was = ch.was() == null ? Units.NONE : Units.format(ch.was());
        return text + "<span class=\"chg" + cls + "\">" + Html.esc(Units.changePct(ch)) + "</span>" + sub
                + "<span class=\"was\">was " + Html.esc(was) + "</span>";
    }

    private static void session(StringBuilder sb, Report r) {
        sb.append("<section id=\"session\">\n<h2>Session</h2>\n<dl class=\"kv\">\n");
        for (String[] kv : ReportTables.session(r)) {
            sb.append("<dt>").append(Html.esc(kv[0])).append("</dt><dd>").append(Html.esc(kv[1])).append("</dd>\n");
        }
        sb.append("</dl>\n</section>\n");
    }
}
