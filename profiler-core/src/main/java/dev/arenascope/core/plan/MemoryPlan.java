package dev.arenascope.core.plan;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A static memory plan, as an ahead-of-time compiler emits one: every tensor is a slot at a fixed
 * offset in one arena, and the arenas are partitioned by role.
 *
 * <ul>
 *   <li>{@link #arenaUsages()}: scratch arenas, one per writable bank, keyed by bank name. Scratch holds
 *       only transient tensors, so one scratch arena may be shared by several models.</li>
 *   <li>{@link #persistentArenas()}: one per writable bank that received a persistent tensor.</li>
 *   <li>{@link #constantArenas()}: keyed by the runtime (destination) bank; each is <b>cold</b>
 *       (source memory == memory: the read-only blob itself, read in place) or <b>staged</b>
 *       (source != memory: a writable copy hydrated from the source blob before the first run).</li>
 * </ul>
 *
 * <p>Sizes and offsets are bytes; steps are the plan's execution steps (operator indices).
 * {@link #tensorLifetimes()} gives each tensor's first and last step, both inclusive; tensors without
 * a lifetime (persistent, constant) are live over every step.
 *
 * <p>The record is immutable (maps are copied, insertion order kept) and thread-safe. The constructor
 * checks only that fields are present and well formed; {@link #validate()} reports every violation of
 * the plan's invariants. Serializable with Jackson: {@link PlanJson}.
 *
 * @param name             the plan's name (model name)
 * @param alignment        every offset must be a multiple of it, in bytes (at least 1)
 * @param memoryBanks      the banks by name
 * @param tensorAllocs     tensor id to allocation
 * @param arenaUsages      scratch arenas by bank
 * @param persistentArenas persistent arenas by bank
 * @param constantArenas   constant arenas by runtime bank
 * @param tensorLifetimes  tensor id to lifetime
 * @param planning         arena label ({@link PlanArena#label()}) to how that arena was laid out and
 *                         its proof ({@link ArenaPlanning}); empty for a plan not laid out here, and then
 *                         left out of the JSON
 */
public record MemoryPlan(
        String name,
        long alignment,
        Map<String, MemoryBank> memoryBanks,
        Map<String, TensorAllocation> tensorAllocs,
        Map<String, ArenaUsage> arenaUsages,
        Map<String, ArenaUsage> persistentArenas,
        Map<String, ArenaUsage> constantArenas,
        Map<String, TensorLifetime> tensorLifetimes,
        @JsonInclude(JsonInclude.Include.NON_EMPTY)
        Map<String, ArenaPlanning> planning) {

    /** A plan without planning records. */
    public MemoryPlan(String name, long alignment, Map<String, MemoryBank> memoryBanks, Map<String, TensorAllocation> tensorAllocs,
                      Map<String, ArenaUsage> arenaUsages, Map<String, ArenaUsage> persistentArenas,
                      Map<String, ArenaUsage> constantArenas, Map<String, TensorLifetime> tensorLifetimes) {
        this(name, alignment, memoryBanks, tensorAllocs, arenaUsages, persistentArenas, constantArenas, tensorLifetimes, Map.of());
    }

    public MemoryPlan {
        name = name == null ? "plan" : name;
        if (alignment < 1) {
            throw new IllegalArgumentException("plan alignment must be at least 1 byte, got " + alignment);
        }
        memoryBanks = copy(memoryBanks, "memoryBanks");
        tensorAllocs = copy(tensorAllocs, "tensorAllocs");
        arenaUsages = copy(arenaUsages, "arenaUsages");
        persistentArenas = copy(persistentArenas, "persistentArenas");
        constantArenas = copy(constantArenas, "constantArenas");
        tensorLifetimes = copy(tensorLifetimes, "tensorLifetimes");
        planning = copy(planning, "planning");
        for (var e : memoryBanks.entrySet()) {
            if (!e.getKey().equals(e.getValue().name())) {
                throw new IllegalArgumentException("memory bank keyed '" + e.getKey() + "' is named '" + e.getValue().name() + "'");
            }
        }
    }

    private static <V> Map<String, V> copy(Map<String, V> map, String what) {
        if (map == null) {
            return Map.of();
        }
        LinkedHashMap<String, V> m = new LinkedHashMap<>();
        for (var e : map.entrySet()) {
            m.put(Objects.requireNonNull(e.getKey(), what + " key"), Objects.requireNonNull(e.getValue(), () -> what + " value for '" + e.getKey() + "'"));
        }
        return Collections.unmodifiableMap(m);
    }

    /**
     * The allocation of tensor {@code tensorId}.
     *
     * @throws UnknownTensorException naming the id when the plan has no such tensor
     */
    public TensorAllocation getAllocation(String tensorId) {
        TensorAllocation a = tensorAllocs.get(tensorId);
        if (a == null) {
            throw new UnknownTensorException(tensorId, name);
        }
        return a;
    }

    /** The tensor's lifetime, or the whole run ({@code [0, steps()-1]}) when it has none. */
    public TensorLifetime lifetimeOf(String tensorId) {
        getAllocation(tensorId);
        TensorLifetime l = tensorLifetimes.get(tensorId);
        return l != null ? l : new TensorLifetime(0, Math.max(0, stepCount() - 1));
    }

    /** Number of steps: one past the largest last step of any lifetime (0 when there are none). */
    public long stepCount() {
        long max = -1;
        for (TensorLifetime l : tensorLifetimes.values()) {
            max = Math.max(max, l.lastStep());
        }
        return max + 1;
    }

    /** The arena map for a role. */
    public Map<String, ArenaUsage> arenasFor(TensorRole role) {
        return switch (role) {
            case SCRATCH -> arenaUsages;
            case PERSISTENT -> persistentArenas;
            case CONSTANT -> constantArenas;
        };
    }

    /** The arena a binding points into, or null when the plan has none for its role and bank. */
    public ArenaUsage arenaOf(TensorBinding binding) {
        return arenasFor(binding.role()).get(binding.memory());
    }

    /** Every arena: scratch first, then persistent, then constant, each in map order. */
    public List<PlanArena> arenas() {
        List<PlanArena> out = new ArrayList<>();
        for (TensorRole role : TensorRole.values()) {
            arenasFor(role).forEach((bank, usage) -> out.add(new PlanArena(role, bank, usage)));
        }
        return out;
    }

    /** Tensor ids placed in the arena of {@code role} in {@code memory}, in map order. */
    public List<String> tensorsIn(TensorRole role, String memory) {
        List<String> ids = new ArrayList<>();
        tensorAllocs.forEach((id, a) -> {
            if (a.binding().role() == role && a.binding().memory().equals(memory)) {
                ids.add(id);
            }
        });
        return ids;
    }

    /** Sum of all arena sizes in bytes. */
    public long totalBytes() {
        long sum = 0;
        for (PlanArena a : arenas()) {
            sum += a.usage().size();
        }
        return sum;
    }

    /** Every violation of the plan's invariants (empty when the plan is valid). See {@link PlanValidator}. */
    public List<PlanViolation> validate() {
        return PlanValidator.validate(this);
    }

    /** This plan with some tensors' offsets and some arenas' sizes replaced. */
    public MemoryPlan withLayout(Map<String, Long> offsets, Map<PlanArena, Long> arenaSizes) {
        LinkedHashMap<String, TensorAllocation> allocs = new LinkedHashMap<>(tensorAllocs);
        offsets.forEach((id, off) -> {
            TensorAllocation a = getAllocation(id);
            allocs.put(id, new TensorAllocation(a.size(), a.binding().withOffset(off)));
        });
        EnumMapOfArenas maps = new EnumMapOfArenas(this);
        arenaSizes.forEach((arena, size) -> maps.put(arena.role(), arena.memory(),
                new ArenaUsage(arena.memory(), size, arena.usage().sourceMemory())));
        return new MemoryPlan(name, alignment, memoryBanks, allocs, maps.scratch, maps.persistent, maps.constant, tensorLifetimes,
                planning);
    }

    /** This plan with the planning records of some arenas (by label) added or replaced. */
    public MemoryPlan withPlanning(Map<String, ArenaPlanning> records) {
        LinkedHashMap<String, ArenaPlanning> m = new LinkedHashMap<>(planning);
        m.putAll(records);
        return new MemoryPlan(name, alignment, memoryBanks, tensorAllocs, arenaUsages, persistentArenas, constantArenas,
                tensorLifetimes, m);
    }

    private static final class EnumMapOfArenas {
        final LinkedHashMap<String, ArenaUsage> scratch;
        final LinkedHashMap<String, ArenaUsage> persistent;
        final LinkedHashMap<String, ArenaUsage> constant;

        EnumMapOfArenas(MemoryPlan p) {
            scratch = new LinkedHashMap<>(p.arenaUsages);
            persistent = new LinkedHashMap<>(p.persistentArenas);
            constant = new LinkedHashMap<>(p.constantArenas);
        }

        void put(TensorRole role, String memory, ArenaUsage usage) {
            switch (role) {
                case SCRATCH -> scratch.put(memory, usage);
                case PERSISTENT -> persistent.put(memory, usage);
                case CONSTANT -> constant.put(memory, usage);
            }
        }
    }
}
