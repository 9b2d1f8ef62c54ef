package dev.arenascope.app.ui.slots;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.function.BooleanSupplier;

import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.TraceView;

/**
 * What holds each byte range of one memory at one instant, rebuilt by replaying its events up to
 * then: live allocations (arena ends, pool buffers, imported blocks), blocks whose free was requested
 * but has not completed (PyTorch's pending frees), blocks a pool holds for reuse, and the gaps between.
 * Offsets are relative to the memory's base for arenas and absolute addresses for pools and imports.
 * The instant is an event: the map after the events before index {@code end} ({@link #afterEvents}),
 * so that a view can step through a memory's events one by one; {@link #at} takes a time (every event
 * at or before it). These replay from the start; a view that steps keeps an {@link AddressMapReplay},
 * whose moves cost what they move.
 */
public final class AddressMap {
    /** What a block is. */
    public enum State {
        FORWARD, BACKWARD, IN_USE,
        /** Still in use, its free requested and not yet completed (a {@code FREE_REQUESTED} before its {@code FREE}). */
        PENDING_FREE,
        HELD, RESERVED
    }

    /**
     * A held byte range.
     *
     * @param start   first byte (offset or address)
     * @param bytes   length
     * @param state   what holds it
     * @param label   descriptor or bin, may be empty
     * @param sinceNs when it became so, or {@link #BEFORE_RECORDING} for a block live before the trace began
     * @param requested bytes asked for (a pool request's size before its bin rounded it up); {@code bytes}
     *                  where nothing was rounded or the trace does not say
     * @param freeRequestedNs when its free was requested ({@link State#PENDING_FREE}), else -1
     * @param site    the allocation's stack (a node of the trace's site table, {@link TraceView#stack}), -1 when none
     */
    public record Block(long start, long bytes, State state, String label, long sinceNs, long requested, long freeRequestedNs, int site) {
        /** {@code sinceNs} of a block allocated before the trace began (a snapshot's blocks older than its trace). */
        public static final long BEFORE_RECORDING = Long.MIN_VALUE;


        public Block(long start, long bytes, State state, String label, long sinceNs, long requested) {
            this(start, bytes, state, label, sinceNs, requested, -1, -1);
        }

        public Block(long start, long bytes, State state, String label, long sinceNs) {
            this(start, bytes, state, label, sinceNs, bytes, -1, -1);
        }

        /** This block, its free requested at {@code atNs} (still in use until the free completes). */
        public Block pendingFree(long atNs) {
            return new Block(start, bytes, State.PENDING_FREE, label, sinceNs, requested, atNs, site);
        }

        public long end() {
            return start + bytes;
        }
    }

    /**
     * The map.
     *
     * @param memory  the memory
     * @param atNs    the instant
     * @param blocks  live blocks by start
     * @param extent  the bytes the map spans (capacity for arenas, lowest to highest address otherwise)
     * @param base    first byte of the span
     * @param gapBytes bytes of the memory held by nothing (for a caching allocator: inside its reserved
     *                 segments only; the address space between segments is not its memory)
     * @param largestGap the largest such gap
     * @param end      the map is after the events before this index
     * @param lastEvent index of the last of those events that concerns the memory, -1 when none
     * @param lastText  that event in words ({@code alloc 313 MiB at 0x7f…}), empty when none
     * @param lastBlock the block it made, held or reserved (or, for a free, the block it freed), or null
     */
    public record Snapshot(MemoryInfo memory, long atNs, List<Block> blocks, long base, long extent, long gapBytes, long largestGap,
                           long end, long lastEvent, String lastText, Block lastBlock) {

        /** Bytes lost to rounding in the blocks in use and held. */
        public long wasteBytes() {
            long w = 0;
            for (Block b : blocks) {
                if (b.state() != State.RESERVED) {
                    w += b.bytes() - b.requested();
                }
            }
            return w;
        }

        /** Blocks whose free was requested and has not completed. */
        public long pendingCount() {
            return blocks.stream().filter(b -> b.state() == State.PENDING_FREE).count();
        }

        /** Their bytes. */
        public long pendingBytes() {
            return blocks.stream().filter(b -> b.state() == State.PENDING_FREE).mapToLong(Block::bytes).sum();
        }

        public Block at(long address) {
            for (Block b : blocks) {
                if (address >= b.start() && address < b.end()) {
                    return b;
                }
            }
            return null;
        }
    }

    private AddressMap() {}

    /**
     * Replays {@code memory}'s events up to {@code atNs}, from the start.
     *
     * @param cancel polled every few thousand events; return true to stop (throws {@link java.util.concurrent.CancellationException})
     */
    public static Snapshot at(TraceView t, MemoryInfo memory, long atNs, BooleanSupplier cancel) {
        return afterEvents(t, memory, t.firstIndexAtOrAfter(atNs + 1), atNs, cancel);
    }

    /**
     * Replays {@code memory}'s events before index {@code end}, from the start (O(end)).
     *
     * @param atNs   the instant to report (the cursor's), or -1 for the effective time of the last event before {@code end}
     * @param cancel polled every few thousand events; return true to stop (throws {@link java.util.concurrent.CancellationException})
     */
    public static Snapshot afterEvents(TraceView t, MemoryInfo memory, long end, long atNs, BooleanSupplier cancel) {
        return new AddressMapReplay(t, memory).moveTo(end, atNs, cancel);
    }

