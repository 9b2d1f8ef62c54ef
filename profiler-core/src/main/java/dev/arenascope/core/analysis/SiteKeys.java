package dev.arenascope.core.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.SiteTable;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.TraceView;

/**
 * An allocation's site path and category as {@link SiteAnalysis} groups them (see its class comment),
 * resolved one allocation at a time in allocation order: paths are numbered as first met, so resolving
 * the allocations of a replay as they are made ({@link AllocationStream}) numbers them as the analysis
 * of the whole index does. Each distinct stack and scope chain is resolved once. Not thread-safe.
 */
final class SiteKeys {
    final SiteTable paths = new SiteTable();
    final List<String> categories = new ArrayList<>();
    private final AllocationIndex x;
    private final TraceView view;
    private final MemoryInfo memory;
    private final boolean includeInternal;
    private final String role;
    private int[] bySite;
    private final Map<Integer, Integer> byScope = new HashMap<>();
    private final Map<String, Integer> catIds = new HashMap<>();
    boolean anyScope;
    private int beforeRecording = -1;

    /** The path node ({@code -1}: no site) and category number {@link #resolve} found. */
    int key;
    int cat;

    SiteKeys(AllocationIndex x, TraceView view, MemoryInfo memory, boolean includeInternal) {
        this.x = x;
        this.view = view;
        this.memory = memory;
        this.includeInternal = includeInternal;
        bySite = new int[Math.max(0, view.stackNodeCount())];
        Arrays.fill(bySite, -2);
        role = switch (memory.kind()) {
            case PLAN_SCRATCH -> "scratch";
            case PLAN_PERSISTENT -> "persistent";
            case PLAN_CONSTANT -> "constant";
            default -> null;
        };
    }

    /** Resolves an allocation of stack node {@code site}, innermost scope {@code scope} and category string {@code category} (each -1 for none). */
    void resolve(int site, int scope, int category) {
        int k;
        if (site >= 0) {
            if (site >= bySite.length && site < view.stackNodeCount()) {
                int old = bySite.length;
                bySite = Arrays.copyOf(bySite, view.stackNodeCount()); // a live store's table grew
                Arrays.fill(bySite, old, bySite.length, -2);
            }
            if (site >= bySite.length) {
                k = -1; // a site the table never announced: counted without frames
            } else {
                if (bySite[site] == -2) {
                    bySite[site] = internStack(view.stack(site));
                }
                k = bySite[site];
            }
        } else {
            int slot = x.scopeSlot(scope);
            if (slot >= 0) {
                anyScope = true;
                Integer s = byScope.get(slot);
                if (s == null) {
                    s = internScopes(slot);
                    byScope.put(slot, s);
                }
                k = s;
            } else {
                k = -1;
            }
        }
        String label = null;
        if (category >= 0) {
            label = view.string(category);
        }
        if (k == -1 && Event.BEFORE_RECORDING.equals(label)) {
            // live before recording began, without frames: named so, never "(no site)" as if the
            // program had made it at the start
            if (beforeRecording == -1) {
                beforeRecording = paths.node(-1, paths.frame(Event.BEFORE_RECORDING, "", 0, 0));
            }
            k = beforeRecording;
        }
        if (label == null && memory.kind() == MemoryKind.ARENA) {
            int slot = x.scopeSlot(scope);
            label = slot >= 0 ? view.string(x.scopeName[slot]) : null;
        }
        if (label == null) {
            label = role != null ? role : "(none)";
        }
        key = k;
        if (label != lastLabel) { // the trace's strings are one object an id: most allocations repeat the last label
            lastLabel = label;
            lastCat = catIds.computeIfAbsent(label, l -> {
                categories.add(l);
                return categories.size() - 1;
            });
        }
        cat = lastCat;
    }

    private String lastLabel;
    private int lastCat;

    private int internStack(List<StackFrame> innermostFirst) {
        List<StackFrame> kept = innermostFirst;
        if (!includeInternal) {
            kept = innermostFirst.stream().filter(f -> !f.internal()).toList();
            if (kept.isEmpty()) {
                kept = innermostFirst;
            }
        }
        int node = -1;
        for (int k = kept.size() - 1; k >= 0; k--) {
            StackFrame f = kept.get(k);
            node = paths.node(node, paths.frame(f.function(), f.file(), f.line(), f.flags()));
        }
        return node;
    }

    private int internScopes(int innermostSlot) {
        List<String> names = new ArrayList<>();
        for (int slot = innermostSlot, guard = 0; slot >= 0 && guard <= x.scopes; guard++) {
            String nm = view.string(x.scopeName[slot]);
            names.add(nm == null ? "(scope)" : nm);
            slot = x.scopeSlot(x.scopeParent[slot]);
        }
        int node = -1;
        for (int k = names.size() - 1; k >= 0; k--) {
            node = paths.node(node, paths.frame(names.get(k), "", 0, 0));
        }
        return node;
    }
}
