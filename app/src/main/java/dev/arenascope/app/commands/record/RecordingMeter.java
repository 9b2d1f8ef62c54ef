package dev.arenascope.app.commands.record;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;

/**
 * Counts what a recording delivers: events, bytes in use now and the peak per memory. Attached to
 * the session as one more sink; read from another thread for the progress line (counters are
 * atomic or read under the meter's lock).
 */
final class RecordingMeter implements EventSink {
    private final AtomicLong events = new AtomicLong();
    private final AtomicLong lost = new AtomicLong();
    private final Map<Integer, MemoryInfo> memories = new HashMap<>();
    private final Map<Integer, Long> used = new HashMap<>();
    private final Map<Integer, Long> peak = new HashMap<>();

    @Override
    public synchronized void onMemory(MemoryInfo memory) {
        memories.put(memory.id(), memory);
    }

    @Override
    public void onEvents(EventBatch batch) {
        synchronized (this) {
            for (int i = 0; i < batch.size(); i++) {
                int m = batch.memory(i);
                if (m >= 0) {
                    long u = batch.used(i);
                    used.put(m, u);
                    peak.merge(m, u, Math::max);
                }
            }
        }
        events.addAndGet(batch.size());
    }

    @Override
    public void onLoss(long count) {
        lost.addAndGet(count);
    }

    long events() {
        return events.get();
    }

    long lost() {
        return lost.get();
    }

    /** Bytes in use now, over every memory. */
    synchronized long usedNow() {
        return used.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The memory with the highest peak, or null when nothing was used. */
    synchronized Map.Entry<MemoryInfo, Long> largestPeak() {
        Map.Entry<MemoryInfo, Long> best = null;
        for (var e : peak.entrySet()) {
            if (best == null || e.getValue() > best.getValue()) {
                best = Map.entry(memories.get(e.getKey()), e.getValue());
            }
        }
        return best;
    }
}
