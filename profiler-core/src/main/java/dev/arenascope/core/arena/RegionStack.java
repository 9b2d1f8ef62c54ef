package dev.arenascope.core.arena;

import java.util.Arrays;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;

/**
 * The one mechanism behind an arena's temp scopes ({@link ManualMemory.Temp}) and labelled scopes
 * ({@link ManualMemory.Scope}): nested regions, each opened at the next depth and closed innermost
 * first. Each depth's handle is made once and reused, so opening a region allocates nothing once the
 * stack has been that deep; the owner keeps what a region holds in arrays by depth, grown with the
 * handles ({@code grow} is told the new capacity). Not thread-safe: owned by its arena.
 *
 * @param <H> the handle type
 */
final class RegionStack<H> {
    private final IntFunction<H> newHandle;
    private final IntConsumer grow;
    private Object[] handles = new Object[0];
    private int depth;

    /**
     * @param newHandle makes the handle of a depth
     * @param grow      grows the owner's per-depth arrays to the capacity given
     */
    RegionStack(IntFunction<H> newHandle, IntConsumer grow) {
        this.newHandle = newHandle;
        this.grow = grow;
    }

    /** Regions open now. */
    int depth() {
        return depth;
    }

    /** Opens a region at the next depth and returns that depth. */
    int push() {
        int d = depth;
        if (d == handles.length) {
            int n = Math.max(8, handles.length * 2);
            Object[] h = Arrays.copyOf(handles, n);
            for (int i = handles.length; i < n; i++) {
                h[i] = newHandle.apply(i);
            }
            grow.accept(n);
            handles = h;
        }
        depth = d + 1;
        return d;
    }

    /** The handle of depth {@code d}. */
    @SuppressWarnings("unchecked")
    H handle(int d) {
        return (H) handles[d];
    }

    /**
     * Closes the region at depth {@code d} if it is the innermost one open.
     *
     * @return false, changing nothing, when another region is open inside it (the caller says so)
     */
    boolean close(int d) {
        if (depth != d + 1) {
            return false;
        }
        depth = d;
        return true;
    }
}
