package dev.arenascope.testsupport;

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
import dev.arenascope.core.trace.SessionInfo;

/**
 * A sink for tests: keeps everything it hears (session, memories, strings, threads, events, losses,
 * close) and checks the sink contract as events arrive: no {@code onSession} twice, no events after
 * {@code onClose}, and (unless made with {@code new CollectingSink(false)}, for tests that publish raw
 * events by hand) no event naming a memory or a string (for kinds whose {@code ref} is a string id,
 * {@link EventKind#refIsString()}) before it was announced. A broken contract throws
 * {@link AssertionError} from the delivering call, so a synchronous producer fails the test at once;
 * {@link #assertSound()} adds the whole-trace checks a finished recording must pass.
 *
 * <p>Threads: every method is synchronized, so a test thread may read while a session's drain thread
 * delivers; read the public collections only after the producer has finished or under
 * {@code synchronized (sink)}.
 */
public class CollectingSink implements EventSink {
    public SessionInfo session;
    /** Memories in the order they were announced. */
    public final List<MemoryInfo> memories = new ArrayList<>();
    public final Map<Integer, String> strings = new HashMap<>();
    /** Thread id to name. */
    public final Map<Integer, String> threads = new HashMap<>();
    public final List<Event> events = new ArrayList<>();
    public long lost;
    public boolean closed;
    private final Set<Integer> memoryIds = new HashSet<>();
    private final boolean checkRefs;

    /** A sink that checks every event's memory and string references. */
    public CollectingSink() {
        this(true);
    }

    /** @param checkRefs whether an event naming an unannounced memory or string fails */
    public CollectingSink(boolean checkRefs) {
        this.checkRefs = checkRefs;
    }

    @Override
    public synchronized void onSession(SessionInfo info) {
        if (session != null) {
            throw new AssertionError("onSession twice");
        }
        session = info;
    }

    @Override
    public synchronized void onMemory(MemoryInfo memory) {
        memories.add(memory);
        memoryIds.add(memory.id());
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
        if (closed) {
            throw new AssertionError("events after onClose");
        }
        for (int i = 0; i < batch.size(); i++) {
            Event e = batch.get(i);
            if (checkRefs && e.memory() >= 0 && !memoryIds.contains(e.memory())) {
                throw new AssertionError("event " + e + " refers to memory " + e.memory() + " before it was announced");
            }
            if (checkRefs && e.kind().refIsString() && e.ref() >= 0 && !strings.containsKey(e.ref())) {
                throw new AssertionError("string " + e.ref() + " used before it was announced: " + e);
            }
            events.add(e);
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

    /** The memory with this name; fails when there is none. */
    public synchronized MemoryInfo memory(String name) {
        return memories.stream().filter(m -> m.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no memory " + name + " in " + memories));
    }

    /** The memory with this id; fails when there is none. */
    public synchronized MemoryInfo memory(int id) {
        return memories.stream().filter(m -> m.id() == id).findFirst()
                .orElseThrow(() -> new AssertionError("no memory with id " + id + " in " + memories));
    }

    /** The string with this id, or null. */
    public synchronized String string(int id) {
        return strings.get(id);
    }

    /** Events of one kind, in arrival order. */
    public synchronized List<Event> of(EventKind kind) {
        return events.stream().filter(e -> e.kind() == kind).toList();
    }

    /** The kind of every event, in arrival order. */
    public synchronized List<EventKind> kinds() {
        return events.stream().map(Event::kind).toList();
    }

    /** Events of one memory, in arrival order. */
    public synchronized List<Event> eventsOf(int memory) {
        return events.stream().filter(e -> e.memory() == memory).toList();
    }

    /** The most {@code used} bytes any event of the memory carried. */
    public synchronized long peakUsed(int memory) {
        return eventsOf(memory).stream().mapToLong(Event::used).max().orElse(0);
    }

    /** The most {@code aux} bytes any event of the memory carried. */
    public synchronized long peakAux(int memory) {
        return eventsOf(memory).stream().mapToLong(Event::aux).max().orElse(0);
    }

    /**
     * A finished recording's checks: nothing lost, the sink closed, at least one event, every event's
     * thread announced, time never going back along a thread, gauges non-negative and within a
     * two-pointer memory's capacity, every memory created also closed, scopes balanced per memory.
     */
    public synchronized void assertSound() {
        if (lost != 0) {
            throw new AssertionError("events lost: " + lost);
        }
        if (!closed) {
            throw new AssertionError("sink not closed");
        }
        if (events.isEmpty()) {
            throw new AssertionError("no events");
        }
        Map<Integer, Long> lastTime = new HashMap<>();
        Map<Integer, Integer> openScopes = new HashMap<>();
        Set<Integer> created = new HashSet<>();
        Set<Integer> closedMemories = new HashSet<>();
        for (Event e : events) {
            if (!threads.containsKey(e.thread())) {
                throw new AssertionError("event " + e + " refers to an unannounced thread");
            }
            Long prev = lastTime.put(e.thread(), e.timeNs());
            if (prev != null && e.timeNs() < prev) {
                throw new AssertionError("time goes back on thread " + e.thread() + " at " + e);
            }
            if (e.memory() >= 0) {
                MemoryInfo m = memory(e.memory());
                if (e.used() < 0) {
                    throw new AssertionError("negative gauge at " + e);
                }
                if (m.capacity() > 0 && m.kind().twoPointer() && e.used() > m.capacity()) {
                    throw new AssertionError("gauge past capacity at " + e);
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
        if (!created.equals(closedMemories)) {
            throw new AssertionError("memories created " + created + " but closed " + closedMemories);
        }
        openScopes.forEach((m, n) -> {
            if (n != 0) {
                throw new AssertionError("scopes left open on memory " + m + ": " + n);
            }
        });
    }
}
