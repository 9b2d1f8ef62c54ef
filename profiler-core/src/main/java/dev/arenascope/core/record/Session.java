package dev.arenascope.core.record;

import java.net.InetAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;

import dev.arenascope.core.device.DeviceInfo;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.SiteTable;

/**
 * One profiling session: the registry of memories, strings and threads, and the event stream every
 * allocator publishes to. Events go through the hot-path {@link ManyToOneEventRing} (fixed-size binary records, no allocation per event) and are delivered to the
 * attached {@link EventSink}s by one drain thread.
 *
 * <p>Allocators publish only while {@link #isRecording()} (some sink is attached), so an idle session
 * costs one volatile read per operation. Thread-safe.
 */
public final class Session implements AutoCloseable {
    /** Events the hot-path buffer holds by default (2^17 records of 64 bytes: 8 MiB). */
    public static final int DEFAULT_BUFFER_CAPACITY = 1 << 17;
    private static final Session GLOBAL = new Session("default");
    private static final Logger LOG = Logger.getLogger(Session.class.getName());
    /** Sessions made current by {@link #makeCurrent()}, innermost last. */
    private static final Deque<Session> CURRENT = new ConcurrentLinkedDeque<>();
    /** How many sessions have a sink attached now. */
    private static final AtomicInteger RECORDING = new AtomicInteger();

    private final EventClock clock;
    private final long startEpochNs;
    private final String name;
    private final List<DeviceInfo> devices = new CopyOnWriteArrayList<>();
    private final Map<String, String> attributes = new ConcurrentHashMap<>();
    private final List<MemoryInfo> memories = new CopyOnWriteArrayList<>();
    private final StringTable strings = new StringTable();
    private final Map<Integer, String> threads = new ConcurrentHashMap<>();
    private final AtomicInteger nextMemory = new AtomicInteger();
    private final AtomicInteger nextScope = new AtomicInteger();
    private final ManyToOneEventRing buffer;
    private final Drain drain;
    private final SiteTable sites = new SiteTable();
    private volatile StackCapture capture;
    private final AtomicBoolean warnedNoSink = new AtomicBoolean();

    /**
     * A session with a {@link #DEFAULT_BUFFER_CAPACITY} buffer and stamped (cheap) event times. Close it
     * when done: it delivers what is buffered and closes its sinks.
     *
     * @param name the session's name in traces and the window
     */
    public Session(String name) {
        this(name, DEFAULT_BUFFER_CAPACITY);
    }

    /**
     * @param name            the session's name
     * @param bufferCapacity  events the hot-path buffer holds before it counts losses: a power of two
     *                        from 16 to 2^24 (64 bytes each)
     * @throws IllegalArgumentException on another capacity
     */
    public Session(String name, int bufferCapacity) {
        this(name, bufferCapacity, false);
    }

    /**
     * @param name            the session's name
     * @param bufferCapacity  events the hot-path buffer holds before it counts losses: a power of two
     *                        from 16 to 2^24 (64 bytes each)
     * @param exactClock      true: every event's time is its own clock read (about 25 ns more per
     *                        recorded event on the project's machines); false: hot-path producers stamp
     *                        with {@link EventClock.Stamper}s, whose error bound {@link EventClock} states
     * @throws IllegalArgumentException on another capacity
     */
    public Session(String name, int bufferCapacity, boolean exactClock) {
        this(name, bufferCapacity, exactClock, false);
    }

    /**
     * A session that lives as long as one test (what the JUnit extension makes for each): an exact clock,
     * so recording into it holds no process-wide ticker, and its drain on a virtual thread, which starts
     * in microseconds where a platform thread costs tens of them. A test that keeps every carrier thread
     * busy delays the drain; what then overflows the buffer is counted as lost, as in any session.
     *
     * @param name           the session's name
     * @param bufferCapacity as for {@link #Session(String, int)}
     * @throws IllegalArgumentException on another capacity
     */
    public static Session shortLived(String name, int bufferCapacity) {
        return new Session(name, bufferCapacity, true, true);
    }

    private Session(String name, int bufferCapacity, boolean exactClock, boolean virtualDrain) {
        this.clock = new EventClock(exactClock);
        Instant now = Instant.now();
        this.startEpochNs = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        this.name = name;
        this.buffer = new ManyToOneEventRing(bufferCapacity);
        this.drain = new Drain(this, buffer, virtualDrain);
    }

    /**
     * The process-wide session: what {@link #current()} returns outside every {@link #makeCurrent()}. The
     * Java agent and the {@code ARENASCOPE_TRACE} / {@code ARENASCOPE_LIVE} settings attach their sinks to
     * it. It cannot be closed.
     */
    public static Session global() {
        return GLOBAL;
    }

