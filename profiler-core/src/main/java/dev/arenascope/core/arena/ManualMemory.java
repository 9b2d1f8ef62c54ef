package dev.arenascope.core.arena;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import dev.arenascope.core.device.DeviceBuffer;
import dev.arenascope.core.device.MemoryDevice;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.record.EventClock;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.MemoryKind;

/**
 * A two-pointer bump arena on device memory: one block claimed up front, every tensor a view into it.
 *
 * <p>A forward pointer runs from the start: {@link #getTensor} moves it up, and setting it back
 * releases every tensor above it in one assignment. {@link #temp()} is the scoped form of that:
 * <pre>{@code
 * try (ManualMemory arena = ManualMemory.builder().device(device).portion(0.5).build()) {
 *     try (var t = arena.temp()) {
 *         Tensor scratch = arena.getTensor(DType.FLOAT32, 1024, 3);
 *         ...
 *     } // scratch's bytes are available again here
 * }
 * }</pre>
 * A backward pointer runs down from the end for persistent results ({@link #getPersistentTensor}) that
 * must outlive the forward scope they were made in; the arena is full when the two meet, and a request
 * that would cross them throws {@link InsufficientMemoryException} and moves nothing.
 *
 * <p><b>Units and alignment.</b> Offsets and sizes are bytes from the arena's start. Every tensor is
 * aligned to its dtype's item size measured from that start (the block itself is 256-byte aligned, so
 * addresses are aligned too); the gauges (used, remaining, high-water mark) include the padding.
 *
 * <p><b>Events.</b> Every operation publishes to the arena's {@link Session} (default
 * {@link Session#current()} when it was built: {@link Session#global()} outside a recording) while the session has sinks: {@code MEMORY_CREATED}, {@code ALLOC},
 * {@code POINTER_RESTORE}, {@code RESET}, {@code SCOPE_ENTER/EXIT/PARAM}, {@code OUT_OF_MEMORY},
 * {@code MEMORY_CLOSED}, with {@code used} = forward + backward bytes and {@code aux} = backward bytes
 * ({@link MemoryKind#ARENA}). {@link #recording()} additionally keeps a scope tree and every allocation.
 * Times: scope entries and exits read the session's clock in full ({@link Session#now()}), so scope
 * durations are exact; every other event, and the recorder's rows, carry a stamp of the arena's
 * {@link EventClock.Stamper}, whose resolution {@link EventClock} states (never later than the event,
 * earlier by less than one tick gap of its ticker and less than the span of the arena's previous
 * {@value EventClock#STAMP_BUDGET} events).
 *
 * <p><b>Poisoning.</b> With a poison byte (per arena, or for the whole process through the environment
 * variable {@value #POISON_ENV}, e.g. {@code ARENASCOPE_POISON=0xFF}) every new allocation's bytes are
 * set to it, so reading memory nothing wrote shows at once (0xFF reads as NaN in float lanes, -1 in int
 * lanes).
 *
 * <p><b>Unmanaged.</b> {@code managed(false)} holds one byte and neither poisons nor records: what a dry
 * run or size probe holds instead of null.
 *
 * <p><b>Bad input.</b> Negative or overflowing shapes, a null dtype, a portion outside (0, 1], a size
 * larger than the device's free memory, pointer sets out of range and use after {@link #close()} throw
 * {@link IllegalArgumentException} or {@link IllegalStateException} with a one-line message; the arena
 * is unchanged.
 *
 * <p><b>Thread-safety.</b> Not thread-safe: an arena belongs to one thread at a time (a render loop),
 * like the pointer it is. Publishing to the session is thread-safe.
 *
 * <p><b>Names.</b> The arena implements algan's {@code ManualMemory} page (the project's seed), so a port
 * reads line for line: the constructors {@code ManualMemory(portion[, device])} (the builder is the Java
 * way to set anything more), {@link #getTensor(long[], DType)} and {@link #getPersistentTensor(long[], DType)}
 * in algan's (shape, dtype) order, {@link #getNumBytesRemaining()}, {@link #getPercentUsed()} and the
 * pointer calls ({@link #getPointers()}, {@link #setPointers}, {@link #savePointer()}, {@link #resetPointer()})
 * keep algan's names. Everything else is named as the rest of ArenaScope names it ({@link #usedBytes()},
 * {@link #highWaterMark()}, {@link #capacity()}); {@link #getTensor(DType, long...)} is the same call
 * with the shape last, where Java's varargs can take it.
 *
 * <p><b>Parts.</b> This class holds the pointers, allocation and the gauges; beside it,
 * {@link ArenaBuilder} its settings, {@link ArenaObserver} the one observer every happening is told to (it feeds both the session's
 * events and an active {@link AllocationRecorder}), {@link RegionStack} the one mechanism of temp
 * scopes and labelled scopes, {@link Poison} the poisoning settings and {@link ArenaCopy} the copies
 * of {@link #clone()} and {@link #cast}. What stays here is one algorithm that reads best whole: the two
 * pointers and every way they move (allocation at either end, pointer sets and resets, and the closing of
 * {@link Temp} and {@link Scope}, public handle types of this class), with the gauges they drive; split
 * further, each piece would have to reach back into the same two offsets and high-water marks.
 */
