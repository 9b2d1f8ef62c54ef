package dev.arenascope.core.trace;

import java.util.Map;

/**
 * A memory registered with a session: an arena, a pool, a plan arena or an imported device memory.
 *
 * @param id         small integer id, unique in the session, as used by {@link Event#memory()}
 * @param name       the user's name for it
 * @param kind       what sort of memory it is
 * @param device     the device id ({@code cuda:0}, {@code host}, {@code virtual})
 * @param capacity   capacity in bytes, or 0 when unbounded or unknown
 * @param attributes further facts (mantissa bits, plan name, role, ...); never null
 */
public record MemoryInfo(int id, String name, MemoryKind kind, String device, long capacity, Map<String, String> attributes) {
    public MemoryInfo {
        attributes = attributes == null ? Map.of() : Map.copyOf(attributes);
    }
}
