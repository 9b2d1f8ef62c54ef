package dev.arenascope.core.trace.torch;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.SiteTable;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.StackNode;

/**
 * Runs a sink on a second thread, so that what the sink does with each batch (a store's chunk
 * encoding and indexes, about half of the emission's work) runs beside the emitter instead of after
 * it on the import's thread.
 *
 * <p>Order: every call reaches the sink in the order it was made, all from the one worker thread
 * (the {@link EventSink} contract: one thread at a time). Metadata calls (strings, threads, frames,
 * stack nodes, memories) are gathered on the caller's side and handed over with the next batch, so a
 * hand-off costs one queue operation per batch, not per string.
 *
 * <p>Back-pressure and memory: at most {@value #IN_FLIGHT} batches wait for the worker; the caller
 * blocks while they do, so what is in flight is bounded by a few batches and their metadata.
 *
 * <p>Errors: an exception the sink throws (a {@link CancellationException} from a progress callback,
 * an {@link OutOfMemoryError}, a bug) stops the worker; the caller's next call, or {@link #onClose},
 * throws that same exception on the caller's thread, and nothing more reaches the sink. Cancel: a
 * caller interrupted while it waits for the worker stops the worker and throws a
 * {@link CancellationException} with its interrupt status set again. {@link #onClose} waits until the
 * sink has seen everything, so when it returns whatever the sink built is complete and visible to
 * the caller; {@link #abandon} (for a caller that fails part way) stops the worker without closing
 * the sink. One caller thread; not for sharing.
 */
final class HandOffSink implements EventSink {
    /** Batches that may wait for the worker at once. */
    static final int IN_FLIGHT = 3;

    /** What the caller hands over in one queue operation: metadata calls in order, then a batch (or the end). */
    private record Packet(List<Call> calls, EventBatch batch, boolean close) {}

    /** One sink call waiting to be made. */
    private sealed interface Call {
        void to(EventSink s);
    }

    private record Session(SessionInfo info) implements Call {
        public void to(EventSink s) {
            s.onSession(info);
        }
    }

    private record Memory(MemoryInfo info) implements Call {
        public void to(EventSink s) {
            s.onMemory(info);
        }
    }

    private record Str(int id, String value) implements Call {
        public void to(EventSink s) {
            s.onString(id, value);
        }
    }

    private record Thr(int id, String name) implements Call {
        public void to(EventSink s) {
            s.onThread(id, name);
        }
    }

    private record Frame(StackFrame frame) implements Call {
        public void to(EventSink s) {
            s.onFrame(frame);
        }
    }

    private record Node(StackNode node) implements Call {
        public void to(EventSink s) {
            s.onStack(node);
        }
    }

    private record Loss(long count) implements Call {
        public void to(EventSink s) {
            s.onLoss(count);
        }
    }

    private final EventSink out;
    private final String name;
    private final BlockingQueue<Packet> queue = new ArrayBlockingQueue<>(IN_FLIGHT);
    private final ConcurrentLinkedQueue<EventBatch> free = new ConcurrentLinkedQueue<>();
    private final int batchCapacity;
    private List<Call> calls = new ArrayList<>();
    private Thread worker;
    private volatile Throwable failure;
    private boolean closed;

    /**
     * @param out           the sink to run on the worker thread
     * @param name          names the worker thread (the file being imported)
     * @param batchCapacity the capacity of the empty batches {@link #handOver} gives back
     */
    HandOffSink(EventSink out, String name, int batchCapacity) {
        this.out = out;
        this.name = name;
        this.batchCapacity = batchCapacity;
    }

    @Override
    public void onSession(SessionInfo info) {
        call(new Session(info));
    }

    @Override
    public void onMemory(MemoryInfo memory) {
        call(new Memory(memory));
    }

    @Override
    public void onString(int id, String value) {
        call(new Str(id, value));
    }

    @Override
    public void onThread(int id, String threadName) {
        call(new Thr(id, threadName));
    }

    @Override
    public void onFrame(StackFrame frame) {
        call(new Frame(frame));
    }

    @Override
    public void onStack(StackNode node) {
        call(new Node(node));
    }

    /** The sink's, asked on the caller's thread (the sink's table is thread-safe). */
    @Override
    public SiteTable sharedSites() {
        return out.sharedSites();
    }

    @Override
    public void onLoss(long count) {
        call(new Loss(count));
    }

    /** Copies {@code batch} (valid during the call only) and hands the copy over; see {@link #handOver} to avoid the copy. */
    @Override
    public void onEvents(EventBatch batch) {
        EventBatch copy = emptyBatch();
        copy.addRange(batch, 0, batch.size());
        put(new Packet(takeCalls(), copy, false));
    }

    /**
     * Hands {@code full} over to the worker (the caller must not touch it again) with the metadata
     * calls made since the last hand-off, and returns an empty batch to fill next.
     */
    EventBatch handOver(EventBatch full) {
        put(new Packet(takeCalls(), full, false));
        return emptyBatch();
    }

    /** Hands over what is left, waits until the sink has seen it and its {@code onClose}, and rethrows the sink's failure. */
    @Override
    public void onClose() {
        if (closed) {
            return;
        }
        put(new Packet(takeCalls(), null, true));
        closed = true;
        if (worker != null) {
            try {
                worker.join();
            } catch (InterruptedException e) {
                worker.interrupt();
                throw cancelled();
            }
        }
        rethrow();
    }

    /** Stops the worker without closing the sink (the caller failed part way); does nothing after {@link #onClose}. */
    void abandon() {
        if (closed) {
            return;
        }
        closed = true;
        if (worker != null) {
            worker.interrupt();
        }
    }

    private void call(Call c) {
        if (closed) {
            throw new IllegalStateException("a call after the hand-off was closed");
        }
        calls.add(c);
    }

    private List<Call> takeCalls() {
        List<Call> c = calls;
        calls = new ArrayList<>();
        return c;
    }

    private EventBatch emptyBatch() {
        EventBatch b = free.poll();
        return b != null ? b : new EventBatch(batchCapacity);
    }

    private void put(Packet p) {
        if (closed) {
            throw new IllegalStateException("a call after the hand-off was closed");
        }
        rethrow();
        if (worker == null) {
            worker = Thread.ofPlatform().name("arenascope-import-sink " + name).daemon().start(this::work);
        }
        try {
            while (!queue.offer(p, 100, TimeUnit.MILLISECONDS)) {
                rethrow(); // the worker stopped at a failure while the queue was full
            }
        } catch (InterruptedException e) {
            closed = true;
            worker.interrupt();
            throw cancelled();
        }
    }

    private CancellationException cancelled() {
        Thread.currentThread().interrupt();
        return new CancellationException(name + ": import cancelled while its events were being stored");
    }

    private void rethrow() {
        Throwable t = failure;
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        if (t != null) {
            throw new IllegalStateException(t); // not reached: sinks throw no checked exceptions
        }
    }

    /** The worker: makes the calls in order until the close packet, or stops at the sink's first failure or an interrupt. */
    private void work() {
        try {
            while (true) {
                Packet p = queue.take();
                for (Call c : p.calls()) {
                    c.to(out);
                }
                if (p.batch() != null) {
                    out.onEvents(p.batch());
                    p.batch().clear();
                    free.offer(p.batch());
                }
                if (p.close()) {
                    out.onClose();
                    return;
                }
            }
        } catch (InterruptedException e) {
            // abandoned by the caller: the sink is left as it is, unclosed
        } catch (Throwable t) {
            failure = t; // the caller sees it at its next call; nothing more is taken from the queue
        }
    }
}
