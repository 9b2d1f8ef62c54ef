package dev.arenascope.app.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.arenascope.core.arena.DType;
import dev.arenascope.core.arena.ManualMemory;
import dev.arenascope.core.arena.Tensor;
import dev.arenascope.core.device.HostDevice;
import dev.arenascope.core.arena.AllocationRecorder;
import dev.arenascope.core.record.EventClock;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.record.StackCapture;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;

/**
 * The arena's hot path: {@code arena.alloc_ns} is one {@code getTensor} in a render-like loop whose
 * temporaries a {@code temp()} scope releases every {@value #BATCH} allocations, with nothing recording;
 * {@code arena.alloc_recorded_ns} is the same with an {@code AllocationRecorder} active and a session sink
 * draining every event on the drain thread, stamped by the session's {@code EventClock.Stamper};
 * {@code arena.alloc_recorded_exact_clock_ns} is the same again on a session whose clock reads
 * {@code System.nanoTime()} for every event, timed in rounds interleaved with the first so both see the
 * same machine load. {@code arena.alloc_recorded_stack_ns} is the recorded loop with stack capture on
 * ({@code StackCapture.all(32)}: a {@code StackWalker} walk and an interned-site lookup per allocation).
 * The {@code *_lost_events} figures count events the ring had to drop during those runs
 * (0 when the drain keeps up). {@code arena.scope_ns} is one scope entered and left with nothing recording.
 * {@code arena.clock_ns} is one {@code System.nanoTime()}; {@code arena.stamp_ns} one stamp while the ticker
 * runs.
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
            // context for the recorded figures: what an exact clock pays per event
            out.put("arena.clock_ns", Medians.medianOf(warmups, rounds, () -> Medians.nsPerOp(2048, () -> {
                long sum = 0;
                for (int i = 0; i < 2048; i++) {
                    sum += System.nanoTime();
                }
                return sum;
            })));

            // the recorded loop with the session's stamping clock and with an exact clock (one System.nanoTime()
            // per event), side by side: alternating blocks of rounds, each session flushed after its block so
            // the other's drain is idle while one is timed, and both see the same machine load. A block's
            // events (50 x 2048) fit the default ring, so a drain starved by a loaded machine delays delivery
            // but loses nothing: the figure is the producer's cost in bursts, with its drain running alongside
            try (Recorded stamped = new Recorded(host, false); Recorded exact = new Recorded(host, true)) {
                int block = quick ? 20 : 50;
                double[] stampedNs = new double[rounds];
                double[] exactNs = new double[rounds];
                for (int done = -warmups; done < rounds; done += block) {
                    stamped.rounds(batches, done, block, stampedNs);
                    exact.rounds(batches, done, block, exactNs);
                }
                out.put("arena.alloc_recorded_ns", Medians.median(stampedNs));
                out.put("arena.alloc_recorded_lost_events", (double) stamped.lost());
                out.put("arena.alloc_recorded_exact_clock_ns", Medians.median(exactNs));
                out.put("arena.alloc_recorded_exact_clock_lost_events", (double) exact.lost());
                // with a stack walk per allocation (depth 32, the call path repeating, as a render loop's does):
                // the walk costs microseconds, so fewer rounds; the plain recorded figure above is its baseline
                try (Recorded stacks = new Recorded(host, false, StackCapture.all(32))) {
                    int stackRounds = quick ? 11 : 201;
                    double[] stackNs = new double[stackRounds];
                    int stackBatches = 8;
                    for (int done = quick ? -3 : -50; done < stackRounds; done += 10) {
                        stacks.rounds(stackBatches, done, 10, stackNs);
                    }
                    out.put("arena.alloc_recorded_stack_ns", Medians.median(stackNs));
                    out.put("arena.alloc_recorded_stack_lost_events", (double) stacks.lost());
                }
                out.put("arena.stamp_ns", Medians.medianOf(warmups, rounds, () -> Medians.nsPerOp(2048, () -> {
                    EventClock.Stamper st = stamped.stamper;
                    long sum = 0;
                    for (int i = 0; i < 2048; i++) {
                        sum += st.stamp();
                    }
                    return sum;
                })));
            }
        }
        return out;
    }

    /** An arena recorded by an {@link AllocationRecorder} and a session whose sink drains every event. */
    private static final class Recorded implements AutoCloseable {
        final Session session;
        final ManualMemory arena;
        final EventClock.Stamper stamper;
        final long lostBefore;
        final AtomicLong delivered = new AtomicLong();
        AllocationRecorder rec;
        int roundsInRecording;

        Recorded(HostDevice host, boolean exactClock) {
            this(host, exactClock, null);
        }

        Recorded(HostDevice host, boolean exactClock, StackCapture capture) {
            session = new Session(exactClock ? "bench-exact" : capture != null ? "bench-stacks" : "bench-recorded",
                    Session.DEFAULT_BUFFER_CAPACITY, exactClock);
            session.captureStacks(capture);
            session.addSink(new EventSink() {
                @Override
                public void onEvents(EventBatch batch) {
                    long sum = 0;
                    for (int i = 0; i < batch.size(); i++) {
                        sum += batch.b(i);
                    }
                    delivered.addAndGet(batch.size() + (sum == 42 ? 1 : 0));
                }
            });
            lostBefore = session.lostEvents();
            arena = ManualMemory.builder().device(host).session(session).name(session.info().name())
                    .numBytes(16 << 20).noPoison().build();
            stamper = session.clock().stamper();
        }

        /** One timed round of {@code batches} x {@value #BATCH} recorded allocations; ns per allocation. */
        double round(int batches) {
            if (rec == null || ++roundsInRecording == 512) { // a fresh recording every ~1M allocations
                if (rec != null) {
                    rec.close();
                }
                rec = arena.recording();
                roundsInRecording = 0;
            }
            int before = rec.allocationCount();
            double ns = Medians.nsPerOp((long) batches * BATCH, () -> allocLoop(arena, batches));
            if (rec.allocationCount() - before != batches * BATCH) {
                throw new IllegalStateException("recorder saw " + (rec.allocationCount() - before) + " allocations");
            }
            return ns;
        }

        /**
         * Rounds {@code first .. first + count - 1} (negative ones are warm-up, not kept; those past
         * {@code into.length} are not run), then a flush, so this session's drain is idle afterwards.
         */
        void rounds(int batches, int first, int count, double[] into) {
            for (int i = first; i < first + count && i < into.length; i++) {
                double ns = round(batches);
                if (i >= 0) {
                    into[i] = ns;
                }
            }
            session.flush();
        }

        /** Events the ring refused since this session started (after a flush). */
        long lost() {
            session.flush();
            return session.lostEvents() - lostBefore;
        }

        @Override
        public void close() {
            if (rec != null) {
                rec.close();
            }
            arena.close();
            session.close();
        }
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
