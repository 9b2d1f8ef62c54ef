package dev.arenascope.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;

/** Keeps everything a session delivers, and checks that it is a sound trace. */
final class CollectingSink implements EventSink {
    final List<Event> events = new ArrayList<>();
    final Map<Integer, MemoryInfo> memories = new HashMap<>();
    final Map<Integer, String> strings = new HashMap<>();
    final Set<Integer> threads = new HashSet<>();
    long lost;
    boolean closed;
    private final Set<Integer> stringsAtEvent = new HashSet<>();

    @Override
    public void onMemory(MemoryInfo memory) {
        memories.put(memory.id(), memory);
    }

    @Override
    public void onString(int id, String value) {
        strings.put(id, value);
    }

    @Override
    public void onThread(int id, String name) {
        threads.add(id);
    }

    @Override
    public void onEvents(EventBatch batch) {
        for (int i = 0; i < batch.size(); i++) {
            Event e = batch.get(i);
            if (e.memory() >= 0 && !memories.containsKey(e.memory())) {
                fail("event " + e + " refers to memory " + e.memory() + " before it was announced");
            }
            if (!threads.contains(e.thread())) {
                fail("event " + e + " refers to an unannounced thread");
            }
            if (namesString(e.kind()) && e.ref() >= 0 && !strings.containsKey(e.ref())) {
                fail("event " + e + " refers to string " + e.ref() + " before it was announced");
            }
            events.add(e);
        }
    }

    private static boolean namesString(EventKind k) {
        return switch (k) {
            case MEMORY_CREATED, SCOPE_ENTER, SCOPE_EXIT, SCOPE_PARAM, MARKER, OUT_OF_MEMORY, PLAN_LOADED, ALLOC -> true;
            default -> false;
        };
    }

    @Override
    public void onLoss(long count) {
        lost += count;
    }

    @Override
    public void onClose() {
        closed = true;
    }

    List<Event> of(EventKind kind) {
        return events.stream().filter(e -> e.kind() == kind).toList();
    }

    String string(int id) {
        return strings.get(id);
    }

    /** No loss, time order per thread, gauges within the memory, every memory created and closed, scopes balanced. */
    void assertSound() {
        assertEquals(0, lost, "events lost");
        assertTrue(closed, "sink not closed");
        assertTrue(events.size() > 0, "no events");
        Map<Integer, Long> lastTime = new HashMap<>();
        Map<Integer, Integer> openScopes = new HashMap<>();
        Set<Integer> created = new HashSet<>();
        Set<Integer> closedMemories = new HashSet<>();
        for (Event e : events) {
            Long prev = lastTime.put(e.thread(), e.timeNs());
            if (prev != null && e.timeNs() < prev) {
                fail("time goes back on thread " + e.thread() + " at " + e);
            }
            if (e.memory() >= 0) {
                MemoryInfo m = memories.get(e.memory());
                assertNotNull(m);
                assertTrue(e.used() >= 0, "negative gauge at " + e);
                if (m.capacity() > 0 && m.kind().twoPointer()) {
                    assertTrue(e.used() <= m.capacity(), "gauge past capacity at " + e);
                }
            }
            switch (e.kind()) {
                case MEMORY_CREATED -> created.add(e.memory());
                case MEMORY_CLOSED -> closedMemories.add(e.memory());
                case SCOPE_ENTER -> openScopes.merge(e.memory(), 1, Integer::sum);
                case SCOPE_EXIT -> openScopes.merge(e.memory(), -1, Integer::sum);
                default -> { }
            }
        }
        assertEquals(created, closedMemories, "memories created but not closed");
        openScopes.forEach((m, n) -> assertEquals(0, n, "scopes left open on memory " + m));
    }
}
