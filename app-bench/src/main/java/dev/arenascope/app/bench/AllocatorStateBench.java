package dev.arenascope.app.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

import dev.arenascope.app.ui.slots.AddressMap;
import dev.arenascope.app.ui.slots.AddressMapReplay;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.store.EventStore;

/**
 * {@code ui} (allocator state): stepping the Slot map's allocator state on the generated PyTorch
 * snapshot the torch bench uses ({@link SyntheticSnapshot}, seed {@value TorchBench#SEED},
 * {@value TorchBench#ALLOCATIONS} allocations; {@value TorchBench#QUICK_ALLOCATIONS} with {@code --quick}).
 *
 * <p>Figures (wall time, medians): {@code ui.allocator_step_ms}, one arrow-key step at the middle of the
 * trace, forward or back, as the view does it (find the memory's next or previous event, move the kept
 * {@link AddressMapReplay}, build the map's snapshot), and the two apart: {@code ui.allocator_step_forward_ms}
 * (the events stepped over applied) and {@code ui.allocator_step_back_ms} (from the nearest checkpoint);
 * {@code ui.allocator_jump_ms}, a move to a random
 * event index the replay has passed (from its nearest checkpoint); {@code ui.allocator_first_ms}, the
 * first move to the middle after the trace opened, made once the background build of the checkpoints
 * that the window starts at open had finished ({@code ui.allocator_prepare_ms}, that build alone, on its
 * thread; {@code ui.allocator_checkpoints} what it kept); {@code ui.allocator_first_at_open_ms}, the same
 * first move asked the moment the build starts (on a fresh replay: it waits for the build to pass the
 * middle, then replays from its checkpoint); {@code ui.allocator_replay_ms}, a fresh
 * replay from the start to the middle, what every step cost before the replay was kept;
 * {@code ui.allocator_blocks}, the blocks the map holds at the middle.
 */
final class AllocatorStateBench implements BenchSuite {

    @Override
    public String group() {
        return "ui";
    }

    @Override
    public Map<String, Double> run(boolean quick) throws Exception {
        BenchFixtures.GeneratedStore g = BenchFixtures.generatedStore(quick);
        EventStore store = g.store();
        MemoryInfo cuda = g.cuda();
        long mid = store.eventCount() / 2;
        // at open: the window builds the shown memory's checkpoints in the background
        AddressMapReplay replay = new AddressMapReplay(store, cuda);
        double[] prepareMs = {-1};
        Thread build = new Thread(() -> {
            long p0 = System.nanoTime();
            if (replay.prepare(() -> false)) {
                prepareMs[0] = (System.nanoTime() - p0) / 1e6;
            }
        }, "bench-prepare");
        build.start();
        build.join();
        if (prepareMs[0] < 0) {
            throw new IllegalStateException("bench: the background build of the checkpoints stopped before the end of the trace");
        }
        long t0 = System.nanoTime();
        AddressMap.Snapshot at = replay.moveTo(mid, -1, () -> false);
        double firstMs = (System.nanoTime() - t0) / 1e6;
        AddressMap.Snapshot atMid = at;
        if (at.blocks().size() < 2) {
            throw new IllegalStateException("bench: the map at the middle holds " + at.blocks().size() + " blocks");
        }
        int rounds = quick ? 21 : 101;
        double[] steps = new double[2 * rounds];
        double[] forward = new double[rounds];
        double[] back = new double[rounds];
        long end = mid;
        for (int i = 0; i < 2 * rounds; i++) {
            // forward and back in turns, so the replay stays at the middle
            long s = System.nanoTime();
            long next = i % 2 == 0 ? AddressMap.nextEnd(store, cuda, end, Long.MAX_VALUE) : AddressMap.previousEnd(store, cuda, end, Long.MAX_VALUE);
            AddressMap.Snapshot m = replay.moveTo(next, -1, () -> false);
            steps[i] = (System.nanoTime() - s) / 1e6;
            (i % 2 == 0 ? forward : back)[i / 2] = steps[i];
            if (m.end() != next) {
                throw new IllegalStateException("bench: a step to " + next + " ended at " + m.end());
            }
            end = next;
        }
        SplittableRandom rnd = new SplittableRandom(TorchBench.SEED);
        double[] jumps = new double[rounds];
        for (int i = 0; i < rounds; i++) {
            long to = rnd.nextLong(mid + 1);
            long s = System.nanoTime();
            replay.moveTo(to, -1, () -> false);
            jumps[i] = (System.nanoTime() - s) / 1e6;
        }
        double replayMs = Medians.medianOf(1, quick ? 3 : 5, () -> {
            long s = System.nanoTime();
            AddressMap.afterEvents(store, cuda, mid, -1, () -> false);
            return (System.nanoTime() - s) / 1e6;
        });
        // the first move asked at the moment of opening, the build just started: it waits for the build
        // to pass the middle instead of replaying the same events beside it (last, on a replay of its own,
        // so that the figures above are taken with one replay's checkpoints in the heap, as the window has)
        AddressMapReplay fresh = new AddressMapReplay(store, cuda);
        Thread early = new Thread(() -> fresh.prepare(() -> false), "bench-prepare-early");
        long e0 = System.nanoTime();
        early.start();
        AddressMap.Snapshot atOpen = fresh.moveTo(mid, -1, () -> false);
        double firstAtOpenMs = (System.nanoTime() - e0) / 1e6;
        early.join();
        if (!atOpen.equals(atMid)) {
            throw new IllegalStateException("bench: the move made while the build ran found another state");
        }
        Map<String, Double> out = new LinkedHashMap<>();
        out.put("ui.allocator_step_ms", Medians.median(steps));
        out.put("ui.allocator_step_forward_ms", Medians.median(forward));
        out.put("ui.allocator_step_back_ms", Medians.median(back));
        out.put("ui.allocator_jump_ms", Medians.median(jumps));
        out.put("ui.allocator_first_ms", firstMs);
        out.put("ui.allocator_first_at_open_ms", firstAtOpenMs);
        out.put("ui.allocator_prepare_ms", prepareMs[0]);
        out.put("ui.allocator_checkpoints", (double) replay.checkpoints());
        out.put("ui.allocator_replay_ms", replayMs);
        out.put("ui.allocator_blocks", (double) at.blocks().size());
        return out;
    }
}
