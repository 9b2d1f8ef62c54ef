package dev.arenascope.core.arena;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

import dev.arenascope.core.device.Bytes;
import dev.arenascope.core.device.DeviceBuffer;
import dev.arenascope.core.device.DeviceKind;
import dev.arenascope.core.device.Devices;
import dev.arenascope.core.device.MemoryDevice;
import dev.arenascope.core.record.AllocationRecorder;
import dev.arenascope.core.record.EventClock;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
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
 */
public final class ManualMemory implements AutoCloseable {
    /** The environment variable that turns poisoning on for every arena without its own setting. */
    public static final String POISON_ENV = "ARENASCOPE_POISON";
    private static final int NO_POISON = -1;
    private static final String ENV_POISON_TEXT = System.getenv(POISON_ENV);
    private static final AtomicInteger COUNTER = new AtomicInteger();
    private static final long COPY_CHUNK = 64L << 20;

    private final String name;
    private final MemoryDevice device;
    private final DeviceBuffer buffer;
    private final long capacity;
    private final boolean managed;
    private final int poison;
    private final Session session;
    private final int memoryId;
    private final DescriptorTable descriptors = new DescriptorTable();

    private long forward;
    private long backward;
    private long peakUsed;
    private long peakForward;
    private long peakBackward;
    private boolean closed;

    private long[] saved = new long[8];
    private int savedDepth;

    private Temp[] temps = new Temp[0];
    private long[] tempForward = new long[8];
    private long[] tempBackward = new long[8];
    private long[] tempFloor = new long[8];
    private boolean[] tempClear = new boolean[8];
    private int tempDepth;

    private Scope[] scopes = new Scope[0];
    private String[] scopeNames = new String[8];
    private int[] scopeIds = new int[8];
    private int[] scopeNodes = new int[8];
    private AllocationRecorder[] scopeRecorders = new AllocationRecorder[8];
    private int scopeDepth;

    private AllocationRecorder recorder;
    private long stamp = -1;
    private final EventClock.Stamper stamper;
    private final String[] internedNames = new String[32];
    private final int[] internedIds = new int[32];
    private Thread lastThread;
    private int lastThreadId;

    // ------------------------------------------------------------------ construction

    /** Claims {@code portion} (0, 1] of the free memory of the process-wide default device ({@code auto}). */
    public ManualMemory(double portion) {
        this(builder().portion(portion));
    }

    /** Claims {@code portion} (0, 1] of {@code device}'s currently free memory. */
    public ManualMemory(double portion, MemoryDevice device) {
        this(builder().portion(portion).device(device));
    }

    /** A builder: give a device and a portion or an exact size; the rest have defaults. */
    public static Builder builder() {
        return new Builder();
    }

    private ManualMemory(Builder b) {
        if (b.numBytes == null && b.portion == null) {
            throw new IllegalArgumentException("arena: give a portion of free memory in (0, 1] or numBytes");
        }
        if (b.numBytes == null && !(b.portion > 0 && b.portion <= 1)) {
            throw new IllegalArgumentException("arena: portion of free memory must be in (0, 1], got " + b.portion);
        }
        if (b.numBytes != null && b.numBytes <= 0) {
            throw new IllegalArgumentException("arena: numBytes must be positive, got " + b.numBytes);
        }
        this.device = b.device != null ? b.device : DefaultDevice.get();
        this.session = b.session != null ? b.session : Session.current();
        this.stamper = session.clock().stamper();
        this.name = b.name != null ? b.name : "arena-" + COUNTER.incrementAndGet();
        this.managed = b.managed;
        long size;
        if (!managed) {
            size = 1;
        } else {
            long free = device.freeBytes();
            if (b.numBytes != null) {
                if (b.numBytes > free) {
                    throw new IllegalArgumentException("arena '" + name + "': numBytes " + b.numBytes + " (" + Bytes.format(b.numBytes)
                            + ") is more than the " + Bytes.format(free) + " free on " + device.info().id());
                }
                size = b.numBytes;
            } else {
                size = (long) (free * b.portion);
                if (size < 1) {
                    throw new IllegalArgumentException("arena '" + name + "': " + b.portion + " of the " + free
                            + " bytes free on " + device.info().id() + " is less than one byte");
                }
            }
        }
        if (managed && !b.poisonSet) {
            parsePoison(ENV_POISON_TEXT, POISON_ENV); // a bad setting fails here, before any memory is claimed
        }
        this.buffer = device.allocate(size);
        this.capacity = size;
        this.forward = 0;
        this.backward = size;
        int chosenPoison = !managed ? NO_POISON : b.poisonSet ? b.poison : parsePoison(ENV_POISON_TEXT, POISON_ENV);
        this.poison = chosenPoison;
        if (managed) {
            Map<String, String> attrs = new LinkedHashMap<>();
            if (poison != NO_POISON) {
                attrs.put("poison", String.format("0x%02X", poison));
            }
            this.memoryId = session.registerMemory(name, MemoryKind.ARENA, device.info().id(), capacity, attrs);
            session.addDevice(device.info());
            if (session.isRecording()) {
                publish(EventKind.MEMORY_CREATED, 0, buffer.address(), capacity, 0, session.intern(name), -1);
            }
        } else {
            this.memoryId = -1;
        }
    }

