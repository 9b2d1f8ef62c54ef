package dev.arenascope.core.live;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MetaRecord;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.SinkAttachment;
import dev.arenascope.core.trace.SinkOwner;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.StackNode;
import dev.arenascope.core.trace.codec.ChunkCodec;

/**
 * Streams a session to a running ArenaScope ({@link LiveReceiver}) over TCP: attach it to a
 * {@link dev.arenascope.core.record.Session} with {@code addSink}.
 *
 * <p><b>Never blocks the recording side.</b> {@link #onEvents} copies the batch into a bounded queue
 * ({@link Options#queueEvents} events, 64 bytes of heap each while queued) and returns; one sender thread encodes chunks
 * ({@link ChunkCodec}) and writes them. When the link falls behind or is down and the queue is full,
 * new events are <em>dropped and counted</em> (this sender does not spill to disk): the count is
 * reported to the receiver on the next chunk that gets through as a loss record (the receiver calls
 * {@code onLoss} and shows it in its per-connection stats), and here in {@link #stats()}. Events written
 * to a link that then fails before the receiver acknowledged them are counted as lost the same way.
 *
 * <p><b>Reconnects.</b> While the receiver is unreachable the sender retries with a growing delay (up
 * to {@link Options#maxReconnectDelay}); on each new connection it replays the session's metadata
 * first, so the receiver sees a complete stream. A receiver that refuses the token is retried too, at
 * the longest delay.
 *
 * <p>{@link #onClose()} (or {@link #close()}) sends what is queued, says goodbye and waits at most
 * {@link Options#closeTimeout} for that; what is still queued then (no receiver, a refused token) is
 * counted in {@link Stats#droppedEvents}. {@link #close()} while attached to a session asks the session
 * to deliver what it buffers first ({@link SinkOwner}); events handed after close are counted as dropped.
 * Every event handed to the sender ends up in exactly one of {@link Stats#deliveredEvents} and
 * {@link Stats#droppedEvents} once it closed. Thread-safe for one {@link EventSink} caller (the session's
 * drain) plus any number of {@link #stats()} readers.
 *
 * <p>This class keeps the queue and the counts of the whole session; one connection, hello to goodbye with
 * what it wrote and what the receiver acknowledged, is a {@link SenderLink} (as a receiver's is a
 * {@link LiveConnection}).
 */
public final class LiveSender implements EventSink, AutoCloseable {
    private static final int FRAME_EVENTS = 1 << 16;
    private static final EventBatch EMPTY = new EventBatch(16);

    /**
     * @param host              the receiver's host
     * @param port              the receiver's port
     * @param token             the receiver's token, or null / empty for none
     * @param queueEvents       events held while the link is behind before new ones are dropped
     * @param connectTimeout    how long one connection attempt may take
     * @param maxReconnectDelay the longest wait between attempts
     * @param closeTimeout      how long {@link #onClose()} waits for the queue to drain
     */
    public record Options(String host, int port, String token, int queueEvents, Duration connectTimeout,
                          Duration maxReconnectDelay, Duration closeTimeout) {
        /** @throws IllegalArgumentException on a port outside 0..65535 or a queue of less than one event */
        public Options {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
            if (queueEvents < 1) {
                throw new IllegalArgumentException("queueEvents must be positive: " + queueEvents);
            }
        }

        /**
         * Defaults: 1 Mi events queued (at most about 64 MiB of heap while the link is behind), 1 s
         * connect timeout, retries up to every 2 s, 5 s to close.
         */
        public static Options of(String host, int port, String token) {
            return new Options(host, port, token, 1 << 20, Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(5));
        }

        /** These options with a queue of {@code n} events. */
        public Options withQueueEvents(int n) {
            return new Options(host, port, token, n, connectTimeout, maxReconnectDelay, closeTimeout);
        }

        /** These options with {@code d} as the longest wait between connection attempts. */
        public Options withMaxReconnectDelay(Duration d) {
            return new Options(host, port, token, queueEvents, connectTimeout, d, closeTimeout);
        }

        /** These options with {@code d} as how long closing waits for the queue to drain. */
        public Options withCloseTimeout(Duration d) {
            return new Options(host, port, token, queueEvents, connectTimeout, maxReconnectDelay, d);
        }
    }

