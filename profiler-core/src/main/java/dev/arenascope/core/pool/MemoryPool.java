package dev.arenascope.core.pool;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.arenascope.core.device.DeviceBuffer;
import dev.arenascope.core.device.DeviceKind;
import dev.arenascope.core.device.DeviceOutOfMemoryException;
import dev.arenascope.core.device.MemoryDevice;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryKind;

/**
 * A binned device memory pool in the manner of pyopencl's and pycuda's memory pools, over any
 * {@link MemoryDevice} (CUDA, host, virtual).
 *
 * <p><b>Bins.</b> A request of {@code n} bytes falls in bin {@link Bins#binNumber binNumber(n)} and is
 * served by a block of {@link Bins#allocSize allocSize(bin)} bytes, so the pool wastes less than
 * {@code 2^-mantissaBits} of each request to rounding. For example with 4 mantissa bits a request of
 * 1000 bytes falls in bin 159 and gets a block of 1023 bytes; 4097 bytes fall in bin 192 (4351 bytes).
 *
 * <p><b>Holding.</b> A {@link PooledBuffer} closed by its owner is held in its bin, last in first out,
 * and handed to the next request of that bin without asking the device (a hit). {@link #freeHeld()}
 * gives every held block back to the device and keeps holding; {@link #stopHolding()} does the same and
 * frees returned blocks at once from then on.
 *
 * <p><b>Running out.</b> Before the device is asked, the bytes the pool has reserved from it (in use
 * plus held) plus the new block must stay within {@link #maxAllocBytes()}: a software ceiling that
 * turns what would be a kill by the operating system or a hung driver into an ordinary error. When
 * the ceiling or the device refuses, the pool frees held blocks, largest first, until at least the
 * block's bytes are freed, and retries; it repeats that until nothing is held, and then throws
 * {@link PoolOutOfMemoryException} naming the request. Default ceilings
 * ({@link #defaultMaxAllocBytes}): 80% of physical memory on the host device; none on CUDA (the
 * driver reports out of memory properly); none on the virtual device (its capacity is already an
 * exact, enforced limit).
 *
 * <p><b>Alignment.</b> Device blocks are aligned to at least {@value #DEVICE_ALIGNMENT} bytes; a
 * larger power-of-two alignment is served by a block {@code alignment - 1} bytes larger and an
 * {@link PooledBuffer#offset() offset} into it.
 *
 * <p><b>Events.</b> Into the session's stream as memory kind {@link MemoryKind#POOL}:
 * {@code MEMORY_CREATED}, {@code RESERVE} for each device allocation, {@code POOL_REQUEST} for each
 * served request (hit flag, duration), {@code POOL_HOLD}, {@code POOL_RELEASE} with {@code UNRESERVE}
 * for each block given back to the device, {@code OUT_OF_MEMORY}, {@code MEMORY_CLOSED}. Gauges:
 * {@code used} = bytes handed out (blocks' sizes), {@code aux} = bytes reserved from the device
 * (in use plus held).
 *
 * <p><b>Threads.</b> Thread-safe: worker threads share pools. Bin state is guarded by one lock held for
 * a few dozen nanoseconds; device calls run outside it.
 *
 * <p><b>Bad input.</b> A negative size, an alignment that is not a positive power of two or a request
 * to a closed pool throws {@link IllegalArgumentException} / {@link IllegalStateException} with a
 * one-line message naming the pool; nothing changes, statistics included.
 *
 * <p><b>Parts.</b> This class holds the request paths (hit, miss with ceiling, eviction and retry, give
 * back), which share one lock and its invariants and read best together; beside it {@link Bins} the
 * bin math, {@link BinTable} and {@link PoolBin} the bins and their held blocks, {@link PoolStatistics}
 * the counters and {@link PoolReport} the text of {@link #allocationReport()}.
 */
