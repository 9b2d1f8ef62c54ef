package dev.arenascope.core.arena;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.arenascope.core.format.Bytes;

/**
 * Everything one arena did during a {@code recording()} block: the tree of scopes (name, params,
 * pointers at entry and exit, allocation count, peak forward and backward bytes, children) and every
 * allocation (bytes, dtype, shape, direction, scope, time, thread). It is what memory-model
 * calibration fits coefficients from, and what a one-frame probe prints.
 *
 * <pre>{@code
 * try (AllocationRecorder rec = arena.recording()) {
 *     try (var frame = arena.scope("frame", "frames", 4)) {
 *         arena.getTensor(DType.FLOAT32, 4, 1080, 1920, 3);
 *     }
 *     RecordedScope frame = rec.scopeTree().find("frame");
 * }
 * }</pre>
 *
 * <p>Obtain one from {@code ManualMemory.recording()}; the {@code on*} methods are the allocator's side,
 * package-private, called by the arena only. Recording allocates nothing per allocation beyond amortized column
 * growth. Not thread-safe: like its arena, use it from one thread at a time; read it after
 * {@link #close()} or from that thread.
 */
public final class AllocationRecorder implements AutoCloseable {
    private static final int ROOT = 0;

    private final String memoryName;
    private final long capacity;
    private final Runnable onClose;
    private boolean active = true;

    // scope nodes, columns by node id
    private int nodes;
    private String[] name = new String[16];
    private int[] parent = new int[16];
    private long[] entryForward = new long[16];
    private long[] entryBackward = new long[16];
    private long[] exitForward = new long[16];
    private long[] exitBackward = new long[16];
    private boolean[] exited = new boolean[16];
    private long[] count = new long[16];
    private long[] allocated = new long[16];
    private long[] peakForward = new long[16];
    private long[] peakBackwardBytes = new long[16];
    private Map<String, Long>[] params = newParams(16);
    private int current = ROOT;

    // allocations, columns by row
    private int rows;
    private long[] rowTime = new long[256];
    private long[] rowThread = new long[256];
    private long[] rowOffset = new long[256];
    private long[] rowBytes = new long[256];
    private int[] rowDescriptor = new int[256];
    private boolean[] rowBackward = new boolean[256];
    private int[] rowScope = new int[256];

    // (dtype, shape) by the allocator's descriptor id: rows hold no references, so the collector never
    // scans or card-marks them
    private long[][] descriptorShape = new long[32][];
    private DType[] descriptorDtype = new DType[32];

    private final List<String> failures = new ArrayList<>();

