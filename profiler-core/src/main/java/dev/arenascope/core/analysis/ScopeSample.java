package dev.arenascope.core.analysis;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One execution of a labelled scope on an arena, reduced to what calibration fits: the scope's shape
 * parameters and the bytes it took.
 *
 * @param memory         the arena's memory id
 * @param scopeId        the scope id of its {@code SCOPE_ENTER} event
 * @param parentId       the enclosing scope's id, or -1
 * @param name           the scope's name
 * @param params         its parameters (from {@code SCOPE_ENTER}'s params and {@code noteScopeParams}), in
 *                       the order first seen; never null
 * @param ownBytes       bytes requested by the allocations made while this scope was the innermost
 *                       open one (children excluded), before alignment
 * @param ownPadding     bytes lost to alignment by those allocations (offset gaps plus size rounding)
 * @param ownAllocations how many allocations that was
 * @param largestPadding the most bytes one of those allocations lost to alignment
 * @param peakBytes      the scope's footprint: the most bytes it held at once, forward bytes above its
 *                       entry pointer plus backward bytes below its entry pointer, children included
 * @param startNs        when it opened (ns since the session start)
 * @param endNs          when it closed
 */
public record ScopeSample(int memory, int scopeId, int parentId, String name, Map<String, Long> params,
                          long ownBytes, long ownPadding, int ownAllocations, long largestPadding, long peakBytes,
                          long startNs, long endNs) {
    public ScopeSample {
        params = params == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(params));
    }

    /** The value of parameter {@code name}, or {@code fallback} when it was not annotated. */
    public long param(String paramName, long fallback) {
        Long v = params.get(paramName);
        return v == null ? fallback : v;
    }
}
