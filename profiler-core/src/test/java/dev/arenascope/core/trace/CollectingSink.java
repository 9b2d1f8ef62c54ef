package dev.arenascope.core.trace;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A test sink that keeps everything it hears, checking the sink contract as it goes. */
public final class CollectingSink implements EventSink {
    public SessionInfo session;
    public final List<MemoryInfo> memories = new ArrayList<>();
    public final Map<Integer, String> strings = new HashMap<>();
    public final Map<Integer, String> threads = new HashMap<>();
    public final List<Event> events = new ArrayList<>();
    public long lost;
    /** The frames and stack nodes heard, checked for order as the store checks them. */
    public final SiteTable sites = new SiteTable();
    public boolean closed;

    @Override
    public void onSession(SessionInfo info) {
        if (session != null) {
            throw new AssertionError("onSession twice");
        }
        session = info;
    }

    @Override
    public void onMemory(MemoryInfo memory) {
        memories.add(memory);
    }

    @Override
    public void onString(int id, String value) {
        strings.put(id, value);
    }

    @Override
    public void onThread(int id, String name) {
        threads.put(id, name);
    }

    @Override
    public void onFrame(StackFrame frame) {
        sites.add(frame);
    }

    @Override
    public void onStack(StackNode node) {
        sites.add(node);
    }

    @Override
    public void onEvents(EventBatch batch) {
        if (closed) {
            throw new AssertionError("events after onClose");
        }
        for (int i = 0; i < batch.size(); i++) {
            Event e = batch.get(i);
            if (e.ref() >= 0 && e.kind() != EventKind.POOL_REQUEST && e.kind() != EventKind.POOL_HOLD
                    && e.kind() != EventKind.POOL_RELEASE && e.kind() != EventKind.PLAN_HYDRATE && !strings.containsKey(e.ref())) {
                throw new AssertionError("string " + e.ref() + " used before it was announced: " + e);
            }
            events.add(e);
        }
    }

    @Override
    public void onLoss(long count) {
        lost += count;
    }

    @Override
    public void onClose() {
        closed = true;
    }

    /** The memory with this name. */
    public MemoryInfo memory(String name) {
        return memories.stream().filter(m -> m.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no memory " + name + " in " + memories));
    }

    public List<Event> eventsOf(int memory) {
        return events.stream().filter(e -> e.memory() == memory).toList();
    }

    public long peakUsed(int memory) {
        return eventsOf(memory).stream().mapToLong(Event::used).max().orElse(0);
    }

    public long peakAux(int memory) {
        return eventsOf(memory).stream().mapToLong(Event::aux).max().orElse(0);
    }
}
