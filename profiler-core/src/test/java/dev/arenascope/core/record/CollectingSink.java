package dev.arenascope.core.record;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;

/** A sink for tests: keeps every event, string, memory and loss it hears. Synchronized for reading from the test thread. */
public class CollectingSink implements EventSink {
    public final List<Event> events = new ArrayList<>();
    public final Map<Integer, String> strings = new HashMap<>();
    public final List<MemoryInfo> memories = new ArrayList<>();
    public long lost;
    public boolean closed;

    @Override
    public synchronized void onMemory(MemoryInfo memory) {
        memories.add(memory);
    }

    @Override
    public synchronized void onString(int id, String value) {
        strings.put(id, value);
    }

    @Override
    public synchronized void onEvents(EventBatch batch) {
        for (int i = 0; i < batch.size(); i++) {
            events.add(batch.get(i));
        }
    }

    @Override
    public synchronized void onLoss(long count) {
        lost += count;
    }

    @Override
    public synchronized void onClose() {
        closed = true;
    }

    public synchronized List<Event> of(EventKind kind) {
        return events.stream().filter(e -> e.kind() == kind).toList();
    }

    public synchronized List<EventKind> kinds() {
        return events.stream().map(Event::kind).toList();
    }
}