    /**
     * Starts a recording of the memory named {@code memoryName} whose pointers are now
     * {@code (forward, backward)}. {@code onClose} runs once when the recording ends (the arena uses
     * it to detach). Allocators call this; users call {@code ManualMemory.recording()}.
     */
    AllocationRecorder(String memoryName, long capacity, long forward, long backward, Runnable onClose) {
        this.memoryName = memoryName;
        this.capacity = capacity;
        this.onClose = onClose;
        addNode("recording", -1, forward, backward);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Long>[] newParams(int n) {
        return (Map<String, Long>[]) new Map[n];
    }

    /** The recorded memory's name. */
    public String memoryName() {
        return memoryName;
    }

    /** The recorded memory's capacity in bytes. */
    public long capacity() {
        return capacity;
    }

    /** Whether the recording is still running. */
    public boolean isActive() {
        return active;
    }

    // ------------------------------------------------------------------ allocator side

    /** A scope opened inside the current one; returns its id. Allocator side. */
    int onScopeEnter(String scopeName, long forward, long backward) {
        int id = addNode(scopeName, current, forward, backward);
        current = id;
        return id;
    }

    /** Scope {@code id} closed (scopes close innermost first). Allocator side. */
    void onScopeExit(int id, long forward, long backward) {
        if (id <= ROOT || id >= nodes || exited[id]) {
            return;
        }
        exitForward[id] = forward;
        exitBackward[id] = backward;
        exited[id] = true;
        int p = parent[id];
        peakForward[p] = Math.max(peakForward[p], peakForward[id]);
        peakBackwardBytes[p] = Math.max(peakBackwardBytes[p], peakBackwardBytes[id]);
        current = p;
    }

    /** The innermost open recorded scope's id (0, the root, when none). */
    int currentScope() {
        return current;
    }

    /** Adds a parameter to scope {@code id} (a later value for the same key replaces it). Allocator side. */
    void onScopeParam(int id, String key, long value) {
        if (id < 0 || id >= nodes) {
            return;
        }
        Map<String, Long> p = params[id];
        if (p == null) {
            p = new LinkedHashMap<>();
            params[id] = p;
        }
        p.put(key, value);
    }

    /**
     * One allocation: {@code bytes} of {@code dtype}{@code shape} at {@code offset}, taking {@code padded}
     * bytes of the arena with alignment; the pointers are those after it. {@code descriptor} is the
     * allocator's id for the (dtype, shape) pair, a small non-negative number that always stands for the
     * same pair; {@code shape} is kept (the first time the id is seen), not copied: pass an array nobody
     * modifies. Allocator side; allocation-free but for column growth.
     *
     * @throws IllegalArgumentException when {@code descriptor} is negative
     */
    void onAllocation(long timeNs, long threadId, long offset, long bytes, long padded, int descriptor, DType dtype,
                             long[] shape, boolean backward, long forwardPointer, long backwardPointer) {
        if (descriptor >= descriptorShape.length || descriptorShape[descriptor] == null) {
            addDescriptor(descriptor, dtype, shape);
        }
        if (rows == rowTime.length) {
            growRows();
        }
        int r = rows++;
        rowTime[r] = timeNs;
        rowThread[r] = threadId;
        rowOffset[r] = offset;
        rowBytes[r] = bytes;
        rowDescriptor[r] = descriptor;
        rowBackward[r] = backward;
        int s = current;
        rowScope[r] = s;
        count[s]++;
        allocated[s] += padded;
        onPointers(forwardPointer, backwardPointer);
    }

    private void addDescriptor(int descriptor, DType dtype, long[] shape) {
        if (descriptor < 0) {
            throw new IllegalArgumentException("descriptor id must be non-negative, got " + descriptor);
        }
        if (descriptor >= descriptorShape.length) {
            int n = Math.max(descriptorShape.length * 2, descriptor + 1);
            descriptorShape = Arrays.copyOf(descriptorShape, n);
            descriptorDtype = Arrays.copyOf(descriptorDtype, n);
        }
        descriptorShape[descriptor] = shape;
        descriptorDtype[descriptor] = dtype;
    }

    /** The pointers moved to {@code (forward, backward)} (for peaks). Allocator side. */
    void onPointers(long forwardPointer, long backwardPointer) {
        int s = current;
        if (forwardPointer > peakForward[s]) {
            peakForward[s] = forwardPointer;
        }
        long back = capacity - backwardPointer;
        if (back > peakBackwardBytes[s]) {
            peakBackwardBytes[s] = back;
        }
    }

    /** A request failed with {@code message}. Allocator side. */
    void onFailure(String message) {
        failures.add(message);
    }

    // ------------------------------------------------------------------ reading

    /** Number of allocations recorded so far. */
    public int allocationCount() {
        return rows;
    }

    /** Allocation {@code i} in the order they happened. */
    public RecordedAllocation allocation(int i) {
        Objects.checkIndex(i, rows);
        int d = rowDescriptor[i];
        return new RecordedAllocation(rowTime[i], rowThread[i], rowOffset[i], rowBytes[i], descriptorDtype[d],
                descriptorShape[d].clone(), rowBackward[i] ? Direction.BACKWARD : Direction.FORWARD, rowScope[i]);
    }

    /** Every allocation in the order they happened (a snapshot). */
    public List<RecordedAllocation> allocations() {
        List<RecordedAllocation> out = new ArrayList<>(rows);
        for (int i = 0; i < rows; i++) {
            out.add(allocation(i));
        }
        return out;
    }

    /** Messages of the requests that failed ({@code InsufficientMemoryException}s), in order. */
    public List<String> failures() {
        return List.copyOf(failures);
    }

    /** The scope tree as a snapshot; its root is the recording itself (id 0, named {@code recording}). */
    public RecordedScope scopeTree() {
        List<List<Integer>> kids = new ArrayList<>(nodes);
        for (int i = 0; i < nodes; i++) {
            kids.add(new ArrayList<>());
        }
        for (int i = 1; i < nodes; i++) {
            kids.get(parent[i]).add(i);
        }
        return snapshot(ROOT, kids);
    }

    private RecordedScope snapshot(int id, List<List<Integer>> kids) {
        List<RecordedScope> children = new ArrayList<>();
        long pf = peakForward[id];
        long pb = peakBackwardBytes[id];
        for (int k : kids.get(id)) {
            RecordedScope c = snapshot(k, kids);
            children.add(c);
            pf = Math.max(pf, c.peakForwardBytes());
            pb = Math.max(pb, c.peakBackwardBytes());
        }
        Map<String, Long> p = params[id] == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(params[id]));
        return new RecordedScope(id, name[id], p, new Pointers(entryForward[id], entryBackward[id]),
                exited[id] ? new Pointers(exitForward[id], exitBackward[id]) : null,
                count[id], allocated[id], pf, pb, List.copyOf(children));
    }

