package dev.arenascope.core.record;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Level;
import java.util.logging.Logger;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.SiteTable;

/**
 * Delivers a session's buffered events and metadata to its sinks from one background thread (and
 * from callers of {@link #flush()}; never two at once). Metadata announced before an event is always
 * delivered before the batch holding it. A sink that throws is detached and logged, never allowed to
 * stop the others.
 */
final class Drain {
    private static final Logger LOG = Logger.getLogger(Drain.class.getName());
    private static final long PERIOD_NS = TimeUnit.MILLISECONDS.toNanos(2);
    private static final int MAX_PER_CYCLE = 1 << 14;

    private final Session session;
    private final ManyToOneEventRing buffer;
    /**
     * Starts small and grows to what a cycle moves ({@link #MAX_PER_CYCLE} at most): a session that
     * publishes a few events (a test's) does not pay for a quarter of a megabyte of columns.
     */
    private final EventBatch batch = new EventBatch(256);
    private final List<EventSink> sinks = new CopyOnWriteArrayList<>();
    private final Queue<Object> metadata = new ConcurrentLinkedQueue<>();
    private final Object lock = new Object();
    private final Map<EventSink, RuntimeException> failures = new ConcurrentHashMap<>();
    private volatile boolean hasSinks;
    private volatile boolean closed;
    private long lostReported;
    private final boolean virtual;
    private Thread thread;

    /** @param virtual true: the drain's thread is a virtual one (a short-lived session's) */
    Drain(Session session, ManyToOneEventRing buffer, boolean virtual) {
        this.session = session;
        this.buffer = buffer;
        this.virtual = virtual;
    }

    boolean hasSinks() {
        return hasSinks;
    }

    void announceMemory(MemoryInfo info) {
        if (hasSinks) {
            metadata.add(info);
        }
    }

    void announceString(int id, String value) {
        if (hasSinks) {
            metadata.add(new StringEntry(id, value));
        }
    }

    void announceThread(int id, String name) {
        if (hasSinks) {
            metadata.add(new ThreadEntry(id, name));
        }
    }

    void addSink(EventSink sink, SessionInfo info, List<MemoryInfo> memories, List<String> strings, Map<Integer, String> threads,
                 SiteTable sites) {
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("session is closed");
            }
            cycleAll();
            sink.onAttach(() -> removeSink(sink));
            sink.onSession(info);
            for (MemoryInfo m : memories) {
                sink.onMemory(m);
            }
            for (int i = 0; i < strings.size(); i++) {
                sink.onString(i, strings.get(i));
            }
            threads.forEach(sink::onThread);
            sites.announceAll(sink); // what a later cycle announces again is the same, which sinks accept
            sinks.add(sink);
            sinksChanged();
            lostReported = buffer.lost();
            startThread();
        }
    }

    /** Why {@code sink} was detached after it threw, or null. */
    RuntimeException failure(EventSink sink) {
        return failures.get(sink);
    }

    void removeSink(EventSink sink) {
        synchronized (lock) {
            cycleAll();
            try {
                if (sinks.remove(sink)) {
                    sink.onClose(); // a sink that failed to finish says so to the caller
                }
            } finally {
                sinksChanged();
            }
        }
    }

    void flush() {
        synchronized (lock) {
            cycleAll();
        }
    }

    void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            cycleAll();
            closed = true;
            sinksChanged();
            for (EventSink s : sinks) {
                try {
                    s.onClose();
                } catch (RuntimeException e) {
                    failures.put(s, e);
                    LOG.warning("sink " + s + " failed to close: " + e.getMessage());
                    LOG.log(Level.FINE, "sink close failure", e);
                }
            }
            sinks.clear();
        }
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private void startThread() {
        if (thread == null) {
            thread = virtual
                    ? Thread.ofVirtual().name("arenascope-drain").start(this::run)
                    : Thread.ofPlatform().daemon().name("arenascope-drain").start(this::run);
        }
    }

    private void run() {
        int moved = 0;
        while (!closed) {
            if (moved < MAX_PER_CYCLE) { // a full round means more is waiting: go again at once
                LockSupport.parkNanos(PERIOD_NS);
            }
            synchronized (lock) {
                moved = closed ? 0 : cycle();
            }
        }
    }

    /** Delivers what was published before the call (bounded: producers that keep publishing cannot hold it). */
    private void cycleAll() {
        int rounds = buffer.capacity() / MAX_PER_CYCLE + 2;
        while (cycle() == MAX_PER_CYCLE && --rounds > 0) {
            // more was waiting
        }
    }

    /** One delivery round of at most {@link #MAX_PER_CYCLE} events; returns how many. Caller holds {@link #lock}. */
    private int cycle() {
        batch.clear();
        int moved = buffer.drainTo(batch, MAX_PER_CYCLE);
        // after the drain: every site an event of the batch carries was interned before it was published
        SiteTable.Delta newSites = session.sites().takeNew();
        List<Object> meta = new ArrayList<>();
        for (Object o; (o = metadata.poll()) != null; ) {
            meta.add(o);
        }
        long lost = buffer.lost();
        long newlyLost = lost - lostReported;
        lostReported = lost;
        for (EventSink sink : sinks) {
            try {
                for (Object o : meta) {
                    switch (o) {
                        case MemoryInfo m -> sink.onMemory(m);
                        case StringEntry s -> sink.onString(s.id, s.value);
                        case ThreadEntry t -> sink.onThread(t.id, t.name);
                        default -> throw new IllegalStateException("unknown metadata " + o);
                    }
                }
                if (!newSites.isEmpty()) {
                    newSites.deliverTo(sink);
                }
                if (!batch.isEmpty()) {
                    sink.onEvents(batch);
                }
                if (newlyLost > 0) {
                    sink.onLoss(newlyLost);
                }
            } catch (RuntimeException e) {
                // one line (the stack trace only at FINE): the sink's owner reads the failure from the session
                failures.put(sink, e);
                LOG.warning("event sink " + sink + " failed and was detached: " + e.getMessage());
                LOG.log(Level.FINE, "event sink failure", e);
                sinks.remove(sink);
            }
        }
        sinksChanged();
        batch.clear();
        return moved;
    }

    /**
     * Sets {@link #hasSinks} from the sink list and, for a session whose clock is not exact, holds the
     * process-wide ticker exactly while it is true (so recorded events get cheap stamps). Caller holds
     * {@link #lock}.
     */
    private void sinksChanged() {
        boolean now = !closed && !sinks.isEmpty();
        if (now != hasSinks) {
            // an exact clock reads the time at every stamp: the ticker would only cost it a wake-up
            if (!session.clock().isExact()) {
                if (now) {
                    EventClock.holdTicker();
                } else {
                    EventClock.releaseTicker();
                }
            }
            hasSinks = now;
            session.recordingChanged(now);
        }
    }

    private record StringEntry(int id, String value) {}

    private record ThreadEntry(int id, String name) {}
}
