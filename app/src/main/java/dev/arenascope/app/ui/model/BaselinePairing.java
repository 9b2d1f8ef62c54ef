package dev.arenascope.app.ui.model;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;

import dev.arenascope.core.trace.MemoryInfo;

/**
 * Which memory of a baseline trace each memory of the shown trace is compared with. Memories pair by
 * name; then, for runs whose names differ by a prefix ({@code resnet50-b2/frame} against
 * {@code resnet50-b4/frame}), by the name's last segment; then by kind (arena, pool, plan role, caching
 * allocator) in order of appearance. Immutable.
 *
 * @param pairs shown memory id to baseline memory id
 */
public record BaselinePairing(Map<Integer, Integer> pairs) {
    public static final BaselinePairing NONE = new BaselinePairing(Map.of());

    public BaselinePairing {
        pairs = Map.copyOf(pairs);
    }

    /** The baseline memory compared with {@code memory}, or -1. */
    public int baselineOf(int memory) {
        return pairs.getOrDefault(memory, -1);
    }

    public boolean isEmpty() {
        return pairs.isEmpty();
    }

    /**
     * Pairs {@code shown}'s memories with {@code baseline}'s: by name, by last name segment, then by kind;
     * only memories of one kind are ever paired (an arena's lane drawn around a CUDA device's line
     * compares nothing).
     */
    public static BaselinePairing match(List<MemoryInfo> shown, List<MemoryInfo> baseline) {
        Map<Integer, Integer> out = new LinkedHashMap<>();
        Set<Integer> taken = new HashSet<>();
        List<BiPredicate<MemoryInfo, MemoryInfo>> rules = List.of(
                (a, b) -> a.kind() == b.kind() && a.name().equals(b.name()),
                (a, b) -> a.kind() == b.kind() && lastSegment(a.name()).equals(lastSegment(b.name())),
                (a, b) -> a.kind() == b.kind());
        for (var rule : rules) {
            for (MemoryInfo m : shown) {
                if (out.containsKey(m.id())) {
                    continue;
                }
                for (MemoryInfo b : baseline) {
                    if (!taken.contains(b.id()) && rule.test(m, b)) {
                        out.put(m.id(), b.id());
                        taken.add(b.id());
                        break;
                    }
                }
            }
        }
        return new BaselinePairing(out);
    }

    /** The baseline memories {@code shown} may be paired with, in the baseline's order: those of its kind. */
    public static List<MemoryInfo> candidates(MemoryInfo shown, List<MemoryInfo> baseline) {
        return baseline.stream().filter(b -> b.kind() == shown.kind()).toList();
    }

    /** This pairing with {@code memory} compared with {@code baselineMemory} instead (-1: with none). */
    public BaselinePairing with(int memory, int baselineMemory) {
        Map<Integer, Integer> m = new LinkedHashMap<>(pairs);
        m.values().remove(baselineMemory);
        if (baselineMemory < 0) {
            m.remove(memory);
        } else {
            m.put(memory, baselineMemory);
        }
        return new BaselinePairing(m);
    }

    /** One line for the status bar: what was paired with what, or that nothing matched. */
    public String describe(List<MemoryInfo> shown, List<MemoryInfo> baseline) {
        if (pairs.isEmpty()) {
            return "no memory of the baseline matches this session's (by name or kind): nothing to compare";
        }
        List<String> parts = new ArrayList<>();
        for (MemoryInfo m : shown) {
            int b = baselineOf(m.id());
            if (b >= 0 && b < baseline.size()) {
                String bn = baseline.get(b).name();
                parts.add(bn.equals(m.name()) ? m.name() : m.name() + " ↔ " + bn);
            }
        }
        return "comparing " + String.join(", ", parts);
    }

    private static String lastSegment(String name) {
        int slash = Math.max(name.lastIndexOf('/'), name.lastIndexOf('·'));
        return slash >= 0 ? name.substring(slash + 1).strip() : name;
    }
}
