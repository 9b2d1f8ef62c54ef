package dev.arenascope.app.commands.trace;

import java.io.IOException;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.arenascope.app.cli.Args;
import dev.arenascope.app.cli.Command;
import dev.arenascope.app.cli.TraceLoader;
import dev.arenascope.app.cli.UsageException;
import dev.arenascope.app.commands.job.JobCommands;
import dev.arenascope.app.commands.job.JobInputs;
import dev.arenascope.core.analysis.PoolBinAnalysis;
import dev.arenascope.core.report.JsonOutput;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.file.RingWindow;
import dev.arenascope.core.trace.file.TraceFormats;
import dev.arenascope.core.trace.store.TraceStore;
import dev.arenascope.core.format.TimeAxis;

/**
 * {@code arenascope stats TRACE}: a JSON summary of a trace on stdout, read from the store's indexes:
 * {@code events}, {@code time_axis}, {@code duration_ns} (null and {@code duration_entries} instead for a
 * snapshot without timestamps), {@code lost_events} and {@code memories}, each with {@code id},
 * {@code name}, {@code kind}, {@code device}, {@code capacity}, {@code events}, {@code peak_bytes} (the
 * most bytes in use at once) and, for memories that reserve device memory (pools, imported caching
 * allocators), {@code reserved_peak_bytes}; pools add {@code requests}, {@code hits} and {@code misses}
 * (requests served from a held block and with a new device block), summed over their bins.
 */
public final class StatsCommand implements Command {

    @Override
    public String name() {
        return "stats";
    }

    @Override
    public String summary() {
        return "print a JSON summary of a trace: events, duration, peaks per memory";
    }

    @Override
    public String usage() {
        return """
                Usage: arenascope stats TRACE
                       arenascope stats TRACE TRACE... | FOLDER | 'GLOB' [--rank-pattern REGEX]

                Prints a JSON summary of TRACE (%s) on stdout:
                  events, time_axis ("time", or "entry_order" for a PyTorch snapshot without
                  timestamps: its duration_ns is then null and duration_entries counts its entries),
                  duration_ns, lost_events, ring (capped recordings only),
                  memories: [{id, name, kind, device, capacity, events, peak_bytes, reserved_peak_bytes, limit}]
                A trace recorded with --max-size or --max-duration has a ring object: max_size_bytes,
                max_duration_ns, dropped_chunks, dropped_events, dropped_bytes, window_start_ns (where
                the kept window starts, ns) and peaks_cover ("kept window" once anything was dropped:
                every peak, count and duration is then the kept window's, not the whole session's).
                A trace that a recording is still writing is summarised as far as it is sealed, with
                one line on stderr saying so, and exit code 0.
                peak_bytes is the most bytes in use at once; reserved_peak_bytes (pools and imported
                caching allocators only) the most bytes reserved from the device at once; pools
                also give requests, hits (served from a held block) and misses (a new block), and
                limit: the ceiling on bytes reserved, null for none (a pool's capacity is 0 unless its
                limit was chosen: the device's default ceiling is not a capacity).
                A damaged TRACE is summarised as far as it is sound, with one line on stderr naming the
                first problem, and exit code 2.

                Several traces, a folder or a glob are a job, one rank per file (named from
                rank(\\d+) or _(\\d+).pickle in the file name, else the file name; --rank-pattern
                REGEX: its first group names the rank). Prints {ranks: [...], job: {...}}: per rank
                peak_live_bytes, peak_reserved_bytes, peak_at_ns, step, out_of_memory, allocations,
                top_site; for the job worst_rank, median_rank, imbalance_pct, outliers and per column
                max, median, min, max_over_median, max_minus_min (docs/guide/jobs.md). A rank that
                cannot be read is a row with its failure; the others are summarised; exit code 2.
                """.formatted(TraceFormats.inputExtensions());
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        Args a = new Args(name(), args, Set.of());
        String rankPattern = a.string("rank-pattern", null);
        a.finish();
        if (JobInputs.isJob(a.positionals())) {
            return JobCommands.stats(a.positionals(), rankPattern, out, err);
        }
        if (a.positionals().size() != 1) {
            throw new UsageException(name() + ": expects one TRACE, got " + a.positionals().size() + " (see arenascope stats --help)");
        }
        LoadedTrace t = TraceLoader.load(name(), a.positionals().getFirst());
        print(t.store(), out);
        return TraceLoader.finish(name(), t.report(), "", err);
    }