    /** The names from the root's first child down to scope {@code id}, joined by {@code /}. */
    public String scopePath(int id) {
        if (id <= ROOT || id >= nodes) {
            return "";
        }
        String up = scopePath(parent[id]);
        return up.isEmpty() ? name[id] : up + "/" + name[id];
    }

    /** The scope tree as indented text, one line per scope, for logs and the command line. */
    public String format() {
        StringBuilder sb = new StringBuilder();
        format(scopeTree(), 0, sb);
        return sb.toString();
    }

    private void format(RecordedScope s, int depth, StringBuilder sb) {
        sb.append("  ".repeat(depth)).append(s.name());
        if (!s.params().isEmpty()) {
            sb.append(' ').append(s.params());
        }
        sb.append(": ").append(s.allocations()).append(" allocations, peak forward ")
                .append(Bytes.format(s.peakForwardBytes()))
                .append(" (+").append(Bytes.format(s.forwardGrowth())).append("), peak backward ")
                .append(Bytes.format(s.peakBackwardBytes())).append('\n');
        for (RecordedScope c : s.children()) {
            format(c, depth + 1, sb);
        }
    }

    /** Ends the recording: open scopes keep no exit pointers; the arena may start a new recording. Idempotent. */
    @Override
    public void close() {
        if (active) {
            active = false;
            onClose.run();
        }
    }

    /** Ends the recording with the arena's final pointers as the root's exit. Allocator side. */
    void finish(long forward, long backward) {
        if (!exited[ROOT]) {
            exitForward[ROOT] = forward;
            exitBackward[ROOT] = backward;
            exited[ROOT] = true;
        }
        active = false;
    }

    private int addNode(String scopeName, int parentId, long forward, long backward) {
        if (nodes == name.length) {
            int n = nodes * 2;
            name = Arrays.copyOf(name, n);
            parent = Arrays.copyOf(parent, n);
            entryForward = Arrays.copyOf(entryForward, n);
            entryBackward = Arrays.copyOf(entryBackward, n);
            exitForward = Arrays.copyOf(exitForward, n);
            exitBackward = Arrays.copyOf(exitBackward, n);
            exited = Arrays.copyOf(exited, n);
            count = Arrays.copyOf(count, n);
            allocated = Arrays.copyOf(allocated, n);
            peakForward = Arrays.copyOf(peakForward, n);
            peakBackwardBytes = Arrays.copyOf(peakBackwardBytes, n);
            params = Arrays.copyOf(params, n);
        }
        int id = nodes++;
        name[id] = scopeName;
        parent[id] = parentId;
        entryForward[id] = forward;
        entryBackward[id] = backward;
        peakForward[id] = forward;
        peakBackwardBytes[id] = capacity - backward;
        return id;
    }

    private void growRows() {
        int n = rows * 2;
        rowTime = Arrays.copyOf(rowTime, n);
        rowThread = Arrays.copyOf(rowThread, n);
        rowOffset = Arrays.copyOf(rowOffset, n);
        rowBytes = Arrays.copyOf(rowBytes, n);
        rowDescriptor = Arrays.copyOf(rowDescriptor, n);
        rowBackward = Arrays.copyOf(rowBackward, n);
        rowScope = Arrays.copyOf(rowScope, n);
    }
}
