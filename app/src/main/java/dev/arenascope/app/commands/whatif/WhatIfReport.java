package dev.arenascope.app.commands.whatif;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.pool.torch.CachingAllocatorModel;
import dev.arenascope.core.pool.torch.SnapshotCheck;
import dev.arenascope.core.pool.torch.WhatIfReplay;
import dev.arenascope.core.report.JsonOutput;
import dev.arenascope.core.report.WhatIfJson;
import dev.arenascope.core.trace.torch.TorchAllocatorTrace;

/** The {@code whatif} output, as a table (text) or JSON (keys in {@code docs/guide/pytorch.md}). */
final class WhatIfReport {
    private final Path file;
    private final TorchAllocatorTrace t;
    private final TorchAllocatorTrace.Device d;
    private final SnapshotCheck.Result check;
    private final WhatIfReplay.Outcome recorded;
    private final WhatIfReplay.Outcome baseline;
    private final List<WhatIfReplay.Outcome> outcomes;
    private final Floor floor;
    private final long capacity;

    WhatIfReport(Path file, TorchAllocatorTrace t, TorchAllocatorTrace.Device d, SnapshotCheck.Result check, WhatIfReplay.Outcome recorded,
                 WhatIfReplay.Outcome baseline, List<WhatIfReplay.Outcome> outcomes, Floor floor, long capacity) {
        this.file = file;
        this.t = t;
        this.d = d;
        this.check = check;
        this.recorded = recorded;
        this.baseline = baseline;
        this.outcomes = outcomes;
        this.floor = floor;
        this.capacity = capacity;
    }

    static String checkLine(SnapshotCheck.Result c) {
        if (!c.exact()) {
            return c.line();
        }
        return String.format(Locale.ROOT, "model: exact (%,d entries: %,d requests placed where the file placed them, %,d segment entries, the final state%s)",
                c.entries(), c.requests(), c.segmentEvents(), c.inferred() > 0 ? "; " + c.inferred() + " blocks of the start state sized by inference" : "");
    }

