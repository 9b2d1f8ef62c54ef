package dev.arenascope.app.commands.whatif;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.arenascope.core.plan.GreedyBySizePlanner;
import dev.arenascope.core.plan.Packing;
import dev.arenascope.core.plan.PlanBuffer;
import dev.arenascope.core.plan.PlanProblem;
import dev.arenascope.core.trace.torch.TorchAllocatorTrace;
import dev.arenascope.core.util.LongLongMap;

/**
 * The floor under every allocator for a trace: its live peak (the most bytes requested and in use at
 * once), and the smallest single arena found that holds every buffer of the trace at a fixed address for
 * its whole life, packed by the same greedy-by-size planner as {@code arenascope plan} (buffers 512-byte
 * aligned, lives in entry steps). The planner runs on its own thread for at most the time given; when it
 * does not finish the floor is the live peak alone, and {@link #note} says so.
 *
 * @param livePeak   bytes
 * @param packed     the planner's height, or -1 when it did not pack the trace in time (or was not asked)
 * @param buffers    buffers in the trace (the blocks in use at its start and every request)
 * @param note       how the packed height was found, or why there is none
 */
record Floor(long livePeak, long packed, int buffers, String note) {

    static Floor of(TorchAllocatorTrace.Device d, long timeNanos) {
        int n = d.entries();
        List<PlanBuffer> buffers = new ArrayList<>();
        LongLongMap open = new LongLongMap(); // address -> index into lower/size lists
        List<long[]> rows = new ArrayList<>(); // {lower, upper, size}
        for (TorchAllocatorTrace.Block b : d.startBlocks()) {
            open.put(b.address(), rows.size(), -1);
            rows.add(new long[] {0, n + 1L, b.requested()});
        }
        for (int i = 0; i < n; i++) {
            byte a = d.action()[i];
            if (a == TorchAllocatorTrace.ALLOC) {
                open.put(d.address()[i], rows.size(), -1);
                rows.add(new long[] {i + 1L, n + 1L, d.size()[i]});
            } else if (a == TorchAllocatorTrace.FREE_COMPLETED) {
                long k = open.remove(d.address()[i], -1);
                if (k >= 0) {
                    rows.get((int) k)[1] = i + 1L;
                }
            }
        }
        long live = 0, peak = 0;
        long[] delta = new long[n + 2];
        for (long[] r : rows) {
            delta[(int) r[0]] += r[2];
            delta[(int) r[1]] -= r[2];
        }
        for (long x : delta) {
            live += x;
            peak = Math.max(peak, live);
        }
        if (timeNanos <= 0) {
            return new Floor(peak, -1, rows.size(), "not packed (--floor-time 0)");
        }
        for (int i = 0; i < rows.size(); i++) {
            long[] r = rows.get(i);
            buffers.add(new PlanBuffer(Integer.toString(i), r[0], r[1], r[2]));
        }
        PlanProblem problem = new PlanProblem(buffers, 512);
        FutureTask<Packing> task = new FutureTask<>(() -> new GreedyBySizePlanner().plan(problem, Long.MAX_VALUE, timeNanos));
        Thread th = new Thread(task, "whatif-floor");
        th.setDaemon(true);
        th.start();
        try {
            Packing p = task.get(timeNanos, TimeUnit.NANOSECONDS);
            return new Floor(peak, p.height(), rows.size(), String.format(Locale.ROOT, "greedy planner, %,d buffers at fixed addresses, %.1f s",
                    rows.size(), p.elapsedNanos() / 1e9));
        } catch (TimeoutException e) {
            task.cancel(true);
            return new Floor(peak, -1, rows.size(), String.format(Locale.ROOT,
                    "the planner did not pack the %,d buffers within %.1f s: the floor is the live peak alone", rows.size(), timeNanos / 1e9));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Floor(peak, -1, rows.size(), "interrupted");
        } catch (ExecutionException e) {
            return new Floor(peak, -1, rows.size(), "the planner failed: " + e.getCause());
        }
    }
}
