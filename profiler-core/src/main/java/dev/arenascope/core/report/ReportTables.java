package dev.arenascope.core.report;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import dev.arenascope.core.analysis.Figure;
import dev.arenascope.core.analysis.FigureRow;
import dev.arenascope.core.analysis.MemoryAnalysis;
import dev.arenascope.core.analysis.PlanAnalysis;
import dev.arenascope.core.analysis.PoolBinAnalysis;
import dev.arenascope.core.analysis.ScopeAnalysis;
import dev.arenascope.core.analysis.TraceAnalysis;
import dev.arenascope.core.analysis.TraceDiff;
import dev.arenascope.core.device.DeviceInfo;
import dev.arenascope.core.pool.torch.WhatIfReplay;
import dev.arenascope.core.trace.file.RingWindow;

/** Builds the tables every human-readable format prints, so HTML and Markdown show the same figures. */
final class ReportTables {
    private ReportTables() {}

    /** Session facts as label/value pairs. */
    static List<String[]> session(Report r) {
        var s = r.trace().session();
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"session", s.name()});
        if (!r.source().isEmpty()) {
            rows.add(new String[] {"trace", r.source()});
        }
        if (r.hasBaseline()) {
            rows.add(new String[] {"baseline", r.baselineSource().isEmpty() ? r.diff().baseline().session().name() : r.baselineSource()});
        }
        rows.add(new String[] {"host", s.host()});
        rows.add(new String[] {"started", Units.instant(s.startEpochNs())});
        rows.add(new String[] {"duration", Units.duration(s.durationNs())});
        rows.add(new String[] {"events", Units.count(s.events())});
        rows.add(new String[] {"lost events", Units.count(s.lostEvents())});
        RingWindow ring = RingWindow.of(s.attributes());
        if (ring != null) {
            // a capped recording: its peaks and totals are the kept window's
            rows.add(new String[] {"kept window", ring.summary() + (ring.dropped() ? "; peaks and totals cover the kept window only" : "")});
        }
        for (DeviceInfo d : s.devices().subList(0, Math.min(s.devices().size(), MAX_LISTED_MEMORIES))) {
            rows.add(new String[] {"device " + d.id(), d.name() + (d.totalBytes() > 0 ? ", " + Units.format(Figure.Unit.BYTES, d.totalBytes()) : "")});
        }
        if (s.devices().size() > MAX_LISTED_MEMORIES) {
            rows.add(new String[] {"devices", (s.devices().size() - MAX_LISTED_MEMORIES) + " more (" + s.devices().size()
                    + " in all; the JSON report lists every one)"});
        }
        s.attributes().entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(e -> rows.add(new String[] {e.getKey(), e.getValue()}));
        return rows;
    }

    /** The most memories the HTML and Markdown tables list (the JSON report lists every one). */
    static final int MAX_LISTED_MEMORIES = 256;

    /** The tables in report order. */
    static List<ReportTable> all(Report r) {
        List<ReportTable> t = new ArrayList<>();
        t.add(memories(r));
        if (!r.trace().scopes().isEmpty()) {
            t.add(scopes(r));
        }
        if (!r.trace().poolBins().isEmpty()) {
            t.add(poolBins(r));
        }
        if (!r.trace().plans().isEmpty()) {
            t.add(plans(r));
        }
        t.addAll(SiteTables.all(r));
        if (r.whatIf() != null) {
            t.add(whatIf(r.whatIf()));
        }
        return t;
    }

    private static String bytes(long b) {
        return Units.format(Figure.Unit.BYTES, b);
    }

    /** The sentence that sums up the what-if: the recorded peak taken apart, the best setting, the floor. */
    static String whatIfSummary(WhatIfSection w) {
        StringBuilder b = new StringBuilder(w.checkLine()).append(". ");
        var p = w.peak();
        b.append(w.recorded().peak() != null ? "Reserved at the recorded peak " : "Reserved at the replayed peak (the model's guess) ")
                .append(bytes(p.reserved())).append(" = live ").append(bytes(p.requested())).append(" + rounding ").append(bytes(p.rounding()))
                .append(" + split remainders ").append(bytes(p.splitRemainders())).append(" + cached ").append(bytes(p.cached()));
        List<WhatIfReplay.Outcome> best = w.best();
        if (!best.isEmpty()) {
            var o = best.getFirst();
            b.append("; best of ").append(best.size()).append(" settings: ").append(o.settings().describe()).append(", ").append(bytes(o.reservedPeak()));
        }
        b.append("; the floor: ").append(bytes(w.floor()));
        b.append(w.packedFloor() >= 0 ? " (packed at fixed addresses; live peak " + bytes(w.livePeak()) + ")" : " (the live peak; " + w.floorNote() + ")");
        return b.append('.').toString();
    }

    static ReportTable whatIf(WhatIfSection w) {
        List<List<ReportTable.Cell>> rows = new ArrayList<>();
        long recordedPeak = w.recorded().reservedPeak();
        rows.add(whatIfRow("recorded (the file)", w.recorded(), recordedPeak));
        rows.add(whatIfRow("replayed, file settings", w.baseline(), recordedPeak));
        List<WhatIfReplay.Outcome> best = w.best();
        for (int i = 0; i < Math.min(WhatIfSection.SHOWN, best.size()); i++) {
            rows.add(whatIfRow(best.get(i).settings().describe(), best.get(i), recordedPeak));
        }
        String none = Units.NONE;
        rows.add(List.of(name("floor: live peak"), ReportTable.Cell.of(bytes(w.livePeak())), ReportTable.Cell.of(vs(w.livePeak(), recordedPeak)),
                ReportTable.Cell.of(bytes(w.livePeak())), ReportTable.Cell.of(none), ReportTable.Cell.of(none), ReportTable.Cell.of(none),
                ReportTable.Cell.of(none)));
        rows.add(List.of(name("floor: packed at fixed addresses"), ReportTable.Cell.of(w.packedFloor() >= 0 ? bytes(w.packedFloor()) : none)
                        .withSub(w.packedFloor() >= 0 ? null : w.floorNote()), ReportTable.Cell.of(w.packedFloor() >= 0 ? vs(w.packedFloor(), recordedPeak) : none),
                ReportTable.Cell.of(none), ReportTable.Cell.of(none), ReportTable.Cell.of(none), ReportTable.Cell.of(none), ReportTable.Cell.of(none)));
        return new ReportTable("whatif", "Caching allocator what-if (device " + w.device() + ")", whatIfSummary(w),
                List.of("settings", "reserved peak", "vs recorded", "live at peak", "rounding", "split remainders", "cached", "first out-of-memory"),
                List.of(false, true, true, true, true, true, true, false), rows, Math.max(0, best.size() - WhatIfSection.SHOWN));
    }

    private static String vs(long v, long recorded) {
        return recorded <= 0 ? Units.NONE : String.format(Locale.ROOT, "%+.1f%%", (v - recorded) * 100.0 / recorded);
    }

    private static List<ReportTable.Cell> whatIfRow(String label, WhatIfReplay.Outcome o, long recordedPeak) {
        var p = o.peak();
        String none = Units.NONE;
        String oom = !o.outOfMemory() ? "none"
                : o.oomEntry() == -2 ? "a block in use at the start, " + bytes(o.oomBytes()) : "entry " + o.oomEntry() + ", " + bytes(o.oomBytes());
        return List.of(name(label), ReportTable.Cell.of(bytes(o.reservedPeak())), ReportTable.Cell.of(vs(o.reservedPeak(), recordedPeak)),
                ReportTable.Cell.of(p == null ? none : bytes(p.requested())), ReportTable.Cell.of(p == null ? none : bytes(p.rounding())),
                ReportTable.Cell.of(p == null ? none : bytes(p.splitRemainders())), ReportTable.Cell.of(p == null ? none : bytes(p.cached())),
                ReportTable.Cell.of(oom));
    }

    private static ReportTable.Cell fig(Report r, FigureRow row, String key) {
        Figure f = row.figure(key);
        if (f == null) {
            return ReportTable.Cell.of(Units.NONE);
        }
        TraceDiff.Change c = r.hasBaseline() && f.unit() != Figure.Unit.TIME ? r.diff().change(row, key) : null;
        return new ReportTable.Cell(Units.format(f), null, c, false);
    }

    private static ReportTable.Cell name(String text) {
        return new ReportTable.Cell(text, null, null, true);
    }

    static ReportTable memories(Report r) {
        boolean oom = r.trace().memories().stream().anyMatch(m -> m.outOfMemory() > 0)
                || r.hasBaseline() && r.diff().baseline().memories().stream().anyMatch(m -> m.outOfMemory() > 0);
        List<List<ReportTable.Cell>> rows = new ArrayList<>();
        // a trace may name tens of thousands of memories: the table lists those with the largest footprints
        List<MemoryAnalysis> all = r.trace().memories();
        java.util.Set<MemoryAnalysis> listed = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        all.stream().sorted(java.util.Comparator.comparingLong(MemoryAnalysis::footprintBytes).reversed())
                .limit(MAX_LISTED_MEMORIES).forEach(listed::add);
        long notListed = all.size() - listed.size();
        long largestNotListed = all.stream().filter(m -> !listed.contains(m)).mapToLong(MemoryAnalysis::footprintBytes).max().orElse(0);
        for (MemoryAnalysis m : all) {
            if (!listed.contains(m)) {
                continue;
            }
            List<ReportTable.Cell> row = new ArrayList<>();
            row.add(name(m.name()).withSub(m.kind().name().toLowerCase(Locale.ROOT).replace('_', ' ') + " · " + m.device()));
            row.add(fig(r, m, "capacityBytes"));
            row.add(fig(r, m, "peakUsedBytes").withSub(m.peakUsedAtNs() < 0 ? null
                    : "at " + Units.instant(r.trace().session(), m.peakUsedAtNs())));
            row.add(highWaters(r, m));
            row.add(fig(r, m, "footprintBytes"));
            row.add(fig(r, m, "fragmentation"));
            row.add(fig(r, m, "roundingWaste"));
            row.add(fig(r, m, "allocations"));
            if (oom) {
                row.add(fig(r, m, "outOfMemory"));
            }
            rows.add(row);
        }
        return new ReportTable("memories", "Memories",
                "Times are from the trace's first event. Footprint: the bytes the memory needs from its device (arena: forward + backward high-water; pool: reserved high-water; "
                        + "plan arena: height). Fragmentation: 1 − peak in use / footprint. Rounding waste: bytes handed out beyond those requested."
                        + (notListed == 0 ? "" : " Listed: the " + listed.size() + " memories with the largest footprints; " + notListed
                        + " more, each of at most " + Units.format(Figure.Unit.BYTES, largestNotListed)
                        + ", are in the JSON report and arenascope stats."),
                oom ? List.of("memory", "capacity", "peak in use", "high-water marks", "footprint", "fragmentation",
                        "rounding waste", "allocations", "out of memory")
                        : List.of("memory", "capacity", "peak in use", "high-water marks", "footprint", "fragmentation",
                        "rounding waste", "allocations"),
                oom ? List.of(false, true, true, true, true, true, true, true, true)
                        : List.of(false, true, true, true, true, true, true, true), rows, 0);
    }

    /** The first high-water mark (forward or reserved) with its change; the others on a second line with theirs. */
    private static ReportTable.Cell highWaters(Report r, MemoryAnalysis m) {
        List<MemoryAnalysis.HighWater> marks = m.highWaterMarks().stream().filter(h -> !h.key().equals("inUse")).toList();
        if (marks.isEmpty()) {
            return ReportTable.Cell.of(Units.NONE);
        }
        MemoryAnalysis.HighWater first = marks.getFirst();
        TraceDiff.Change firstChange = r.hasBaseline() ? r.diff().change(m, first.key() + "HighWaterBytes") : null;
        List<String> rest = new ArrayList<>();
        for (MemoryAnalysis.HighWater h : marks.subList(1, marks.size())) {
            String text = h.key() + " " + Units.format(Figure.Unit.BYTES, h.bytes());
            TraceDiff.Change c = r.hasBaseline() ? r.diff().change(m, h.key() + "HighWaterBytes") : null;
            if (c != null && c.presence() == TraceDiff.Presence.BOTH && c.deltaPct() != 0 && !Double.isNaN(c.deltaPct())) {
                text += " (" + Units.changePct(c) + (c.regression() ? " ⚠" : "") + ")";
            }
            rest.add(text);
        }
        return new ReportTable.Cell(first.key() + " " + Units.format(Figure.Unit.BYTES, first.bytes()),
                rest.isEmpty() ? null : String.join(" · ", rest), firstChange, false);
    }

    static ReportTable scopes(Report r) {
        List<ScopeAnalysis> all = r.trace().scopes();
        List<ScopeAnalysis> top = r.trace().topScopes(Report.TOP_SCOPES);
        List<List<ReportTable.Cell>> rows = new ArrayList<>();
        for (ScopeAnalysis s : top) {
            List<ReportTable.Cell> row = new ArrayList<>();
            row.add(name(s.path()));
            row.add(ReportTable.Cell.of(s.memoryName()));
            row.add(fig(r, s, "executions"));
            row.add(fig(r, s, "peakBytes"));
            row.add(fig(r, s, "meanBytes"));
            row.add(ReportTable.Cell.of(s.params().isEmpty() ? Units.NONE
                    : s.params().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(", "))));
            row.add(ReportTable.Cell.of(s.model() == null ? Units.NONE : s.model()));
            row.add(fig(r, s, "modelError"));
            rows.add(row);
        }
        return new ReportTable("scopes", "Top scopes by peak bytes",
                "Peak: the most bytes the memory held above the scope's entry while it was open (children included), over its runs; "
                        + "params of that run. Model: calibrated bytes requested directly inside the scope; error: worst |measured − predicted| / measured.",
                List.of("scope", "memory", "runs", "peak", "mean", "params at peak", "model", "model error"),
                List.of(false, false, true, true, true, false, false, true), rows, all.size() - top.size());
    }

    static ReportTable poolBins(Report r) {
        List<List<ReportTable.Cell>> rows = new ArrayList<>();
        for (PoolBinAnalysis b : r.trace().poolBins()) {
            List<ReportTable.Cell> row = new ArrayList<>();
            row.add(name(b.pool()));
            row.add(ReportTable.Cell.of(Integer.toString(b.bin())));
            row.add(fig(r, b, "binBytes"));
            row.add(fig(r, b, "requests"));
            row.add(fig(r, b, "hits"));
            row.add(fig(r, b, "misses"));
            row.add(fig(r, b, "hitRate"));
            row.add(fig(r, b, "heldBytes"));
            row.add(fig(r, b, "peakHeldBytes"));
            row.add(fig(r, b, "roundingWasteBytes"));
            row.add(fig(r, b, "reuseFactor"));
            rows.add(row);
        }
        return new ReportTable("pool-bins", "Pool bins",
                "Hit: a request served from a held block. Held: bytes returned to the bin and kept for reuse. "
                        + "Rounding waste: block size minus bytes requested, summed. Reuse: requests per block taken from the device.",
                List.of("pool", "bin", "block size", "requests", "hits", "misses", "hit rate", "held at end", "peak held",
                        "rounding waste", "reuse"),
                List.of(false, true, true, true, true, true, true, true, true, true, true), rows, 0);
    }

    static ReportTable plans(Report r) {
        List<List<ReportTable.Cell>> rows = new ArrayList<>();
        for (PlanAnalysis p : r.trace().plans()) {
            List<ReportTable.Cell> row = new ArrayList<>();
            row.add(name(p.subject()));
            row.add(ReportTable.Cell.of(p.kind().name().toLowerCase(Locale.ROOT).replace("plan_", "")));
            row.add(fig(r, p, "tensors"));
            row.add(fig(r, p, "heightBytes"));
            row.add(fig(r, p, "lowerBoundBytes"));
            row.add(fig(r, p, "searchHeightBytes"));
            row.add(ReportTable.Cell.of(p.searchProof().isEmpty() ? "—" : p.searchProof()));
            row.add(fig(r, p, "efficiency"));
            row.add(fig(r, p, "capacityBytes"));
            rows.add(row);
        }
        return new ReportTable("plans", "Memory plans",
                "Height: the arena size the plan's offsets need. Lower bound: the most bytes live at one step; no packing is shorter. "
                        + "Search packing: the height the search planner finds for the same tensors (greedy where no search planner is built in). "
                        + "Proof: 'optimal' when no lower packing exists, else the most the search packing can be above the least possible.",
                List.of("plan arena", "role", "tensors", "height", "lower bound", "search packing", "proof", "bound / height", "capacity"),
                List.of(false, false, true, true, true, true, false, true, true), rows, 0);
    }

    /** The regressions table (baseline only): worst first, gate failures marked. */
    static ReportTable regressions(Report r) {
        List<List<ReportTable.Cell>> rows = new ArrayList<>();
        Set<TraceDiff.Change> failed = new HashSet<>(r.gateFailures());
        for (TraceDiff.Change c : r.diff().regressions()) {
            rows.add(changeRow(c, failed.contains(c) ? "fails gate" : c.figure().peak() ? "peak" : ""));
        }
        return new ReportTable("regressions", "Regressions",
                "Figures that moved in their worse direction against the baseline, worst first"
                        + (r.gatePct() != null ? "; peaks that grew more than " + Units.format(Figure.Unit.RATIO, r.gatePct() / 100) + " fail the gate." : "."),
                List.of("section", "subject", "figure", "now", "baseline", "change", "delta", "gate"),
                List.of(false, false, false, true, true, true, true, false), rows, 0);
    }

    /** The improvements table (baseline only). */
    static ReportTable improvements(Report r) {
        List<List<ReportTable.Cell>> rows = new ArrayList<>();
        for (TraceDiff.Change c : r.diff().improvements()) {
            rows.add(changeRow(c, ""));
        }
        return new ReportTable("improvements", "Improvements", "Figures that moved in their better direction, best first.",
                List.of("section", "subject", "figure", "now", "baseline", "change", "delta", ""),
                List.of(false, false, false, true, true, true, true, false), rows, 0);
    }

    /** Rows of the baseline that this trace no longer has. */
    static List<String> removedSubjects(Report r) {
        return r.diff().removed().stream().map(c -> sectionTitle(c.section()) + ": " + c.subject()).distinct().toList();
    }

    /** Rows of this trace that the baseline did not have. */
    static List<String> addedSubjects(Report r) {
        return r.diff().added().stream().map(c -> sectionTitle(c.section()) + ": " + c.subject()).distinct().toList();
    }

    private static List<ReportTable.Cell> changeRow(TraceDiff.Change c, String gate) {
        Figure f = c.figure();
        return List.of(ReportTable.Cell.of(sectionTitle(c.section())), new ReportTable.Cell(c.subject(), null, null, true),
                ReportTable.Cell.of(f.label()),
                ReportTable.Cell.of(c.now() == null ? Units.NONE : Units.format(c.now())),
                ReportTable.Cell.of(c.was() == null ? Units.NONE : Units.format(c.was())),
                new ReportTable.Cell(Units.changePct(c), null, c, false),
                ReportTable.Cell.of(Units.delta(c)),
                ReportTable.Cell.of(gate));
    }

    static String sectionTitle(String section) {
        return switch (section) {
            case "memories" -> "memory";
            case "scopes" -> "scope";
            case "poolBins" -> "pool bin";
            case "plans" -> "plan";
            default -> section;
        };
    }
}
