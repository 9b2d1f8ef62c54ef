package dev.arenascope.core.plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.arenascope.core.device.DeviceBuffer;
import dev.arenascope.core.device.MemoryDevice;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryKind;

/**
 * Executes a {@link MemoryPlan} on a {@link MemoryDevice}: allocates each arena once, binds every tensor
 * to a {@link PlanTensor} view at its offset, hydrates staged constant arenas by a device copy from their
 * source blob, and walks the plan's steps, calling back once per step so a workload can read and write
 * the live tensors.
 *
 * <p>Events (when the session records): {@code MEMORY_CREATED} per arena (kinds
 * {@link MemoryKind#PLAN_SCRATCH}, {@link MemoryKind#PLAN_PERSISTENT}, {@link MemoryKind#PLAN_CONSTANT}),
 * {@code PLAN_LOADED} on the first arena, {@code PLAN_BIND} per tensor, {@code PLAN_HYDRATE} per staged
 * arena, {@code PLAN_STEP} on every arena at each step, {@code TENSOR_LIVE} at a tensor's first step and
 * {@code TENSOR_DEAD} after its last, and {@code MEMORY_CLOSED} per arena on {@link #close()}. Every
 * event's {@code used} gauge is the bytes of that arena's tensors live after the event.
 *
 * <p>Steps run in order {@code 0 .. stepCount()-1}; tensors without a lifetime (persistent, constant)
 * are live over every step. {@link #run} may be called again for the next inference. Not thread-safe:
 * one thread drives a runtime (the device itself is thread-safe).
 */
public final class PlanRuntime implements AutoCloseable {

    /** Called at each step while the step's tensors are live. */
    @FunctionalInterface
    public interface StepCallback {
        void onStep(long step, PlanRuntime runtime) throws Exception;
    }

    private final MemoryPlan plan;
    private final MemoryDevice device;
    private final Session session;
    private final List<PlanArena> arenas;
    private final DeviceBuffer[] buffers;
    private final int[] memoryIds;
    private final long[] liveBytes;
    private final Map<String, PlanTensor> tensors = new LinkedHashMap<>();
    private final String[] ids;
    private final int[] arenaOf;
    private final int[] tensorRefs;
    private final long[] first;
    private final long[] last;
    private final long[] sizes;
    private final long[] offsets;
    private final Integer[] byFirst;
    private final Integer[] byLast;
    private final long stepCount;
    private long hydrateNanos;
    private long hydratedBytes;
    private boolean closed;

    private PlanRuntime(MemoryPlan plan, MemoryDevice device, Session session) {
        this.plan = plan;
        this.device = device;
        this.session = session;
        this.arenas = plan.arenas();
        this.buffers = new DeviceBuffer[arenas.size()];
        this.memoryIds = new int[arenas.size()];
        this.liveBytes = new long[arenas.size()];
        int n = plan.tensorAllocs().size();
        this.ids = plan.tensorAllocs().keySet().toArray(new String[0]);
        this.arenaOf = new int[n];
        this.tensorRefs = new int[n];
        this.first = new long[n];
        this.last = new long[n];
        this.sizes = new long[n];
        this.offsets = new long[n];
        this.stepCount = Math.max(1, plan.stepCount());
        for (int i = 0; i < n; i++) {
            TensorAllocation a = plan.tensorAllocs().get(ids[i]);
            TensorLifetime l = plan.tensorLifetimes().get(ids[i]);
            first[i] = l == null ? 0 : l.firstStep();
            last[i] = l == null ? stepCount - 1 : l.lastStep();
            sizes[i] = a.size();
            offsets[i] = a.binding().offset();
            arenaOf[i] = indexOf(a.binding());
        }
        byFirst = order(Comparator.comparingLong(i -> first[i]));
        byLast = order(Comparator.comparingLong(i -> last[i]));
    }

    private Integer[] order(Comparator<Integer> by) {
        Integer[] o = new Integer[ids.length];
        for (int i = 0; i < o.length; i++) {
            o[i] = i;
        }
        Arrays.sort(o, by.thenComparingInt(i -> i));
        return o;
    }

    private int indexOf(TensorBinding b) {
        for (int k = 0; k < arenas.size(); k++) {
            if (arenas.get(k).role() == b.role() && arenas.get(k).memory().equals(b.memory())) {
                return k;
            }
        }
        throw new IllegalStateException("no arena for " + b);
    }

