package dev.arenascope.core.arena;

import java.util.List;
import java.util.Map;

/**
 * One scope of an {@link AllocationRecorder}'s tree, as a snapshot.
 *
 * @param id                   index of the scope in its recorder (0 is the root, the recording itself)
 * @param name                 the scope's name as given to {@code scope(name, ...)}
 * @param params               shape parameters given at entry or noted inside, in the order given
 * @param entry                the arena's pointers when the scope opened
 * @param exit                 the arena's pointers when it closed, or null while it is open
 * @param allocations          allocations made directly in this scope (not in its children)
 * @param allocatedBytes       bytes (with alignment padding) allocated directly in this scope
 * @param peakForwardBytes     the highest forward pointer reached while the scope was open, in bytes
 *                             from the arena's start (children included)
 * @param peakBackwardBytes    the most bytes the backward end held while the scope was open (children included)
 * @param children             scopes opened directly inside this one, in order
 */
public record RecordedScope(int id, String name, Map<String, Long> params, Pointers entry, Pointers exit,
                            long allocations, long allocatedBytes, long peakForwardBytes, long peakBackwardBytes,
                            List<RecordedScope> children) {

    /** How far the forward pointer rose above its entry value: the forward bytes this scope needed. */
    public long forwardGrowth() {
        return peakForwardBytes - entry.forward();
    }

    /** Allocations in this scope and all scopes below it. */
    public long totalAllocations() {
        long n = allocations;
        for (RecordedScope c : children) {
            n += c.totalAllocations();
        }
        return n;
    }

    /** Whether the scope had closed when the snapshot was taken. */
    public boolean closed() {
        return exit != null;
    }

    /** The first descendant (depth first, this scope included) named {@code scopeName}, or null. */
    public RecordedScope find(String scopeName) {
        if (name.equals(scopeName)) {
            return this;
        }
        for (RecordedScope c : children) {
            RecordedScope f = c.find(scopeName);
            if (f != null) {
                return f;
            }
        }
        return null;
    }
}
