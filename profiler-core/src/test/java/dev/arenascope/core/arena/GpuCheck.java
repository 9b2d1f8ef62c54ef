package dev.arenascope.core.arena;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import dev.arenascope.core.device.CudaDevice;
import dev.arenascope.core.device.DeviceKind;
import dev.arenascope.core.device.Devices;
import dev.arenascope.core.device.MemoryDevice;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;

/**
 * The arena's CUDA path on a real GPU, as {@code scripts/gpu-check.sh} runs it: an arena of half the free
 * memory, poison read back with {@code cudaMemcpy}, writes read back, a forced
 * {@link InsufficientMemoryException} that moves nothing, a recording with scopes, and the events.
 *
 * <p>Usage: {@code GpuCheck [DEVICE] [PORTION|BYTES]} (default {@code cuda 0.5}). Exit 0 when every check
 * passed, 1 when one failed, 3 when the device is not there (the reason is printed). With {@code host}
 * or {@code virtual} it rehearses the same checks without a GPU (the unit tests do).
 */
public final class GpuCheck {
    /** Exit status when the device is unavailable. */
    public static final int SKIPPED = 3;

    private final PrintStream out;
    private final List<String> failures = new ArrayList<>();
    private int passed;

    private GpuCheck(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) throws Exception {
        String device = args.length > 0 ? args[0] : "cuda";
        String size = args.length > 1 ? args[1] : "0.5";
        StringBuilder report = new StringBuilder();
        PrintStream tee = new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                System.out.write(b);
                report.append((char) b);
            }
        }, true);
        int rc = run(device, size, tee);
        tee.flush();
        String outDir = System.getenv("OUT");
        if (outDir != null && !outDir.isBlank()) {
            Files.writeString(Path.of(outDir, "gpu-check.txt"), report);
        }
        System.exit(rc);
    }

    /** Runs every check on {@code deviceSpec}; returns the exit status described above. */
    public static int run(String deviceSpec, String size, PrintStream out) {
        if (deviceSpec.startsWith("cuda")) {
            int index = deviceSpec.contains(":") ? Integer.parseInt(deviceSpec.substring(5)) : 0;
            Optional<String> why = CudaDevice.probe(index);
            if (why.isPresent()) {
                out.println("gpu-check: SKIPPED: " + why.get());
                return SKIPPED;
            }
        }
        GpuCheck c = new GpuCheck(out);
        try (MemoryDevice device = Devices.open(deviceSpec).device()) {
            c.checks(device, size);
        } catch (RuntimeException | AssertionError e) {
            c.fail("unexpected " + e);
            e.printStackTrace(out);
        }
        out.println("gpu-check: " + c.passed + " passed, " + c.failures.size() + " failed");
        return c.failures.isEmpty() ? 0 : 1;
    }

    private void check(boolean ok, String what) {
        if (ok) {
            passed++;
            out.println("PASS " + what);
        } else {
            fail(what);
        }
    }

    private void fail(String what) {
        failures.add(what);
        out.println("FAIL " + what);
    }

    private void checks(MemoryDevice device, String size) {
        boolean bytes = device.info().kind() != DeviceKind.VIRTUAL;
        out.println("device: " + Devices.describe(device.info()));
        Session session = new Session("gpu-check");
        AtomicLong events = new AtomicLong();
        AtomicLong ooms = new AtomicLong();
        session.addSink(new EventSink() {
            @Override
            public void onEvents(EventBatch batch) {
                events.addAndGet(batch.size());
                for (int i = 0; i < batch.size(); i++) {
                    if (batch.kind(i) == EventKind.OUT_OF_MEMORY) {
                        ooms.incrementAndGet();
                    }
                }
            }
        });
        long freeBefore = device.freeBytes();
        ArenaBuilder b = ManualMemory.builder().device(device).session(session).name("gpu-check").poison(0xFF);
        double portion = -1;
        if (size.matches("0?\\.\\d+|1(\\.0*)?")) {
            portion = Double.parseDouble(size);
            b.portion(portion);
        } else {
            b.numBytes(Bytes.parse(size));
        }
        long t0 = System.nanoTime();
        try (ManualMemory arena = b.build()) {
            out.printf("arena: %s claimed in %.1f ms%n", Bytes.format(arena.capacity()), (System.nanoTime() - t0) / 1e6);
            if (portion > 0) {
                double ratio = arena.capacity() / (double) freeBefore;
                check(Math.abs(ratio - portion) < 0.02, String.format("claimed %.3f of the free memory (asked %.3f)", ratio, portion));
            }
            // poison, read back through the device's copy (cudaMemcpy on CUDA)
            Tensor f = arena.getTensor(DType.FLOAT32, 1 << 20);
            if (bytes) {
                byte[] raw = f.copyToHost();
                boolean allPoison = true;
                for (byte x : raw) {
                    allPoison &= x == (byte) 0xFF;
                }
                check(allPoison, "poison 0xFF over float32[1048576] read back");
                check(Float.isNaN(f.toFloatArray()[12345]), "poisoned float32 reads as NaN");
                float[] values = new float[1 << 20];
                for (int i = 0; i < values.length; i++) {
                    values[i] = i * 0.25f - 7;
                }
                f.copyFromHost(values);
                check(Arrays.equals(values, f.toFloatArray()), "float32[1048576] written and read back");
                Tensor p = arena.getPersistentTensor(DType.INT32, 1000);
                check(p.toIntArray()[999] == -1, "poisoned int32 at the backward end reads as -1");
                int[] ints = new int[1000];
                for (int i = 0; i < ints.length; i++) {
                    ints[i] = i * i;
                }
                p.copyFromHost(ints);
                check(Arrays.equals(ints, p.toIntArray()), "int32[1000] at the arena's end written and read back");
                check(p.byteOffset() + p.byteSize() <= arena.capacity() && p.byteOffset() > arena.capacity() - 8192,
                        "persistent tensor sits at the top of the block");
            }
            // a forced InsufficientMemoryException moves nothing
            Pointers before = arena.getPointers();
            long remaining = arena.getNumBytesRemaining();
            try (var s = arena.scope("frame", "frames", 4)) {
                arena.getTensor(DType.INT8, remaining + 1);
                fail("an allocation one byte too large succeeded");
            } catch (InsufficientMemoryException e) {
                check(e.remainingBytes() == remaining && e.requestedBytes() == remaining + 1 && e.scopePath().equals("frame"),
                        "InsufficientMemoryException: " + e.getMessage());
            }
            check(before.equals(arena.getPointers()), "the failed request moved nothing");
            Tensor last = arena.getTensor(DType.INT8, arena.getNumBytesRemaining());
            check(arena.getNumBytesRemaining() == 0, "the exact remaining bytes still fit");
            if (bytes) {
                byte[] tail = new byte[4096];
                device.copyToHost(arena.buffer(), last.byteOffset() + last.byteSize() - tail.length, tail, 0, tail.length);
                check(tail[tail.length - 1] == (byte) 0xFF, "the block's last forward bytes are poisoned and readable");
            }
            arena.reset();
            // a recording with scopes, as a render frame would make
            AllocationRecorder rec = arena.recording();
            try (rec; var frame = arena.scope("frame", "frames", 2, "num_triangles", 100_000)) {
                arena.getTensor(DType.FLOAT32, 2, 540, 960, 3);
                try (var t = arena.temp(); var raster = arena.scope("raster")) {
                    arena.getTensor(DType.INT32, 2, 540, 960);
                    arena.noteScopeParams("fragments", 3_000_000);
                    arena.getPersistentTensor(DType.FLOAT16, 2, 540, 960);
                }
            }
            RecordedScope raster = rec.scopeTree().find("raster");
            check(rec.allocationCount() == 3 && raster != null && raster.params().get("fragments") == 3_000_000L
                    && raster.forwardGrowth() == 2L * 540 * 960 * 4, "recording: scope tree, params and peaks");
            out.print(rec.format());
            session.flush();
            check(events.get() > 10 && ooms.get() == 1 && session.lostEvents() == 0,
                    "events delivered: " + events.get() + ", out-of-memory events " + ooms.get() + ", lost " + session.lostEvents());
            session.close(); // the timing below runs with nothing recording
            // the hot path on this machine
            long sum = 0;
            double best = Double.MAX_VALUE;
            for (int r = 0; r < 200; r++) {
                long a = System.nanoTime();
                for (int k = 0; k < 128; k++) {
                    try (var t = arena.temp()) {
                        for (int i = 0; i < 16; i++) {
                            sum += arena.getTensor(DType.FLOAT32, 256, 3).byteOffset();
                        }
                    }
                }
                best = Math.min(best, (System.nanoTime() - a) / 2048.0);
            }
            out.printf("getTensor with poison 0xFF (a device memset each): best %.0f ns (checksum %d)%n", best, sum % 7);
        }
        long freeAfter = device.freeBytes();
        if (device.info().kind() != DeviceKind.HOST) { // host free memory moves with the whole machine
            check(freeAfter >= freeBefore - (64L << 20), "closing the arena gave its memory back (" + Bytes.format(freeAfter) + " free)");
        }
    }
}
