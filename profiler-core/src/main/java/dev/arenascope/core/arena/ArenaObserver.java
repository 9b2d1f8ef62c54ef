package dev.arenascope.core.arena;

import java.util.Arrays;
import java.util.Map;

import dev.arenascope.core.record.EventClock;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;

/**
 * The one observer of an arena: every happening of a {@link ManualMemory} (created, allocated, out
 * of memory, pointers moved, reset, scope entered / parameter / exited, closed) is told to it once,
 * and it feeds both consumers: the arena's {@link Session} as events (while the session has sinks)
 * and the active {@link AllocationRecorder} as rows and scope nodes. One time stamp serves both; it
 * also keeps what they need per open scope (the session's scope id, the recorder's node) and the
 * per-thread and per-name caches of the session's ids.
 *
 * <p>Times: scope bounds read the session's clock in full ({@link Session#now()}, one read shared by
 * a scope's entry and its parameters), so scope durations are exact; every other happening carries
 * a stamp of the arena's {@link EventClock.Stamper}. Events carry {@code used} = forward + backward
 * bytes and {@code aux} = backward bytes. Not thread-safe: owned by its arena, used from the thread
 * using the arena.
 */
final class ArenaObserver {
    private final Session session;
    private final EventClock.Stamper stamper;
    private final boolean managed;
    private final long capacity;
    private int memoryId = -1;
    private AllocationRecorder recorder;
    private long stamp = -1; // a scope bound's full clock read while its entry and parameters are told

    // per open scope, by depth: the session's scope id (-1: not published), the recorder's node and recorder
    private int[] scopeIds = new int[8];
    private int[] scopeNodes = new int[8];
    private AllocationRecorder[] scopeRecorders = new AllocationRecorder[8];

    private final String[] internedNames = new String[32];
    private final int[] internedIds = new int[32];
    private Thread lastThread;
    private int lastThreadId;

    ArenaObserver(Session session, boolean managed, long capacity) {
        this.session = session;
        this.stamper = session.clock().stamper();
        this.managed = managed;
        this.capacity = capacity;
    }

    void memoryId(int id) {
        this.memoryId = id;
    }

    /** Whether the session takes events now. */
    boolean publishing() {
        return managed && session.isRecording();
    }

    /** Whether anything observes the arena now (the session or a recorder). */
    boolean observing() {
        return managed && (recorder != null || session.isRecording());
    }

    AllocationRecorder recorder() {
        return recorder;
    }

    void recorder(AllocationRecorder r) {
        recorder = r;
    }

    // ------------------------------------------------------------------ happenings

    void created(long address, String name) {
        if (publishing()) {
            publish(EventKind.MEMORY_CREATED, 0, address, capacity, 0, session.intern(name), -1, 0, capacity);
        }
    }

    /**
     * An allocation of {@code bytes} at {@code start} ({@code consumed} with alignment), the pointers
     * now {@code (forward, backward)}; {@code depth} open scopes.
     */
    void allocated(DescriptorTable descriptors, int descriptor, long[] shape, DType dtype, long start, long bytes,
                   long consumed, boolean back, long forward, long backward, int depth, boolean publishing) {
        long t = stamper.stamp(); // one stamp for both the event and the recorder's row
        int thread = thread();
        if (publishing) {
            int ref = descriptors.stringId(descriptor, session);
            session.publishAt(t, thread, EventKind.ALLOC, back ? Event.FLAG_BACKWARD : 0, memoryId, start, consumed, bytes,
                    forward + capacity - backward, capacity - backward, ref, innermostScope(depth),
                    session.captureSite(consumed), -1);
        }
        AllocationRecorder r = recorder;
        if (r != null) {
            r.onAllocation(t, lastThread.threadId(), start, bytes, consumed, descriptor, dtype, shape, back, forward, backward);
        }
    }

    /** A request that did not fit: {@code message} says why. */
    void failed(String message, boolean back, long needed, long remaining, long forward, long backward, int depth) {
        if (publishing()) {
            publish(EventKind.OUT_OF_MEMORY, back ? Event.FLAG_BACKWARD : 0, 0, needed, remaining,
                    session.intern(message), innermostScope(depth), forward, backward);
        }
        if (recorder != null) {
            recorder.onFailure(message);
        }
    }

    /** Everything released at once ({@code released} bytes). */
    void reset(long released) {
        if (observing()) {
            if (session.isRecording()) {
                publish(EventKind.RESET, 0, 0, released, 0, -1, -1, 0, capacity);
            }
            if (recorder != null) {
                recorder.onPointers(0, capacity);
            }
        }
    }