public final class ManualMemory implements AutoCloseable {
    /** The environment variable that turns poisoning on for every arena without its own setting. */
    public static final String POISON_ENV = "ARENASCOPE_POISON";

    private final String name;
    private final MemoryDevice device;
    private final DeviceBuffer buffer;
    private final long capacity;
    private final boolean managed;
    private final int poison;
    private final Session session;
    private final int memoryId;
    private final ArenaObserver observer;
    private final DescriptorTable descriptors = new DescriptorTable();

    private long forward;
    private long backward;
    private long peakUsed;
    private long peakForward;
    private long peakBackward;
    private boolean closed;

    private long[] saved = new long[8];
    private int savedDepth;

    // temp scopes: the pointers at entry, the persistent floor and whether to clear, by depth
    private final RegionStack<Temp> temps = new RegionStack<>(Temp::new, this::growTemps);
    private long[] tempForward = new long[0];
    private long[] tempBackward = new long[0];
    private long[] tempFloor = new long[0];
    private boolean[] tempClear = new boolean[0];

    // labelled scopes: the name by depth (the observer keeps what the session and recorder need)
    private final RegionStack<Scope> scopes = new RegionStack<>(Scope::new, this::growScopes);
    private String[] scopeNames = new String[0];
    private boolean[] scopeObserved = new boolean[0]; // told to the observer when opened, so its exit is too

    // ------------------------------------------------------------------ construction

    /** Claims {@code portion} (0, 1] of the free memory of the process-wide default device ({@code auto}). */
    public ManualMemory(double portion) {
        this(builder().portion(portion).resolve());
    }

    /** Claims {@code portion} (0, 1] of {@code device}'s currently free memory. */
    public ManualMemory(double portion, MemoryDevice device) {
        this(builder().portion(portion).device(device).resolve());
    }

    /** A builder: give a device and a portion or an exact size; the rest have defaults. */
    public static ArenaBuilder builder() {
        return new ArenaBuilder();
    }

    ManualMemory(ArenaBuilder.Settings s) {
        this.device = s.device();
        this.session = s.session();
        this.name = s.name();
        this.managed = s.managed();
        this.poison = s.poison();
        this.buffer = device.allocate(s.size());
        this.capacity = s.size();
        this.forward = 0;
        this.backward = capacity;
        this.observer = new ArenaObserver(session, managed, capacity);
        if (managed) {
            Map<String, String> attrs = new LinkedHashMap<>();
            if (poison != Poison.NONE) {
                attrs.put("poison", String.format("0x%02X", poison));
            }
            this.memoryId = session.registerMemory(name, MemoryKind.ARENA, device.info().id(), capacity, attrs);
            session.addDevice(device.info());
            observer.memoryId(memoryId);
            observer.created(buffer.address(), name);
        } else {
            this.memoryId = -1;
        }
    }

    // ------------------------------------------------------------------ allocation

