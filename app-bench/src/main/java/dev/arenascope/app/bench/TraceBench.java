package dev.arenascope.app.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.core.device.VirtualDevice;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.ForwardingSink;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.file.AstraceReader;
import dev.arenascope.core.trace.file.AstraceWriter;
import dev.arenascope.core.trace.file.JsonlReader;
import dev.arenascope.core.trace.file.JsonlWriter;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.util.Progress;
import dev.arenascope.workloads.Workload;
import dev.arenascope.workloads.Workloads;

/**
 * The {@code trace} figures:
 * <ul>
 * <li>{@code trace.write_events_per_s}: events an {@link AstraceWriter} takes in and writes to a file
 *     per second (batches of 16 Ki events of the synthetic arena/pool/plan stream, the most a session's
 *     drain delivers at once);
 * <li>{@code trace.read_events_per_s}: events per second from that file into an {@code EventStore}
 *     with its indexes built;
 * <li>{@code trace.bytes_per_event}: file bytes per event of a recorded sample workload (the render
 *     and particles workloads on a virtual device), the store of what a user records;
 * <li>{@code trace.jsonl_read_events_per_s}: events per second from a {@code .jsonl} file into a store.
 * </ul>
 * Medians of several rounds after warm-ups; temporary files go to {@code java.io.tmpdir}.
 */
final class TraceBench implements BenchSuite {
    private static final int BATCH = 1 << 14;

    @Override
    public String group() {
        return "trace";
    }

    @Override
    public Map<String, Double> run(boolean quick) throws Exception {
        int events = quick ? 1 << 20 : 4 << 20;
        List<EventBatch> batches = new ArrayList<>();
        SyntheticTrace gen = new SyntheticTrace(1);
        // a session's drain hands its sinks at most 16 Ki events at a time (Drain.MAX_PER_CYCLE)
        for (int left = events; left > 0; left -= BATCH) {
            EventBatch src = gen.next(Math.min(left, BATCH));
            EventBatch copy = new EventBatch(src.size());
            for (int i = 0; i < src.size(); i++) {
                copy.addFrom(src, i);
            }
            batches.add(copy);
        }
        Path dir = Files.createTempDirectory("arenascope-bench-trace");
        Path file = dir.resolve("bench.astrace");
        Path jsonl = dir.resolve("bench.jsonl");
        Map<String, Double> f = new LinkedHashMap<>();
        try {
            int warm = quick ? 1 : 2;
            int rounds = quick ? 3 : 7;
            f.put("trace.write_events_per_s", Medians.medianOf(warm, rounds, () -> {
                long t0 = System.nanoTime();
                AstraceWriter w = new AstraceWriter(file);
                SyntheticTrace.announce(w);
                for (EventBatch b : batches) {
                    w.onEvents(b);
                }
                w.onClose();
                return events / ((System.nanoTime() - t0) / 1e9);
            }));
            f.put("trace.read_events_per_s", Medians.medianOf(warm, rounds, () -> {
                long t0 = System.nanoTime();
                LoadedTrace t = AstraceReader.load(file);
                double s = (System.nanoTime() - t0) / 1e9;
                check(t, events);
                return events / s;
            }));
            f.put("trace.bytes_per_event", recordedBytesPerEvent(dir));
            int jsonEvents = quick ? 200_000 : 1_000_000;
            JsonlWriter jw = new JsonlWriter(jsonl);
            SyntheticTrace.write(2, jsonEvents, jw);
            f.put("trace.jsonl_read_events_per_s", Medians.medianOf(warm, quick ? 3 : 5, () -> {
                long t0 = System.nanoTime();
                LoadedTrace t = JsonlReader.load(jsonl);
                double s = (System.nanoTime() - t0) / 1e9;
                check(t, jsonEvents);
                return jsonEvents / s;
            }));
        } finally {
            Files.deleteIfExists(file);
            Files.deleteIfExists(jsonl);
            Files.deleteIfExists(dir.resolve("workload.astrace"));
            Files.deleteIfExists(dir);
        }
        return f;
    }

    private static void check(LoadedTrace t, long events) {
        if (t.store().eventCount() != events || t.report().damaged()) {
            throw new IllegalStateException("bench trace read back wrong: " + t.report().summary());
        }
    }

    /** Records the render and particles workloads into one file and returns its bytes per event. */
    private static double recordedBytesPerEvent(Path dir) throws IOException {
        Path f = dir.resolve("workload.astrace");
        long events;
        try (Session s = new Session("bench", 1 << 20); VirtualDevice device = new VirtualDevice()) {
            CountingWriter w = new CountingWriter(new AstraceWriter(f));
            s.addSink(w);
            Workload render = Workloads.find("render");
            render.run(s, device, render.parse(Map.of("frames", "48")), Progress.NONE);
            Workload particles = Workloads.find("particles");
            particles.run(s, device, particles.parse(Map.of()), Progress.NONE);
            s.close();
            events = w.events;
            if (s.lostEvents() > 0) {
                System.err.println("bench: trace: the recording lost " + s.lostEvents() + " events (slow machine); bytes_per_event counts what was written");
            }
        }
        return Files.size(f) / (double) Math.max(1, events);
    }

    /** Passes everything on and counts events. */
    private static final class CountingWriter extends ForwardingSink {
        long events;

        CountingWriter(AstraceWriter w) {
            super(w);
        }

        @Override
        public void onEvents(EventBatch batch) {
            events += batch.size();
            super.onEvents(batch);
        }
    }
}
