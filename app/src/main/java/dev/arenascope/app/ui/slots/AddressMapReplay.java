package dev.arenascope.app.ui.slots;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

import dev.arenascope.app.ui.events.EventRow;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.TraceView;

/**
 * One memory's blocks replayed event by event, movable to any event index at a cost proportional to
 * the move, not to the index: the state is kept between moves, so a step forward applies only the
 * events stepped over; a step back undoes the memory's events stepped back over (an undo record is
 * kept for the last {@value #UNDO} events of the memory applied); a longer move back, or a jump, starts
 * from the nearest earlier <em>checkpoint</em>, a copy of the state taken as the replay first passes
 * it. Checkpoints are at least {@value #MIN_SPACING} events apart and at least
 * {@value #SPACING_PER_BLOCK} events per block held at the time, so such a move costs
 * O({@value #MIN_SPACING} + {@value #SPACING_PER_BLOCK} · blocks) events, and the checkpoints together
 * hold about one block reference per {@value #SPACING_PER_BLOCK} events replayed (blocks are immutable
 * and shared with the state). The first move to an index costs the events up to it once; a trace that
 * grows (a live session) keeps every checkpoint, since events are only appended.
 *
 * <p>{@link #prepare} builds the checkpoints ahead, in the background, so that the first move to an
 * index is as cheap as a later one.
 *
 * <p>Thread-safety: {@link #moveTo} is synchronized (a cancelled background move may still be running
 * when the next begins); {@link #prepare} runs beside moves; the {@link AddressMap.Snapshot}s it returns are immutable. Cancellation leaves
 * the state at the last whole event applied, ready for the next move.
 */
public final class AddressMapReplay {
    /** The fewest events between two checkpoints. */
    static final long MIN_SPACING = 4096;
    /** Events between two checkpoints per block held at the first of them. */
    static final long SPACING_PER_BLOCK = 8;
    /** The memory's events applied last whose undo is kept. */
    static final int UNDO = 4096;
    /** The block references {@link #prepare}'s checkpoints may hold in all (about 4 MB of arrays, and the blocks they keep). */
    static final long BACKGROUND_BLOCK_REFS = 1L << 20;

    private final TraceView trace;
    private final MemoryInfo memory;
    private final TreeMap<Long, Checkpoint> checkpoints = new TreeMap<>();
    private State state = new State();
    /** The end of the last checkpoint: the replay has been at least this far. */
    private long frontier;
    /** Undo records of the memory's events applied last to {@link #state}, oldest first, contiguous. */
    private final ArrayDeque<Undo> undo = new ArrayDeque<>();

    /**
     * How to take back the memory's event {@code index}: the blocks at its address before it (and those
     * a pointer restore or reset removed), and the state's last block and effective time just after it.
     */
    private record Undo(long index, Event event, AddressMap.Block liveBefore, AddressMap.Block reservedBefore,
                        AddressMap.Block[] removed, AddressMap.Block lastBlockAfter, long effAfter) {}

    /** The replay's state: everything {@link AddressMap.Snapshot} is built from. */
    static final class State {
        final TreeMap<Long, AddressMap.Block> live = new TreeMap<>();
        final TreeMap<Long, AddressMap.Block> reserved = new TreeMap<>();
        /** Events before this index are applied. */
        long end;
        /** The latest event time among them (TraceView's effective time), {@code Long.MIN_VALUE} when none. */
        long eff = Long.MIN_VALUE;
        long lastEvent = -1;
        Event last;
        AddressMap.Block lastBlock;

        State copy() {
            State s = new State();
            s.live.putAll(live);
            s.reserved.putAll(reserved);
            s.end = end;
            s.eff = eff;
            s.lastEvent = lastEvent;
            s.last = last;
            s.lastBlock = lastBlock;
            return s;
        }
    }

