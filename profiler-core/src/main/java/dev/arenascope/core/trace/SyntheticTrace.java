package dev.arenascope.core.trace;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import dev.arenascope.core.device.DeviceInfo;
import dev.arenascope.core.device.DeviceKind;

/**
 * A deterministic, arena-like event stream for benchmarks, size figures and stress tests where a
 * recorded workload would be too slow or too small: two threads, a two-pointer frame arena with nested
 * scopes and pointer restores, a binned pool with hits, misses, holds and releases, and a plan arena
 * whose tensors live and die by step. Gauges are kept consistent ({@code used}/{@code aux} after each
 * event) and times advance by 50 ns to 2 µs, as a busy renderer's would.
 */
public final class SyntheticTrace {
    private static final long ARENA_CAPACITY = 1L << 30;

    private final SplittableRandom rnd;
    private final EventBatch batch = new EventBatch(1 << 16);
    private final EventBatch work = new EventBatch(1 << 16);
    private final EventBatch carry = new EventBatch(16);
    private long time;
    private long produced;
    // arena 0 state
    private long fwd;
    private long bwd;
    private final ArrayDeque<long[]> scopeStack = new ArrayDeque<>(); // {scopeId, fwd, bwd}
    private int nextScope;
    private final long[][] passSizes;
    private int pass = -1;
    private int allocIdx;
    private long frames;
    // pool 1 state
    private long poolUsed;
    private long poolReserved;
    private final long[] held = new long[16];
    private final ArrayDeque<long[]> live = new ArrayDeque<>(); // {addr, bytes, bin}
    private long nextAddr = 1L << 32;
    // plan 2 state
    private int step;
    private long planUsed;

    public SyntheticTrace(long seed) {
        rnd = new SplittableRandom(seed);
        passSizes = new long[3][];
        int[] counts = {12, 40, 24};
        for (int p = 0; p < 3; p++) {
            passSizes[p] = new long[counts[p]];
            for (int i = 0; i < counts[p]; i++) {
                passSizes[p][i] = (16L << rnd.nextInt(14)) + rnd.nextInt(64);
            }
        }
    }

    /** The session header and metadata a consumer hears first. */
    public static void announce(EventSink sink) {
        sink.onSession(new SessionInfo("synthetic", "localhost", 1_700_000_000_000_000_000L,
                List.of(new DeviceInfo(DeviceKind.VIRTUAL, 0, "virtual", 8L << 30, 8L << 30)), Map.of("workload", "synthetic")));
        sink.onMemory(new MemoryInfo(0, "frame", MemoryKind.ARENA, "virtual", ARENA_CAPACITY, Map.of()));
        sink.onMemory(new MemoryInfo(1, "pool", MemoryKind.POOL, "virtual", 0, Map.of("mantissa_bits", "2")));
        sink.onMemory(new MemoryInfo(2, "plan.scratch", MemoryKind.PLAN_SCRATCH, "virtual", 64L << 20, Map.of()));
        String[] strings = {"frame", "pass.shadow", "pass.gbuffer", "pass.lighting", "float32[1024,3]", "uint8[4096]", "bin", "tensor"};
        for (int i = 0; i < strings.length; i++) {
            sink.onString(i, strings[i]);
        }
        sink.onThread(1, "main");
        sink.onThread(2, "loader");
    }

    /** Writes {@code events} events (announcing first) to {@code sink} in batches of 64 Ki, then closes it. */
    public static void write(long seed, long events, EventSink sink) {
        announce(sink);
        SyntheticTrace s = new SyntheticTrace(seed);
        long left = events;
        while (left > 0) {
            EventBatch b = s.next((int) Math.min(left, 1 << 16));
            sink.onEvents(b);
            left -= b.size();
        }
        sink.onClose();
    }

    /** The next {@code n} events (the batch is reused by the next call). */
    public EventBatch next(int n) {
        work.clear();
        for (int i = 0; i < carry.size(); i++) {
            work.addFrom(carry, i);
        }
        carry.clear();
        while (work.size() < n) {
            step(n - work.size());
        }
        batch.clear();
        for (int i = 0; i < work.size(); i++) {
            (i < n ? batch : carry).addFrom(work, i);
        }
        produced += batch.size();
        return batch;
    }

    public long produced() {
        return produced;
    }

    private void emit(EventKind k, int flags, int mem, int thread, long a, long b, long c, long used, long aux, int ref, int ref2) {
        time += 50 + rnd.nextInt(rnd.nextInt(8) == 0 ? 2000 : 300);
        work.add(time, EventBatch.pack(k.code(), flags, mem), thread, a, b, c, used, aux, ref, ref2);
    }

    private void step(int ignoredRoom) {
        int room = Integer.MAX_VALUE;
        int r = rnd.nextInt(100);
        if (r < 22) {
            poolStep();
        } else if (r < 32) {
            planStep();
        } else {
            arenaStep(room);
        }
    }

