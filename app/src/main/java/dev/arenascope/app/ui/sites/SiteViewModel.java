package dev.arenascope.app.ui.sites;

/**
 * The Sites view's request state machine, apart from the view so that it can be driven without the FX
 * thread: when the view asks, which answer it shows, when it is settled, and whether a trace is small
 * enough to have its site analysis built ahead.
 *
 * <p>The states: a change to anything an answer depends on makes the view <em>dirty</em>; a dirty view
 * asks only while it is <em>active</em> (its tab showing), after its debounce. One request is <em>in
 * flight</em> at a time: a request made meanwhile is remembered (<em>ask again</em>) and asked once the
 * answer lands, so requests never pile up behind an analysis that cannot be stopped half-way. A request
 * that needs the session's shared analysis before it exists <em>waits for it</em> and is asked again
 * when it arrives. Each ask takes a serial; an answer is shown only if its serial is the newest and no
 * newer request waited for it. Selections the view publishes take serials of their own.
 *
 * <p>Not thread-safe: the view calls it on the FX thread, its tests on theirs.
 */
public final class SiteViewModel {
    /** What to do with an answer that came back. */
    public enum Landing {
        /** Show it: it answers the newest request. */
        SHOW,
        /** Drop it and ask again now: requests arrived while it was computed. */
        ASK_AGAIN,
        /** Drop it: a newer request was answered meanwhile (without a task: no trace, a bad threshold). */
        STALE
    }

    /** Bytes of the site analysis's index per event, the figure {@link #worthPrebuilding} budgets with. */
    public static final long INDEX_BYTES_PER_EVENT = 40;

    private long serial;
    private long selectSerial;
    private boolean inFlight;
    private boolean askAgain;
    private boolean waitingShared;
    private boolean dirty = true;
    private boolean active;

    /**
     * Something an answer depends on changed. Returns whether the view should (re)start its debounce:
     * only while active; a hidden view catches up when it is shown ({@link #setActive}).
     */
    public boolean changed() {
        dirty = true;
        return active;
    }

    /** The view's tab was shown or hidden; returns whether it should ask now (shown with changes pending). */
    public boolean setActive(boolean on) {
        active = on;
        return on && dirty;
    }

    public boolean active() {
        return active;
    }

    /**
     * The view is about to ask. Returns the request's serial, or -1 when an answer is in flight (the
     * request is remembered and asked when that answer lands). The view is clean from here on.
     */
    public long begin() {
        if (inFlight) {
            askAgain = true;
            return -1;
        }
        dirty = false;
        return ++serial;
    }

    /** The request begun needs the session's shared analysis, not built yet: asked again when it arrives. */
    public void waitForShared() {
        waitingShared = true;
    }

    /**
     * A shared analysis arrived; {@code fresher} when it replaces the one the shown answer came from (a
     * live session's grown trace). Returns whether the view should ask again.
     */
    public boolean sharedArrived(boolean fresher) {
        if (waitingShared || fresher) {
            waitingShared = false;
            return true;
        }
        return false;
    }

    /** The request begun went to the task runner. */
    public void submitted() {
        inFlight = true;
    }

    /** The answer (or failure, or cancellation) of the request with serial {@code my} came back. */
    public Landing land(long my) {
        inFlight = false;
        if (askAgain) {
            askAgain = false;
            return Landing.ASK_AGAIN;
        }
        return my == serial ? Landing.SHOW : Landing.STALE;
    }

    /**
     * Whether the view shows the answer to what was last asked of it, given whether its debounce is
     * running: nothing waits for the debounce, an answer, the shared analysis, or the view's showing.
     */
    public boolean settled(boolean debouncing) {
        return !debouncing && !inFlight && !askAgain && !waitingShared && !(dirty && active);
    }

    public boolean inFlight() {
        return inFlight;
    }

    public boolean waitingShared() {
        return waitingShared;
    }

    public boolean dirty() {
        return dirty;
    }

    /** A serial for a selection about to be published; only the newest one's result is published. */
    public long beginSelect() {
        return ++selectSerial;
    }

    /** Whether the selection with serial {@code my} is still the newest one asked. */
    public boolean selectCurrent(long my) {
        return my == selectSerial;
    }

    /**
     * Whether the site analysis of a trace of {@code events} is worth building ahead of the first
     * question: its index (about {@value #INDEX_BYTES_PER_EVENT} bytes an event) must take at most a
     * quarter of the heap still free ({@code maxHeap - usedHeap}); a larger one is built when asked for.
     */
    public static boolean worthPrebuilding(long events, long maxHeap, long usedHeap) {
        long free = Math.max(0, maxHeap - usedHeap);
        return events * INDEX_BYTES_PER_EVENT <= free / 4;
    }
}