    static void check(Path file, TorchAllocatorTrace t, SnapshotCheck.Result c, String format, PrintStream out) {
        if (format.equals("json")) {
            try {
                JsonGenerator g = JsonOutput.open(out);
                g.writeStartObject();
                g.writeStringField("file", file.toString());
                g.writeFieldName("check");
                checkJson(g, c);
                g.writeEndObject();
                JsonOutput.end(g);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        } else {
            out.println(checkLine(c));
        }
    }

    void write(String format, PrintStream out) {
        if (format.equals("json")) {
            try {
                json(out);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        } else {
            out.print(text());
        }
    }

    private String text() {
        StringBuilder b = new StringBuilder();
        b.append(checkLine(check));
        if (!check.exact()) {
            b.append(" (the what-ifs below are the model's guess: it does not reproduce this file)");
        }
        b.append('\n');
        b.append(String.format(Locale.ROOT, "%s, device %d: %,d requests; file settings: %s%s%n", file.getFileName(), d.index(), recorded.requests(),
                recorded.settings().describe(), capacity > 0 ? "; capacity " + Bytes.format(capacity) : ""));
        b.append('\n');
        String head = String.format(Locale.ROOT, "%-52s %12s %12s %11s %11s %11s %12s %8s %7s  %s%n", "settings", "reserved pk", "live at pk",
                "rounding", "split rem.", "cached", "live peak", "mallocs", "frees", "first out-of-memory");
        b.append(head);
        b.append(row("recorded (the file)", recorded));
        b.append(row("replayed, file settings", baseline));
        for (WhatIfReplay.Outcome o : outcomes) {
            if (o != baseline) {
                b.append(row(o.settings().describe(), o));
            }
        }
        b.append('\n');
        if (recorded.peak() != null) {
            b.append("At the recorded peak: ").append(breakdown(recorded.peak())).append('\n');
        } else {
            b.append("At the recorded peak: reserved ").append(Bytes.format(recorded.reservedPeak()))
                    .append(" (its make-up needs an exact replay)\n");
        }
        for (WhatIfReplay.Outcome o : outcomes) {
            if (o != baseline && outcomes.size() <= 2) {
                b.append(o.settings().describe()).append(": ").append(breakdown(o.peak())).append('\n');
            }
        }
        b.append("Floor: live peak ").append(Bytes.format(floor.livePeak()));
        if (floor.packed() >= 0) {
            b.append("; packed at fixed addresses ").append(Bytes.format(floor.packed())).append(" (").append(floor.note()).append(')');
        } else {
            b.append(" (").append(floor.note()).append(')');
        }
        b.append('\n');
        return b.toString();
    }

    static String breakdown(CachingAllocatorModel.Peak p) {
        return "reserved " + Bytes.format(p.reserved()) + " = live " + Bytes.format(p.requested()) + " + rounding " + Bytes.format(p.rounding())
                + " + split remainders " + Bytes.format(p.splitRemainders()) + " + cached " + Bytes.format(p.cached());
    }

    private String row(String name, WhatIfReplay.Outcome o) {
        CachingAllocatorModel.Peak p = o.peak();
        String oom = !o.outOfMemory() ? "none"
                : String.format(Locale.ROOT, "entry %s: %s with %s reserved", o.oomEntry() == -2 ? "(start)" : Long.toString(o.oomEntry()),
                Bytes.format(o.oomBytes()), Bytes.format(o.oomReserved()));
        if (o == recorded && o.outOfMemory()) {
            oom = "entry " + o.oomEntry() + ": " + Bytes.format(o.oomBytes()) + " (recorded oom)";
        }
        return String.format(Locale.ROOT, "%-52s %12s %12s %11s %11s %11s %12s %8d %7d  %s%n", name.length() > 52 ? name.substring(0, 51) + "…" : name,
                Bytes.format(o.reservedPeak()), p == null ? "-" : Bytes.format(p.requested()), p == null ? "-" : Bytes.format(p.rounding()),
                p == null ? "-" : Bytes.format(p.splitRemainders()), p == null ? "-" : Bytes.format(p.cached()), Bytes.format(o.requestedPeak()),
                o.segmentAllocs(), o.segmentFrees(), oom);
    }

    /** The JSON through {@link JsonOutput}, as every command's (the outcomes through core's {@link WhatIfJson}). */
    private void json(PrintStream out) throws IOException {
        JsonGenerator g = JsonOutput.open(out);
        g.writeStartObject();
        g.writeStringField("file", file.toString());
        g.writeNumberField("device", d.index());
        g.writeFieldName("check");
        checkJson(g, check);
        g.writeStringField("file_settings", recorded.settings().describe());
        if (capacity > 0) {
            g.writeNumberField("capacity", capacity);
        } else {
            g.writeNullField("capacity");
        }
        g.writeFieldName("recorded");
        WhatIfJson.outcome(g, recorded, true);
        g.writeFieldName("baseline");
        WhatIfJson.outcome(g, baseline, true);
        g.writeArrayFieldStart("whatifs");
        for (WhatIfReplay.Outcome o : outcomes) {
            WhatIfJson.outcome(g, o, true);
        }
        g.writeEndArray();
        g.writeObjectFieldStart("floor");
        g.writeNumberField("live_peak", floor.livePeak());
        if (floor.packed() >= 0) {
            g.writeNumberField("packed_height", floor.packed());
        } else {
            g.writeNullField("packed_height");
        }
        g.writeNumberField("buffers", floor.buffers());
        g.writeStringField("note", floor.note());
        g.writeEndObject();
        g.writeEndObject();
        JsonOutput.end(g);
    }

    private static void checkJson(JsonGenerator g, SnapshotCheck.Result c) throws IOException {
        g.writeStartObject();
        g.writeBooleanField("exact", c.exact());
        g.writeStringField("line", c.line());
        if (c.exact()) {
            g.writeNullField("entry");
        } else {
            g.writeNumberField("entry", c.entry());
        }
        g.writeNumberField("entries", c.entries());
        g.writeNumberField("requests", c.requests());
        g.writeNumberField("segment_entries", c.segmentEvents());
        g.writeNumberField("inferred_blocks", c.inferred());
        if (!c.exact()) {
            g.writeStringField("model", c.model());
            g.writeStringField("file_says", c.file());
        }
        g.writeEndObject();
    }
}
