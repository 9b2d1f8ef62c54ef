package dev.arenascope.app.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.arenascope.core.live.LiveReceiver;
import dev.arenascope.core.live.LiveSender;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.SessionInfo;

/**
 * {@code live.events_per_s}: events per second a {@link LiveSender} delivers over loopback to a
 * {@link LiveReceiver} (chunk encoding, TCP, decoding, acknowledgements), with the producer keeping
 * the sender's queue half full so nothing is dropped; median of rounds.
 */
final class LiveBench implements BenchSuite {

    @Override
    public String group() {
        return "live";
    }

    @Override
    public Map<String, Double> run(boolean quick) throws Exception {
        long events = quick ? 500_000 : 4_000_000;
        AtomicLong received = new AtomicLong();
        EventSink counter = new EventSink() {
            @Override
            public void onEvents(EventBatch batch) {
                received.addAndGet(batch.size());
            }
        };
        EventBatch batch = new EventBatch(1 << 14);
        for (int i = 0; i < (1 << 14); i++) {
            batch.add(i * 100L, EventBatch.pack(EventKind.ALLOC.code(), 0, 0), 1, i * 256L, 256, 250, (i + 1) * 256L, 0, -1, -1);
        }
        try (LiveReceiver receiver = LiveReceiver.start(LiveReceiver.Options.loopback(0), peer -> counter)) {
            double eps = Medians.medianOf(1, quick ? 2 : 5, () -> {
                received.set(0);
                LiveSender sender = new LiveSender(LiveSender.Options.of("127.0.0.1", receiver.port(), null).withQueueEvents(1 << 20));
                sender.onSession(new SessionInfo("bench", "localhost", 0, List.of(), Map.of()));
                sender.onMemory(new MemoryInfo(0, "pool", MemoryKind.POOL, "virtual", 0, Map.of()));
                long t0 = System.nanoTime();
                long sent = 0;
                while (sent < events) {
                    if (sender.stats().queuedEvents() > (1 << 19)) {
                        Thread.onSpinWait();
                        continue;
                    }
                    sender.onEvents(batch);
                    sent += batch.size();
                }
                while (received.get() < sent && sender.stats().droppedEvents() == 0) {
                    Thread.sleep(1);
                }
                long t1 = System.nanoTime();
                sender.onClose();
                if (sender.stats().droppedEvents() > 0) {
                    throw new IllegalStateException("live bench dropped " + sender.stats().droppedEvents() + " events");
                }
                return sent / ((t1 - t0) / 1e9);
            });
            Map<String, Double> f = new LinkedHashMap<>();
            f.put("live.events_per_s", eps);
            return f;
        }
    }
}
