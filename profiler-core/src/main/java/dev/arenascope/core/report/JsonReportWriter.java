package dev.arenascope.core.report;

import java.io.IOException;
import java.io.Writer;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.arenascope.core.analysis.Figure;
import dev.arenascope.core.analysis.MemoryAnalysis;
import dev.arenascope.core.analysis.MemorySites;
import dev.arenascope.core.analysis.PlanAnalysis;
import dev.arenascope.core.analysis.PoolBinAnalysis;
import dev.arenascope.core.analysis.ScopeAnalysis;
import dev.arenascope.core.analysis.SessionSummary;
import dev.arenascope.core.analysis.SiteBreakdown;
import dev.arenascope.core.analysis.SiteDiff;
import dev.arenascope.core.analysis.TraceAnalysis;
import dev.arenascope.core.analysis.TraceDiff;
import dev.arenascope.core.device.DeviceInfo;
import dev.arenascope.core.pool.torch.WhatIfReplay;
import dev.arenascope.core.trace.file.RingWindow;

/**
 * Writes a report as JSON. Field names are stable and documented in {@code docs/report-schema.md};
 * {@link #SCHEMA} names the version. Numbers that are not defined (a ratio over nothing, a change from
 * zero) are written as {@code null}. Stateless.
 */
public final class JsonReportWriter {
    /** The schema id written as {@code "schema"}; bumped only on incompatible changes. */
    public static final String SCHEMA = "arenascope.report/1";

    private JsonReportWriter() {}

    public static void write(Report r, Writer out) throws IOException {
        JsonGenerator g = JsonOutput.open(out);
        g.writeStartObject();
        g.writeStringField("schema", SCHEMA);
        g.writeStringField("generator", r.generator());
        g.writeStringField("source", r.source());
        g.writeFieldName("trace");
        analysis(g, r.trace());
        g.writeFieldName("baseline");
        if (r.hasBaseline()) {
            analysis(g, r.diff().baseline());
        } else {
            g.writeNull();
        }
        g.writeFieldName("comparison");
        if (r.hasBaseline()) {
            comparison(g, r);
        } else {
            g.writeNull();
        }
        if (r.whatIf() != null) {
            g.writeFieldName("whatif");
            whatIf(g, r.whatIf());
        }
        g.writeEndObject();
        g.flush();
        out.write('\n');
    }