    /**
     * The session an allocator created now without an explicit session reports to: the innermost session
     * made current by {@link #makeCurrent()} (what {@code ArenaScope.record(...)} does) that is still
     * current, else {@link #global()}. Process-wide, not per thread: an allocator created on any thread
     * during a recording reports to it. Allocators read it once, when they are created.
     */
    public static Session current() {
        Session s = CURRENT.peekLast();
        return s != null ? s : GLOBAL;
    }

    /**
     * Makes this session {@link #current()} until the returned handle is closed (handles may be closed in
     * any order; each removes only its own entry). Thread-safe.
     */
    public Current makeCurrent() {
        CURRENT.addLast(this);
        return new Current(this);
    }

    /** This session's turn as {@link Session#current()}; {@link #close()} ends it (once; later calls do nothing). */
    public static final class Current implements AutoCloseable {
        private final AtomicReference<Session> session;

        private Current(Session session) {
            this.session = new AtomicReference<>(session);
        }

        @Override
        public void close() {
            Session s = session.getAndSet(null);
            if (s != null) {
                CURRENT.removeLastOccurrence(s);
            }
        }
    }

    /** Called by the drain when this session starts or stops having sinks. */
    void recordingChanged(boolean recording) {
        if (recording) {
            RECORDING.incrementAndGet();
        } else {
            RECORDING.decrementAndGet();
        }
    }

    /**
     * Why {@code sink} was detached from this session after one of its calls threw (a full disk, a closed
     * stream), or null when it did not fail. The session logs such a failure in one line and delivers
     * nothing more to that sink.
     */
    public RuntimeException sinkFailure(EventSink sink) {
        return drain.failure(sink);
    }

    /**
     * Nanoseconds since the session started: one full clock read, never less than an earlier
     * {@code now()} or stamp of this session on any thread ({@link EventClock#now()}). Use it for
     * durations; hot-path producers stamp events through {@link #clock()}'s {@link EventClock#stamper()}.
     */
    public long now() {
        return clock.now();
    }

    /** The session's clock (what {@link #now()} reads), for producers that keep a {@link EventClock.Stamper}. */
    public EventClock clock() {
        return clock;
    }

    /** What this session says about itself. */
    public SessionInfo info() {
        return new SessionInfo(name, hostName(), startEpochNs, new ArrayList<>(devices), Map.copyOf(attributes));
    }

    /** Adds a device to the session's metadata (once per device id). */
    public void addDevice(DeviceInfo device) {
        if (devices.stream().noneMatch(d -> d.id().equals(device.id()))) {
            devices.add(device);
        }
    }

    /** Sets a session attribute (tool version, command line, ...). */
    public void putAttribute(String key, String value) {
        attributes.put(key, value);
    }

    /** Memories registered so far, in id order. */
    public List<MemoryInfo> memories() {
        return List.copyOf(memories);
    }

    /** Whether any sink is attached: allocators skip publishing otherwise. */
    public boolean isRecording() {
        return drain.hasSinks();
    }

    /**
     * Registers a memory and returns its id. Sinks hear of it before any of its events.
     *
     * @throws IllegalStateException past {@link EventBatch#MAX_MEMORY_ID} memories
     */
    public int registerMemory(String memoryName, MemoryKind kind, String device, long capacity, Map<String, String> attrs) {
        int id = nextMemory.getAndIncrement();
        if (id > EventBatch.MAX_MEMORY_ID) {
            throw new IllegalStateException("session '" + name + "' has more than " + EventBatch.MAX_MEMORY_ID + " memories");
        }
        MemoryInfo info = new MemoryInfo(id, memoryName, kind, device, capacity, attrs);
        memories.add(info);
        if (!isRecording() && RECORDING.get() > 0 && warnedNoSink.compareAndSet(false, true)) {
            // the usual slip: an allocator built without .session(s) while the program records another session
            LOG.warning("memory '" + memoryName + "' reports to session '" + name + "', which has no sink, while another"
                    + " session is recording: its events go nowhere (give the allocator .session(...), or create it"
                    + " inside ArenaScope.record(...)); said once per session");
        }
        drain.announceMemory(info);
        return id;
    }

    /** The id of {@code value} in the session's string table, adding it once. */
    public int intern(String value) {
        return strings.intern(value, drain);
    }

    /** The string with this id, or null. */
    public String string(int id) {
        return strings.get(id);
    }

