package dev.arenascope.core.trace.file;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.SplittableRandom;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.StackNode;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.util.Progress;

/**
 * Writes a large {@code .astrace} file of a realistic shape fast, for the out-of-core store's tests and
 * its {@code ooc} bench (and for anyone who wants a billion-event trace to open): the
 * {@link SyntheticTrace} stream (a frame arena with nested scopes, a binned pool, a plan arena),
 * merged by time with two PyTorch-like segmented memories ({@code cuda:0} busy, {@code cuda:1} sparse)
 * whose allocations carry allocation sites from a table of a few hundred stacks over a few hundred
 * frames, and markers now and then. Gauges stay consistent (every event's {@code used}/{@code aux} are
 * its memory's after it). Deterministic for a seed. Events go through {@link AstraceWriter} (chunks of
 * 64 Ki events, encoded on spare cores), at about 6 bytes an event on disk.
 */
public final class GeneratedTrace {
    private GeneratedTrace() {}

    /** The memory ids of the two segmented memories (after the synthetic stream's 0, 1, 2). */
    public static final int CUDA0 = 3;
    public static final int CUDA1 = 4;
    private static final int FRAMES = 320;
    private static final int STACKS = 400;
    private static final int MARKER_TEXT = 100;

    /**
     * Writes {@code events} events to {@code out} (replacing it).
     *
     * @param progress told the events written so far after each batch ({@link Progress#EVENTS_WRITTEN} of
     *                 {@code events}), or null; a report may throw to stop the write
     * @return {@code out}
     */
    public static Path write(Path out, long events, long seed, Progress progress) throws IOException {
        AstraceWriter w = new AstraceWriter(out);
        SyntheticTrace.announce(w);
        w.onMemory(new MemoryInfo(CUDA0, "cuda:0", MemoryKind.SEGMENTED, "cuda:0", 80L << 30, Map.of("allocator", "generated")));
        w.onMemory(new MemoryInfo(CUDA1, "cuda:1", MemoryKind.SEGMENTED, "cuda:1", 80L << 30, Map.of("allocator", "generated")));
        w.onString(MARKER_TEXT, "step");
        w.onThread(3, "cuda-stream-7");
        SplittableRandom rnd = new SplittableRandom(seed ^ 0x5DEECE66DL);
        String[] files = {"train.py", "model.py", "attention.py", "mlp.py", "optim.py", "torch/nn/modules/linear.py", "torch/_tensor.py"};
        for (int f = 0; f < FRAMES; f++) {
            boolean internal = f % 5 == 4;
            w.onFrame(new StackFrame(f, (internal ? "torch::" : "fn_") + f, files[f % files.length], 10 + rnd.nextInt(900), internal ? 1 : 0));
        }
        for (int s = 0; s < STACKS; s++) {
            int parent = s < 16 ? -1 : rnd.nextInt(s); // a forest 16 roots wide, deeper as it grows
            w.onStack(new StackNode(s, rnd.nextInt(FRAMES), parent));
        }
        SyntheticTrace base = new SyntheticTrace(seed);
        Segmented cuda0 = new Segmented(CUDA0, new SplittableRandom(seed + 1), 3);
        Segmented cuda1 = new Segmented(CUDA1, new SplittableRandom(seed + 2), 97);
        EventBatch batch = new EventBatch(1 << 15);
        long written = 0;
        long sinceMarker = 0;
        try {
            while (written < events) {
                EventBatch b = base.next(1 << 14);
                batch.clear();
                for (int i = 0; i < b.size(); i++) {
                    long t = b.time(i);
                    cuda0.until(t, batch);
                    cuda1.until(t, batch);
                    batch.addFrom(b, i);
                    if (++sinceMarker == 50_000) {
                        sinceMarker = 0;
                        batch.add(t, EventBatch.pack(EventKind.MARKER.code(), 0, -1), 1, 0, 0, 0, 0, 0, MARKER_TEXT, -1);
                    }
                }
                if (batch.size() > events - written) {
                    batch.truncate((int) (events - written)); // the stream ends where the count says
                }
                w.onEvents(batch);
                written += batch.size();
                if (progress != null) {
                    progress.update(written, events, Progress.EVENTS_WRITTEN);
                }
            }
        } finally {
            w.onClose();
        }
        return out;
    }

    /** A PyTorch-like segmented memory: segments reserved and freed, blocks allocated in them with sites. */
    private static final class Segmented {
        private final int memory;
        private final SplittableRandom rnd;
        private final int every; // one event for about this many of the base stream's
        private final ArrayDeque<long[]> live = new ArrayDeque<>(); // {address, bytes}
        private long next;
        private long used;
        private long reserved;
        private long nextAddr;

        Segmented(int memory, SplittableRandom rnd, int every) {
            this.memory = memory;
            this.rnd = rnd;
            this.every = every;
            this.nextAddr = (long) (memory + 1) << 40;
        }

        /** Emits this memory's events due at or before time {@code t}. */
        void until(long t, EventBatch out) {
            if (next == 0) {
                next = t + rnd.nextInt(200 * every);
            }
            while (next <= t) {
                emit(next, out);
                next += 1 + rnd.nextInt(400 * every);
            }
        }

        private void emit(long t, EventBatch out) {
            int r = rnd.nextInt(100);
            if (live.size() > 64 && r < 48 || live.size() > 4096) {
                long[] blk = rnd.nextBoolean() ? live.pollFirst() : live.pollLast();
                used -= blk[1];
                out.add(t, EventBatch.pack(EventKind.FREE.code(), 0, memory), 3, blk[0], blk[1], 0, used, reserved, -1, -1);
                return;
            }
            long bytes = 512L << rnd.nextInt(16);
            if (used + bytes > reserved) {
                long seg = Math.max(2L << 20, Long.highestOneBit(bytes) * 2);
                reserved += seg;
                out.add(t, EventBatch.pack(EventKind.RESERVE.code(), 0, memory), 3, nextAddr, seg, 0, used, reserved, -1, -1);
                nextAddr += seg;
            }
            long addr = nextAddr + rnd.nextInt(1 << 20) * 512L;
            used += bytes;
            live.add(new long[] {addr, bytes});
            int site = (int) Math.min(STACKS - 1, (long) (Math.abs(rnd.nextGaussian()) * STACKS / 4));
            out.add(t, EventBatch.pack(EventKind.ALLOC.code(), 0, memory), 3, addr, bytes, bytes - rnd.nextInt(256), used, reserved, -1, -1,
                    site, -1);
        }
    }
}
