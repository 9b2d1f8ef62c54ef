package dev.arenascope.core.trace;

import java.util.Objects;

/**
 * A sink that passes every call on to another, unchanged; subclasses override what they watch (count
 * events, report progress, check for cancellation) and call {@code super} to pass it on. Thread-safety
 * is the wrapped sink's: calls arrive from one thread at a time, as {@link EventSink} says.
 */
public class ForwardingSink implements EventSink {
    /** Where every call goes. */
    protected final EventSink to;

    /** @throws NullPointerException when {@code to} is null */
    public ForwardingSink(EventSink to) {
        this.to = Objects.requireNonNull(to, "to");
    }

    @Override
    public void onAttach(SinkOwner owner) {
        to.onAttach(owner);
    }

    @Override
    public void onSession(SessionInfo info) {
        to.onSession(info);
    }

    @Override
    public void onMemory(MemoryInfo memory) {
        to.onMemory(memory);
    }

    @Override
    public void onString(int id, String value) {
        to.onString(id, value);
    }

    @Override
    public void onThread(int id, String name) {
        to.onThread(id, name);
    }

    @Override
    public void onFrame(StackFrame frame) {
        to.onFrame(frame);
    }

    @Override
    public void onStack(StackNode node) {
        to.onStack(node);
    }

    @Override
    public void onEvents(EventBatch batch) {
        to.onEvents(batch);
    }

    @Override
    public void onLoss(long count) {
        to.onLoss(count);
    }

    @Override
    public void onClose() {
        to.onClose();
    }
}