    /**
     * Validates {@code plan}, allocates its arenas on {@code device}, binds its tensors and hydrates its
     * staged constant arenas.
     *
     * @param sourceBlobs the contents of each constant arena's source blob, keyed by constant arena bank
     *                    (the key of {@link MemoryPlan#constantArenas()}); at most the arena's size, the
     *                    rest reads as zero. A cold arena is loaded with its blob; a staged arena's blob is
     *                    put in a separate source buffer and hydrated from it by a device copy. Missing
     *                    blobs are zeros.
     * @throws IllegalArgumentException when the plan has violations (the message lists them) or a blob is
     *                                  larger than its arena
     * @throws dev.arenascope.core.device.DeviceOutOfMemoryException when an arena does not fit the device;
     *                                  arenas already allocated are freed
     */
    public static PlanRuntime load(MemoryPlan plan, MemoryDevice device, Session session, Map<String, byte[]> sourceBlobs) {
        List<PlanViolation> violations = plan.validate();
        if (!violations.isEmpty()) {
            StringBuilder sb = new StringBuilder("plan '" + plan.name() + "' has " + violations.size() + " violation(s): ");
            for (int i = 0; i < Math.min(3, violations.size()); i++) {
                sb.append(i > 0 ? "; " : "").append(violations.get(i).message());
            }
            throw new IllegalArgumentException(sb.append(violations.size() > 3 ? "; ..." : "").toString());
        }
        for (var e : sourceBlobs.entrySet()) {
            ArenaUsage a = plan.constantArenas().get(e.getKey());
            if (a == null) {
                throw new IllegalArgumentException("source blob given for '" + e.getKey() + "', which is no constant arena of plan '" + plan.name() + "'");
            }
            if (e.getValue().length > a.size()) {
                throw new IllegalArgumentException("source blob for constant arena '" + e.getKey() + "' has " + e.getValue().length
                        + " bytes, more than the arena's " + a.size());
            }
        }
        PlanRuntime rt = new PlanRuntime(plan, device, session);
        try {
            rt.allocate();
            rt.bind();
            rt.hydrate(sourceBlobs);
        } catch (RuntimeException e) {
            rt.close();
            throw e;
        }
        return rt;
    }

    private boolean recording() {
        return session.isRecording();
    }

    private void allocate() {
        session.addDevice(device.info());
        String deviceId = device.info().id();
        for (int k = 0; k < arenas.size(); k++) {
            PlanArena arena = arenas.get(k);
            buffers[k] = device.allocate(Math.max(1, arena.usage().size()));
            MemoryKind kind = switch (arena.role()) {
                case SCRATCH -> MemoryKind.PLAN_SCRATCH;
                case PERSISTENT -> MemoryKind.PLAN_PERSISTENT;
                case CONSTANT -> MemoryKind.PLAN_CONSTANT;
            };
            Map<String, String> attrs = new LinkedHashMap<>();
            attrs.put("plan", plan.name());
            attrs.put("role", arena.role().name().toLowerCase(Locale.ROOT));
            attrs.put("bank", arena.memory());
            attrs.put("alignment", Long.toString(plan.alignment()));
            if (arena.role() == TensorRole.CONSTANT) {
                attrs.put("source", arena.usage().sourceMemory());
                attrs.put("shape", arena.staged() ? "staged" : "cold");
            }
            String memName = plan.name() + "/" + arena.label();
            memoryIds[k] = session.registerMemory(memName, kind, deviceId, arena.usage().size(), attrs);
            if (recording()) {
                session.publish(EventKind.MEMORY_CREATED, 0, memoryIds[k], buffers[k].address(), arena.usage().size(), 0,
                        0, 0, session.intern(memName), 0);
            }
        }
        if (recording() && arenas.size() > 0) {
            session.publish(EventKind.PLAN_LOADED, 0, memoryIds[0], ids.length, plan.stepCount(), 0, 0, 0,
                    session.intern(plan.name()), 0);
        }
    }

    private void bind() {
        for (int i = 0; i < ids.length; i++) {
            int k = arenaOf[i];
            PlanArena arena = arenas.get(k);
            tensors.put(ids[i], new PlanTensor(ids[i], arena.role(), arena, buffers[k], offsets[i], sizes[i]));
            tensorRefs[i] = session.intern(ids[i]);
            if (recording()) {
                session.publish(EventKind.PLAN_BIND, 0, memoryIds[k], offsets[i], sizes[i], arena.role().ordinal(),
                        liveBytes[k], 0, tensorRefs[i], 0);
            }
        }
    }

    private void hydrate(Map<String, byte[]> blobs) {
        for (int k = 0; k < arenas.size(); k++) {
            PlanArena arena = arenas.get(k);
            if (arena.role() != TensorRole.CONSTANT) {
                continue;
            }
            long size = arena.usage().size();
            byte[] blob = blobs.getOrDefault(arena.memory(), new byte[0]);
            if (!arena.staged()) {
                upload(blob, buffers[k], size);
                continue;
            }
            try (DeviceBuffer source = device.allocate(Math.max(1, size))) {
                upload(blob, source, size);
                long t0 = System.nanoTime();
                device.copy(source, 0, buffers[k], 0, size);
                long ns = System.nanoTime() - t0;
                hydrateNanos += ns;
                hydratedBytes += size;
                if (recording()) {
                    session.publish(EventKind.PLAN_HYDRATE, 0, memoryIds[k], 0, size, ns, liveBytes[k], 0,
                            session.intern(arena.usage().sourceMemory()), 0);
                }
            }
        }
    }