    /** A state kept as arrays (blocks are shared, not copied). */
    private record Checkpoint(AddressMap.Block[] live, AddressMap.Block[] reserved, long end, long eff, long lastEvent, Event last,
                              AddressMap.Block lastBlock) {
        static Checkpoint of(State s) {
            return new Checkpoint(s.live.values().toArray(AddressMap.Block[]::new), s.reserved.values().toArray(AddressMap.Block[]::new),
                    s.end, s.eff, s.lastEvent, s.last, s.lastBlock);
        }

        State restore() {
            State s = new State();
            for (AddressMap.Block b : live) {
                s.live.put(b.start(), b);
            }
            for (AddressMap.Block b : reserved) {
                s.reserved.put(b.start(), b);
            }
            s.end = end;
            s.eff = eff;
            s.lastEvent = lastEvent;
            s.last = last;
            s.lastBlock = lastBlock;
            return s;
        }
    }

    private final long minSpacing;
    private final long perBlock;
    private final long maxBlockRefs;
    /** A {@link #prepare} is running. */
    private boolean building;
    /** Block references the checkpoints hold. */
    private long blockRefs;

    public AddressMapReplay(TraceView trace, MemoryInfo memory) {
        this(trace, memory, MIN_SPACING, SPACING_PER_BLOCK, BACKGROUND_BLOCK_REFS);
    }

    /** A replay with other checkpoint spacings (tests: many checkpoints on a small trace). */
    AddressMapReplay(TraceView trace, MemoryInfo memory, long minSpacing, long perBlock) {
        this(trace, memory, minSpacing, perBlock, BACKGROUND_BLOCK_REFS);
    }

    /** ... and another bound on the background build's checkpoints (tests). */
    AddressMapReplay(TraceView trace, MemoryInfo memory, long minSpacing, long perBlock, long maxBlockRefs) {
        this.trace = trace;
        this.memory = memory;
        this.minSpacing = Math.max(1, minSpacing);
        this.perBlock = Math.max(0, perBlock);
        this.maxBlockRefs = Math.max(0, maxBlockRefs);
    }

    public TraceView trace() {
        return trace;
    }

    public MemoryInfo memory() {
        return memory;
    }

    /** Checkpoints kept (for tests and the bench). */
    public synchronized int checkpoints() {
        return checkpoints.size();
    }