    private static void analysis(JsonGenerator g, TraceAnalysis a) throws IOException {
        g.writeStartObject();
        session(g, a.session());
        g.writeArrayFieldStart("memories");
        for (MemoryAnalysis m : a.memories()) {
            memory(g, m);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("scopes");
        for (ScopeAnalysis s : a.scopes()) {
            scope(g, s);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("poolBins");
        for (PoolBinAnalysis b : a.poolBins()) {
            bin(g, b);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("plans");
        for (PlanAnalysis p : a.plans()) {
            plan(g, p);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("sites");
        for (MemorySites ms : a.sites()) {
            g.writeStartObject();
            g.writeStringField("memory", ms.memory());
            g.writeNumberField("peakBytes", ms.peakBytes());
            g.writeNumberField("peakAtNs", ms.peakAtNs());
            if (ms.bySite().sampling() == null) {
                g.writeNullField("sampled");
            } else {
                g.writeStringField("sampled", ms.bySite().sampling());
            }
            g.writeArrayFieldStart("bySite");
            for (SiteBreakdown.Row row : ms.bySite().rows()) {
                g.writeStartObject();
                g.writeNumberField("bytes", row.bytes());
                g.writeNumberField("count", row.count());
                g.writeStringField("label", row.label());
                SiteJson.frames(g, row.frames());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("byCategory");
            for (SiteBreakdown.Row row : ms.byCategory().rows()) {
                g.writeStartObject();
                g.writeStringField("category", row.label());
                g.writeNumberField("bytes", row.bytes());
                g.writeNumberField("count", row.count());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    private static void session(JsonGenerator g, SessionSummary s) throws IOException {
        g.writeObjectFieldStart("session");
        g.writeStringField("name", s.name());
        g.writeStringField("host", s.host());
        g.writeNumberField("startEpochNs", s.startEpochNs());
        g.writeNumberField("firstEventNs", s.firstEventNs());
        g.writeNumberField("durationNs", s.durationNs());
        g.writeNumberField("events", s.events());
        g.writeNumberField("lostEvents", s.lostEvents());
        RingWindow ring = RingWindow.of(s.attributes());
        if (ring != null) {
            g.writeObjectFieldStart("ring");
            g.writeNumberField("maxSizeBytes", ring.maxBytes());
            g.writeNumberField("maxDurationNs", ring.maxDurationNs());
            g.writeNumberField("droppedChunks", ring.droppedChunks());
            g.writeNumberField("droppedEvents", ring.droppedEvents());
            g.writeNumberField("droppedBytes", ring.droppedBytes());
            g.writeNumberField("windowStartNs", ring.windowStartNs());
            g.writeEndObject();
        }
        g.writeArrayFieldStart("devices");
        for (DeviceInfo d : s.devices()) {
            g.writeStartObject();
            g.writeStringField("id", d.id());
            g.writeStringField("name", d.name());
            g.writeNumberField("totalBytes", d.totalBytes());
            g.writeNumberField("freeBytes", d.freeBytes());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeObjectFieldStart("attributes");
        for (Map.Entry<String, String> e : new TreeMap<>(s.attributes()).entrySet()) {
            g.writeStringField(e.getKey(), e.getValue());
        }
        g.writeEndObject();
        g.writeEndObject();
    }

    private static void memory(JsonGenerator g, MemoryAnalysis m) throws IOException {
        g.writeStartObject();
        g.writeNumberField("id", m.id());
        g.writeStringField("name", m.name());
        g.writeStringField("kind", m.kind().name().toLowerCase(Locale.ROOT));
        g.writeStringField("device", m.device());
        g.writeNumberField("capacityBytes", m.capacityBytes());
        g.writeNumberField("peakUsedBytes", m.peakUsedBytes());
        g.writeNumberField("peakUsedAtNs", m.peakUsedAtNs());
        g.writeArrayFieldStart("highWaterMarks");
        for (MemoryAnalysis.HighWater h : m.highWaterMarks()) {
            g.writeStartObject();
            g.writeStringField("key", h.key());
            g.writeNumberField("bytes", h.bytes());
            g.writeNumberField("atNs", h.atNs());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeNumberField("footprintBytes", m.footprintBytes());
        JsonOutput.number(g, "fragmentation", m.fragmentation());
        JsonOutput.number(g, "roundingWaste", m.roundingWaste());
        g.writeNumberField("allocations", m.allocations());
        g.writeNumberField("allocatedBytes", m.allocatedBytes());
        g.writeNumberField("requestedBytes", m.requestedBytes());
        g.writeNumberField("releases", m.releases());
        g.writeNumberField("outOfMemory", m.outOfMemory());
        MemoryAnalysis.Occupancy o = m.occupancy();
        g.writeObjectFieldStart("occupancy");
        g.writeNumberField("fromNs", o.fromNs());
        g.writeNumberField("toNs", o.toNs());
        g.writeNumberField("buckets", o.buckets());
        g.writeFieldName("usedMax");
        g.writeArray(o.usedMax(), 0, o.buckets());
        g.writeFieldName("auxMax");
        g.writeArray(o.auxMax(), 0, o.buckets());
        g.writeEndObject();
        g.writeEndObject();
    }

    private static void scope(JsonGenerator g, ScopeAnalysis s) throws IOException {
        g.writeStartObject();
        g.writeNumberField("memory", s.memory());
        g.writeStringField("memoryName", s.memoryName());
        g.writeStringField("path", s.path());
        g.writeStringField("name", s.name());
        g.writeNumberField("depth", s.depth());
        g.writeNumberField("executions", s.executions());
        g.writeNumberField("peakBytes", s.peakBytes());
        g.writeNumberField("peakAtNs", s.peakAtNs());
        g.writeNumberField("meanBytes", s.meanBytes());
        g.writeNumberField("totalNs", s.totalNs());
        g.writeNumberField("maxNs", s.maxNs());
        g.writeObjectFieldStart("params");
        for (Map.Entry<String, Long> e : s.params().entrySet()) {
            g.writeNumberField(e.getKey(), e.getValue());
        }
        g.writeEndObject();
        if (s.model() == null) {
            g.writeNullField("model");
        } else {
            g.writeStringField("model", s.model());
        }
        JsonOutput.number(g, "modelError", s.modelError());
        g.writeNumberField("allocations", s.allocations());
        g.writeNumberField("forwardBytes", s.forwardBytes());
        g.writeNumberField("backwardBytes", s.backwardBytes());
        g.writeNumberField("peakUsedBytes", s.peakUsedBytes());
        g.writeEndObject();
    }

    private static void bin(JsonGenerator g, PoolBinAnalysis b) throws IOException {
        g.writeStartObject();
        g.writeNumberField("memory", b.memory());
        g.writeStringField("pool", b.pool());
        g.writeNumberField("bin", b.bin());
        g.writeNumberField("binBytes", b.binBytes());
        g.writeNumberField("requests", b.requests());
        g.writeNumberField("hits", b.hits());
        g.writeNumberField("misses", b.misses());
        JsonOutput.number(g, "hitRate", b.hitRate());
        g.writeNumberField("requestedBytes", b.requestedBytes());
        g.writeNumberField("roundingWasteBytes", b.roundingWasteBytes());
        g.writeNumberField("heldBytes", b.heldBytes());
        g.writeNumberField("peakHeldBytes", b.peakHeldBytes());
        g.writeNumberField("releases", b.releases());
        JsonOutput.number(g, "reuseFactor", b.reuseFactor());
        JsonOutput.number(g, "meanRequestNs", b.meanRequestNs());
        g.writeNumberField("heldBlocks", b.heldBlocks());
        g.writeEndObject();
    }

    private static void plan(JsonGenerator g, PlanAnalysis p) throws IOException {
        g.writeStartObject();
        g.writeNumberField("memory", p.memory());
        g.writeStringField("arena", p.arena());
        g.writeStringField("kind", p.kind().name().toLowerCase(Locale.ROOT));
        g.writeStringField("plan", p.plan());
        g.writeNumberField("capacityBytes", p.capacityBytes());
        g.writeNumberField("steps", p.steps());
        g.writeNumberField("tensors", p.tensors().size());
        g.writeNumberField("heightBytes", p.heightBytes());
        g.writeNumberField("lowerBoundBytes", p.lowerBoundBytes());
        if (p.searchHeightBytes() < 0) {
            g.writeNullField("searchHeightBytes");
        } else {
            g.writeNumberField("searchHeightBytes", p.searchHeightBytes());
        }
        g.writeStringField("searchPlanner", p.searchPlanner());
        if (p.searchBoundBytes() < 0) {
            g.writeNullField("searchBoundBytes");
        } else {
            g.writeNumberField("searchBoundBytes", p.searchBoundBytes());
        }
        g.writeStringField("searchProof", p.searchProof());
        g.writeNumberField("alignment", p.alignment());
        JsonOutput.number(g, "efficiency", p.efficiency());
        g.writeEndObject();
    }

    private static void comparison(JsonGenerator g, Report r) throws IOException {
        TraceDiff d = r.diff();
        g.writeStartObject();
        g.writeStringField("baselineSource", r.baselineSource());
        g.writeNumberField("noisePct", TraceDiff.NOISE_PCT);
        if (r.gatePct() == null) {
            g.writeNullField("failOnRegressionPct");
        } else {
            g.writeNumberField("failOnRegressionPct", r.gatePct());
        }
        g.writeBooleanField("gateFailed", !r.gateFailures().isEmpty());
        Set<TraceDiff.Change> failed = new HashSet<>(r.gateFailures());
        g.writeArrayFieldStart("regressions");
        for (TraceDiff.Change c : d.regressions()) {
            change(g, c, failed.contains(c));
        }
        g.writeEndArray();
        g.writeArrayFieldStart("improvements");
        for (TraceDiff.Change c : d.improvements()) {
            change(g, c, false);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("changes");
        for (TraceDiff.Change c : d.changes()) {
            change(g, c, failed.contains(c));
        }
        g.writeEndArray();
        rows(g, "added", d.added());
        rows(g, "removed", d.removed());
        g.writeArrayFieldStart("siteChanges");
        for (MemorySites ms : r.trace().sites()) {
            MemorySites base = SiteTables.baseline(r, ms.memory());
            if (base == null) {
                continue;
            }
            g.writeStartObject();
            g.writeStringField("memory", ms.memory());
            g.writeArrayFieldStart("sites");
            for (SiteDiff.Entry e : SiteDiff.between(base.bySite(), ms.bySite()).entries()) {
                SiteJson.diffEntry(g, e, SiteJson.Keys.CAMEL);
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    private static void whatIf(JsonGenerator g, WhatIfSection w) throws IOException {
        g.writeStartObject();
        g.writeNumberField("device", w.device());
        g.writeFieldName("check");
        g.writeStartObject();
        g.writeBooleanField("exact", w.exact());
        g.writeStringField("line", w.checkLine());
        g.writeEndObject();
        g.writeStringField("summary", ReportTables.whatIfSummary(w));
        g.writeFieldName("recorded");
        WhatIfJson.outcome(g, w.recorded(), false);
        g.writeFieldName("baseline");
        WhatIfJson.outcome(g, w.baseline(), false);
        g.writeArrayFieldStart("grid");
        for (WhatIfReplay.Outcome o : w.grid()) {
            WhatIfJson.outcome(g, o, false);
        }
        g.writeEndArray();
        List<WhatIfReplay.Outcome> best = w.best();
        if (best.isEmpty()) {
            g.writeNullField("best");
        } else {
            g.writeStringField("best", best.getFirst().settings().describe());
        }
        g.writeFieldName("floor");
        g.writeStartObject();
        g.writeNumberField("live_peak", w.livePeak());
        if (w.packedFloor() >= 0) {
            g.writeNumberField("packed_height", w.packedFloor());
        } else {
            g.writeNullField("packed_height");
        }
        g.writeStringField("note", w.floorNote());
        g.writeEndObject();
        g.writeEndObject();
    }

    /** The rows (section and subject, once each) of these changes. */
    private static void rows(JsonGenerator g, String field, List<TraceDiff.Change> changes) throws IOException {
        g.writeArrayFieldStart(field);
        Set<String> seen = new HashSet<>();
        for (TraceDiff.Change c : changes) {
            if (seen.add(c.section() + "\u0000" + c.subject())) {
                g.writeStartObject();
                g.writeStringField("section", c.section());
                g.writeStringField("subject", c.subject());
                g.writeEndObject();
            }
        }
        g.writeEndArray();
    }

    private static void change(JsonGenerator g, TraceDiff.Change c, boolean failsGate) throws IOException {
        Figure f = c.figure();
        g.writeStartObject();
        g.writeStringField("section", c.section());
        g.writeStringField("subject", c.subject());
        g.writeStringField("figure", f.key());
        g.writeStringField("label", f.label());
        g.writeStringField("unit", f.unit().name().toLowerCase(Locale.ROOT));
        g.writeStringField("presence", c.presence().name().toLowerCase(Locale.ROOT));
        value(g, "value", f.unit(), c.now() == null ? Double.NaN : c.now().value());
        value(g, "baseline", f.unit(), c.was() == null ? Double.NaN : c.was().value());
        value(g, "delta", f.unit(), c.delta());
        JsonOutput.number(g, "deltaPct", c.deltaPct());
        g.writeBooleanField("peak", f.peak());
        g.writeBooleanField("regression", c.regression());
        g.writeBooleanField("failsGate", failsGate);
        g.writeEndObject();
    }

    private static void value(JsonGenerator g, String name, Figure.Unit unit, double v) throws IOException {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            g.writeNullField(name);
        } else if (unit.integral()) {
            g.writeNumberField(name, (long) v);
        } else {
            g.writeNumberField(name, v);
        }
    }

}