public final class MemoryPool implements AutoCloseable {
    /**
     * For the positional constructors: {@code maxAllocBytes} meaning "the device's default"
     * ({@link #defaultMaxAllocBytes}). The {@link #builder} says it by name: {@link Builder#deviceDefaultLimit()}.
     */
    public static final long DEFAULT_LIMIT = -1;
    /** {@code maxAllocBytes} meaning "no ceiling" ({@link Builder#noLimit()}). */
    public static final long NO_LIMIT = Long.MAX_VALUE;
    /** The mantissa bits a pool uses unless told otherwise. */
    public static final int DEFAULT_MANTISSA_BITS = 4;
    /** The alignment every device block has ({@link MemoryDevice#allocate}). */
    public static final long DEVICE_ALIGNMENT = 256;

    private final String name;
    private final MemoryDevice device;
    private final long maxAllocBytes;
    private final int mantissaBits;
    private final Session session;
    private final int memoryId;

    private final Object lock = new Object();
    /** The bins, created on first use. Guarded by lock. */
    private final BinTable bins;
    private final PoolStatistics stats = new PoolStatistics();
    private long usedBytes;
    private long reservedBytes;
    private long inFlightBytes;
    private long heldBytes;
    private int heldBlocks;
    private int activeBlocks;
    private boolean holding = true;
    private volatile boolean closed;

    /**
     * A pool built by name instead of position:
     * <pre>{@code
     * MemoryPool pool = MemoryPool.builder("frames", device).limitBytes(256L << 20).session(session).build();
     * }</pre>
     * Defaults: the device's default ceiling ({@link #defaultMaxAllocBytes}), {@value #DEFAULT_MANTISSA_BITS}
     * mantissa bits, {@link Session#current()} when {@link Builder#build()} runs.
     *
     * @throws NullPointerException when {@code name} or {@code device} is null
     */
    public static Builder builder(String name, MemoryDevice device) {
        return new Builder(name, device);
    }

    /** Settings of a pool to build; not thread-safe (build it on one thread). */
    public static final class Builder {
        private final String name;
        private final MemoryDevice device;
        private long maxAllocBytes = DEFAULT_LIMIT;
        private int mantissaBits = DEFAULT_MANTISSA_BITS;
        private Session session;

        private Builder(String name, MemoryDevice device) {
            this.name = Objects.requireNonNull(name, "pool name");
            this.device = Objects.requireNonNull(device, "device");
        }

        /**
         * A ceiling of {@code bytes} reserved from the device (in use plus held), positive.
         *
         * @throws IllegalArgumentException when {@code bytes <= 0}
         */
        public Builder limitBytes(long bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("pool '" + name + "': limit must be positive, got " + bytes + " bytes");
            }
            this.maxAllocBytes = bytes;
            return this;
        }

        /** No ceiling: the device alone says when memory runs out. */
        public Builder noLimit() {
            this.maxAllocBytes = NO_LIMIT;
            return this;
        }

        /** The device's default ceiling ({@link #defaultMaxAllocBytes}); the default. */
        public Builder deviceDefaultLimit() {
            this.maxAllocBytes = DEFAULT_LIMIT;
            return this;
        }

        /**
         * Bits below the leading one that pick a bin, 0..16 (more: less rounding waste, fewer hits).
         *
         * @throws IllegalArgumentException outside 0..16
         */
        public Builder mantissaBits(int bits) {
            Bins.checkMantissaBits(bits);
            this.mantissaBits = bits;
            return this;
        }

        /** The session its events go to (default {@link Session#current()} at {@link #build()}). */
        public Builder session(Session session) {
            this.session = Objects.requireNonNull(session, "session");
            return this;
        }

