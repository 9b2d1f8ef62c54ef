package dev.arenascope.core.arena;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

import dev.arenascope.core.device.Devices;
import dev.arenascope.core.device.MemoryDevice;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.record.Session;

/**
 * Settings for a new {@link ManualMemory} (from {@link ManualMemory#builder()}): give a device and a
 * portion of its free memory or an exact size; the rest have defaults. {@link #build()} checks them
 * all before claiming any memory. Not thread-safe.
 */
public final class ArenaBuilder {
    private static final AtomicInteger COUNTER = new AtomicInteger();

    private MemoryDevice device;
    private Double portion;
    private Long numBytes;
    private boolean managed = true;
    private boolean poisonSet;
    private int poison = Poison.NONE;
    private Session session;
    private String name;

    ArenaBuilder() {
    }

    /** The device to claim memory on; default: the process-wide {@code auto} device (CUDA, else host). */
    public ArenaBuilder device(MemoryDevice d) {
        this.device = Objects.requireNonNull(d, "device");
        return this;
    }

    /** Claim this fraction (0, 1] of the device's currently free memory. Ignored when numBytes is given. */
    public ArenaBuilder portion(double p) {
        this.portion = p;
        return this;
    }

    /** Claim exactly this many bytes (at least 1, at most the device's free memory). */
    public ArenaBuilder numBytes(long n) {
        this.numBytes = n;
        return this;
    }

    /** False: hold one byte, never poison, never record (default true). */
    public ArenaBuilder managed(boolean m) {
        this.managed = m;
        return this;
    }

    /** Poison every new allocation with {@code value} (0..255), overriding {@value ManualMemory#POISON_ENV}. */
    public ArenaBuilder poison(int value) {
        if (value < 0 || value > 255) {
            throw new IllegalArgumentException("poison byte must be 0..255, got " + value);
        }
        this.poison = value;
        this.poisonSet = true;
        return this;
    }

    /** Never poison, whatever {@value ManualMemory#POISON_ENV} says. */
    public ArenaBuilder noPoison() {
        this.poison = Poison.NONE;
        this.poisonSet = true;
        return this;
    }

    /** The session events go to; default {@link Session#current()} (the open {@code ArenaScope.record(...)}, else {@link Session#global()}). */
    public ArenaBuilder session(Session s) {
        this.session = Objects.requireNonNull(s, "session");
        return this;
    }

    /** The arena's name in traces and messages; default {@code arena-N}. */
    public ArenaBuilder name(String n) {
        this.name = Objects.requireNonNull(n, "name");
        return this;
    }

    /**
     * Claims the memory.
     *
     * @throws IllegalArgumentException on a bad portion, size or poison setting (nothing is claimed)
     * @throws dev.arenascope.core.device.DeviceOutOfMemoryException when the device refuses the block
     */
    public ManualMemory build() {
        return new ManualMemory(resolve());
    }

    /** What an arena is made from, every default applied and every setting checked. */
    record Settings(MemoryDevice device, Session session, String name, boolean managed, long size, int poison) {}

    Settings resolve() {
        if (numBytes == null && portion == null) {
            throw new IllegalArgumentException("arena: give a portion of free memory in (0, 1] or numBytes");
        }
        if (numBytes == null && !(portion > 0 && portion <= 1)) {
            throw new IllegalArgumentException("arena: portion of free memory must be in (0, 1], got " + portion);
        }
        if (numBytes != null && numBytes <= 0) {
            throw new IllegalArgumentException("arena: numBytes must be positive, got " + numBytes);
        }
        MemoryDevice d = device != null ? device : DefaultDevice.get();
        Session s = session != null ? session : Session.current();
        String n = name != null ? name : "arena-" + COUNTER.incrementAndGet();
        long size;
        if (!managed) {
            size = 1;
        } else {
            long free = d.freeBytes();
            if (numBytes != null) {
                if (numBytes > free) {
                    throw new IllegalArgumentException("arena '" + n + "': numBytes " + numBytes + " (" + Bytes.format(numBytes)
                            + ") is more than the " + Bytes.format(free) + " free on " + d.info().id());
                }
                size = numBytes;
            } else {
                size = (long) (free * portion);
                if (size < 1) {
                    throw new IllegalArgumentException("arena '" + n + "': " + portion + " of the " + free
                            + " bytes free on " + d.info().id() + " is less than one byte");
                }
            }
        }
        return new Settings(d, s, n, managed, size, Poison.choose(managed, poisonSet, poison));
    }

    /** The process-wide default device, opened once on first use ({@code auto}: CUDA if it answers, else host). */
    private static final class DefaultDevice {
        private static final MemoryDevice DEVICE = Devices.open("auto").device();

        static MemoryDevice get() {
            return DEVICE;
        }
    }
}