    /**
     * Allocates a {@code dtype} tensor of {@code shape} from the forward pointer.
     *
     * @throws IllegalArgumentException      on a null dtype, a negative dimension or a byte size past {@code Long.MAX_VALUE}
     * @throws InsufficientMemoryException   when it does not fit before the backward pointer (nothing moves)
     * @throws IllegalStateException         after {@link #close()}
     */
    public Tensor getTensor(DType dtype, long... shape) {
        return allocate(shape, dtype, false);
    }

    /** {@link #getTensor(DType, long...)} with the arguments in the seed's order. */
    public Tensor getTensor(long[] shape, DType dtype) {
        return allocate(shape, dtype, false);
    }

    /**
     * Allocates from the backward pointer: a persistent result that outlives the forward scope it was
     * made in. Released only by {@link #temp(boolean)} with {@code clearPersistent}, {@link #setPointers}
     * or {@link #reset()}. Same failures as {@link #getTensor(DType, long...)}.
     */
    public Tensor getPersistentTensor(DType dtype, long... shape) {
        return allocate(shape, dtype, true);
    }

    /** {@link #getPersistentTensor(DType, long...)} with the arguments in the seed's order. */
    public Tensor getPersistentTensor(long[] shape, DType dtype) {
        return allocate(shape, dtype, true);
    }

    private Tensor allocate(long[] shape, DType dtype, boolean back) {
        if (closed) {
            throw closedError();
        }
        if (dtype == null) {
            throw new IllegalArgumentException("arena '" + name + "': dtype is null");
        }
        if (shape == null) {
            throw new IllegalArgumentException("arena '" + name + "': shape is null");
        }
        long numel = 1;
        for (int i = 0; i < shape.length; i++) {
            long d = shape[i];
            if (d < 0) {
                throw new IllegalArgumentException("arena '" + name + "': negative dimension " + d + " at index " + i
                        + " of shape " + Arrays.toString(shape));
            }
            long hi = Math.multiplyHigh(numel, d);
            numel *= d;
            if (hi != 0 || numel < 0) {
                throw overflow(shape, dtype);
            }
        }
        int item = dtype.itemSize();
        long bytes = numel * item;
        if (numel > Long.MAX_VALUE / item) {
            throw overflow(shape, dtype);
        }
        long start;
        long f = forward;
        long b = backward;
        if (!back) {
            start = (f + item - 1) & -item;
            if (bytes > b - start) {
                throw insufficient(bytes, start - f + bytes, dtype, shape, Direction.FORWARD);
            }
            f = start + bytes;
        } else {
            if (bytes > b - f) {
                throw insufficient(bytes, bytes, dtype, shape, Direction.BACKWARD);
            }
            start = (b - bytes) & -item;
            if (start < f) {
                throw insufficient(bytes, b - start, dtype, shape, Direction.BACKWARD);
            }
            b = start;
        }
        if (poison >= 0 && bytes > 0) {
            device.memset(buffer, start, bytes, (byte) poison);
        }
        long consumed = back ? backward - b : f - forward;
        forward = f;
        backward = b;
        long used = f + capacity - b;
        if (used > peakUsed) {
            peakUsed = used;
        }
        if (f > peakForward) {
            peakForward = f;
        }
        if (capacity - b > peakBackward) {
            peakBackward = capacity - b;
        }
        long[] kept;
        boolean publishing = observer.publishing();
        if (publishing || observer.recorder() != null) {
            int e = descriptors.find(dtype, shape);
            kept = descriptors.shape(e);
            observer.allocated(descriptors, e, kept, dtype, start, bytes, consumed, back, f, b, scopes.depth(), publishing);
        } else {
            kept = shape.clone();
        }
        return new Tensor(buffer, start, kept, dtype, numel);
    }

    private IllegalArgumentException overflow(long[] shape, DType dtype) {
        return new IllegalArgumentException("arena '" + name + "': shape " + Arrays.toString(shape) + " of " + dtype
                + " overflows a 64-bit byte count");
    }

