package dev.arenascope.core.plan;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import dev.arenascope.core.plan.PlanViolation.Kind;

/**
 * Checks a {@link MemoryPlan}'s invariants and reports <em>every</em> violation, not only the first:
 * unknown banks, tensors without an arena or outside it, overlapping tensors (live at a common step and
 * sharing bytes in one arena), constant arenas with more than one source memory, staged arenas whose
 * source is writable, scratch or persistent arenas in read-only banks, misaligned offsets and lifetimes
 * that name no tensor or scratch tensors without one.
 *
 * <p>Cost: O(n log n + k) per arena for n tensors and k byte-overlapping pairs. Stateless, thread-safe.
 */
public final class PlanValidator {
    private PlanValidator() {}

    /** Every violation of {@code plan}, in a stable order (empty when valid). */
    public static List<PlanViolation> validate(MemoryPlan plan) {
        List<PlanViolation> out = new ArrayList<>();
        checkArenas(plan, out);
        checkTensors(plan, out);
        checkLifetimes(plan, out);
        checkOverlaps(plan, out);
        return out;
    }

    private static void checkArenas(MemoryPlan plan, List<PlanViolation> out) {
        for (PlanArena arena : plan.arenas()) {
            MemoryBank bank = plan.memoryBanks().get(arena.memory());
            if (!arena.memory().equals(arena.usage().memory())) {
                out.add(new PlanViolation(Kind.UNKNOWN_MEMORY, arena.label(), List.of(), "arena " + arena.label()
                        + " is keyed by bank '" + arena.memory() + "' but says its memory is '" + arena.usage().memory() + "'"));
            }
            if (bank == null) {
                out.add(new PlanViolation(Kind.UNKNOWN_MEMORY, arena.label(), List.of(),
                        "arena " + arena.label() + " is in bank '" + arena.memory() + "', which the plan does not declare"));
            } else if (!bank.writable() && arena.role() != TensorRole.CONSTANT) {
                out.add(new PlanViolation(Kind.READ_ONLY_ARENA, arena.label(), List.of(),
                        "arena " + arena.label() + " must be writable but bank '" + arena.memory() + "' is read-only"));
            }
            if (arena.role() == TensorRole.CONSTANT) {
                checkConstantArena(plan, arena, bank, out);
            }
        }
    }

    private static void checkConstantArena(MemoryPlan plan, PlanArena arena, MemoryBank bank, List<PlanViolation> out) {
        String src = arena.usage().sourceMemory();
        Set<String> sources = new LinkedHashSet<>();
        sources.add(src);
        List<String> odd = new ArrayList<>();
        for (String id : plan.tensorsIn(TensorRole.CONSTANT, arena.memory())) {
            String s = plan.tensorAllocs().get(id).binding().sourceMemory();
            if (!s.equals(src)) {
                sources.add(s);
                odd.add(id);
            }
        }
        if (sources.size() > 1) {
            out.add(new PlanViolation(Kind.MIXED_SOURCES, arena.label(), odd, "constant arena " + arena.label()
                    + " draws from " + sources.size() + " source memories " + sources + " (arena source '" + src
                    + "'; tensors with another source: " + abbreviate(odd) + ")"));
        }
        MemoryBank source = plan.memoryBanks().get(src);
        if (source == null) {
            out.add(new PlanViolation(Kind.UNKNOWN_MEMORY, arena.label(), List.of(),
                    "constant arena " + arena.label() + " has source bank '" + src + "', which the plan does not declare"));
        } else if (arena.staged() && source.writable()) {
            out.add(new PlanViolation(Kind.STAGED_FROM_WRITABLE, arena.label(), List.of(), "staged constant arena "
                    + arena.label() + " hydrates from '" + src + "', a writable bank; its source must be a read-only blob"));
        }
        if (arena.staged() && bank != null && !bank.writable()) {
            out.add(new PlanViolation(Kind.READ_ONLY_ARENA, arena.label(), List.of(), "staged constant arena "
                    + arena.label() + " is a runtime copy but bank '" + arena.memory() + "' is read-only"));
        }
    }