        /** The pool; it registers with its session now. */
        public MemoryPool build() {
            return new MemoryPool(name, device, maxAllocBytes, mantissaBits, session != null ? session : Session.current());
        }
    }

    /** A pool with the device's default ceiling and 4 mantissa bits, publishing to {@link Session#current()}. */
    public MemoryPool(String name, MemoryDevice device) {
        this(name, device, DEFAULT_LIMIT, DEFAULT_MANTISSA_BITS, Session.current());
    }

    /** A pool with 4 mantissa bits, publishing to {@link Session#current()}. */
    public MemoryPool(String name, MemoryDevice device, long maxAllocBytes) {
        this(name, device, maxAllocBytes, DEFAULT_MANTISSA_BITS, Session.current());
    }

    /** A pool publishing to {@link Session#current()}. */
    public MemoryPool(String name, MemoryDevice device, long maxAllocBytes, int mantissaBits) {
        this(name, device, maxAllocBytes, mantissaBits, Session.current());
    }

    /**
     * @param name          the pool's name in traces and reports
     * @param device        where blocks come from
     * @param maxAllocBytes the ceiling on bytes reserved from the device, positive; {@link #NO_LIMIT}
     *                      for none, {@link #DEFAULT_LIMIT} for the device's default
     * @param mantissaBits  bits below the leading one that pick a bin, 0..16 (more bits: less
     *                      rounding waste, fewer hits)
     * @param session       the session its events go to
     * @throws IllegalArgumentException on a bad ceiling or mantissa bits
     */
    public MemoryPool(String name, MemoryDevice device, long maxAllocBytes, int mantissaBits, Session session) {
        if (name == null || device == null || session == null) {
            throw new NullPointerException("pool name, device and session must not be null");
        }
        Bins.checkMantissaBits(mantissaBits);
        if (maxAllocBytes <= 0 && maxAllocBytes != DEFAULT_LIMIT) {
            throw new IllegalArgumentException("pool '" + name + "': maxAllocBytes must be positive (or DEFAULT_LIMIT), got " + maxAllocBytes);
        }
        this.name = name;
        this.device = device;
        this.maxAllocBytes = maxAllocBytes == DEFAULT_LIMIT ? defaultMaxAllocBytes(device) : maxAllocBytes;
        this.mantissaBits = mantissaBits;
        this.bins = new BinTable(mantissaBits);
        this.session = session;
        session.addDevice(device.info());
        // a pool has no fixed capacity: it grows up to its limit. A limit the user chose is shown as its
        // capacity line; the device's default ceiling (80% of a host's memory) is not a capacity, only a limit
        boolean chosen = maxAllocBytes != DEFAULT_LIMIT && maxAllocBytes != NO_LIMIT;
        long capacity = chosen ? this.maxAllocBytes : 0;
        this.memoryId = session.registerMemory(name, MemoryKind.POOL, device.info().id(), capacity, Map.of(
                "mantissaBits", Integer.toString(mantissaBits),
                "maxAllocBytes", this.maxAllocBytes == NO_LIMIT ? "none" : Long.toString(this.maxAllocBytes),
                "limitSource", chosen ? "chosen" : maxAllocBytes == NO_LIMIT ? "none" : "device default",
                "deviceName", device.info().name()));
        if (session.isRecording()) {
            session.publish(EventKind.MEMORY_CREATED, 0, memoryId, 0, capacity, 0, 0, 0, session.intern(name), -1);
        }
    }

    /**
     * The ceiling a pool over {@code device} gets by default: 80% of physical memory for the host device,
     * {@link #NO_LIMIT} for CUDA and for the virtual device.
     */
    public static long defaultMaxAllocBytes(MemoryDevice device) {
        return device.info().kind() == DeviceKind.HOST ? (long) (device.totalBytes() * 0.8) : NO_LIMIT;
    }

    // ---------------------------------------------------------------- bins

    /** The bin of a request of {@code size} bytes ({@link Bins#binNumber}). */
    public int binNumber(long size) {
        return Bins.binNumber(size, mantissaBits);
    }

    /** The block size of bin {@code bin} ({@link Bins#allocSize}); {@code allocSize(binNumber(x)) >= x}. */
    public long allocSize(int bin) {
        return Bins.allocSize(bin, mantissaBits);
    }

    // ---------------------------------------------------------------- requests

    /**
     * A buffer of {@code nbytes} bytes (0 allowed) at an address aligned to at least
     * {@value #DEVICE_ALIGNMENT} bytes.
     *
     * @throws IllegalArgumentException  if {@code nbytes < 0}
     * @throws IllegalStateException     if the pool is closed
     * @throws PoolOutOfMemoryException  if neither the ceiling nor the device allow it, held blocks freed
     */
    public PooledBuffer allocate(long nbytes) {
        return allocate(nbytes, 1);
    }

    /**
     * A buffer of {@code nbytes} bytes whose {@linkplain PooledBuffer#address() address} is a multiple
     * of {@code alignment}, a positive power of two.
     *
     * @throws IllegalArgumentException  if {@code nbytes < 0}, the alignment is not a power of two, or
     *                                   the padded size passes {@link Long#MAX_VALUE}
     * @throws IllegalStateException     if the pool is closed
     * @throws PoolOutOfMemoryException  if neither the ceiling nor the device allow it, held blocks freed
     */
    public PooledBuffer allocate(long nbytes, long alignment) {
        if (nbytes < 0) {
            throw new IllegalArgumentException("pool '" + name + "': negative size " + nbytes + " bytes");
        }
        if (alignment <= 0 || (alignment & (alignment - 1)) != 0) {
            throw new IllegalArgumentException("pool '" + name + "': alignment " + alignment + " is not a positive power of two");
        }
        long padded = nbytes;
        if (alignment > DEVICE_ALIGNMENT) {
            if (nbytes > Long.MAX_VALUE - (alignment - 1)) {
                throw new IllegalArgumentException("pool '" + name + "': " + nbytes + " bytes aligned to " + alignment
                        + " pass the largest size");
            }
            padded = nbytes + (alignment - 1);
        }
        boolean recording = session.isRecording();
        long t0 = recording ? session.now() : 0;
        int binNr = Bins.bin(padded, mantissaBits);
        PoolBin bin;
        synchronized (lock) {
            if (closed) {
                throw closedError();
            }
            bin = bins.bin(binNr);
            if (bin.heldCount > 0) {
                DeviceBuffer block = bin.pop();
                long size = bin.allocSize;
                heldBlocks--;
                heldBytes -= size;
                usedBytes += size;
                activeBlocks++;
                bin.requests++;
                bin.hits++;
                bin.roundingWaste += size - nbytes;
                stats.pushReuse(size);
                PooledBuffer buffer = new PooledBuffer(this, bin, block, nbytes, offset(block, alignment));
                if (recording) {
                    long t1 = session.now(); // one clock read stamps the event and ends its duration
                    session.publishAt(t1, session.threadId(), EventKind.POOL_REQUEST, Event.FLAG_HIT, memoryId, buffer.address(), size,
                            nbytes, usedBytes, reservedBytes, binNr, saturate(t1 - t0), session.captureSite(size), -1);
                }
                return buffer;
            }
        }
        return miss(bin, nbytes, alignment, recording, t0);
    }

    /** Same as {@link #allocate(long, long)}, under pyopencl's other name. */
    public PooledBuffer allocateAligned(long nbytes, long alignment) {
        return allocate(nbytes, alignment);
    }

    /**
     * Whether a request of {@code size} bytes would pass the {@link #maxAllocBytes()} ceiling now: a
     * block is held in its bin, or the bytes in use plus the new block stay within the ceiling (held
     * blocks would be freed first). Only this logical bound is checked; the device is not asked.
     *
     * @throws IllegalArgumentException if {@code size < 0}
     */
    public boolean mayAlloc(long size) {
        int binNr = binNumber(size);
        long alloc = Bins.size(binNr, mantissaBits);
        synchronized (lock) {
            PoolBin bin = bins.existing(binNr);
            if (bin != null && bin.heldCount > 0) {
                return true;
            }
            return alloc <= maxAllocBytes - usedBytes - inFlightBytes;
        }
    }

    private PooledBuffer miss(PoolBin bin, long nbytes, long alignment, boolean recording, long t0) {
        long size = bin.allocSize;
        List<DeviceBuffer> evicted = new ArrayList<>();
        String refusal = null;
        synchronized (lock) {
            if (closed) {
                throw closedError();
            }
            while (size > maxAllocBytes - reservedBytes - inFlightBytes && heldBlocks > 0) {
                evictLargest(size - (maxAllocBytes - reservedBytes - inFlightBytes), evicted);
            }
            if (size > maxAllocBytes - reservedBytes - inFlightBytes) {
                refusal = "pool ceiling maxAllocBytes " + maxAllocBytes + " reached (" + (reservedBytes + inFlightBytes)
                        + " bytes reserved)";
                fail(refusal, nbytes, bin, maxAllocBytes - reservedBytes - inFlightBytes);
            } else {
                inFlightBytes += size;
            }
        }
        freeBlocks(evicted);
        if (refusal != null) {
            throw outOfMemory(refusal, nbytes, bin);
        }
        DeviceBuffer block = null;
        long allocNanos = 0;
        try {
            while (block == null) {
                long ta = System.nanoTime();
                try {
                    block = device.allocate(size);
                    allocNanos = System.nanoTime() - ta;
                } catch (DeviceOutOfMemoryException e) {
                    evicted.clear();
                    long deviceFree = recording ? deviceFreeBytes() : 0; // a device call: not under the lock
                    synchronized (lock) {
                        evictLargest(size, evicted);
                        if (evicted.isEmpty()) {
                            inFlightBytes -= size;
                            refusal = "device " + device.info().id() + " refused: " + e.getMessage();
                            fail(refusal, nbytes, bin, deviceFree);
                        }
                    }
                    if (refusal != null) {
                        throw outOfMemory(refusal, nbytes, bin);
                    }
                    freeBlocks(evicted);
                }
            }
        } catch (RuntimeException | Error e) {
            if (refusal == null) {
                synchronized (lock) {
                    inFlightBytes -= size;
                }
            }
            throw e;
        }
        boolean closedMeanwhile;
        PooledBuffer buffer = null;
        synchronized (lock) {
            inFlightBytes -= size;
            closedMeanwhile = closed;
            if (!closedMeanwhile) {
                stats.pushAlloc(size, allocNanos);
                reservedBytes += size;
                usedBytes += size;
                activeBlocks++;
                bin.requests++;
                bin.misses++;
                bin.roundingWaste += size - nbytes;
                buffer = new PooledBuffer(this, bin, block, nbytes, offset(block, alignment));
                if (recording) {
                    long t1 = session.now();
                    int thread = session.threadId();
                    session.publishAt(t1, thread, EventKind.RESERVE, 0, memoryId, block.address(), size, 0,
                            usedBytes - size, reservedBytes, -1, -1);
                    session.publishAt(t1, thread, EventKind.POOL_REQUEST, 0, memoryId, buffer.address(), size, nbytes,
                            usedBytes, reservedBytes, bin.number, saturate(t1 - t0), session.captureSite(size), -1);
                }
            }
        }
        if (closedMeanwhile) {
            block.close();
            throw closedError();
        }
        return buffer;
    }

    /** Counts a failure and publishes OUT_OF_MEMORY. Under lock. */
    private void fail(String why, long nbytes, PoolBin bin, long remaining) {
        stats.pushFailure(nbytes);
        if (session.isRecording()) {
            publish(EventKind.OUT_OF_MEMORY, 0, 0, nbytes, Math.max(0, remaining),
                    session.intern(requestText(nbytes, bin) + ": " + why), -1);
        }
    }

    private PoolOutOfMemoryException outOfMemory(String why, long nbytes, PoolBin bin) {
        return new PoolOutOfMemoryException(requestText(nbytes, bin) + ": " + why + " (held blocks freed)",
                nbytes, bin.number, bin.allocSize);
    }

    private String requestText(long nbytes, PoolBin bin) {
        return "pool '" + name + "': cannot allocate " + nbytes + " bytes (bin " + bin.number + ", " + bin.allocSize
                + " bytes)";
    }

    private long deviceFreeBytes() {
        try {
            return device.freeBytes();
        } catch (RuntimeException e) {
            return 0;
        }
    }

    private static long offset(DeviceBuffer block, long alignment) {
        if (alignment <= DEVICE_ALIGNMENT) {
            return 0;
        }
        long address = block.address();
        return ((address + alignment - 1) & -alignment) - address;
    }

    private static int saturate(long nanos) {
        return nanos > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) Math.max(0, nanos);
    }

    /** Takes a buffer back from its owner: holds its block, or frees it when not holding. */
    void giveBack(PooledBuffer buffer) {
        DeviceBuffer release = null;
        PoolBin bin = buffer.bin;
        long size = bin.allocSize;
        synchronized (lock) {
            if (buffer.returned) {
                return;
            }
            buffer.returned = true;
            usedBytes -= size;
            activeBlocks--;
            stats.pushReturn(size);
            boolean recording = !closed && session.isRecording();
            if (holding) {
                bin.push(buffer.block);
                heldBlocks++;
                heldBytes += size;
                if (recording) {
                    publish(EventKind.POOL_HOLD, 0, buffer.block.address(), size, 0, bin.number, -1);
                }
            } else {
                reservedBytes -= size;
                release = buffer.block;
                if (recording) {
                    publishRelease(release, bin);
                }
            }
        }
        if (release != null) {
            freeBlocks(List.of(release));
        }
    }

    /** Whether {@code buffer} was given back, read under the lock. */
    boolean isReturned(PooledBuffer buffer) {
        synchronized (lock) {
            return buffer.returned;
        }
    }

    // ---------------------------------------------------------------- holding

    /** Gives every held block back to the device; the pool keeps holding returned blocks. */
    public void freeHeld() {
        List<DeviceBuffer> evicted = new ArrayList<>();
        synchronized (lock) {
            evictLargest(Long.MAX_VALUE, evicted);
        }
        freeBlocks(evicted);
    }

    /** Gives every held block back to the device and frees returned blocks at once from now on. */
    public void stopHolding() {
        List<DeviceBuffer> evicted = new ArrayList<>();
        synchronized (lock) {
            holding = false;
            evictLargest(Long.MAX_VALUE, evicted);
        }
        freeBlocks(evicted);
    }

    /** Whether returned blocks are held (true until {@link #stopHolding()} or {@link #close()}). */
    public boolean isHolding() {
        synchronized (lock) {
            return holding;
        }
    }

    /**
     * Pops held blocks, largest bin first and last in first within a bin, until at least
     * {@code bytes} bytes are popped or nothing is held; publishes their release. Under lock.
     */
    private void evictLargest(long bytes, List<DeviceBuffer> out) {
        long popped = 0;
        boolean recording = !closed && session.isRecording();
        for (int e = BinTable.ROWS - 1; e >= 0 && heldBlocks > 0 && popped < bytes; e--) {
            PoolBin[] row = bins.row(e);
            if (row == null) {
                continue;
            }
            for (int m = row.length - 1; m >= 0 && popped < bytes; m--) {
                PoolBin bin = row[m];
                while (bin != null && bin.heldCount > 0 && popped < bytes) {
                    DeviceBuffer block = bin.pop();
                    heldBlocks--;
                    heldBytes -= bin.allocSize;
                    reservedBytes -= bin.allocSize;
                    popped += bin.allocSize;
                    out.add(block);
                    if (recording) {
                        publishRelease(block, bin);
                    }
                }
            }
        }
    }

    private void publishRelease(DeviceBuffer block, PoolBin bin) {
        publish(EventKind.POOL_RELEASE, 0, block.address(), bin.allocSize, 0, bin.number, -1);
        session.publish(EventKind.UNRESERVE, 0, memoryId, block.address(), bin.allocSize, 0, usedBytes, reservedBytes, -1, -1);
    }

    /** Frees popped blocks on the device, outside the lock, and counts them. */
    private void freeBlocks(List<DeviceBuffer> blocks) {
        if (blocks.isEmpty()) {
            return;
        }
        long[] nanos = new long[blocks.size()];
        for (int i = 0; i < nanos.length; i++) {
            long t = System.nanoTime();
            blocks.get(i).close();
            nanos[i] = System.nanoTime() - t;
        }
        synchronized (lock) {
            for (int i = 0; i < nanos.length; i++) {
                stats.pushFree(blocks.get(i).size(), nanos[i]);
            }
        }
    }

    // ---------------------------------------------------------------- state

    /** Blocks held for reuse now. */
    public int heldBlocks() {
        synchronized (lock) {
            return heldBlocks;
        }
    }

    /** Bytes held for reuse now. */
    public long heldBytes() {
        synchronized (lock) {
            return heldBytes;
        }
    }

    /** Buffers handed out and not yet closed. */
    public int activeBlocks() {
        synchronized (lock) {
            return activeBlocks;
        }
    }

    /** Bytes handed out now, counted as the blocks' sizes (the {@code used} gauge). */
    public long bytesInUse() {
        synchronized (lock) {
            return usedBytes;
        }
    }

    /** Bytes reserved from the device now: in use plus held (the {@code aux} gauge). */
    public long reservedBytes() {
        synchronized (lock) {
            return reservedBytes;
        }
    }

    /** A frozen copy of the pool's statistics, with the figures of every bin that saw a request or holds a block. */
    public PoolStatistics statistics() {
        synchronized (lock) {
            return stats.copy(bins.statistics());
        }
    }

    /** The pool's name. */
    public String name() {
        return name;
    }

    /** The device blocks come from. */
    public MemoryDevice device() {
        return device;
    }

    /** The ceiling on bytes reserved from the device; {@link #NO_LIMIT} when there is none. */
    public long maxAllocBytes() {
        return maxAllocBytes;
    }

    /** Mantissa bits of the bin math. */
    public int mantissaBits() {
        return mantissaBits;
    }

    /** The session events go to. */
    public Session session() {
        return session;
    }

    /** This pool's memory id in its session. */
    public int memoryId() {
        return memoryId;
    }

    /** Whether {@link #close()} has run. */
    public boolean isClosed() {
        return closed;
    }

    /** One line naming the pool for logs: name, device, mantissa bits, ceiling. */
    public String header() {
        return "MemoryPool '" + name + "' on " + device.info().id() + " (mantissa bits " + mantissaBits + ", max alloc "
                + (maxAllocBytes == NO_LIMIT ? "none" : Bytes.format(maxAllocBytes)) + ")";
    }

    /** The statistics as text: the header, totals, then one line per bin that saw a request or holds a block. */
    public String allocationReport() {
        PoolStatistics s = statistics();
        long used;
        long reserved;
        long held;
        int heldCount;
        int active;
        synchronized (lock) {
            used = usedBytes;
            reserved = reservedBytes;
            held = heldBytes;
            heldCount = heldBlocks;
            active = activeBlocks;
        }
        return PoolReport.text(header() + (closed ? " [closed]" : ""), s, active, used, heldCount, held, reserved);
    }

    /** Prints {@link #allocationReport()} to {@code out}. */
    public void printAllocationReport(PrintStream out) {
        out.print(allocationReport());
    }

    /** Prints {@link #allocationReport()} to standard output. */
    public void printAllocationReport() {
        printAllocationReport(System.out);
    }

    /**
     * Closes the pool: frees every held block, refuses new requests, publishes {@code MEMORY_CLOSED}.
     * Buffers still in use stay valid; each goes straight back to the device when its owner closes it.
     * Closing twice is harmless.
     */
    @Override
    public void close() {
        List<DeviceBuffer> evicted = new ArrayList<>();
        synchronized (lock) {
            if (closed) {
                return;
            }
            holding = false;
            evictLargest(Long.MAX_VALUE, evicted);
            if (session.isRecording()) {
                publish(EventKind.MEMORY_CLOSED, 0, 0, maxAllocBytes == NO_LIMIT ? 0 : maxAllocBytes, 0, -1, -1);
            }
            closed = true;
        }
        freeBlocks(evicted);
    }

    private IllegalStateException closedError() {
        return new IllegalStateException("pool '" + name + "' is closed");
    }

    @Override
    public String toString() {
        return header();
    }

    // ---------------------------------------------------------------- internals

    /** Publishes an event of this pool with its gauges now. Under lock. */
    private void publish(EventKind kind, int flags, long a, long b, long c, int ref, int ref2) {
        session.publish(kind, flags, memoryId, a, b, c, usedBytes, reservedBytes, ref, ref2);
    }
}
