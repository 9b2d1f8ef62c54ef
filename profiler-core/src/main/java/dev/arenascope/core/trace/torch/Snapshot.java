package dev.arenascope.core.trace.torch;

import java.util.List;
import java.util.Map;

/**
 * A PyTorch memory snapshot as {@link SnapshotReader} read it: compact, no pickle objects left.
 *
 * @param entries     every trace entry, in columns
 * @param stacks      the interned frames and stacks the entries, blocks and segments refer to
 * @param strings     the interned {@code user_metadata}, {@code compile_context} and {@code category} texts
 * @param traces      per device index, the rows of its {@code device_traces} list in order
 * @param segments    per device, the segments of the final state
 * @param liveBlocks  per device, the blocks live in the final state
 * @param settings    {@code allocator_settings} flattened to {@code allocator_settings.KEY} = text
 * @param annotations {@code external_annotations}, in the order listed
 * @param skipped     trace entries with an action ArenaScope does not map
 * @param inputBytes  the pickle's size
 */
record Snapshot(TraceEntries entries, StackTable stacks, List<String> strings, Map<Integer, int[]> traces,
                Map<Integer, List<Segment>> segments, Map<Integer, List<Block>> liveBlocks, Map<String, String> settings,
                List<Annotation> annotations, long skipped, long inputBytes) {

    /**
     * A segment of the final state; {@code pool} is its private pool ({@code segment_pool_id}) or null for
     * the default pools; {@code small}: its {@code segment_type} is {@code small} (where the file does not
     * say: its size is the small pool's 2 MiB); {@code expandable}: {@code is_expandable}.
     */
    record Segment(long addr, long size, long stream, String pool, boolean small, boolean expandable) {
        Segment(long addr, long size, long stream, String pool) {
            this(addr, size, stream, pool, size == 2L << 20, false);
        }
    }

    /**
     * A block live in the final state; {@code stack} is a {@link StackTable} id (0 = no frames);
     * {@code pending}: its state is {@code active_pending_free} (freed, not yet reusable); {@code requested}:
     * its {@code requested_size} ({@code size} where the file has none).
     */
    record Block(long addr, long size, long stream, int stack, boolean pending, long requested) {
        Block(long addr, long size, long stream, int stack, boolean pending) {
            this(addr, size, stream, stack, pending, size);
        }
    }

    /**
     * One of {@code external_annotations}: a named range edge (e.g. {@code ProfilerStep#3}, stage
     * {@code START}) at {@code timeUs} on {@code device} (-1 when it names none).
     */
    record Annotation(int device, String name, String stage, long timeUs) {}
}