    /** A pointer moved to {@code p} ({@code flags}: backward or not), releasing {@code released} bytes (negative: claiming). */
    void moved(int flags, long p, long released, long forward, long backward) {
        if (observing()) {
            if (session.isRecording()) {
                publish(EventKind.POINTER_RESTORE, flags, p, released, 0, -1, -1, forward, backward);
            }
            if (recorder != null) {
                recorder.onPointers(forward, backward);
            }
        }
    }

    /** Makes room for scopes at depths below {@code n}. */
    void scopeCapacity(int n) {
        if (n > scopeIds.length) {
            scopeIds = Arrays.copyOf(scopeIds, n);
            scopeNodes = Arrays.copyOf(scopeNodes, n);
            scopeRecorders = Arrays.copyOf(scopeRecorders, n);
        }
    }

    /**
     * Scope {@code name} opened at depth {@code d} with these parameters (keys and values side by side;
     * {@code params} may be null): one full clock read for the entry and its parameters. The arena
     * tells only scopes opened while {@link #observing()}, and tells their exit ({@link #scopeExited})
     * whatever happens in between; an unobserved scope costs the observer nothing.
     */
    void scopeEntered(int d, String name, long forward, long backward, String k1, long v1, String k2, long v2,
                      Map<String, ? extends Number> params) {
        scopeIds[d] = -1;
        scopeNodes[d] = -1;
        scopeRecorders[d] = null;
        stamp = session.now();
        try {
            if (session.isRecording()) {
                int id = session.nextScopeId();
                scopeIds[d] = id;
                int parent = d > 0 ? scopeIds[d - 1] : -1;
                publish(EventKind.SCOPE_ENTER, 0, forward, backward, parent, internName(name), id, forward, backward);
            }
            if (recorder != null) {
                scopeNodes[d] = recorder.onScopeEnter(name, forward, backward);
                scopeRecorders[d] = recorder;
            }
            if (k1 != null) {
                param(d, k1, v1, forward, backward);
            }
            if (k2 != null) {
                param(d, k2, v2, forward, backward);
            }
            if (params != null) {
                params.forEach((k, v) -> param(d, k, v.longValue(), forward, backward));
            }
        } finally {
            stamp = -1;
        }
    }

    /** A parameter of the scope at depth {@code d}, noted inside it. */
    void param(int d, String key, long value, long forward, long backward) {
        if (scopeIds[d] >= 0 && session.isRecording()) {
            publish(EventKind.SCOPE_PARAM, 0, value, 0, 0, internName(key), scopeIds[d], forward, backward);
        }
        if (scopeRecorders[d] != null && scopeRecorders[d] == recorder) {
            recorder.onScopeParam(scopeNodes[d], key, value);
        } else if (recorder != null) {
            recorder.onScopeParam(recorder.currentScope(), key, value);
        }
    }

    /** The scope at depth {@code d} closed; {@code arenaClosed} when its arena was closed inside it. */
    void scopeExited(int d, String name, long forward, long backward, boolean arenaClosed) {
        int id = scopeIds[d];
        if (id >= 0 && !arenaClosed && session.isRecording()) {
            stamp = session.now(); // scope bounds read the clock in full, so scope durations are exact
            try {
                publish(EventKind.SCOPE_EXIT, 0, forward, backward, 0, internName(name), id, forward, backward);
            } finally {
                stamp = -1;
            }
        }
        AllocationRecorder r = scopeRecorders[d];
        if (r != null && r == recorder) {
            r.onScopeExit(scopeNodes[d], forward, backward);
        }
        scopeRecorders[d] = null;
    }

    void closed(long address, long forward, long backward) {
        if (publishing()) {
            publish(EventKind.MEMORY_CLOSED, 0, address, capacity, 0, -1, -1, forward, backward);
        }
    }

    // ------------------------------------------------------------------ the session's side

    private int innermostScope(int depth) {
        return depth > 0 ? scopeIds[depth - 1] : -1;
    }

    private int thread() {
        Thread t = Thread.currentThread();
        if (t != lastThread) {
            lastThreadId = session.threadId();
            lastThread = t;
        }
        return lastThreadId;
    }

    /** The session's id for a scope or parameter name, through a small cache keyed by identity (names are mostly literals). */
    private int internName(String value) {
        int slot = System.identityHashCode(value) & (internedNames.length - 1);
        if (internedNames[slot] == value) {
            return internedIds[slot];
        }
        int id = session.intern(value);
        internedNames[slot] = value;
        internedIds[slot] = id;
        return id;
    }

    private void publish(EventKind kind, int flags, long a, long b, long c, int ref, int ref2, long forward, long backward) {
        session.publishAt(stamp >= 0 ? stamp : stamper.stamp(), thread(), kind, flags, memoryId, a, b, c,
                forward + capacity - backward, capacity - backward, ref, ref2);
    }
}