    /**
     * What the sender has done so far.
     *
     * @param connected      whether a receiver is connected now
     * @param connections    connections made (1 after the first, more after reconnects)
     * @param deliveredEvents events the receivers acknowledged
     * @param queuedEvents   events waiting in the queue
     * @param droppedEvents  events this sender dropped (queue full, link down) or lost unacknowledged on a failed link
     * @param upstreamLost   events the session itself lost before they reached this sink
     * @param lastError      the last connection problem, or null
     */
    public record Stats(boolean connected, int connections, long deliveredEvents, long queuedEvents, long droppedEvents,
                        long upstreamLost, String lastError) {}

    private final Options options;
    private final long senderId = ThreadLocalRandom.current().nextLong();
    private final ConcurrentLinkedQueue<EventBatch> queue = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<EventBatch> spare = new ConcurrentLinkedQueue<>();
    private final AtomicLong queued = new AtomicLong();
    private final AtomicLong pendingLoss = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong upstreamLost = new AtomicLong();
    private final AtomicLong delivered = new AtomicLong();
    private final List<MetaRecord> meta = new ArrayList<>();
    private volatile SessionInfo session;
    private volatile boolean closing;
    private volatile boolean abandoned;
    private volatile boolean connected;
    private volatile int connections;
    private volatile String lastError;
    private volatile boolean refused;
    /** Why the receiver said it could not store the session, once it did; the reason events were lost, whatever came after. */
    private volatile String notStoredReason;
    private final SinkAttachment attachment = new SinkAttachment();
    private final AtomicLong handed = new AtomicLong();
    private final AtomicInteger attempts = new AtomicInteger();
    private Thread thread;

    // sender-thread state
    private final ChunkCodec codec = new ChunkCodec();
    /** The connection now, or null; volatile so that closing can cut a stalled one from another thread. */
    private volatile SenderLink link;

    /**
     * A sender that connects in the background once attached ({@code session.addSink(sender)}); the caller
     * owns it and closes it, before or after the session.
     *
     * @param options where to and how
     */
    public LiveSender(Options options) {
        this.options = options;
    }

    /**
     * Streams {@code session} to the ArenaScope listening at {@code hostPort} ({@code host:port}, or
     * just {@code host} for {@link LiveProtocol#DEFAULT_PORT}) and returns the attached sender. The
     * allocating code is unaffected whether or not anything listens there.
     *
     * <pre>{@code
     * LiveSender live = LiveSender.stream(Session.global(), "127.0.0.1:7766", null);
     * ... // run the workload; the window shows it as it happens
     * Session.global().removeSink(live);   // sends what is queued, says goodbye
     * }</pre>
     *
     * @throws IllegalArgumentException when {@code hostPort} is not {@code host[:port]}
     */
    public static LiveSender stream(Session session, String hostPort, String token) {
        String host = hostPort;
        int port = LiveProtocol.DEFAULT_PORT;
        int colon = hostPort.lastIndexOf(':');
        if (colon >= 0 && hostPort.indexOf(']') < colon) {
            host = hostPort.substring(0, colon);
            try {
                port = Integer.parseInt(hostPort.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not host:port: '" + hostPort + "'");
            }
        }
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("no host in '" + hostPort + "'");
        }
        LiveSender sender = new LiveSender(Options.of(host, port, token));
        session.addSink(sender);
        return sender;
    }

    /** The receiver this sender streams to, as {@code host:port}. */
    public String target() {
        return options.host() + ":" + options.port();
    }

    /** Events handed to this sender so far (delivered, queued or dropped). */
    public long handedEvents() {
        return handed.get();
    }

    /** Connection attempts so far, successful or not. */
    public int connectAttempts() {
        return attempts.get();
    }

    /**
     * Whether the last connection attempt was refused by the receiver (a wrong token, another version),
     * or a receiver said it cannot store the session ({@link LiveProtocol#RECORD_NOT_STORED}).
     */
    public boolean refused() {
        return refused || notStoredReason != null;
    }

