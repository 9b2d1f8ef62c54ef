package dev.arenascope.app.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.arenascope.core.arena.DType;
import dev.arenascope.core.arena.ManualMemory;
import dev.arenascope.core.arena.Tensor;
import dev.arenascope.core.device.HostDevice;
import dev.arenascope.core.record.AllocationRecorder;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;

/**
 * The arena's hot path: {@code arena.alloc_ns} is one {@code getTensor} in a render-like loop whose
 * temporaries a {@code temp()} scope releases every {@value #BATCH} allocations, with nothing recording;
 * {@code arena.alloc_recorded_ns} is the same with an {@code AllocationRecorder} active and a session sink
 * draining every event on the drain thread. {@code arena.alloc_recorded_lost_events} counts events the
 * ring had to drop during that run (0 when the drain keeps up). {@code arena.scope_ns} is one scope
 * entered and left with nothing recording. {@code arena.clock_ns} is one {@code System.nanoTime()}, which
 * every recorded operation pays once to stamp its event and its recorder row.
 */
public final class ArenaBench implements BenchSuite {
    static final int BATCH = 16;
    private static final int ROUND_BATCHES = 128;
    private static final long[][] SHAPES = {
        {1024, 3}, {4, 64, 64}, {256}, {32, 32, 4}, {1, 3}, {4096}, {17, 5}, {8, 8, 8},
    };
    private static final DType[] DTYPES = {DType.FLOAT32, DType.FLOAT16, DType.INT32, DType.UINT8, DType.INT64,
        DType.FLOAT32, DType.BOOL, DType.BFLOAT16};

    @Override
    public String group() {
        return "arena";
    }

    @Override
    public Map<String, Double> run(boolean quick) throws Exception {
        // Many short rounds (2048 allocations, tens of microseconds): on a shared, loaded machine most of
        // them run without being preempted, so their median is the hot path's cost, not the scheduler's.
        int warmups = quick ? 100 : 3000;
        int rounds = quick ? 101 : 4001;
        int batches = ROUND_BATCHES;
        Map<String, Double> out = new LinkedHashMap<>();
        try (HostDevice host = new HostDevice()) {
            Session quiet = new Session("bench-quiet");
            try (ManualMemory arena = ManualMemory.builder().device(host).session(quiet).name("bench").numBytes(16 << 20)
                    .noPoison().build()) {
                out.put("arena.alloc_ns", Medians.medianOf(warmups, rounds, () -> Medians.nsPerOp((long) batches * BATCH,
                        () -> allocLoop(arena, batches))));
                out.put("arena.scope_ns", Medians.medianOf(warmups, rounds, () -> Medians.nsPerOp((long) batches * BATCH,
                        () -> scopeLoop(arena, batches))));
            }
            quiet.close();
            // context for the recorded figure: every recorded operation reads the clock once
            out.put("arena.clock_ns", Medians.medianOf(warmups, rounds, () -> Medians.nsPerOp(2048, () -> {
                long sum = 0;
                for (int i = 0; i < 2048; i++) {
                    sum += System.nanoTime();
                }
                return sum;
            })));

            Session recorded = new Session("bench-recorded");
            AtomicLong delivered = new AtomicLong();
            recorded.addSink(new EventSink() {
                @Override
                public void onEvents(EventBatch batch) {
                    long sum = 0;
                    for (int i = 0; i < batch.size(); i++) {
                        sum += batch.b(i);
                    }
                    delivered.addAndGet(batch.size() + (sum == 42 ? 1 : 0));
                }
            });
            long lostBefore = recorded.lostEvents();
            try (ManualMemory arena = ManualMemory.builder().device(host).session(recorded).name("bench-recorded")
                    .numBytes(16 << 20).noPoison().build()) {
                AllocationRecorder[] rec = {null};
                int[] roundsInRecording = {0};
                out.put("arena.alloc_recorded_ns", Medians.medianOf(warmups, rounds, () -> {
                    if (rec[0] == null || ++roundsInRecording[0] == 512) { // a fresh recording every ~1M allocations
                        if (rec[0] != null) {
                            rec[0].close();
                        }
                        rec[0] = arena.recording();
                        roundsInRecording[0] = 0;
                    }
                    int before = rec[0].allocationCount();
                    double ns = Medians.nsPerOp((long) batches * BATCH, () -> allocLoop(arena, batches));
                    if (rec[0].allocationCount() - before != batches * BATCH) {
                        throw new IllegalStateException("recorder saw " + (rec[0].allocationCount() - before) + " allocations");
                    }
                    return ns;
                }));
                rec[0].close();
            }
            recorded.flush();
            out.put("arena.alloc_recorded_lost_events", (double) (recorded.lostEvents() - lostBefore));
            recorded.close();
        }
        return out;
    }

    /** {@code batches} temp scopes of {@value #BATCH} allocations each; returns a checksum. */
    static long allocLoop(ManualMemory arena, int batches) {
        long sum = 0;
        for (int b = 0; b < batches; b++) {
            try (var t = arena.temp()) {
                for (int i = 0; i < BATCH; i++) {
                    int k = i & 7;
                    Tensor x = arena.getTensor(SHAPES[k], DTYPES[k]);
                    sum += x.byteOffset();
                }
            }
        }
        return sum;
    }

    private static long scopeLoop(ManualMemory arena, int batches) {
        long sum = 0;
        for (int b = 0; b < batches * BATCH; b++) {
            try (var s = arena.scope("stage", "frames", b)) {
                sum += s.name().length();
            }
        }
        return sum;
    }
}