    private InsufficientMemoryException insufficient(long bytes, long needed, DType dtype, long[] shape, Direction dir) {
        long remaining = backward - forward;
        String path = scopePath();
        String msg = "arena '" + name + "' on " + device.info().id() + ": cannot allocate " + Tensor.descriptor(dtype, shape)
                + " (" + bytes + " bytes" + (needed != bytes ? ", " + needed + " with alignment" : "") + ") "
                + dir.name().toLowerCase(Locale.ROOT) + "; " + remaining + " bytes (" + Bytes.format(remaining)
                + ") remaining of " + Bytes.format(capacity) + "; open scopes: " + (path.isEmpty() ? "(none)" : path);
        observer.failed(msg, dir == Direction.BACKWARD, needed, remaining, forward, backward, scopes.depth());
        return new InsufficientMemoryException(msg, name, needed, remaining, path);
    }

    // ------------------------------------------------------------------ pointers

    /** The forward and backward pointers now. */
    public Pointers getPointers() {
        return new Pointers(forward, backward);
    }

    /**
     * Sets both pointers, releasing (or, moved the other way, re-claiming) the bytes between old and new.
     * Each pointer that moves is published as {@code POINTER_RESTORE}, with {@code b} negative when it
     * moved to claim bytes rather than release them.
     *
     * @throws IllegalArgumentException unless {@code 0 <= forward <= backward <= capacity}; nothing moves
     */
    public void setPointers(long newForward, long newBackward) {
        checkOpen();
        if (newForward < 0 || newForward > newBackward || newBackward > capacity) {
            throw new IllegalArgumentException("arena '" + name + "': pointers (forward " + newForward + ", backward "
                    + newBackward + ") out of range; need 0 <= forward <= backward <= " + capacity);
        }
        if (newBackward > backward) { // move in the order that never lets the pointers cross
            moveBackward(newBackward);
            moveForward(newForward);
        } else {
            moveForward(newForward);
            moveBackward(newBackward);
        }
    }

    /** {@link #setPointers(long, long)} from a pair obtained by {@link #getPointers()}. */
    public void setPointers(Pointers p) {
        Objects.requireNonNull(p, "pointers");
        setPointers(p.forward(), p.backward());
    }

    /** Pushes the forward pointer on the save stack. */
    public void savePointer() {
        checkOpen();
        if (savedDepth == saved.length) {
            saved = Arrays.copyOf(saved, savedDepth * 2);
        }
        saved[savedDepth++] = forward;
    }

    /**
     * Pops the save stack into the forward pointer, releasing everything allocated forward since the
     * matching {@link #savePointer()}.
     *
     * @throws IllegalStateException when the stack is empty, or the saved pointer now lies beyond the
     *                               backward pointer (nothing moves)
     */
    public void resetPointer() {
        checkOpen();
        if (savedDepth == 0) {
            throw new IllegalStateException("arena '" + name + "': resetPointer without a matching savePointer");
        }
        long p = saved[savedDepth - 1];
        if (p > backward) {
            throw new IllegalStateException("arena '" + name + "': saved forward pointer " + p
                    + " lies beyond the backward pointer " + backward);
        }
        savedDepth--;
        moveForward(p);
    }

    /** Depth of the save stack. */
    public int savedPointers() {
        return savedDepth;
    }

    /** Releases everything: forward pointer to 0, backward pointer to capacity. The save stack is kept. */
    public void reset() {
        checkOpen();
        long released = forward + capacity - backward;
        forward = 0;
        backward = capacity;
        observer.reset(released);
    }

    private void moveForward(long p) {
        if (p == forward) {
            return;
        }
        long released = forward - p;
        forward = p;
        afterMove(p, released, 0);
    }

    private void moveBackward(long p) {
        if (p == backward) {
            return;
        }
        long released = p - backward;
        backward = p;
        afterMove(p, released, Event.FLAG_BACKWARD);
    }

    private void afterMove(long p, long released, int flags) {
        long used = forward + capacity - backward;
        if (used > peakUsed) {
            peakUsed = used;
        }
        peakForward = Math.max(peakForward, forward);
        peakBackward = Math.max(peakBackward, capacity - backward);
        observer.moved(flags, p, released, forward, backward);
    }

    // ------------------------------------------------------------------ temp scopes

    /** A temp scope that restores the forward pointer when closed. */
    public Temp temp() {
        return temp(false, capacity);
    }

