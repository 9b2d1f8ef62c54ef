package dev.arenascope.core.analysis;

import java.util.Map;

import dev.arenascope.core.arena.DType;
import dev.arenascope.core.arena.ManualMemory;
import dev.arenascope.core.device.VirtualDevice;
import dev.arenascope.core.pool.MemoryPool;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryKind;

/**
 * Traces made by running the real allocators under a {@link Session}, with figures a test can work
 * out by hand.
 */
public final class TestTraces {
    private TestTraces() {}

    /** Bytes of frame {@code f}'s forward tensor: (tiles + f % 4) tiles of 1024 float32. */
    public static long frameBytes(int tiles, int f) {
        return (tiles + f % 4) * 1024L * 4;
    }

    /** Bytes of the shadow pass: lights × 2048 float32. */
    public static long shadowBytes(int lights) {
        return lights * 2048L * 4;
    }

    /** Persistent bytes each frame leaves at the arena's backward end. */
    public static final long PERSISTENT_PER_FRAME = 1000;

    /**
     * A render-like run: per frame a temp scope {@code frame(tiles)} with a forward tensor, a nested
     * temp scope {@code shadows(lights)} and a persistent tensor; a pool {@code buffers} serving
     * 1000, 4097 and 1000 bytes per frame, all returned at the frame's end.
     */
    public static ListTraceView render(int frames, int tiles, int lights) {
        ListTraceView view = new ListTraceView();
        try (Session s = new Session("render-test")) {
            s.addSink(view);
            VirtualDevice dev = new VirtualDevice(1L << 30);
            try (ManualMemory arena = ManualMemory.builder().device(dev).numBytes(16L << 20).session(s).name("frame-arena").build();
                 MemoryPool pool = new MemoryPool("buffers", dev, MemoryPool.NO_LIMIT, 4, s)) {
                for (int f = 0; f < frames; f++) {
                    int t = tiles + f % 4;
                    try (var temp = arena.temp(); var scope = arena.scope("frame", "tiles", t)) {
                        arena.getTensor(DType.FLOAT32, t, 1024);
                        try (var temp2 = arena.temp(); var shadows = arena.scope("shadows", "lights", lights)) {
                            arena.getTensor(DType.FLOAT32, lights, 2048);
                        }
                        arena.getPersistentTensor(DType.UINT8, PERSISTENT_PER_FRAME);
                    }
                    var a = pool.allocate(1000);
                    var b = pool.allocate(4097);
                    var c = pool.allocate(1000);
                    a.close();
                    b.close();
                    c.close();
                }
            }
            s.flush();
        }
        return view;
    }

    /**
     * A plan arena with three tensors, by hand: A [0, 1000) live at steps 0-1, B [1000, 3000) at 1-2,
     * C [3000, 3500) at 2-3. Height 3500; at most 3000 bytes live at once (step 1).
     */
    public static ListTraceView plan() {
        ListTraceView view = new ListTraceView();
        try (Session s = new Session("plan-test")) {
            s.addSink(view);
            int mem = s.registerMemory("scratch", MemoryKind.PLAN_SCRATCH, "virtual", 4096, Map.of());
            s.publish(EventKind.PLAN_LOADED, 0, mem, 3, 4, 0, 0, 0, s.intern("tiny-net"), -1);
            long[][] t = {{0, 1000, 0, 1}, {1000, 2000, 1, 2}, {3000, 500, 2, 3}};
            String[] names = {"A", "B", "C"};
            for (int i = 0; i < t.length; i++) {
                s.publish(EventKind.PLAN_BIND, 0, mem, t[i][0], t[i][1], 0, 0, 0, s.intern(names[i]), -1);
            }
            long used = 0;
            for (int step = 0; step < 4; step++) {
                s.publish(EventKind.PLAN_STEP, 0, mem, step, 0, 0, used, 0, -1, -1);
                for (int i = 0; i < t.length; i++) {
                    if (t[i][2] == step) {
                        used += t[i][1];
                        s.publish(EventKind.TENSOR_LIVE, 0, mem, t[i][0], t[i][1], step, used, 0, s.intern(names[i]), -1);
                    }
                }
                for (int i = 0; i < t.length; i++) {
                    if (t[i][3] == step) {
                        used -= t[i][1];
                        s.publish(EventKind.TENSOR_DEAD, 0, mem, t[i][0], t[i][1], step, used, 0, s.intern(names[i]), -1);
                    }
                }
            }
            s.flush();
        }
        return view;
    }
}
