package dev.arenascope.core.analysis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.GaugeSeries;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.ScopeInterval;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.TraceView;

/** A plain list of events as a {@link TraceView}, for tests: fed by a session or built by hand. */
public final class ListTraceView implements TraceView, EventSink {
    private SessionInfo session = new SessionInfo("test", "localhost", 0, List.of(), Map.of());
    private final List<MemoryInfo> memories = new ArrayList<>();
    private final Map<Integer, String> strings = new HashMap<>();
    private final Map<Integer, String> threads = new HashMap<>();
    private final List<Event> events = new ArrayList<>();
    private long lost;

    @Override
    public synchronized void onSession(SessionInfo info) {
        session = info;
    }

    @Override
    public synchronized void onMemory(MemoryInfo memory) {
        memories.add(memory);
    }

    @Override
    public synchronized void onString(int id, String value) {
        strings.put(id, value);
    }

    @Override
    public synchronized void onThread(int id, String name) {
        threads.put(id, name);
    }

    @Override
    public synchronized void onEvents(EventBatch batch) {
        for (int i = 0; i < batch.size(); i++) {
            events.add(batch.get(i));
        }
        events.sort(Comparator.comparingLong(Event::timeNs));
    }

    @Override
    public synchronized void onLoss(long count) {
        lost += count;
    }

    /** Adds an event by hand. */
    public synchronized ListTraceView add(Event e) {
        events.add(e);
        return this;
    }

    public synchronized int intern(String s) {
        for (var e : strings.entrySet()) {
            if (e.getValue().equals(s)) {
                return e.getKey();
            }
        }
        int id = strings.size();
        strings.put(id, s);
        return id;
    }

    @Override
    public synchronized SessionInfo session() {
        return session;
    }

    @Override
    public synchronized List<MemoryInfo> memories() {
        return List.copyOf(memories);
    }

    @Override
    public synchronized String string(int id) {
        return strings.get(id);
    }

    @Override
    public synchronized String threadName(int id) {
        return threads.get(id);
    }

    @Override
    public synchronized long eventCount() {
        return events.size();
    }

    @Override
    public synchronized long startNs() {
        return events.isEmpty() ? 0 : events.getFirst().timeNs();
    }

    @Override
    public synchronized long endNs() {
        return events.isEmpty() ? 0 : events.getLast().timeNs();
    }

    @Override
    public synchronized long lostEvents() {
        return lost;
    }

    @Override
    public synchronized Event event(long index) {
        return events.get((int) index);
    }

    @Override
    public synchronized long firstIndexAtOrAfter(long timeNs) {
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i).timeNs() >= timeNs) {
                return i;
            }
        }
        return events.size();
    }

    @Override
    public GaugeSeries gauges(int memory, long fromNs, long toNs, int buckets) {
        throw new UnsupportedOperationException("not needed by the analyses");
    }

    @Override
    public List<ScopeInterval> scopes(int memory, long fromNs, long toNs, long minDurationNs) {
        throw new UnsupportedOperationException("not needed by the analyses");
    }

    @Override
    public synchronized long peakUsed(int memory) {
        return events.stream().filter(e -> e.memory() == memory).mapToLong(Event::used).max().orElse(0);
    }

    @Override
    public synchronized long peakAux(int memory) {
        return events.stream().filter(e -> e.memory() == memory).mapToLong(Event::aux).max().orElse(0);
    }
}
