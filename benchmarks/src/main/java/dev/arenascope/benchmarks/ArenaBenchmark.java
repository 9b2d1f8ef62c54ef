package dev.arenascope.benchmarks;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import dev.arenascope.core.arena.DType;
import dev.arenascope.core.arena.ManualMemory;
import dev.arenascope.core.device.HostDevice;
import dev.arenascope.core.arena.AllocationRecorder;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;

/**
 * The arena's hot path, per allocation: 16 getTensor calls in one temp() scope (the shape of a render
 * stage), with recording off and on. Run:
 * {@code java -jar benchmarks/target/benchmarks.jar ArenaBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Thread)
public class ArenaBenchmark {
    private static final int BATCH = 16;
    private static final long[][] SHAPES = {
        {1024, 3}, {4, 64, 64}, {256}, {32, 32, 4}, {1, 3}, {4096}, {17, 5}, {8, 8, 8},
    };
    private static final DType[] DTYPES = {DType.FLOAT32, DType.FLOAT16, DType.INT32, DType.UINT8, DType.INT64,
        DType.FLOAT32, DType.BOOL, DType.BFLOAT16};

    @Param({"off", "recorded"})
    public String mode;

    private HostDevice host;
    private Session session;
    private ManualMemory arena;
    private AllocationRecorder recorder;
    private int batches;

    @Setup(Level.Trial)
    public void setUp() {
        host = new HostDevice();
        session = new Session("jmh");
        if (mode.equals("recorded")) {
            session.addSink(new EventSink() {
                long seen;

                @Override
                public void onEvents(EventBatch batch) {
                    seen += batch.size();
                }
            });
        }
        arena = ManualMemory.builder().device(host).session(session).numBytes(16 << 20).noPoison().build();
    }

    @Setup(Level.Iteration)
    public void startRecording() {
        if (mode.equals("recorded")) {
            recorder = arena.recording();
        }
    }

    @TearDown(Level.Iteration)
    public void stopRecording() {
        if (recorder != null) {
            recorder.close();
            recorder = null;
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
        session.close();
        host.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void allocInTemp(Blackhole bh) {
        if (recorder != null && ++batches == 1 << 12) { // keep a recording's rows in cache-sized bursts
            recorder.close();
            recorder = arena.recording();
            batches = 0;
        }
        try (var t = arena.temp()) {
            for (int i = 0; i < BATCH; i++) {
                int k = i & 7;
                bh.consume(arena.getTensor(SHAPES[k], DTYPES[k]));
            }
        }
    }

    @Benchmark
    public void scope(Blackhole bh) {
        try (var s = arena.scope("stage", "frames", 4)) {
            bh.consume(s);
        }
    }

    /** One event into the ring: drained by a sink when recorded; with {@code off} nothing drains, so this is the counted-loss path. */
    @Benchmark
    public void publish() {
        session.publish(EventKind.MARKER, 0, -1, 1, 2, 3, 4, 5, 6, 7);
    }

    /** The clock every recorded operation reads once. */
    @Benchmark
    public long nanoTime() {
        return session.now();
    }
}