    /** A temp scope; with {@code clearPersistent}, closing also releases persistent allocations made inside it. */
    public Temp temp(boolean clearPersistent) {
        return temp(clearPersistent, capacity);
    }

    /**
     * A temp scope that restores the forward pointer when closed and, with {@code clearPersistent},
     * also sets the backward pointer back, but no higher than {@code persistentFloor} (a backward
     * pointer offset, as from {@link #getPointers()}): persistent allocations made inside at offsets at
     * or above the floor survive. Closing never moves a pointer forward (what was already released,
     * by {@link #reset()} say, stays released). Scopes close innermost first.
     *
     * @throws IllegalArgumentException when the floor is outside {@code [0, capacity]}
     */
    public Temp temp(boolean clearPersistent, long persistentFloor) {
        checkOpen();
        if (persistentFloor < 0 || persistentFloor > capacity) {
            throw new IllegalArgumentException("arena '" + name + "': persistent floor " + persistentFloor
                    + " outside [0, " + capacity + "]");
        }
        int d = temps.push();
        tempForward[d] = forward;
        tempBackward[d] = backward;
        tempClear[d] = clearPersistent;
        tempFloor[d] = persistentFloor;
        return temps.handle(d);
    }

    private void growTemps(int n) {
        tempForward = Arrays.copyOf(tempForward, n);
        tempBackward = Arrays.copyOf(tempBackward, n);
        tempFloor = Arrays.copyOf(tempFloor, n);
        tempClear = Arrays.copyOf(tempClear, n);
    }

    /** A {@link #temp()} scope. Close it (try-with-resources) to release what was allocated inside. */
    public final class Temp implements AutoCloseable {
        private final int depth;

        private Temp(int depth) {
            this.depth = depth;
        }

        /** The forward pointer when the scope opened. */
        public long entryForward() {
            return tempForward[depth];
        }

        /**
         * Restores the pointers.
         *
         * @throws IllegalStateException when an inner temp scope is still open
         */
        @Override
        public void close() {
            if (!temps.close(depth)) {
                throw new IllegalStateException("arena '" + name + "': temp scope " + depth + " closed out of order ("
                        + temps.depth() + " open)");
            }
            if (closed) {
                return;
            }
            long f = tempForward[depth];
            if (f < forward) {
                moveForward(f);
            }
            if (tempClear[depth]) {
                long target = Math.min(tempBackward[depth], tempFloor[depth]);
                if (target > backward) {
                    moveBackward(target);
                }
            }
        }
    }

    // ------------------------------------------------------------------ scopes and recording

    /**
     * Labels a region; close the returned scope (try-with-resources) at its end. Nearly free unless the
     * session has sinks or a {@link #recording()} is active (a name pushed on a stack), so scopes can
     * stay in production code. The open scope path appears in {@link InsufficientMemoryException}s.
     */
    public Scope scope(String scopeName) {
        return openScope(scopeName, null, 0, null, 0, null);
    }

    /** {@link #scope(String)} with one shape parameter (e.g. {@code "frames", 4}). */
    public Scope scope(String scopeName, String key, long value) {
        checkKey(key);
        return openScope(scopeName, key, value, null, 0, null);
    }

    /** {@link #scope(String)} with two shape parameters. */
    public Scope scope(String scopeName, String key1, long value1, String key2, long value2) {
        checkKey(key1);
        checkKey(key2);
        return openScope(scopeName, key1, value1, key2, value2, null);
    }

    /** {@link #scope(String)} with any number of shape parameters (integral values). */
    public Scope scope(String scopeName, Map<String, ? extends Number> params) {
        checkParams(params);
        return openScope(scopeName, null, 0, null, 0, params);
    }

    private Scope openScope(String scopeName, String k1, long v1, String k2, long v2, Map<String, ? extends Number> params) {
        checkOpen();
        if (scopeName == null) {
            throw new IllegalArgumentException("arena '" + name + "': scope name is null");
        }
        int d = scopes.push();
        scopeNames[d] = scopeName;
        boolean observed = observer.observing();
        scopeObserved[d] = observed;
        if (observed) {
            observer.scopeEntered(d, scopeName, forward, backward, k1, v1, k2, v2, params);
        }
        return scopes.handle(d);
    }

