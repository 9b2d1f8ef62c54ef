package dev.arenascope.app.ui.events;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import dev.arenascope.core.analysis.ScopeAnalysis;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.TraceView;

/**
 * Which events the events table lists.
 *
 * @param kinds    kinds to keep (empty keeps all)
 * @param memory   memory id to keep, or -1 for all
 * @param scope    keep only events during this scope's executions on its memory, or null
 * @param minBytes keep events whose Bytes column shows at least this (0 keeps all; with a minimum,
 *                 events that show no byte count, such as scope entries, are left out)
 * @param search   case-insensitive text to find in the kind, memory name or detail (blank keeps all)
 * @param searchScopes scopes whose name or path holds the search text: events during their executions
 *                 (on their memory) match too, so searching a scope's name finds the allocations inside it
 */
public record EventFilter(Set<EventKind> kinds, int memory, ScopeAnalysis scope, long minBytes, String search,
                          List<ScopeAnalysis> searchScopes) {
    public static final EventFilter ALL = new EventFilter(Set.of(), -1, null, 0, "", List.of());

    public EventFilter {
        kinds = kinds == null ? Set.of() : Set.copyOf(kinds);
        search = search == null ? "" : search.strip().toLowerCase(Locale.ROOT);
        searchScopes = searchScopes == null ? List.of() : List.copyOf(searchScopes);
    }

    public EventFilter(Set<EventKind> kinds, int memory, ScopeAnalysis scope, long minBytes, String search) {
        this(kinds, memory, scope, minBytes, search, List.of());
    }

    /** The scopes of {@code all} whose name or path holds {@code search} (case-insensitive); none for a blank search. */
    public static List<ScopeAnalysis> scopesMatching(List<ScopeAnalysis> all, String search) {
        String s = search == null ? "" : search.strip().toLowerCase(Locale.ROOT);
        if (s.isEmpty()) {
            return List.of();
        }
        List<ScopeAnalysis> out = new ArrayList<>();
        for (ScopeAnalysis sc : all) {
            if (sc.path().toLowerCase(Locale.ROOT).contains(s)) {
                out.add(sc);
            }
        }
        return out;
    }

    private static boolean during(ScopeAnalysis scope, Event e) {
        if (e.memory() != scope.memory()) {
            return false;
        }
        return scope.executionTimes().covers(e.timeNs());
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
        if (minBytes > 0 && EventRow.bytesKey(e) < minBytes) {
            return false;
        }
        if (scope != null && !during(scope, e)) {
            return false;
        }
        if (!search.isEmpty()) {
            if (EventRow.kindName(e.kind()).contains(search)
                    || EventRow.memoryName(trace, e.memory()).toLowerCase(Locale.ROOT).contains(search)
                    || EventRow.detail(trace, e).toLowerCase(Locale.ROOT).contains(search)) {
                return true;
            }
            for (ScopeAnalysis sc : searchScopes) {
                if (during(sc, e)) {
                    return true;
                }
            }
            return false;
        }
        return true;
    }
}
