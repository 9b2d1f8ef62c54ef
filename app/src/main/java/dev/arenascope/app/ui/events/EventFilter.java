package dev.arenascope.app.ui.events;

import java.util.Locale;
import java.util.Set;

import dev.arenascope.app.ui.model.ScopeStats;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.TraceView;

/**
 * Which events the events table lists.
 *
 * @param kinds    kinds to keep (empty keeps all)
 * @param memory   memory id to keep, or -1 for all
 * @param scope    keep only events during this scope's executions on its memory, or null
 * @param minBytes keep events whose byte field ({@code b}) is at least this (0 keeps all)
 * @param search   case-insensitive text to find in the kind, memory name or detail (blank keeps all)
 */
public record EventFilter(Set<EventKind> kinds, int memory, ScopeStats scope, long minBytes, String search) {
    public static final EventFilter ALL = new EventFilter(Set.of(), -1, null, 0, "");

    public EventFilter {
        kinds = kinds == null ? Set.of() : Set.copyOf(kinds);
        search = search == null ? "" : search.strip().toLowerCase(Locale.ROOT);
    }

    /** Whether every event passes (no scan needed). */
    public boolean isAll() {
        return kinds.isEmpty() && memory < 0 && scope == null && minBytes <= 0 && search.isEmpty();
    }

    /** Whether {@code e} passes. */
    public boolean test(TraceView trace, Event e) {
        if (!kinds.isEmpty() && !kinds.contains(e.kind())) {
            return false;
        }
        if (memory >= 0 && e.memory() != memory) {
            return false;
        }
        if (minBytes > 0 && e.b() < minBytes) {
            return false;
        }
        if (scope != null) {
            if (e.memory() != scope.memory) {
                return false;
            }
            int i = scope.firstIntervalEndingAfter(e.timeNs());
            if (i >= scope.intervalCount() || scope.intervalStart(i) > e.timeNs()) {
                return false;
            }
        }
        if (!search.isEmpty()) {
            return EventRow.kindName(e.kind()).contains(search)
                    || EventRow.memoryName(trace, e.memory()).toLowerCase(Locale.ROOT).contains(search)
                    || EventRow.detail(trace, e).toLowerCase(Locale.ROOT).contains(search);
        }
        return true;
    }
}