    /** The snapshot of a replay's state: O(blocks + segments). */
    static Snapshot snapshot(TraceView t, MemoryInfo memory, AddressMapReplay.State st, long atNs) {
        long end = st.end;
        String lastText = st.last == null ? "" : describe(t, st.last);
        if (atNs < 0) {
            atNs = end == 0 || st.eff == Long.MIN_VALUE ? t.startNs() : st.eff;
        }
        // both maps are in address order: merge them
        List<Block> blocks = new ArrayList<>(st.reserved.size() + st.live.size());
        Iterator<Block> ri = st.reserved.values().iterator();
        Iterator<Block> li = st.live.values().iterator();
        Block r = ri.hasNext() ? ri.next() : null;
        Block l = li.hasNext() ? li.next() : null;
        while (r != null || l != null) {
            if (l == null || r != null && r.start() <= l.start()) {
                blocks.add(r);
                r = ri.hasNext() ? ri.next() : null;
            } else {
                blocks.add(l);
                l = li.hasNext() ? li.next() : null;
            }
        }
        long base;
        long extent;
        boolean offsets = memory.kind() == MemoryKind.ARENA || memory.kind().name().startsWith("PLAN");
        if (offsets && memory.capacity() > 0) {
            base = 0;
            extent = memory.capacity();
        } else if (blocks.isEmpty()) {
            base = 0;
            extent = Math.max(1, memory.capacity());
        } else {
            base = blocks.getFirst().start();
            long hi = base + 1;
            for (Block b : blocks) {
                hi = Math.max(hi, b.end());
            }
            extent = Math.max(1, hi - base);
        }
        Block[] inUse = st.live.values().toArray(Block[]::new);
        if (!st.reserved.isEmpty()) {
            // a caching allocator's memory is its segments: what lies between them is not this memory at
            // all, so free bytes are the segments' bytes no live block covers (one merge of both in address order)
            long free = 0;
            long largest = 0;
            int j = 0;
            for (Block seg : st.reserved.values()) {
                while (j < inUse.length && inUse[j].end() <= seg.start()) {
                    j++;
                }
                long cur = seg.start();
                for (int k = j; k < inUse.length && inUse[k].start() < seg.end(); k++) {
                    Block b = inUse[k];
                    if (b.end() <= cur) {
                        continue;
                    }
                    if (b.start() > cur) {
                        free += b.start() - cur;
                        largest = Math.max(largest, b.start() - cur);
                    }
                    cur = Math.max(cur, Math.min(seg.end(), b.end()));
                }
                if (seg.end() > cur) {
                    free += seg.end() - cur;
                    largest = Math.max(largest, seg.end() - cur);
                }
            }
            return new Snapshot(memory, atNs, List.copyOf(blocks), base, extent, free, largest, end, st.lastEvent, lastText, st.lastBlock);
        }
        long covered = 0;
        long largestGap = 0;
        long cursor = base;
        for (Block b : inUse) {
            if (b.start() > cursor) {
                largestGap = Math.max(largestGap, b.start() - cursor);
            }
            long s = Math.max(cursor, b.start());
            if (b.end() > s) {
                covered += b.end() - s;
                cursor = b.end();
            }
        }
        if (base + extent > cursor) {
            largestGap = Math.max(largestGap, base + extent - cursor);
        }
        return new Snapshot(memory, atNs, List.copyOf(blocks), base, extent, Math.max(0, extent - covered), largestGap, end, st.lastEvent,
                lastText, st.lastBlock);
    }

    /** An event in words for the map's caption: {@code alloc 313 MiB at 0x7f3a00000000}. */
    static String describe(TraceView t, Event e) {
        String kind = e.kind().name().toLowerCase(Locale.ROOT).replace('_', ' ');
        return switch (e.kind()) {
            case ALLOC, FREE, FREE_REQUESTED, POOL_REQUEST, POOL_HOLD, POOL_RELEASE, RESERVE, UNRESERVE, TENSOR_LIVE, TENSOR_DEAD, PLAN_BIND ->
                    kind + " " + Bytes.format(Math.abs(e.b())) + String.format(Locale.ROOT, " at 0x%x", e.a());
            case POINTER_RESTORE -> kind + String.format(Locale.ROOT, " to %,d", e.a());
            default -> kind;
        };
    }

    /**
     * The index just past the next event of {@code memory} after index {@code end} (stepping forward
     * one event), or {@code end} when there is none. Scans at most {@code limit} events.
     */
    public static long nextEnd(TraceView t, MemoryInfo memory, long end, long limit) {
        long n = t.eventCount();
        long from = Math.max(0, end);
        for (long i = from, stop = from + Math.min(limit, Math.max(0, n - from)); i < stop; i++) {
            if (t.event(i).memory() == memory.id()) {
                return i + 1;
            }
        }
        return end;
    }

    /**
     * The index just past the previous event of {@code memory} before the last one the map at
     * {@code end} applied (stepping back one event): the map without that last event. 0 when none.
     */
    public static long previousEnd(TraceView t, MemoryInfo memory, long end, long limit) {
        long i = Math.min(end, t.eventCount()) - 1;
        // the last applied event of the memory
        for (long stop = Math.max(0, end - limit); i >= stop && t.event(i).memory() != memory.id(); i--) {
            // scan back
        }
        if (i < 0) {
            return 0;
        }
        for (long j = i - 1, stop = Math.max(0, i - limit); j >= stop; j--) {
            if (t.event(j).memory() == memory.id()) {
                return j + 1;
            }
        }
        return Math.max(0, i);
    }
}
