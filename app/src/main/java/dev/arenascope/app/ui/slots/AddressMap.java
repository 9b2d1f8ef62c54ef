package dev.arenascope.app.ui.slots;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.TraceView;

/**
 * What holds each byte range of one memory at one instant, rebuilt by replaying its events up to
 * then: live allocations (arena ends, pool buffers, imported blocks), blocks a pool holds for reuse,
 * and the gaps between. Offsets are relative to the memory's base for arenas and absolute addresses
 * for pools and imports.
 */
public final class AddressMap {
    /** What a block is. */
    public enum State { FORWARD, BACKWARD, IN_USE, HELD, RESERVED }

    /**
     * A held byte range.
     *
     * @param start   first byte (offset or address)
     * @param bytes   length
     * @param state   what holds it
     * @param label   descriptor or bin, may be empty
     * @param sinceNs when it became so
     */
    public record Block(long start, long bytes, State state, String label, long sinceNs) {
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
     */
    public record Snapshot(MemoryInfo memory, long atNs, List<Block> blocks, long base, long extent, long gapBytes, long largestGap) {
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
     * Replays {@code memory}'s events up to {@code atNs}.
     *
     * @param cancel polled every few thousand events; return true to stop (throws {@link java.util.concurrent.CancellationException})
     */
    public static Snapshot at(TraceView t, MemoryInfo memory, long atNs, java.util.function.BooleanSupplier cancel) {
        TreeMap<Long, Block> live = new TreeMap<>();
        TreeMap<Long, Block> reserved = new TreeMap<>();
        long end = t.firstIndexAtOrAfter(atNs + 1);
        int id = memory.id();
        for (long i = 0; i < end; i++) {
            if ((i & 0xfff) == 0 && cancel.getAsBoolean()) {
                throw new java.util.concurrent.CancellationException();
            }
            Event e = t.event(i);
            if (e.memory() != id) {
                continue;
            }
            switch (e.kind()) {
                case ALLOC -> {
                    State s = memory.kind() == MemoryKind.ARENA ? (e.has(Event.FLAG_BACKWARD) ? State.BACKWARD : State.FORWARD) : State.IN_USE;
                    String label = e.ref() >= 0 && t.string(e.ref()) != null ? t.string(e.ref()) : "";
                    live.put(e.a(), new Block(e.a(), e.b(), s, label, e.timeNs()));
                }
                case FREE -> live.remove(e.a());
                case POOL_REQUEST -> live.put(e.a(), new Block(e.a(), e.b(), State.IN_USE, "bin " + e.ref(), e.timeNs()));
                case POOL_HOLD -> live.put(e.a(), new Block(e.a(), e.b(), State.HELD, "bin " + e.ref(), e.timeNs()));
                case POOL_RELEASE -> live.remove(e.a());
                case RESERVE -> reserved.put(e.a(), new Block(e.a(), e.b(), State.RESERVED, "segment", e.timeNs()));
                case UNRESERVE -> reserved.remove(e.a());
                case POINTER_RESTORE -> {
                    boolean bwd = e.has(Event.FLAG_BACKWARD);
                    Iterator<Map.Entry<Long, Block>> it = live.entrySet().iterator();
                    while (it.hasNext()) {
                        Block b = it.next().getValue();
                        if (bwd ? b.state() == State.BACKWARD && b.start() < e.a() : b.state() == State.FORWARD && b.start() >= e.a()) {
                            it.remove();
                        }
                    }
                }
                case RESET, MEMORY_CLOSED -> live.clear();
                case PLAN_BIND, TENSOR_LIVE -> {
                    String label = e.ref() >= 0 && t.string(e.ref()) != null ? t.string(e.ref()) : "";
                    live.put(e.a(), new Block(e.a(), e.b(), State.IN_USE, label, e.timeNs()));
                }
                case TENSOR_DEAD -> live.remove(e.a());
                default -> {
                }
            }
        }
        List<Block> blocks = new ArrayList<>(reserved.values());
        blocks.addAll(live.values());
        blocks.sort((x, y) -> Long.compare(x.start(), y.start()));
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
            base = blocks.stream().mapToLong(Block::start).min().orElse(0);
            long hi = blocks.stream().mapToLong(Block::end).max().orElse(base + 1);
            extent = Math.max(1, hi - base);
        }
        if (!reserved.isEmpty()) {
            // a caching allocator's memory is its segments: what lies between them is not this memory at
            // all, so free bytes are the segments' bytes no live block covers
            long free = 0;
            long largest = 0;
            List<Block> inUse = live.values().stream().sorted((x, y) -> Long.compare(x.start(), y.start())).toList();
            for (Block seg : reserved.values()) {
                long cur = seg.start();
                for (Block b : inUse) {
                    if (b.end() <= cur || b.start() >= seg.end()) {
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
            return new Snapshot(memory, atNs, List.copyOf(blocks), base, extent, free, largest);
        }
        long covered = 0;
        long largestGap = 0;
        long cursor = base;
        for (Block b : live.values().stream().sorted((x, y) -> Long.compare(x.start(), y.start())).toList()) {
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
        return new Snapshot(memory, atNs, List.copyOf(blocks), base, extent, Math.max(0, extent - covered), largestGap);
    }
}
