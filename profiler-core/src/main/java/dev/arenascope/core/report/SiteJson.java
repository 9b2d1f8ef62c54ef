package dev.arenascope.core.report;

import java.io.IOException;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.arenascope.core.analysis.SiteDiff;
import dev.arenascope.core.trace.StackFrame;

/**
 * How a site's stack and a site diff's row read in JSON, written once for the report ({@link JsonReportWriter}),
 * the job report ({@link JobJson}) and {@code sites --format json}, so their fields cannot drift apart. The report's
 * schema spells keys in camel case ({@code baselineBytes}), the commands' output in snake case
 * ({@code baseline_bytes}): the same fields, in the same order, either way.
 */
public final class SiteJson {
    /** How multi-word keys are spelled. */
    public enum Keys {
        /** {@code baselineBytes}: the report's schema (docs/report-schema.md). */
        CAMEL,
        /** {@code baseline_bytes}: the commands' JSON. */
        SNAKE;

        String baselineBytes() {
            return this == CAMEL ? "baselineBytes" : "baseline_bytes";
        }

        String deltaBytes() {
            return this == CAMEL ? "deltaBytes" : "delta_bytes";
        }

        String baselineCount() {
            return this == CAMEL ? "baselineCount" : "baseline_count";
        }
    }

    private SiteJson() {}

    /** {@code "frames": [{function, file, line[, internal: true]}, ...]}, innermost first. */
    public static void frames(JsonGenerator g, List<StackFrame> frames) throws IOException {
        g.writeArrayFieldStart("frames");
        for (StackFrame f : frames) {
            g.writeStartObject();
            g.writeStringField("function", f.function());
            g.writeStringField("file", f.file());
            g.writeNumberField("line", f.line());
            if (f.internal()) {
                g.writeBooleanField("internal", true);
            }
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    /** One row of a site diff as an object: status, bytes, baseline bytes, delta, count, baseline count, label, frames. */
    public static void diffEntry(JsonGenerator g, SiteDiff.Entry e, Keys keys) throws IOException {
        g.writeStartObject();
        g.writeStringField("status", e.status().name().toLowerCase(Locale.ROOT));
        g.writeNumberField("bytes", e.currentBytes());
        g.writeNumberField(keys.baselineBytes(), e.baselineBytes());
        g.writeNumberField(keys.deltaBytes(), e.deltaBytes());
        g.writeNumberField("count", e.currentCount());
        g.writeNumberField(keys.baselineCount(), e.baselineCount());
        g.writeStringField("label", e.label());
        frames(g, e.frames());
        g.writeEndObject();
    }
}