    /**
     * The session's allocation-site table. Producers with stacks of their own (importers, bridges)
     * intern into it; the drain announces what is new to the sinks before the events that carry it.
     */
    public SiteTable sites() {
        return sites;
    }

    /**
     * Turns stack capture on for this session's allocators (arenas and pools), or off with null. Set
     * it before attaching sinks: the sampling note ({@link SiteTable#SAMPLING_ATTRIBUTE}) is a session
     * attribute, which sinks hear when they attach.
     */
    public void captureStacks(StackCapture stackCapture) {
        if (stackCapture != null) {
            stackCapture.attach(sites);
            if (stackCapture.sampling() != null) {
                putAttribute(SiteTable.SAMPLING_ATTRIBUTE, stackCapture.sampling());
            } else {
                attributes.remove(SiteTable.SAMPLING_ATTRIBUTE);
            }
        }
        capture = stackCapture;
    }

    /** The stack capture in force, or null. */
    public StackCapture stackCapture() {
        return capture;
    }

    /**
     * The site of the calling thread's stack for an allocation of {@code bytes}, or -1 when capture is
     * off or this allocation is not sampled. One volatile read when off.
     */
    public int captureSite(long bytes) {
        StackCapture c = capture;
        return c == null ? -1 : c.capture(bytes);
    }

    /** A fresh scope id, unique in the session. */
    public int nextScopeId() {
        return nextScope.getAndIncrement();
    }

    /**
     * Publishes one event stamped with the current time and thread. Never blocks and allocates
     * nothing once the thread is known; when the buffer is full the event is counted as lost.
     * Field meanings per kind: {@link EventKind}.
     */
    public void publish(EventKind kind, int flags, int memory, long a, long b, long c, long used, long aux, int ref, int ref2) {
        int thread = threadId();
        buffer.offer(now(), EventBatch.pack(kind.code(), flags, memory), thread, a, b, c, used, aux, ref, ref2);
    }

    /**
     * {@link #publish} with a time and thread the caller already has: {@code timeNs} from {@link #now()} or
     * a {@link EventClock.Stamper} of this session's {@link #clock()}, {@code thread} from {@link #threadId()}
     * on the publishing thread. For allocators that stamp one
     * operation once for both the event and their own records. Thread-safe, allocation-free.
     */
    public void publishAt(long timeNs, int thread, EventKind kind, int flags, int memory, long a, long b, long c,
                          long used, long aux, int ref, int ref2) {
        buffer.offer(timeNs, EventBatch.pack(kind.code(), flags, memory), thread, a, b, c, used, aux, ref, ref2);
    }

    /**
     * {@link #publishAt(long, int, EventKind, int, int, long, long, long, long, long, int, int)} for an
     * allocation with a site ({@link #sites()} node id) and a category (string id), either -1 for none.
     * With both -1 it is the plain publish; otherwise the event takes two ring records.
     */
    public void publishAt(long timeNs, int thread, EventKind kind, int flags, int memory, long a, long b, long c,
                          long used, long aux, int ref, int ref2, int site, int category) {
        int packed = EventBatch.pack(kind.code(), flags, memory);
        if (site < 0 && category < 0) {
            buffer.offer(timeNs, packed, thread, a, b, c, used, aux, ref, ref2);
        } else {
            buffer.offerSited(timeNs, packed, thread, a, b, c, used, aux, ref, ref2, site, category);
        }
    }

    /**
     * The session's id for the calling thread, announcing its name to the sinks the first time. Callers
     * on a hot path may cache it per thread.
     */
    public int threadId() {
        Thread t = Thread.currentThread();
        int id = (int) t.threadId();
        if (!threads.containsKey(id)) {
            threads.put(id, t.getName());
            drain.announceThread(id, t.getName());
        }
        return id;
    }

    /** Attaches a sink: it first hears the session, every memory, string and thread so far. */
    public void addSink(EventSink sink) {
        drain.addSink(sink, info(), memories, strings.snapshot(), Map.copyOf(threads), sites);
    }

    /** Detaches a sink after delivering what is buffered; calls its {@code onClose}. */
    public void removeSink(EventSink sink) {
        drain.removeSink(sink);
    }

    /** Delivers everything published so far to the sinks before returning. */
    public void flush() {
        drain.flush();
    }

    /** Events lost since the session started because the buffer was full. */
    public long lostEvents() {
        return buffer.lost();
    }

    /** Flushes, closes every sink and stops the drain thread. The global session cannot be closed. */
    @Override
    public void close() {
        if (this == GLOBAL) {
            flush();
            return;
        }
        drain.close();
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