    /** Settings for a new arena. Not thread-safe. */
    public static final class Builder {
        private MemoryDevice device;
        private Double portion;
        private Long numBytes;
        private boolean managed = true;
        private boolean poisonSet;
        private int poison = NO_POISON;
        private Session session;
        private String name;

        private Builder() {}

        /** The device to claim memory on; default: the process-wide {@code auto} device (CUDA, else host). */
        public Builder device(MemoryDevice d) {
            this.device = Objects.requireNonNull(d, "device");
            return this;
        }

        /** Claim this fraction (0, 1] of the device's currently free memory. Ignored when numBytes is given. */
        public Builder portion(double p) {
            this.portion = p;
            return this;
        }

        /** Claim exactly this many bytes (at least 1, at most the device's free memory). */
        public Builder numBytes(long n) {
            this.numBytes = n;
            return this;
        }

        /** False: hold one byte, never poison, never record (default true). */
        public Builder managed(boolean m) {
            this.managed = m;
            return this;
        }

        /** Poison every new allocation with {@code value} (0..255), overriding {@value ManualMemory#POISON_ENV}. */
        public Builder poison(int value) {
            if (value < 0 || value > 255) {
                throw new IllegalArgumentException("poison byte must be 0..255, got " + value);
            }
            this.poison = value;
            this.poisonSet = true;
            return this;
        }

        /** Never poison, whatever {@value ManualMemory#POISON_ENV} says. */
        public Builder noPoison() {
            this.poison = NO_POISON;
            this.poisonSet = true;
            return this;
        }

        /** The session events go to; default {@link Session#current()} (the open {@code ArenaScope.record(...)}, else {@link Session#global()}). */
        public Builder session(Session s) {
            this.session = Objects.requireNonNull(s, "session");
            return this;
        }

        /** The arena's name in traces and messages; default {@code arena-N}. */
        public Builder name(String n) {
            this.name = Objects.requireNonNull(n, "name");
            return this;
        }

        /**
         * Claims the memory.
         *
         * @throws IllegalArgumentException on a bad portion or size
         * @throws dev.arenascope.core.device.DeviceOutOfMemoryException when the device refuses the block
         */
        public ManualMemory build() {
            return new ManualMemory(this);
        }
    }

    /** The process-wide default device, opened once on first use ({@code auto}: CUDA if it answers, else host). */
    private static final class DefaultDevice {
        private static final MemoryDevice DEVICE = Devices.open("auto").device();

        static MemoryDevice get() {
            return DEVICE;
        }
    }

