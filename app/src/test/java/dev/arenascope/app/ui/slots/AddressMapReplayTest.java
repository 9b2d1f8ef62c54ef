package dev.arenascope.app.ui.slots;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.ui.Recordings;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.file.TraceFormats;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.trace.store.TraceStore;
import dev.arenascope.testsupport.Fixtures;

/**
 * The allocator state moved step by step, back and by jumps from one kept replay is the state a fresh
 * replay from the start finds at that index; pending frees are PyTorch's.
 */
class AddressMapReplayTest {

    /** Random moves (steps of the memory's events both ways, and jumps) against a fresh replay at each index. */
    private static void movesMatchAFreshReplay(TraceView t, MemoryInfo m, AddressMapReplay r, long seed, int moves) {
        SplittableRandom rnd = new SplittableRandom(seed);
        long n = t.eventCount();
        long end = n / 2;
        for (int k = 0; k < moves; k++) {
            int what = rnd.nextInt(10);
            if (what < 4) {
                for (int s = 1 + rnd.nextInt(5); s > 0; s--) {
                    end = AddressMap.nextEnd(t, m, end, Long.MAX_VALUE);
                }
            } else if (what < 8) {
                for (int s = 1 + rnd.nextInt(5); s > 0; s--) {
                    end = AddressMap.previousEnd(t, m, end, Long.MAX_VALUE);
                }
            } else {
                end = rnd.nextLong(n + 1);
            }
            AddressMap.Snapshot got = r.moveTo(end, -1, () -> false);
            AddressMap.Snapshot want = AddressMap.afterEvents(t, m, end, -1, () -> false);
            assertEquals(want, got, "move " + k + " to event index " + end);
        }
    }

    @Test
    void aPyTorchSnapshotSteppedAndJumpedEqualsAFreshReplay() throws Exception {
        TraceStore t = TraceFormats.load(Fixtures.torch("cs336-a2-magma27.pickle")).store();
        MemoryInfo m = t.memories().stream().filter(x -> x.kind() == MemoryKind.SEGMENTED).findFirst().orElseThrow();
        movesMatchAFreshReplay(t, m, new AddressMapReplay(t, m), 1, 150);
        AddressMapReplay dense = new AddressMapReplay(t, m, 64, 0); // a checkpoint every 64 events
        movesMatchAFreshReplay(t, m, dense, 2, 150);
        assertTrue(dense.checkpoints() >= t.eventCount() / 64 / 2, dense.checkpoints() + " checkpoints");
    }

    /**
     * Checkpoints built ahead in the background ({@link AddressMapReplay#prepare}): whole, stopped by the
     * memory bound, cancelled at once, or racing the moves (a thread builds while this one moves); every
     * move still lands on the state a fresh replay finds, and a built replay's first move to anywhere
     * replays at most a checkpoint's spacing.
     */
    @Test
    void checkpointsBuiltAheadInTheBackgroundServeTheSameMoves() throws Exception {
        TraceStore t = TraceFormats.load(Fixtures.torch("cs336-a2-magma27.pickle")).store();
        MemoryInfo m = t.memories().stream().filter(x -> x.kind() == MemoryKind.SEGMENTED).findFirst().orElseThrow();
        AddressMapReplay whole = new AddressMapReplay(t, m, 64, 0);
        assertTrue(whole.prepare(() -> false), "reached the end");
        assertTrue(whole.checkpoints() >= t.eventCount() / 64 - 1, whole.checkpoints() + " checkpoints for " + t.eventCount() + " events");
        movesMatchAFreshReplay(t, m, whole, 5, 120);
        int kept = whole.checkpoints();
        assertTrue(!whole.prepare(() -> false) || whole.checkpoints() == kept, "a second build adds nothing it has");

        AddressMapReplay bounded = new AddressMapReplay(t, m, 64, 0, 5_000);
        assertTrue(!bounded.prepare(() -> false), "stopped by its memory bound");
        assertTrue(bounded.checkpoints() > 0 && bounded.checkpoints() < kept, bounded.checkpoints() + " checkpoints");
        movesMatchAFreshReplay(t, m, bounded, 6, 80);

        AddressMapReplay cancelled = new AddressMapReplay(t, m, 64, 0);
        assertTrue(!cancelled.prepare(() -> true), "cancelled");
        movesMatchAFreshReplay(t, m, cancelled, 7, 40);

        for (int race = 0; race < 4; race++) {
            AddressMapReplay r = new AddressMapReplay(t, m, 64 << race, 0);
            Thread builder = new Thread(() -> r.prepare(() -> false), "prepare");
            builder.start();
            movesMatchAFreshReplay(t, m, r, 10 + race, 60);
            builder.join();
        }
    }

    @Test
    void aPoolSteppedAndJumpedEqualsAFreshReplay(@TempDir Path dir) throws Exception {
        Path f = Recordings.record("particles", Map.of("steps", "60"), dir.resolve("particles.astrace"));
        TraceStore t = TraceFormats.load(f).store();
        MemoryInfo pool = t.memories().stream().filter(x -> x.kind() == MemoryKind.POOL).findFirst().orElseThrow();
        movesMatchAFreshReplay(t, pool, new AddressMapReplay(t, pool, 256, 1), 3, 200);
        MemoryInfo arena = t.memories().stream().filter(x -> x.kind() == MemoryKind.ARENA).findFirst().orElse(null);
        if (arena != null) {
            movesMatchAFreshReplay(t, arena, new AddressMapReplay(t, arena, 256, 1), 4, 100);
        }
    }