    /**
     * Adds a parameter known only inside the region (a fragment count, say) to the innermost open
     * scope. A no-op when nothing observes the arena or no scope is open.
     */
    public void noteScopeParams(String key, long value) {
        checkKey(key);
        if (scopes.depth() > 0 && observer.observing()) {
            observer.param(scopes.depth() - 1, key, value, forward, backward);
        }
    }

    /** {@link #noteScopeParams(String, long)} for several parameters. */
    public void noteScopeParams(Map<String, ? extends Number> params) {
        checkParams(params);
        if (scopes.depth() > 0 && observer.observing()) {
            int d = scopes.depth() - 1;
            params.forEach((k, v) -> observer.param(d, k, v.longValue(), forward, backward));
        }
    }

    /** The open scopes' names, outermost first, joined by {@code /}; empty when none is open. */
    public String scopePath() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < scopes.depth(); i++) {
            sb.append(i == 0 ? "" : "/").append(scopeNames[i]);
        }
        return sb.toString();
    }

    private void growScopes(int n) {
        scopeNames = Arrays.copyOf(scopeNames, n);
        scopeObserved = Arrays.copyOf(scopeObserved, n);
        observer.scopeCapacity(n);
    }

    private void checkKey(String key) {
        if (key == null) {
            throw new IllegalArgumentException("arena '" + name + "': scope parameter name is null");
        }
    }

    private void checkParams(Map<String, ? extends Number> params) {
        if (params == null) {
            throw new IllegalArgumentException("arena '" + name + "': scope parameters are null");
        }
        params.forEach((k, v) -> {
            checkKey(k);
            if (v == null) {
                throw new IllegalArgumentException("arena '" + name + "': scope parameter '" + k + "' has no value");
            }
        });
    }

    /** A {@link #scope(String)} region. Close it at the region's end. */
    public final class Scope implements AutoCloseable {
        private final int depth;

        private Scope(int depth) {
            this.depth = depth;
        }

        /** The scope's name. */
        public String name() {
            return scopeNames[depth];
        }

        /**
         * Ends the region.
         *
         * @throws IllegalStateException when an inner scope is still open
         */
        @Override
        public void close() {
            int open = scopes.depth();
            if (!scopes.close(depth)) {
                throw new IllegalStateException("arena '" + name + "': scope '" + scopeNames[depth]
                        + "' closed while '" + scopeNames[open - 1] + "' is open inside it");
            }
            if (scopeObserved[depth]) {
                observer.scopeExited(depth, scopeNames[depth], forward, backward, closed);
            }
        }
    }

    /**
     * Starts recording every allocation and scope of this arena until the returned recorder is closed.
     * On an unmanaged arena the recorder stays empty.
     *
     * @throws IllegalStateException when a recording is already active (recordings do not nest), or
     *                               after {@link #close()}
     */
    public AllocationRecorder recording() {
        checkOpen();
        if (observer.recorder() != null) {
            throw new IllegalStateException("arena '" + name + "' is already recording: recording() blocks do not nest;"
                    + " close the active AllocationRecorder first");
        }
        AllocationRecorder[] self = new AllocationRecorder[1];
        AllocationRecorder r = new AllocationRecorder(name, capacity, forward, backward, () -> {
            self[0].finish(forward, backward);
            if (observer.recorder() == self[0]) {
                observer.recorder(null);
                EventClock.releaseTicker();
            }
        });
        self[0] = r;
        if (managed) {
            observer.recorder(r);
            EventClock.holdTicker(); // cheap stamps for the recorder's rows while it records
        }
        return r;
    }

    /** Whether a {@link #recording()} is active. */
    public boolean isRecording() {
        return observer.recorder() != null;
    }

    // ------------------------------------------------------------------ gauges

    /** The arena's name. */
    public String name() {
        return name;
    }

    /** The device the block lives on. */
    public MemoryDevice device() {
        return device;
    }

    /** The block (device pointer plus size). */
    public DeviceBuffer buffer() {
        return buffer;
    }

    /** The session this arena publishes to. */
    public Session session() {
        return session;
    }

    /** The arena's memory id in its session, or -1 when unmanaged. */
    public int memoryId() {
        return memoryId;
    }

    /** Whether the arena really owns memory ({@code managed(false)} holds one byte). */
    public boolean isManaged() {
        return managed;
    }

    /** The poison byte (0..255), or -1 when the arena does not poison. */
    public int poisonByte() {
        return poison;
    }

    /** Capacity in bytes. */
    public long capacity() {
        return capacity;
    }

    /** Bytes between the two pointers: what the next allocations can still use (before alignment). */
    public long getNumBytesRemaining() {
        return backward - forward;
    }

    /** Bytes in use: forward plus backward. */
    public long usedBytes() {
        return forward + capacity - backward;
    }

    /** Bytes held by the backward (persistent) end. */
    public long backwardBytes() {
        return capacity - backward;
    }

    /** Percent of the capacity in use, 0 to 100. */
    public double getPercentUsed() {
        return 100.0 * usedBytes() / capacity;
    }

    /** The most bytes ever in use at once (forward plus backward) since creation or {@link #resetHighWaterMark()}. */
    public long highWaterMark() {
        return peakUsed;
    }

    /** The highest the forward pointer has been. */
    public long peakForwardBytes() {
        return peakForward;
    }

    /** The most bytes the backward end has held. */
    public long peakBackwardBytes() {
        return peakBackward;
    }

    /** Starts the high-water marks again from the bytes in use now. */
    public void resetHighWaterMark() {
        peakUsed = usedBytes();
        peakForward = forward;
        peakBackward = capacity - backward;
    }

    // ------------------------------------------------------------------ clone, cast, close

    /**
     * A second arena of the same capacity on the same device, with the same settings and pointers and a
     * device-to-device copy of the bytes in use (both ends). For a device arena this claims
     * {@link #capacity()} more device memory. Tensors of this arena are not views of the clone; the clone
     * has no save stack or open scopes. Its name is this name plus {@code -clone}.
     *
     * @throws dev.arenascope.core.device.DeviceOutOfMemoryException when the device cannot hold a second block
     */
    @Override
    public ManualMemory clone() {
        checkOpen();
        ManualMemory c = sibling(device, name + "-clone");
        if (managed) {
            ArenaCopy.onDevice(device, buffer, c.buffer, forward, backward, capacity);
        }
        c.setPointers(forward, backward);
        return c;
    }

    /**
     * This arena's contents on another device: a new arena of the same capacity on {@code target}, same
     * settings and pointers, with the bytes in use copied through the host in 64 MiB chunks (CUDA to host
     * to inspect a frame's memory; anything to {@code virtual} to keep only the accounting). This arena
     * is unchanged.
     */
    public ManualMemory cast(MemoryDevice target) {
        checkOpen();
        Objects.requireNonNull(target, "target device");
        ManualMemory c = sibling(target, name + "@" + target.info().id());
        if (managed) {
            ArenaCopy.throughHost(device, buffer, target, c.buffer, forward, backward, capacity);
        }
        c.setPointers(forward, backward);
        return c;
    }

    private ManualMemory sibling(MemoryDevice target, String siblingName) {
        ArenaBuilder b = builder().device(target).session(session).name(siblingName).managed(managed).numBytes(capacity);
        if (poison >= 0) {
            b.poison(poison);
        } else {
            b.noPoison();
        }
        return b.build();
    }

    /** Whether {@link #close()} has run. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Gives the block back to the device; every tensor of this arena becomes invalid and every further
     * operation throws {@link IllegalStateException}. An active recording ends. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (observer.recorder() != null) {
            observer.recorder().close();
        }
        closed = true;
        buffer.close();
        observer.closed(buffer.address(), forward, backward);
    }

    private void checkOpen() {
        if (closed) {
            throw closedError();
        }
    }

    private IllegalStateException closedError() {
        return new IllegalStateException("arena '" + name + "' is closed");
    }

    @Override
    public String toString() {
        return "ManualMemory[" + name + " on " + device.info().id() + ", " + Bytes.format(usedBytes()) + " of "
                + Bytes.format(capacity) + " used" + (closed ? ", closed" : "") + "]";
    }
}