    /**
     * Parses a poison setting: {@code 0xNN}, a decimal 0..255, or {@code off}/{@code none}/{@code false}/empty
     * for none. Returns -1 for none.
     *
     * @throws IllegalArgumentException naming {@code source} when the text is none of these
     */
    static int parsePoison(String text, String source) {
        if (text == null) {
            return NO_POISON;
        }
        String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        if (t.isEmpty() || t.equals("off") || t.equals("none") || t.equals("false") || t.equals("no")) {
            return NO_POISON;
        }
        try {
            int v = t.startsWith("0x") ? Integer.parseInt(t.substring(2), 16) : Integer.parseInt(t);
            if (v >= 0 && v <= 255) {
                return v;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new IllegalArgumentException(source + "='" + text + "' is not a poison byte (0..255, 0xNN, or off)");
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
        boolean publishing = managed && session.isRecording();
        if (publishing || recorder != null) {
            int e = descriptors.find(dtype, shape);
            kept = descriptors.shape(e);
            observeAllocation(e, kept, dtype, start, bytes, consumed, back, publishing);
        } else {
            kept = shape.clone();
        }
        return new Tensor(buffer, start, kept, dtype, numel);
    }

    private void observeAllocation(int descriptor, long[] shape, DType dtype, long start, long bytes, long consumed,
                                   boolean back, boolean publishing) {
        long t = stamper.stamp(); // one stamp for both the event and the recorder's row
        int thread = thread();
        if (publishing) {
            int ref = descriptors.stringId(descriptor, session);
            int scope = scopeDepth > 0 ? scopeIds[scopeDepth - 1] : -1;
            session.publishAt(t, thread, EventKind.ALLOC, back ? Event.FLAG_BACKWARD : 0, memoryId, start, consumed, bytes,
                    forward + capacity - backward, capacity - backward, ref, scope);
        }
        AllocationRecorder r = recorder;
        if (r != null) {
            r.onAllocation(t, lastThread.threadId(), start, bytes, consumed, descriptor, dtype, shape, back, forward, backward);
        }
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
                + dir.name().toLowerCase(java.util.Locale.ROOT) + "; " + remaining + " bytes (" + Bytes.format(remaining)
                + ") remaining of " + Bytes.format(capacity) + "; open scopes: " + (path.isEmpty() ? "(none)" : path);
        if (managed && session.isRecording()) {
            publish(EventKind.OUT_OF_MEMORY, dir == Direction.BACKWARD ? Event.FLAG_BACKWARD : 0, 0, needed, remaining,
                    session.intern(msg), scopeDepth > 0 ? scopeIds[scopeDepth - 1] : -1);
        }
        if (recorder != null) {
            recorder.onFailure(msg);
        }
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
        if (observing()) {
            if (session.isRecording()) {
                publish(EventKind.RESET, 0, 0, released, 0, -1, -1);
            }
            if (recorder != null) {
                recorder.onPointers(0, capacity);
            }
        }
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
        if (observing()) {
            if (session.isRecording()) {
                publish(EventKind.POINTER_RESTORE, flags, p, released, 0, -1, -1);
            }
            if (recorder != null) {
                recorder.onPointers(forward, backward);
            }
        }
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
        int d = tempDepth;
        if (d == temps.length) {
            growTemps();
        }
        tempForward[d] = forward;
        tempBackward[d] = backward;
        tempClear[d] = clearPersistent;
        tempFloor[d] = persistentFloor;
        tempDepth = d + 1;
        return temps[d];
    }

    private void growTemps() {
        int n = Math.max(8, temps.length * 2);
        Temp[] t = Arrays.copyOf(temps, n);
        for (int i = temps.length; i < n; i++) {
            t[i] = new Temp(i);
        }
        temps = t;
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
            if (tempDepth != depth + 1) {
                throw new IllegalStateException("arena '" + name + "': temp scope " + depth + " closed out of order ("
                        + tempDepth + " open)");
            }
            tempDepth = depth;
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
        int d = pushScope(scopeName);
        if (observing()) {
            stamp = session.now(); // scope bounds read the clock in full: one read for the entry and its params
            try {
                enterObserved(d);
            } finally {
                stamp = -1;
            }
        }
        return scopes[d];
    }

    /** {@link #scope(String)} with one shape parameter (e.g. {@code "frames", 4}). */
    public Scope scope(String scopeName, String key, long value) {
        checkKey(key);
        int d = pushScope(scopeName);
        if (observing()) {
            stamp = session.now(); // scope bounds read the clock in full: one read for the entry and its params
            try {
                enterObserved(d);
                param(d, key, value);
            } finally {
                stamp = -1;
            }
        }
        return scopes[d];
    }

    /** {@link #scope(String)} with two shape parameters. */
    public Scope scope(String scopeName, String key1, long value1, String key2, long value2) {
        checkKey(key1);
        checkKey(key2);
        int d = pushScope(scopeName);
        if (observing()) {
            stamp = session.now(); // scope bounds read the clock in full: one read for the entry and its params
            try {
                enterObserved(d);
                param(d, key1, value1);
                param(d, key2, value2);
            } finally {
                stamp = -1;
            }
        }
        return scopes[d];
    }

    /** {@link #scope(String)} with any number of shape parameters (integral values). */
    public Scope scope(String scopeName, Map<String, ? extends Number> params) {
        checkParams(params);
        int d = pushScope(scopeName);
        if (observing()) {
            stamp = session.now(); // scope bounds read the clock in full: one read for the entry and its params
            try {
                enterObserved(d);
                params.forEach((k, v) -> param(d, k, v.longValue()));
            } finally {
                stamp = -1;
            }
        }
        return scopes[d];
    }

    /**
     * Adds a parameter known only inside the region (a fragment count, say) to the innermost open
     * scope. A no-op when nothing observes the arena or no scope is open.
     */
    public void noteScopeParams(String key, long value) {
        checkKey(key);
        if (scopeDepth > 0 && observing()) {
            param(scopeDepth - 1, key, value);
        }
    }

    /** {@link #noteScopeParams(String, long)} for several parameters. */
    public void noteScopeParams(Map<String, ? extends Number> params) {
        checkParams(params);
        if (scopeDepth > 0 && observing()) {
            int d = scopeDepth - 1;
            params.forEach((k, v) -> param(d, k, v.longValue()));
        }
    }

    /** The open scopes' names, outermost first, joined by {@code /}; empty when none is open. */
    public String scopePath() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < scopeDepth; i++) {
            sb.append(i == 0 ? "" : "/").append(scopeNames[i]);
        }
        return sb.toString();
    }