    /** A snapshot of what the sender has done; thread-safe. */
    public Stats stats() {
        return new Stats(connected, connections, delivered.get(), queued.get(), dropped.get(), upstreamLost.get(),
                notStoredReason != null ? notStoredReason : lastError);
    }

    // ---------------------------------------------------------------- EventSink (the drain thread)

    @Override
    public void onAttach(SinkOwner owner) {
        attachment.attach(owner);
    }

    @Override
    public synchronized void onSession(SessionInfo info) {
        session = info;
        if (thread == null) {
            thread = Thread.ofPlatform().daemon().name("arenascope-live-sender").start(this::run);
        }
    }

    @Override
    public void onMemory(MemoryInfo memory) {
        addMeta(new MetaRecord.Memory(memory));
    }

    @Override
    public void onString(int id, String value) {
        addMeta(new MetaRecord.Str(id, value));
    }

    @Override
    public void onThread(int id, String name) {
        addMeta(new MetaRecord.Thread(id, name));
    }

    @Override
    public void onFrame(StackFrame frame) {
        addMeta(new MetaRecord.Frame(frame));
    }

    @Override
    public void onStack(StackNode node) {
        addMeta(new MetaRecord.Stack(node));
    }

    private void addMeta(MetaRecord r) {
        synchronized (meta) {
            meta.add(r);
        }
    }

