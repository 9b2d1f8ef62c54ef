package dev.arenascope.core.trace;

/**
 * One node of a session's stack tree, as pprof and Perfetto keep call stacks: a frame and the node of
 * its caller. A <em>site</em> (what an allocation carries, {@link Event#site()}) is the id of the node
 * of its innermost frame; following {@link #parent()} walks outwards to the root. Nodes are interned:
 * two allocations from the same call path carry the same node id.
 *
 * <p>Announced once per session (see {@link EventSink#onStack}), after the frame it names and after
 * its parent, and before the first event that carries it.
 *
 * @param id     the node's id in its session, {@code 0, 1, 2, ...} in the order announced
 * @param frame  the id of this node's {@link StackFrame}
 * @param parent the id of the caller's node, -1 for an outermost frame
 */
public record StackNode(int id, int frame, int parent) {

    public StackNode {
        if (id < 0 || frame < 0) {
            throw new IllegalArgumentException("stack node " + id + " has a negative id or frame " + frame);
        }
        if (parent < -1 || parent >= id) {
            throw new IllegalArgumentException("stack node " + id + " has parent " + parent
                    + " (a parent is announced before its children: -1 or a smaller id)");
        }
    }
}