    private int pushScope(String scopeName) {
        checkOpen();
        if (scopeName == null) {
            throw new IllegalArgumentException("arena '" + name + "': scope name is null");
        }
        int d = scopeDepth;
        if (d == scopes.length) {
            growScopes();
        }
        scopeNames[d] = scopeName;
        scopeIds[d] = -1;
        scopeNodes[d] = -1;
        scopeRecorders[d] = null;
        scopeDepth = d + 1;
        return d;
    }

    private void growScopes() {
        int n = Math.max(8, scopes.length * 2);
        Scope[] s = Arrays.copyOf(scopes, n);
        for (int i = scopes.length; i < n; i++) {
            s[i] = new Scope(i);
        }
        scopes = s;
        scopeNames = Arrays.copyOf(scopeNames, n);
        scopeIds = Arrays.copyOf(scopeIds, n);
        scopeNodes = Arrays.copyOf(scopeNodes, n);
        scopeRecorders = Arrays.copyOf(scopeRecorders, n);
    }

    private void enterObserved(int d) {
        if (session.isRecording()) {
            int id = session.nextScopeId();
            scopeIds[d] = id;
            int parent = d > 0 ? scopeIds[d - 1] : -1;
            publish(EventKind.SCOPE_ENTER, 0, forward, backward, parent, internName(scopeNames[d]), id);
        }
        if (recorder != null) {
            scopeNodes[d] = recorder.onScopeEnter(scopeNames[d], forward, backward);
            scopeRecorders[d] = recorder;
        }
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

    private void param(int d, String key, long value) {
        if (scopeIds[d] >= 0 && session.isRecording()) {
            publish(EventKind.SCOPE_PARAM, 0, value, 0, 0, internName(key), scopeIds[d]);
        }
        if (scopeRecorders[d] != null && scopeRecorders[d] == recorder) {
            recorder.onScopeParam(scopeNodes[d], key, value);
        } else if (recorder != null) {
            recorder.onScopeParam(recorder.currentScope(), key, value);
        }
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
            if (scopeDepth != depth + 1) {
                throw new IllegalStateException("arena '" + name + "': scope '" + scopeNames[depth]
                        + "' closed while '" + scopeNames[scopeDepth - 1] + "' is open inside it");
            }
            int id = scopeIds[depth];
            if (id >= 0 && !closed && session.isRecording()) {
                stamp = session.now(); // scope bounds read the clock in full, so scope durations are exact
                try {
                    publish(EventKind.SCOPE_EXIT, 0, forward, backward, 0, internName(scopeNames[depth]), id);
                } finally {
                    stamp = -1;
                }
            }
            AllocationRecorder r = scopeRecorders[depth];
            if (r != null && r == recorder) {
                r.onScopeExit(scopeNodes[depth], forward, backward);
            }
            scopeRecorders[depth] = null;
            scopeDepth = depth;
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
        if (recorder != null) {
            throw new IllegalStateException("arena '" + name + "' is already recording: recording() blocks do not nest;"
                    + " close the active AllocationRecorder first");
        }
        AllocationRecorder[] self = new AllocationRecorder[1];
        AllocationRecorder r = new AllocationRecorder(name, capacity, forward, backward, () -> {
            self[0].finish(forward, backward);
            if (recorder == self[0]) {
                recorder = null;
                EventClock.releaseTicker();
            }
        });
        self[0] = r;
        if (managed) {
            recorder = r;
            EventClock.holdTicker(); // cheap stamps for the recorder's rows while it records
        }
        return r;
    }

    /** Whether a {@link #recording()} is active. */
    public boolean isRecording() {
        return recorder != null;
    }

    private boolean observing() {
        return managed && (recorder != null || session.isRecording());
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
        if (managed && forward > 0) {
            device.copy(buffer, 0, c.buffer, 0, forward);
        }
        if (managed && backward < capacity) {
            device.copy(buffer, backward, c.buffer, backward, capacity - backward);
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
            copyThroughHost(0, forward, c);
            copyThroughHost(backward, capacity - backward, c);
        }
        c.setPointers(forward, backward);
        return c;
    }

    private ManualMemory sibling(MemoryDevice target, String siblingName) {
        Builder b = builder().device(target).session(session).name(siblingName).managed(managed).numBytes(capacity);
        if (poison >= 0) {
            b.poison(poison);
        } else {
            b.noPoison();
        }
        return b.build();
    }

    private void copyThroughHost(long from, long length, ManualMemory to) {
        if (length == 0 || device.info().kind() == DeviceKind.VIRTUAL || to.device.info().kind() == DeviceKind.VIRTUAL) {
            return;
        }
        byte[] chunk = new byte[(int) Math.min(COPY_CHUNK, Math.max(1, length))];
        for (long done = 0; done < length; ) {
            int n = (int) Math.min(chunk.length, length - done);
            device.copyToHost(buffer, from + done, chunk, 0, n);
            to.device.copyFromHost(chunk, 0, to.buffer, from + done, n);
            done += n;
        }
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
        if (recorder != null) {
            recorder.close();
        }
        closed = true;
        buffer.close();
        if (managed && session.isRecording()) {
            publish(EventKind.MEMORY_CLOSED, 0, buffer.address(), capacity, 0, -1, -1);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw closedError();
        }
    }

    private IllegalStateException closedError() {
        return new IllegalStateException("arena '" + name + "' is closed");
    }

    private int thread() {
        Thread t = Thread.currentThread();
        if (t != lastThread) {
            lastThreadId = session.threadId();
            lastThread = t;
        }
        return lastThreadId;
    }

    /** The session's id for a scope or parameter name, through a small cache keyed by identity (names are mostly literals). */
    private int internName(String value) {
        int slot = System.identityHashCode(value) & (internedNames.length - 1);
        if (internedNames[slot] == value) {
            return internedIds[slot];
        }
        int id = session.intern(value);
        internedNames[slot] = value;
        internedIds[slot] = id;
        return id;
    }

    private void publish(EventKind kind, int flags, long a, long b, long c, int ref, int ref2) {
        session.publishAt(stamp >= 0 ? stamp : stamper.stamp(), thread(), kind, flags, memoryId, a, b, c,
                forward + capacity - backward, capacity - backward, ref, ref2);
    }

    @Override
    public String toString() {
        return "ManualMemory[" + name + " on " + device.info().id() + ", " + Bytes.format(usedBytes()) + " of "
                + Bytes.format(capacity) + " used" + (closed ? ", closed" : "") + "]";
    }
}