    /** Writes the summary of {@code store} as pretty-printed JSON. */
    static void print(TraceStore store, PrintStream out) throws IOException {
        JsonGenerator g = JsonOutput.open(out);
        g.writeStartObject();
        g.writeNumberField("events", store.eventCount());
        long span = store.eventCount() == 0 ? 0 : store.endNs() - store.startNs();
        // a snapshot without timestamps is placed on its entries' order: its span is entries, not time
        boolean entries = TimeAxis.of(store.session() == null ? null : store.session().attributes()) == TimeAxis.ENTRIES;
        g.writeStringField("time_axis", entries ? "entry_order" : "time");
        if (entries) {
            g.writeNullField("duration_ns");
            g.writeNumberField("duration_entries", TimeAxis.entry(span));
        } else {
            g.writeNumberField("duration_ns", span);
        }
        g.writeNumberField("lost_events", store.lostEvents());
        RingWindow ring = RingWindow.of(store.session());
        if (ring != null) {
            // a capped recording: what was dropped, and that the figures below are the kept window's
            g.writeObjectFieldStart("ring");
            g.writeNumberField("max_size_bytes", ring.maxBytes());
            g.writeNumberField("max_duration_ns", ring.maxDurationNs());
            g.writeNumberField("dropped_chunks", ring.droppedChunks());
            g.writeNumberField("dropped_events", ring.droppedEvents());
            g.writeNumberField("dropped_bytes", ring.droppedBytes());
            g.writeNumberField("window_start_ns", ring.windowStartNs());
            g.writeStringField("peaks_cover", ring.dropped() ? "kept window" : "whole session");
            g.writeEndObject();
        }
        Map<Integer, long[]> requests = new HashMap<>();
        // the per-bin figures are printed for pools only: without a pool, the pass over every event is skipped
        boolean pools = store.memories().stream().anyMatch(m -> m.kind() == MemoryKind.POOL);
        for (PoolBinAnalysis b : pools ? PoolBinAnalysis.of(store) : List.<PoolBinAnalysis>of()) {
            long[] r = requests.computeIfAbsent(b.memory(), k -> new long[3]);
            r[0] += b.requests();
            r[1] += b.hits();
            r[2] += b.misses();
        }
        g.writeArrayFieldStart("memories");
        for (MemoryInfo m : store.memories()) {
            g.writeStartObject();
            g.writeNumberField("id", m.id());
            g.writeStringField("name", m.name());
            g.writeStringField("kind", m.kind().name());
            g.writeStringField("device", m.device());
            g.writeNumberField("capacity", m.capacity());
            g.writeNumberField("events", store.eventCount(m.id()));
            g.writeNumberField("peak_bytes", store.peakUsed(m.id()));
            if (m.kind() == MemoryKind.POOL || m.kind() == MemoryKind.SEGMENTED) {
                g.writeNumberField("reserved_peak_bytes", store.peakAux(m.id()));
            }
            if (m.kind() == MemoryKind.POOL) {
                long[] r = requests.getOrDefault(m.id(), new long[3]);
                g.writeNumberField("requests", r[0]);
                g.writeNumberField("hits", r[1]);
                g.writeNumberField("misses", r[2]);
            }
            String limit = m.attributes().get("maxAllocBytes");
            if (m.kind() == MemoryKind.POOL && limit != null) {
                // the pool's ceiling on reserved bytes, apart from a capacity: null for none
                if (limit.equals("none")) {
                    g.writeNullField("limit");
                } else {
                    try {
                        g.writeNumberField("limit", Long.parseLong(limit));
                    } catch (NumberFormatException e) {
                        g.writeNullField("limit");
                    }
                }
            }
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
        JsonOutput.end(g);
    }
}
