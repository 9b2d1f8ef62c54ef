package dev.arenascope.core.report;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.arenascope.core.pool.torch.CachingAllocatorModel;
import dev.arenascope.core.pool.torch.WhatIfReplay;

/**
 * How one caching-allocator replay reads in JSON, written once for the report's {@code whatif} section
 * ({@link JsonReportWriter}) and for {@code whatif --format json} (keys in docs/guide/pytorch.md).
 */
public final class WhatIfJson {
    private WhatIfJson() {}

    /**
     * {@code {settings, reserved_peak, at_peak: {reserved, live, rounding, split_remainders, cached} | null, live_peak,
     * cuda_mallocs, cuda_frees, out_of_memory: {entry, bytes, reserved} | null}}, and with {@code run} also the
     * replay's {@code requests} and {@code replay_ms} (how long it took: the command says it, the report does not,
     * so that two reports of one snapshot are the same).
     */
    public static void outcome(JsonGenerator g, WhatIfReplay.Outcome o, boolean run) throws IOException {
        g.writeStartObject();
        g.writeStringField("settings", o.settings().describe());
        g.writeNumberField("reserved_peak", o.reservedPeak());
        CachingAllocatorModel.Peak p = o.peak();
        g.writeFieldName("at_peak");
        if (p == null) {
            g.writeNull();
        } else {
            g.writeStartObject();
            g.writeNumberField("reserved", p.reserved());
            g.writeNumberField("live", p.requested());
            g.writeNumberField("rounding", p.rounding());
            g.writeNumberField("split_remainders", p.splitRemainders());
            g.writeNumberField("cached", p.cached());
            g.writeEndObject();
        }
        g.writeNumberField("live_peak", o.requestedPeak());
        g.writeNumberField("cuda_mallocs", o.segmentAllocs());
        g.writeNumberField("cuda_frees", o.segmentFrees());
        if (run) {
            g.writeNumberField("requests", o.requests());
        }
        g.writeFieldName("out_of_memory");
        if (!o.outOfMemory()) {
            g.writeNull();
        } else {
            g.writeStartObject();
            g.writeNumberField("entry", o.oomEntry());
            g.writeNumberField("bytes", o.oomBytes());
            g.writeNumberField("reserved", o.oomReserved());
            g.writeEndObject();
        }
        if (run) {
            g.writeNumberField("replay_ms", Math.round(o.nanos() / 1e5) / 10.0);
        }
        g.writeEndObject();
    }
}
