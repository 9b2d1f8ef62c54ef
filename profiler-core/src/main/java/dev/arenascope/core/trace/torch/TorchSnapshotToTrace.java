package dev.arenascope.core.trace.torch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.util.Progress;

/**
 * Converts a PyTorch CUDA memory snapshot ({@code torch.cuda.memory._dump_snapshot()}, a pickle of
 * plain data) into an ArenaScope event stream: {@link SnapshotReader} reads the pickle once, streaming,
 * into a compact {@link Snapshot}; {@link SnapshotEmitter} turns that into events.
 *
 * <p>Each CUDA device becomes one memory named {@code cuda:N} of kind {@link MemoryKind#SEGMENTED}:
 * {@code used} is the bytes of live blocks, {@code aux} the bytes reserved in segments. Segments of a
 * private pool ({@code segment_pool_id} other than {@code (0, 0)}, e.g. a CUDA graph's) and the blocks
 * in them form one more memory each, {@code cuda:N pool A.B}. Trace entries map as: {@code alloc} →
 * {@link EventKind#ALLOC} (a = address, b = c = size, site = the allocation's stack frames as a node
 * of the session's site table, ref = its {@code [category X]} and {@code [compile_context X]} lines when
 * the entry has them, else -1, ref2 = the open {@code user_metadata} scope), {@code free_completed} →
 * {@link EventKind#FREE} (a block is live from its {@code alloc} until its {@code free_completed};
 * {@code free_requested} → {@link EventKind#FREE_REQUESTED}, a pending free that moves no gauge),
 * {@code segment_alloc} / {@code segment_map} →
 * {@link EventKind#RESERVE}, {@code segment_free} / {@code segment_unmap} → {@link EventKind#UNRESERVE},
 * {@code oom} → {@link EventKind#OUT_OF_MEMORY} (b = bytes requested, c = {@code device_free}),
 * {@code snapshot} → {@link EventKind#MARKER}. Other actions are skipped and counted. A run of entries
 * with the same non-empty {@code user_metadata} is a scope of that name ({@link EventKind#SCOPE_ENTER} /
 * {@link EventKind#SCOPE_EXIT}); {@code external_annotations} become markers ({@code name stage}) at
 * their time; {@code allocator_settings} become session and memory attributes
 * {@code allocator_settings.KEY}.
 *
 * <p>Blocks and segments that were already live when the trace began are reconstructed the way
 * PyTorch's own viewer does it: start from the snapshot's final state ({@code segments[*].blocks} in
 * state {@code active_allocated} or {@code active_pending_free}; older snapshots' blocks take their
 * frames from the last {@code history} record) and replay the trace backwards (an {@code alloc} means
 * the block was not live before it, a {@code free_completed} that it was). They are emitted at the
 * trace's first instant, before its first entry; a block of the final state in {@code active_pending_free}
 * whose {@code free_requested} is not in the trace is pending from then on (a {@code FREE_REQUESTED} after
 * its {@code ALLOC}).
 *
 * <p>Time: {@code time_us} (wall-clock microseconds) relative to the earliest entry, when every entry
 * of a device has it; otherwise (older PyTorch) the entry's position, one microsecond per entry. The
 * session attribute {@code time_axis} and each memory's says which: {@code time}, {@code entry_order}
 * or (session only) {@code mixed}. Times are made non-decreasing per device. Streams become threads
 * named {@code stream N}.
 *
 * <p>Memory and time: the pickle is read once through a window of a few MiB; the trace entries are
 * kept as about 60 bytes each and frames and stacks once each in primitive arrays, never as the
 * pickle's object graph nor as text: a stack costs its distinct frames and its site-trie nodes, so a
 * snapshot whose every stack is new costs what one whose stacks repeat does, per byte of input.
 *
 * <p>Threads: the pickle is read and the events are made on the caller's thread; the sink is called
 * from one second thread, in order ({@link HandOffSink}: what a store does with each batch runs beside
 * the emission), and {@code convert} returns only after the sink's {@link EventSink#onClose}, so the
 * caller then sees everything the sink built. An exception the sink throws (a cancel from a progress
 * callback) ends the conversion and is thrown to the caller.
 *
 * <p>Bad input: a pickle that is malformed or refers to classes throws {@link PickleFormatException}
 * (file and byte offset); a pickle that is not a snapshot, or repeats its contents through memo
 * references beyond what its size can hold, throws {@link SnapshotFormatException} (file and the path
 * of the bad value). Nothing is sent to the sink before the whole file has been checked. Stack frame
 * names and file names past {@value StackTable#MAX_FRAME_TEXT} characters, frame lines that are not
 * 64-bit integers, integers past {@value PickleReader#MAX_INT_BYTES} bytes, and distinct stacks of
 * more than {@value StackTable#MAX_POOL} frames together are refused.
 */
public final class TorchSnapshotToTrace {

    /**
     * What a conversion did.
     *
     * @param devices        devices (memories) created
     * @param entries        trace entries read over all devices
     * @param events         events sent to the sink
     * @param initialBlocks  blocks found live before the trace began
     * @param skipped        trace entries with an action this converter does not map
     */
    public record Result(int devices, long entries, long events, long initialBlocks, long skipped) {}

    private TorchSnapshotToTrace() {}

    /** Converts the snapshot in {@code in}, sending the stream to {@code out} and closing it. */
    public static Result convert(Path in, EventSink out) throws IOException {
        return convert(in, out, null);
    }

    /**
     * Converts the snapshot in {@code in}, streaming the file, and sends the stream to {@code out}.
     *
     * @param progress told on this thread the bytes read so far ({@link Progress#BYTES_READ} of the file's size) as
     *                 each 4 MiB window is read, about every 1% of the file (at least 1 MiB apart); may be null. Reading ends with a
     *                 {@link java.util.concurrent.CancellationException} when the thread is interrupted
     *                 (checked at every 4 MiB read; the interrupt status stays set) or when the callback
     *                 throws one: nothing of the snapshot is kept and nothing has reached {@code out}.
     *                 Then, while the events are made, the entries done so far ({@link Progress#ENTRIES_EMITTED}
     *                 of {@link Result#entries()}: 0 first, after each batch of events, all of them last); a cancel
     *                 thrown from one of those ends the conversion too, with what reached {@code out} abandoned.
     */
    public static Result convert(Path in, EventSink out, Progress progress) throws IOException {
        Snapshot snap = SnapshotReader.read(in, Progress.bytesRead(progress, Files.size(in)));
        return emit(snap, in.toString(), out, progress);
    }

    /** Converts a snapshot held in memory; {@code source} names it in errors and in the session. */
    public static Result convert(byte[] pickle, String source, EventSink out) throws IOException {
        Snapshot snap = SnapshotReader.read(pickle, source);
        return emit(snap, source, out, null);
    }

    /**
     * The events of a read snapshot: the emitter on this thread, the sink on a second one
     * ({@link HandOffSink}; about half of the emission's work is the sink's, a store's encoding).
     * Returns once the sink has seen every event and its close; a failure on either side ends both.
     */
    private static Result emit(Snapshot snap, String source, EventSink out, Progress progress) throws SnapshotFormatException {
        HandOffSink h = new HandOffSink(out, source, SnapshotEmitter.BATCH);
        boolean done = false;
        try {
            Result r = new SnapshotEmitter(snap, source, h, progress).run();
            done = true;
            return r;
        } finally {
            if (!done) {
                h.abandon();
            }
        }
    }
}
