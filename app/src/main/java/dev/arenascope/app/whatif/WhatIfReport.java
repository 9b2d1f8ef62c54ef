package dev.arenascope.app.whatif;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.pool.torch.CachingAllocatorModel;
import dev.arenascope.core.pool.torch.SnapshotCheck;
import dev.arenascope.core.pool.torch.WhatIfReplay;
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
            StringBuilder b = new StringBuilder("{\n");
            b.append("  \"file\": ").append(q(file.toString())).append(",\n");
            b.append("  \"check\": ").append(checkJson(c, "  ")).append("\n}\n");
            out.print(b);
        } else {
            out.println(checkLine(c));
        }
    }

    void write(String format, PrintStream out) {
        if (format.equals("json")) {
            out.print(json());
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

    private String json() {
        StringBuilder b = new StringBuilder("{\n");
        b.append("  \"file\": ").append(q(file.toString())).append(",\n");
        b.append("  \"device\": ").append(d.index()).append(",\n");
        b.append("  \"check\": ").append(checkJson(check, "  ")).append(",\n");
        b.append("  \"file_settings\": ").append(q(recorded.settings().describe())).append(",\n");
        b.append("  \"capacity\": ").append(capacity > 0 ? Long.toString(capacity) : "null").append(",\n");
        b.append("  \"recorded\": ").append(outcome(recorded, "  ")).append(",\n");
        b.append("  \"baseline\": ").append(outcome(baseline, "  ")).append(",\n");
        b.append("  \"whatifs\": [");
        for (int i = 0; i < outcomes.size(); i++) {
            b.append(i == 0 ? "\n    " : ",\n    ").append(outcome(outcomes.get(i), "    "));
        }
        b.append(outcomes.isEmpty() ? "],\n" : "\n  ],\n");
        b.append("  \"floor\": {\"live_peak\": ").append(floor.livePeak()).append(", \"packed_height\": ")
                .append(floor.packed() >= 0 ? Long.toString(floor.packed()) : "null").append(", \"buffers\": ").append(floor.buffers())
                .append(", \"note\": ").append(q(floor.note())).append("}\n}\n");
        return b.toString();
    }

    private static String checkJson(SnapshotCheck.Result c, String ind) {
        return "{\"exact\": " + c.exact() + ", \"line\": " + q(c.line()) + ", \"entry\": " + (c.exact() ? "null" : Long.toString(c.entry()))
                + ", \"entries\": " + c.entries() + ", \"requests\": " + c.requests() + ", \"segment_entries\": " + c.segmentEvents()
                + ", \"inferred_blocks\": " + c.inferred() + (c.exact() ? "" : ", \"model\": " + q(c.model()) + ", \"file_says\": " + q(c.file())) + "}";
    }

    private static String outcome(WhatIfReplay.Outcome o, String ind) {
        CachingAllocatorModel.Peak p = o.peak();
        String at = p == null ? "null" : "{\"reserved\": " + p.reserved() + ", \"live\": " + p.requested() + ", \"rounding\": " + p.rounding()
                + ", \"split_remainders\": " + p.splitRemainders() + ", \"cached\": " + p.cached() + "}";
        String oom = !o.outOfMemory() ? "null" : "{\"entry\": " + o.oomEntry() + ", \"bytes\": " + o.oomBytes() + ", \"reserved\": " + o.oomReserved() + "}";
        return "{\"settings\": " + q(o.settings().describe()) + ", \"reserved_peak\": " + o.reservedPeak() + ", \"at_peak\": " + at
                + ", \"live_peak\": " + o.requestedPeak() + ", \"cuda_mallocs\": " + o.segmentAllocs() + ", \"cuda_frees\": " + o.segmentFrees()
                + ", \"requests\": " + o.requests() + ", \"out_of_memory\": " + oom + ", \"replay_ms\": "
                + String.format(Locale.ROOT, "%.1f", o.nanos() / 1e6) + "}";
    }

    static String q(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