    /**
     * Copies the batch into the queue; what does not fit (the queue holds {@link Options#queueEvents})
     * is dropped and counted. Never blocks.
     */
    @Override
    public void onEvents(EventBatch batch) {
        int n = batch.size();
        if (n == 0) {
            return;
        }
        handed.addAndGet(n);
        long room = closing ? 0 : options.queueEvents() - queued.get();
        int take = (int) Math.max(0, Math.min(n, room));
        if (take < n) {
            dropped.addAndGet(n - take);
            pendingLoss.addAndGet(n - take);
        }
        if (take == 0) {
            return;
        }
        EventBatch copy = spare.poll();
        if (copy == null) {
            copy = new EventBatch(Math.max(1024, take));
        }
        for (int i = 0; i < take; i++) {
            copy.addFrom(batch, i);
        }
        queued.addAndGet(take);
        queue.add(copy);
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    @Override
    public void onLoss(long count) {
        upstreamLost.addAndGet(count);
        pendingLoss.addAndGet(count);
    }

    /** Sends what is queued, says goodbye, and stops (waiting at most {@link Options#closeTimeout}). */
    @Override
    public void onClose() {
        Thread t;
        synchronized (this) {
            closing = true;
            t = thread;
        }
        if (t == null) {
            return;
        }
        LockSupport.unpark(t);
        try {
            t.join(options.closeTimeout().toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (t.isAlive()) {
            abandoned = true;
            SenderLink l = link;
            if (l != null) {
                l.close(); // unblocks a write stuck on a stalled receiver
            }
            LockSupport.unpark(t);
            try {
                t.join(1000); // it now counts what it could not send and ends
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Closes the sender: when still attached to a session, the session first delivers what it buffers and
     * detaches it ({@link SinkOwner#detach()}); then as {@link #onClose()}. Safe in any order with the
     * session's close, and more than once.
     */
    @Override
    public void close() {
        attachment.detach(); // delivers, then calls onClose
        onClose();
    }

    // ---------------------------------------------------------------- the sender thread

    private void run() {
        long delayMs = 50;
        boolean triedSinceClosing = false;
        while (true) {
            if (abandoned) {
                if (link != null) {
                    countUnacked();
                }
                dropQueue();
                break;
            }
            if (link == null) {
                if (closing && (triedSinceClosing || (queue.isEmpty() && pendingLoss.get() == 0))) {
                    dropQueue();
                    break;
                }
                triedSinceClosing = closing;
                if (!connect()) {
                    long max = options.maxReconnectDelay().toMillis();
                    // a refusal will not change by itself soon: retry it at the longest delay
                    delayMs = refused ? max : delayMs;
                    waitBeforeRetry(delayMs);
                    delayMs = Math.min(delayMs * 2, max);
                    continue;
                }
                delayMs = 50;
            }
            SenderLink l = link;
            try {
                l.readAcks();
                EventBatch b = queue.poll();
                List<MetaRecord> newMeta = newMeta(l.metaSent());
                long loss = pendingLoss.getAndSet(0);
                if (loss > 0) {
                    newMeta.add(new MetaRecord.Loss(loss));
                }
                if (b == null && newMeta.isEmpty()) {
                    l.flush();
                    if (closing) {
                        goodbye();
                        break;
                    }
                    l.idleWait();
                    continue;
                }
                int n = b == null ? 0 : b.size();
                int from = 0;
                try {
                    do {
                        int to = Math.min(n, from + FRAME_EVENTS);
                        l.writeChunk(codec, from == 0 ? newMeta : List.of(), b == null ? EMPTY : b, from, to);
                        from = to;
                    } while (from < n);
                    l.carriedMeta(newMeta.size() - (loss > 0 ? 1 : 0));
                    if (queue.isEmpty()) {
                        l.flush();
                    }
                } catch (IOException e) {
                    // the loss record and the events not yet written did not get through: count them
                    pendingLoss.addAndGet(loss + (n - from));
                    dropped.addAndGet(n - from);
                    throw e;
                } finally {
                    if (b != null) {
                        queued.addAndGet(-n);
                        b.clear();
                        spare.offer(b);
                    }
                }
            } catch (IOException e) {
                linkFailed(e);
            }
        }
        closeLink();
        codec.close();
    }

    /**
     * Sleeps {@code delayMs} before the next attempt, or until closing starts. New batches unpark this
     * thread: the wait resumes until its deadline instead of retrying at once (which made a sender to a
     * refusing receiver reconnect hundreds of times a second).
     */
    private void waitBeforeRetry(long delayMs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMs);
        for (long left; !closing && !abandoned && (left = deadline - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(left);
        }
    }

    private List<MetaRecord> newMeta(int metaSent) {
        synchronized (meta) {
            return new ArrayList<>(meta.subList(metaSent, meta.size()));
        }
    }

    private boolean connect() {
        attempts.incrementAndGet();
        int ordinal = connections + 1;
        LiveProtocol.Hello hello = new LiveProtocol.Hello(LiveProtocol.VERSION, options.token(), senderId, ordinal,
                ProcessHandle.current().pid(), session);
        try {
            link = SenderLink.open(options.host(), options.port(), options.connectTimeout(), hello, target(), delivered::addAndGet);
        } catch (SenderLink.RefusedException e) {
            refused = true;
            lastError = e.getMessage();
            return false;
        } catch (IOException | RuntimeException e) {
            lastError = "cannot reach " + target() + ": " + e.getMessage();
            return false;
        }
        connections = ordinal;
        connected = true;
        refused = false;
        lastError = null;
        return true;
    }

    private void goodbye() {
        try {
            link.goodbye(options.closeTimeout());
            countUnacked();
        } catch (SenderLink.NotStoredException e) {
            countUnacked();
            refused = true;
            notStoredReason = e.getMessage();
            lastError = e.getMessage();
        } catch (IOException e) {
            countUnacked();
            lastError = "goodbye to " + target() + " failed: " + e.getMessage();
        }
    }

    private void linkFailed(IOException e) {
        if (e instanceof SenderLink.NotStoredException) {
            // not a link that failed: a receiver that cannot keep what it is sent; like a refusal, tried
            // again only at the longest delay, and said as the reason events were lost
            refused = true;
            notStoredReason = e.getMessage();
            lastError = e.getMessage();
            countUnacked();
            closeLink();
            return;
        }
        lastError = "link to " + target() + " failed: " + e.getMessage();
        countUnacked();
        closeLink();
    }

    /** Events written on the link that the receiver never acknowledged are counted as lost. */
    private void countUnacked() {
        long unacked = link.takeUnacknowledged();
        if (unacked > 0) {
            dropped.addAndGet(unacked);
            pendingLoss.addAndGet(unacked);
        }
    }

    private void dropQueue() {
        for (EventBatch b; (b = queue.poll()) != null; ) {
            dropped.addAndGet(b.size());
            queued.addAndGet(-b.size());
        }
    }

    private void closeLink() {
        connected = false;
        SenderLink l = link;
        link = null;
        if (l != null) {
            l.close();
        }
    }
}