    /** The frame script: frame scope, then each pass's scope with its allocations, restored on exit. */
    private void arenaStep(int room) {
        if (pass < 0) {
            openScope(0);
            pass = 0;
            allocIdx = -1;
        } else if (pass == passSizes.length) {
            closeScope(room);
            pass = -1;
            if (++frames % 8 == 0) {
                long released = fwd + bwd;
                fwd = 0;
                bwd = 0;
                emit(EventKind.RESET, 0, 0, 1, 0, released, 0, 0, 0, -1, -1);
            }
        } else if (allocIdx < 0) {
            openScope(1 + pass);
            allocIdx = 0;
        } else if (allocIdx < passSizes[pass].length) {
            long req = passSizes[pass][allocIdx];
            if (rnd.nextInt(10) == 0) {
                req += rnd.nextInt(4096); // a dynamic size now and then
            }
            long bytes = (req + 255) & ~255L;
            boolean back = allocIdx % 7 == 3;
            allocIdx++;
            if (fwd + bwd + bytes > ARENA_CAPACITY) {
                emit(EventKind.OUT_OF_MEMORY, 0, 0, 1, 0, req, ARENA_CAPACITY - fwd - bwd, fwd + bwd, bwd, 7, -1);
            } else if (back) {
                bwd += bytes;
                emit(EventKind.ALLOC, Event.FLAG_BACKWARD, 0, 1, ARENA_CAPACITY - bwd, bytes, req, fwd + bwd, bwd, 4 + (allocIdx & 1), -1);
            } else {
                fwd += bytes;
                emit(EventKind.ALLOC, 0, 0, 1, fwd - bytes, bytes, req, fwd + bwd, bwd, 4 + (allocIdx & 1), -1);
            }
        } else {
            closeScope(room);
            pass++;
            allocIdx = -1;
        }
    }

    private void openScope(int nameId) {
        int id = nextScope++;
        int parent = scopeStack.isEmpty() ? -1 : (int) scopeStack.peek()[0];
        emit(EventKind.SCOPE_ENTER, 0, 0, 1, fwd, bwd, parent, fwd + bwd, bwd, nameId, id);
        scopeStack.push(new long[] {id, fwd, bwd, nameId});
    }

    private void closeScope(int room) {
        long[] sc = scopeStack.pop();
        long released = fwd - sc[1];
        fwd = sc[1];
        if (released > 0) {
            emit(EventKind.POINTER_RESTORE, 0, 0, 1, fwd, released, 0, fwd + bwd, bwd, -1, -1);
        }
        emit(EventKind.SCOPE_EXIT, 0, 0, 1, fwd, bwd, 0, fwd + bwd, bwd, (int) sc[3], (int) sc[0]);
    }

    private void poolStep() {
        if (live.size() > 64 || (!live.isEmpty() && rnd.nextBoolean())) {
            long[] blk = live.poll();
            poolUsed -= blk[1];
            if (rnd.nextInt(4) == 0) {
                poolReserved -= blk[1];
                emit(EventKind.POOL_RELEASE, 0, 1, 2, blk[0], blk[1], 0, poolUsed, poolReserved, (int) blk[2], -1);
            } else {
                held[(int) blk[2]]++;
                emit(EventKind.POOL_HOLD, 0, 1, 2, blk[0], blk[1], 0, poolUsed, poolReserved, (int) blk[2], -1);
            }
        } else {
            int bin = rnd.nextInt(16);
            long bytes = 512L << bin;
            long req = bytes - rnd.nextInt((int) Math.min(bytes / 2, 4096));
            boolean hit = held[bin] > 0;
            if (hit) {
                held[bin]--;
            } else {
                poolReserved += bytes;
            }
            long addr = nextAddr;
            nextAddr += bytes;
            poolUsed += bytes;
            live.add(new long[] {addr, bytes, bin});
            emit(EventKind.POOL_REQUEST, hit ? Event.FLAG_HIT : 0, 1, 2, addr, bytes, req, poolUsed, poolReserved, bin, hit ? 40 : 900 + rnd.nextInt(400));
        }
    }

    private void planStep() {
        int tensor = rnd.nextInt(200);
        long bytes = 4096L * (1 + tensor % 17);
        long offset = (long) (tensor % 31) * 65536;
        if (rnd.nextBoolean() && planUsed >= bytes) {
            planUsed -= bytes;
            emit(EventKind.TENSOR_DEAD, 0, 2, 1, offset, bytes, step, planUsed, 0, 7, -1);
        } else {
            if (rnd.nextInt(20) == 0) {
                emit(EventKind.PLAN_STEP, 0, 2, 1, ++step, 0, 0, planUsed, 0, -1, -1);
                return;
            }
            planUsed += bytes;
            emit(EventKind.TENSOR_LIVE, 0, 2, 1, offset, bytes, step, planUsed, 0, 7, -1);
        }
    }
}