    @Test
    void pendingFreesOfTheSnapshotAtEachInstant() throws Exception {
        // fixtures/torch/README.md: after each time_us's entries, magma27 has a pending free at 271 instants,
        // their bytes summed 8,157,364,400, the first 25,165,824 B at 165 us, the largest 100,663,296 B at 1,492 us
        TraceStore t = TraceFormats.load(Fixtures.torch("cs336-a2-magma27.pickle")).store();
        MemoryInfo m = t.memories().stream().filter(x -> x.kind() == MemoryKind.SEGMENTED).findFirst().orElseThrow();
        AddressMapReplay r = new AddressMapReplay(t, m);
        long instants = 0;
        long sum = 0;
        long n = t.eventCount();
        for (long i = 0; i < n; i++) {
            if (i + 1 < n && t.event(i + 1).timeNs() == t.event(i).timeNs()) {
                continue;
            }
            AddressMap.Snapshot s = r.moveTo(i + 1, -1, () -> false);
            if (s.pendingCount() > 0) {
                instants++;
                sum += s.pendingBytes();
                assertEquals(1, s.pendingCount(), "at most one block at once");
            }
        }
        assertEquals(271, instants);
        assertEquals(8_157_364_400L, sum);
        AddressMap.Snapshot first = AddressMap.at(t, m, 165_000, () -> false);
        assertEquals(25_165_824, first.pendingBytes());
        AddressMap.Block b = first.blocks().stream().filter(x -> x.state() == AddressMap.State.PENDING_FREE).findFirst().orElseThrow();
        assertEquals(165_000, b.freeRequestedNs());
        assertTrue(b.sinceNs() < b.freeRequestedNs(), "allocated before its free was requested");
        AddressMap.Snapshot largest = AddressMap.at(t, m, 1_492_000, () -> false);
        assertEquals(100_663_296, largest.pendingBytes());
        assertEquals(0, AddressMap.at(t, m, 166_000, () -> false).pendingCount(), "its free completed 1 us later");
        // still in use while pending: the blocks add up to the gauge
        long inUse = largest.blocks().stream().filter(x -> x.state() != AddressMap.State.RESERVED).mapToLong(AddressMap.Block::bytes).sum();
        assertEquals(t.gauges(m.id(), 1_492_000, 1_492_001, 1).usedLast()[0], inUse);
        String caption = AllocatorView.caption(largest);
        assertTrue(caption.contains("1 pending free (96.0 MiB)"), caption);
    }

    @Test
    void pendingFreesThatOverlapAndOutliveOtherEvents() {
        // a generated caching allocator: frees requested, completed later (after other allocations and requests)
        EventStore t = new EventStore("pending");
        t.onSession(new SessionInfo("pending", "", 0, List.of(), Map.of()));
        t.onMemory(new MemoryInfo(0, "cuda:0", MemoryKind.SEGMENTED, "cuda:0", 0, Map.of()));
        SplittableRandom rnd = new SplittableRandom(9);
        EventBatch b = new EventBatch(1 << 14);
        long used = 0;
        long time = 0;
        b.add(time, EventBatch.pack(EventKind.RESERVE.code(), 0, 0), 0, 0, 1L << 40, 0, 0, 1L << 40, -1, -1);
        ArrayList<long[]> live = new ArrayList<>();
        ArrayList<long[]> pending = new ArrayList<>();
        long next = 0;
        long maxPending = 0;
        for (int i = 0; i < 6000; i++) {
            time += 1 + rnd.nextInt(50);
            int what = rnd.nextInt(3);
            if (what == 0 || live.isEmpty()) {
                long bytes = 512L * (1 + rnd.nextInt(100));
                live.add(new long[] {next, bytes});
                used += bytes;
                b.add(time, EventBatch.pack(EventKind.ALLOC.code(), 0, 0), 0, next, bytes, bytes, used, 1L << 40, -1, -1);
                next += bytes;
            } else if (what == 1) {
                long[] x = live.remove(rnd.nextInt(live.size()));
                pending.add(x);
                b.add(time, EventBatch.pack(EventKind.FREE_REQUESTED.code(), 0, 0), 0, x[0], x[1], 0, used, 1L << 40, -1, -1);
            } else if (!pending.isEmpty()) {
                long[] x = pending.remove(rnd.nextInt(pending.size()));
                used -= x[1];
                b.add(time, EventBatch.pack(EventKind.FREE.code(), 0, 0), 0, x[0], x[1], 0, used, 1L << 40, -1, -1);
            }
            maxPending = Math.max(maxPending, pending.size());
        }
        t.onEvents(b);
        MemoryInfo m = t.memories().getFirst();
        assertTrue(maxPending > 20, "many frees pending at once: " + maxPending);
        AddressMap.Snapshot end = AddressMap.afterEvents(t, m, t.eventCount(), -1, () -> false);
        assertEquals(pending.size(), end.pendingCount());
        assertEquals(pending.stream().mapToLong(x -> x[1]).sum(), end.pendingBytes());
        assertEquals(live.size() + pending.size(), end.blocks().size() - 1, "every block in use, pending or not, besides the segment");
        movesMatchAFreshReplay(t, m, new AddressMapReplay(t, m, 100, 2), 5, 300);
    }
}