    /**
     * The map after the memory's events before index {@code end} (clamped to the trace).
     *
     * @param atNs   the instant to report (the cursor's), or -1 for the effective time of the last event before {@code end}
     * @param cancel polled every few thousand events; true stops the move with a {@link CancellationException}
     */
    public synchronized AddressMap.Snapshot moveTo(long end, long atNs, BooleanSupplier cancel) {
        end = Math.max(0, Math.min(end, trace.eventCount()));
        // the background build is on its way past 'end': wait for its checkpoint rather than replay the
        // same events here as well (the wait lets it publish; a step or a short move never waits)
        while (building && frontier < end && end - nearestStart(end) > minSpacing) {
            if (cancel.getAsBoolean()) {
                throw new CancellationException();
            }
            try {
                wait(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CancellationException("interrupted");
            }
        }
        if (end < state.end && undoTo(end)) {
            return AddressMap.snapshot(trace, memory, state, atNs);
        }
        if (end < state.end || checkpointBetween(state.end, end)) {
            Map.Entry<Long, Checkpoint> c = checkpoints.floorEntry(end);
            state = c == null ? new State() : c.getValue().restore();
            undo.clear();
        }
        State s = state;
        for (long i = s.end; i < end; i++) {
            if ((i & 0xfff) == 0 && cancel.getAsBoolean()) {
                throw new CancellationException();
            }
            apply(s, trace.event(i), i, true);
            s.end = i + 1;
            if (s.end >= frontier + spacing(s)) {
                keep(Checkpoint.of(s));
                frontier = s.end;
            }
        }
        return AddressMap.snapshot(trace, memory, s, atNs);
    }

    /**
     * Takes the state back to just after the memory's event {@code end - 1} when that event's undo is
     * kept (a step back lands there): undoes the memory's events after it, newest first. False, and
     * nothing changed, otherwise.
     */
    private boolean undoTo(long end) {
        Undo target = null;
        for (Iterator<Undo> it = undo.descendingIterator(); it.hasNext(); ) {
            Undo u = it.next();
            if (u.index() < end - 1) {
                break;
            }
            if (u.index() == end - 1) {
                target = u;
                break;
            }
        }
        if (target == null) {
            return false;
        }
        State s = state;
        while (undo.peekLast().index() > target.index()) {
            Undo u = undo.removeLast();
            long a = u.event().a();
            if (u.liveBefore() == null) {
                s.live.remove(a);
            } else {
                s.live.put(a, u.liveBefore());
            }
            if (u.reservedBefore() == null) {
                s.reserved.remove(a);
            } else {
                s.reserved.put(a, u.reservedBefore());
            }
            if (u.removed() != null) {
                for (AddressMap.Block b : u.removed()) {
                    s.live.put(b.start(), b);
                }
            }
        }
        s.end = end;
        s.eff = target.effAfter();
        s.lastEvent = target.index();
        s.last = target.event();
        s.lastBlock = target.lastBlockAfter();
        return true;
    }

    /** Where a move to {@code end} would replay from: the kept state or the nearest checkpoint at or before it. */
    private long nearestStart(long end) {
        Long k = checkpoints.floorKey(end);
        long c = k == null ? 0 : k;
        return state.end <= end ? Math.max(state.end, c) : c;
    }

    /** Keeps a checkpoint (caller holds the lock). */
    private void keep(Checkpoint c) {
        if (checkpoints.put(c.end(), c) == null) {
            blockRefs += c.live().length + c.reserved().length;
        }
    }

    /**
     * Replays the trace up to its end ahead of any move, keeping checkpoints as a move would, so that the
     * first move to any index costs at most a checkpoint's spacing of events (the window starts this off
     * the FX thread when a trace opens). Runs in a state of its own, outside the lock but to publish each
     * checkpoint, so moves go on meanwhile (one that would replay past the build's frontier waits for it
     * instead of replaying the same events). Starts from the latest checkpoint; a second call while one
     * runs returns at once. Memory: stops, its checkpoints kept, once the checkpoints hold {@code
     * maxBlockRefs} block references ({@value #BACKGROUND_BLOCK_REFS} by default, a few tens of MB at
     * most; beyond it the first move there replays from the last checkpoint, as without the build).
     *
     * @param cancel polled every few thousand events; true stops the build (checkpoints kept, no error)
     * @return whether it reached the end of the trace as it was when it started
     */
    public boolean prepare(BooleanSupplier cancel) {
        State s;
        long last;
        long n = trace.eventCount();
        synchronized (this) {
            if (building) {
                return false;
            }
            building = true;
            Map.Entry<Long, Checkpoint> c = checkpoints.lastEntry();
            s = c == null ? new State() : c.getValue().restore();
            last = s.end;
        }
        try {
            for (long i = s.end; i < n; i++) {
                if ((i & 0xfff) == 0 && cancel.getAsBoolean()) {
                    return false;
                }
                apply(s, trace.event(i), i, false);
                s.end = i + 1;
                if (s.end >= last + spacing(s)) {
                    Checkpoint c = Checkpoint.of(s);
                    synchronized (this) {
                        if (blockRefs + c.live().length + c.reserved().length > maxBlockRefs) {
                            return false;
                        }
                        keep(c);
                        frontier = Math.max(frontier, s.end);
                        notifyAll();
                    }
                    last = s.end;
                }
            }
            return true;
        } finally {
            synchronized (this) {
                building = false;
                notifyAll();
            }
        }
    }

    /** Whether a checkpoint after {@code from} and at or before {@code to} is nearer than replaying from {@code from}. */
    private boolean checkpointBetween(long from, long to) {
        Long k = checkpoints.floorKey(to);
        return k != null && k > from;
    }

    private long spacing(State s) {
        return Math.max(minSpacing, perBlock * (s.live.size() + s.reserved.size()));
    }

    /** Applies event {@code e} (index {@code i}) to {@code s}; {@code keepUndo}: record its undo (the moved state only). */
    private void apply(State s, Event e, long i, boolean keepUndo) {
        s.eff = Math.max(s.eff, e.timeNs());
        if (e.memory() != memory.id()) {
            return;
        }
        s.lastEvent = i;
        s.last = e;
        TreeMap<Long, AddressMap.Block> live = s.live;
        AddressMap.Block before = live.get(e.a());
        AddressMap.Block reservedBefore = s.reserved.get(e.a());
        AddressMap.Block[] removed = null;
        switch (e.kind()) {
            case ALLOC -> {
                AddressMap.State st = memory.kind() == MemoryKind.ARENA
                        ? (e.has(Event.FLAG_BACKWARD) ? AddressMap.State.BACKWARD : AddressMap.State.FORWARD) : AddressMap.State.IN_USE;
                long since = EventRow.beforeRecording(trace, e) ? AddressMap.Block.BEFORE_RECORDING : e.timeNs();
                live.put(e.a(), new AddressMap.Block(e.a(), e.b(), st, label(e), since, e.b(), -1, e.site()));
            }
            case FREE_REQUESTED -> {
                if (before != null && before.state() != AddressMap.State.HELD) {
                    live.put(e.a(), before.pendingFree(e.timeNs()));
                }
            }
            case FREE, POOL_RELEASE, TENSOR_DEAD -> live.remove(e.a());
            case POOL_REQUEST -> live.put(e.a(), new AddressMap.Block(e.a(), e.b(), AddressMap.State.IN_USE, "bin " + e.ref(), e.timeNs(),
                    e.c() > 0 && e.c() <= e.b() ? e.c() : e.b()));
            case POOL_HOLD -> live.put(e.a(), new AddressMap.Block(e.a(), e.b(), AddressMap.State.HELD, "bin " + e.ref(), e.timeNs()));
            case RESERVE -> s.reserved.put(e.a(), new AddressMap.Block(e.a(), e.b(), AddressMap.State.RESERVED, "segment", e.timeNs()));
            case UNRESERVE -> s.reserved.remove(e.a());
            case POINTER_RESTORE -> {
                boolean bwd = e.has(Event.FLAG_BACKWARD);
                List<AddressMap.Block> gone = new ArrayList<>();
                Iterator<AddressMap.Block> it = live.values().iterator();
                while (it.hasNext()) {
                    AddressMap.Block b = it.next();
                    if (bwd ? b.state() == AddressMap.State.BACKWARD && b.start() < e.a()
                            : b.state() == AddressMap.State.FORWARD && b.start() >= e.a()) {
                        gone.add(b);
                        it.remove();
                    }
                }
                removed = gone.toArray(AddressMap.Block[]::new);
            }
            case RESET, MEMORY_CLOSED -> {
                removed = live.values().toArray(AddressMap.Block[]::new);
                live.clear();
            }
            case PLAN_BIND, TENSOR_LIVE -> live.put(e.a(), new AddressMap.Block(e.a(), e.b(), AddressMap.State.IN_USE, label(e), e.timeNs()));
            default -> {
            }
        }
        AddressMap.Block after = live.get(e.a());
        s.lastBlock = e.kind() == EventKind.UNRESERVE ? new AddressMap.Block(e.a(), e.b(), AddressMap.State.RESERVED, "segment", e.timeNs())
                : after != null ? after : before != null ? before : s.reserved.get(e.a());
        if (keepUndo) {
            undo.addLast(new Undo(i, e, before, reservedBefore, removed, s.lastBlock, s.eff));
            if (undo.size() > UNDO) {
                undo.removeFirst();
            }
        }
    }

    /** Sites' one-line labels, each made once (an allocation whose stack is a site only: a PyTorch snapshot's). */
    private final HashMap<Integer, String> siteLabels = new HashMap<>();

    private String label(Event e) {
        String l = e.ref() >= 0 ? trace.string(e.ref()) : null;
        if (l == null && e.site() >= 0) {
            l = siteLabels.computeIfAbsent(e.site(), trace::siteLabel);
        }
        return l == null ? "" : l;
    }
}