    private void upload(byte[] blob, DeviceBuffer dst, long size) {
        int chunk = 1 << 24;
        for (int at = 0; at < blob.length; at += chunk) {
            device.copyFromHost(blob, at, dst, at, Math.min(chunk, blob.length - at));
        }
        if (size > blob.length) {
            device.memset(dst, blob.length, size - blob.length, (byte) 0);
        }
    }

    /** The plan this runtime executes. */
    public MemoryPlan plan() {
        return plan;
    }

    /** Steps of one run ({@code max(1, plan.stepCount())}). */
    public long stepCount() {
        return stepCount;
    }

    /** The arenas, in {@link MemoryPlan#arenas()} order. */
    public List<PlanArena> arenas() {
        return arenas;
    }

    /** The device buffer of arena {@code k} (index in {@link #arenas()}). */
    public DeviceBuffer arenaBuffer(int k) {
        return buffers[k];
    }

    /** The session memory id of arena {@code k}. */
    public int memoryId(int k) {
        return memoryIds[k];
    }

    /** Bytes of arena {@code k}'s tensors live now. */
    public long liveBytes(int k) {
        return liveBytes[k];
    }

    /** The bound view of tensor {@code id}. */
    public PlanTensor tensor(String id) {
        PlanTensor t = tensors.get(id);
        if (t == null) {
            throw new UnknownTensorException(id, plan.name());
        }
        return t;
    }

    /** Every bound tensor, in plan order. */
    public Map<String, PlanTensor> tensors() {
        return Collections.unmodifiableMap(tensors);
    }

    /** Total wall time of the staged arenas' hydration copies, in nanoseconds. */
    public long hydrateNanos() {
        return hydrateNanos;
    }

    /** Bytes copied by hydration. */
    public long hydratedBytes() {
        return hydratedBytes;
    }

    /**
     * Runs every step once, in order: at step s, {@code PLAN_STEP}, then the tensors whose lifetime
     * starts at s go live, then {@code callback} runs, then the tensors whose lifetime ends at s die.
     * An exception from the callback propagates at once (no further events); the next {@code run} starts
     * clean.
     */
    public void run(StepCallback callback) throws Exception {
        ensureOpen();
        Arrays.fill(liveBytes, 0);
        int nextLive = 0;
        int nextDead = 0;
        boolean rec = recording();
        for (long s = 0; s < stepCount; s++) {
            if (rec) {
                for (int k = 0; k < arenas.size(); k++) {
                    session.publish(EventKind.PLAN_STEP, 0, memoryIds[k], s, 0, 0, liveBytes[k], 0, -1, 0);
                }
            }
            while (nextLive < byFirst.length && first[byFirst[nextLive]] == s) {
                int i = byFirst[nextLive++];
                int k = arenaOf[i];
                liveBytes[k] += sizes[i];
                if (rec) {
                    session.publish(EventKind.TENSOR_LIVE, 0, memoryIds[k], offsets[i], sizes[i], s, liveBytes[k], 0, tensorRefs[i], 0);
                }
            }
            if (callback != null) {
                callback.onStep(s, this);
            }
            while (nextDead < byLast.length && last[byLast[nextDead]] == s) {
                int i = byLast[nextDead++];
                int k = arenaOf[i];
                liveBytes[k] -= sizes[i];
                if (rec) {
                    session.publish(EventKind.TENSOR_DEAD, 0, memoryIds[k], offsets[i], sizes[i], s, liveBytes[k], 0, tensorRefs[i], 0);
                }
            }
        }
    }

    /** Tensor ids live at {@code step}, in plan order. */
    public List<String> liveAt(long step) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < ids.length; i++) {
            if (first[i] <= step && step <= last[i]) {
                out.add(ids[i]);
            }
        }
        return out;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("plan runtime '" + plan.name() + "' is closed");
        }
    }

    /** Frees every arena and publishes {@code MEMORY_CLOSED} for each. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (int k = 0; k < buffers.length; k++) {
            if (buffers[k] != null) {
                buffers[k].close();
                if (recording()) {
                    session.publish(EventKind.MEMORY_CLOSED, 0, memoryIds[k], buffers[k].address(), arenas.get(k).usage().size(), 0, 0, 0, -1, 0);
                }
            }
        }
    }
}