    private static void checkTensors(MemoryPlan plan, List<PlanViolation> out) {
        for (var e : plan.tensorAllocs().entrySet()) {
            String id = e.getKey();
            TensorAllocation a = e.getValue();
            TensorBinding b = a.binding();
            String label = b.role().name().toLowerCase(Locale.ROOT) + ":" + b.memory();
            ArenaUsage arena = plan.arenaOf(b);
            if (!plan.memoryBanks().containsKey(b.memory())) {
                out.add(new PlanViolation(Kind.UNKNOWN_MEMORY, label, List.of(id),
                        "tensor '" + id + "' is bound to bank '" + b.memory() + "', which the plan does not declare"));
            }
            if (arena == null) {
                out.add(new PlanViolation(Kind.MISSING_ARENA, label, List.of(id),
                        "tensor '" + id + "' is bound to arena " + label + ", which the plan does not have"));
            } else if (b.offset() < 0 || b.offset() > arena.size() - a.size()) {
                out.add(new PlanViolation(Kind.OUTSIDE_ARENA, label, List.of(id), "tensor '" + id + "' at [" + b.offset()
                        + ", " + (b.offset() + a.size()) + ") lies outside arena " + label + " of " + arena.size() + " bytes"));
            }
            if (b.offset() % plan.alignment() != 0) {
                out.add(new PlanViolation(Kind.MISALIGNED, label, List.of(id), "tensor '" + id + "' at offset " + b.offset()
                        + " is not a multiple of the plan's alignment " + plan.alignment()));
            }
        }
    }

    private static void checkLifetimes(MemoryPlan plan, List<PlanViolation> out) {
        for (String id : plan.tensorLifetimes().keySet()) {
            if (!plan.tensorAllocs().containsKey(id)) {
                out.add(new PlanViolation(Kind.BAD_LIFETIME, null, List.of(id),
                        "lifetime given for tensor '" + id + "', which the plan does not allocate"));
            }
        }
        plan.tensorAllocs().forEach((id, a) -> {
            if (a.binding().role() == TensorRole.SCRATCH && !plan.tensorLifetimes().containsKey(id)) {
                out.add(new PlanViolation(Kind.BAD_LIFETIME, "scratch:" + a.binding().memory(), List.of(id),
                        "scratch tensor '" + id + "' has no lifetime"));
            }
        });
    }

    private record Slot(String id, long offset, long end, long first, long last) {}

    private static void checkOverlaps(MemoryPlan plan, List<PlanViolation> out) {
        Map<String, List<Slot>> byArena = new LinkedHashMap<>();
        long lastStep = Math.max(0, plan.stepCount() - 1);
        plan.tensorAllocs().forEach((id, a) -> {
            if (a.size() == 0) {
                return;
            }
            TensorBinding b = a.binding();
            TensorLifetime l = plan.tensorLifetimes().get(id);
            long first = l == null ? 0 : l.firstStep();
            long last = l == null ? lastStep : l.lastStep();
            String key = b.role().name().toLowerCase(Locale.ROOT) + ":" + b.memory();
            byArena.computeIfAbsent(key, k -> new ArrayList<>()).add(new Slot(id, b.offset(), b.offset() + a.size(), first, last));
        });
        byArena.forEach((arena, slots) -> {
            slots.sort(Comparator.comparingLong(Slot::offset).thenComparing(Slot::id));
            for (int i = 0; i < slots.size(); i++) {
                Slot s = slots.get(i);
                for (int j = i + 1; j < slots.size() && slots.get(j).offset() < s.end(); j++) {
                    Slot t = slots.get(j);
                    if (s.first() <= t.last() && t.first() <= s.last()) {
                        out.add(new PlanViolation(Kind.OVERLAP, arena, List.of(s.id(), t.id()), "tensors '" + s.id() + "' ["
                                + s.offset() + ", " + s.end() + ") steps " + s.first() + ".." + s.last() + " and '" + t.id() + "' ["
                                + t.offset() + ", " + t.end() + ") steps " + t.first() + ".." + t.last()
                                + " overlap in arena " + arena + " in both bytes and lifetime"));
                    }
                }
            }
        });
    }

    private static String abbreviate(List<String> ids) {
        List<String> q = ids.stream().limit(5).map(id -> "'" + id + "'").toList();
        return String.join(", ", q) + (ids.size() > 5 ? " and " + (ids.size() - 5) + " more" : "");
    }
}
