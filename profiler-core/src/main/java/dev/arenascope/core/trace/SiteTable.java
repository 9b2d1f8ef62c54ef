package dev.arenascope.core.trace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A session's allocation-site table: interned {@link StackFrame frames} and the {@link StackNode
 * stack tree} over them. A site (what {@link Event#site()} carries) is a node id: the node of the
 * allocation's innermost frame.
 *
 * <h2>Two ways to fill it</h2>
 * <ul>
 *   <li><b>Producers</b> (stack capture, importers) intern: {@link #frame(String, String, int, int)}
 *       gives the id of a location (the same id for the same location), {@link #node(int, int)} the id
 *       of a frame under a caller, {@link #stack(int...)} a whole path at once. Before handing events
 *       that carry new sites to a sink they call {@link #announceNew(EventSink)}, which delivers the
 *       frames and nodes not yet announced, in an order every sink accepts.</li>
 *   <li><b>Consumers</b> (the store, readers) {@link #add(StackFrame) add} what was announced, ids and
 *       all. Ids must arrive dense and in order ({@code 0, 1, 2, ...}); announcing an id again is
 *       allowed when it says the same thing (a live sender that reconnects), anything else is refused,
 *       so a forged id can never make the table allocate more than the records it was given.</li>
 * </ul>
 *
 * <h2>Example</h2>
 * <pre>{@code
 * SiteTable sites = new SiteTable();
 * int main = sites.frame("main", "train.py", 10, 0);
 * int step = sites.frame("step", "train.py", 42, 0);
 * int site = sites.stack(main, step);          // outermost first; returns the innermost node
 * sites.announceNew(sink);                      // frames 0, 1 then nodes 0, 1
 * batch.add(t, packed, thread, addr, n, n, used, aux, -1, -1, site, categoryStringId);
 * }</pre>
 *
 * <p>Thread-safe: every method may be called from any thread (capture interns from the allocating
 * threads, the drain announces). Ids are never reused or changed.
 */
public final class SiteTable {
    private record FrameKey(String function, String file, int line, int flags) {}

    private final List<StackFrame> frames = new ArrayList<>();
    private final Map<FrameKey, Integer> frameIds = new HashMap<>();
    private int[] nodeFrame = new int[64];
    private int[] nodeParent = new int[64];
    private int nodes;
    private final Map<Long, Integer> nodeIds = new HashMap<>();
    private int announcedFrames;
    private int announcedNodes;

    // ---------------------------------------------------------------- producers

    /**
     * The id of the frame at this location, interning it on first use.
     *
     * @throws IllegalArgumentException when function or file is null, line is negative or flags out of range
     */
    public synchronized int frame(String function, String file, int line, int flags) {
        FrameKey key = new FrameKey(function, file, line, flags);
        Integer id = frameIds.get(key);
        if (id != null) {
            return id;
        }
        StackFrame f = new StackFrame(frames.size(), function, file, line, flags);
        frames.add(f);
        frameIds.put(key, f.id());
        return f.id();
    }

    /**
     * The id of the node for {@code frame} called from {@code parent} (-1 for an outermost frame),
     * interning it on first use.
     *
     * @throws IllegalArgumentException when the frame or the parent is not in the table
     */
    public synchronized int node(int parent, int frame) {
        if (frame < 0 || frame >= frames.size()) {
            throw new IllegalArgumentException("no frame " + frame + " (the table has " + frames.size() + ")");
        }
        if (parent < -1 || parent >= nodes) {
            throw new IllegalArgumentException("no stack node " + parent + " (the table has " + nodes + ")");
        }
        long key = (long) parent << 32 | (frame & 0xFFFF_FFFFL);
        Integer id = nodeIds.get(key);
        if (id != null) {
            return id;
        }
        int n = appendNode(frame, parent);
        nodeIds.put(key, n);
        return n;
    }

    /**
     * The site of a call path given as frame ids, outermost first; -1 for an empty path.
     *
     * @throws IllegalArgumentException when a frame is not in the table
     */
    public synchronized int stack(int... framesOuterFirst) {
        int site = -1;
        for (int f : framesOuterFirst) {
            site = node(site, f);
        }
        return site;
    }

    /**
     * Delivers to {@code sink} every frame and node not yet announced through this method, frames
     * first, then nodes in id order (so a node's frame and parent always come before it). Call it on
     * the thread that then delivers the events, before them. The sink is called outside the table's lock.
     */
    public void announceNew(EventSink sink) {
        List<StackFrame> newFrames;
        List<StackNode> newNodes = new ArrayList<>();
        synchronized (this) {
            newFrames = List.copyOf(frames.subList(announcedFrames, frames.size()));
            for (int i = announcedNodes; i < nodes; i++) {
                newNodes.add(new StackNode(i, nodeFrame[i], nodeParent[i]));
            }
            announcedFrames = frames.size();
            announcedNodes = nodes;
        }
        newFrames.forEach(sink::onFrame);
        newNodes.forEach(sink::onStack);
    }

    /** Whether frames or nodes were added since the last {@link #announceNew}. */
    public synchronized boolean hasUnannounced() {
        return announcedFrames < frames.size() || announcedNodes < nodes;
    }

    /** Delivers every frame and node to {@code sink} (a replay), frames first. */
    public void announceAll(EventSink sink) {
        List<StackFrame> fs;
        List<StackNode> ns = new ArrayList<>();
        synchronized (this) {
            fs = List.copyOf(frames);
            for (int i = 0; i < nodes; i++) {
                ns.add(new StackNode(i, nodeFrame[i], nodeParent[i]));
            }
        }
        fs.forEach(sink::onFrame);
        ns.forEach(sink::onStack);
    }

    // ---------------------------------------------------------------- consumers

    /**
     * Adds an announced frame.
     *
     * @throws IllegalArgumentException when its id skips ahead of the table, or repeats an id with
     *                                  different contents
     */
    public synchronized void add(StackFrame f) {
        if (f.id() < frames.size()) {
            if (!frames.get(f.id()).equals(f)) {
                throw new IllegalArgumentException("frame " + f.id() + " announced twice with different contents");
            }
            return;
        }
        if (f.id() > frames.size()) {
            throw new IllegalArgumentException("frame " + f.id() + " announced before frame " + frames.size()
                    + " (frame ids must be announced in order from 0)");
        }
        frames.add(f);
        frameIds.putIfAbsent(new FrameKey(f.function(), f.file(), f.line(), f.flags()), f.id());
    }

    /**
     * Adds an announced stack node.
     *
     * @throws IllegalArgumentException when its id skips ahead, it names a frame or parent not yet
     *                                  announced, or it repeats an id with different contents
     */
    public synchronized void add(StackNode n) {
        if (n.id() < nodes) {
            if (nodeFrame[n.id()] != n.frame() || nodeParent[n.id()] != n.parent()) {
                throw new IllegalArgumentException("stack node " + n.id() + " announced twice with different contents");
            }
            return;
        }
        if (n.id() > nodes) {
            throw new IllegalArgumentException("stack node " + n.id() + " announced before node " + nodes
                    + " (node ids must be announced in order from 0)");
        }
        if (n.frame() >= frames.size()) {
            throw new IllegalArgumentException("stack node " + n.id() + " names frame " + n.frame()
                    + ", which was not announced (" + frames.size() + " frames so far)");
        }
        appendNode(n.frame(), n.parent());
        nodeIds.putIfAbsent((long) n.parent() << 32 | (n.frame() & 0xFFFF_FFFFL), n.id());
    }

    // ---------------------------------------------------------------- reading

    /** The frame with this id, or null. */
    public synchronized StackFrame frame(int id) {
        return id >= 0 && id < frames.size() ? frames.get(id) : null;
    }

    /** The node with this id, or null. */
    public synchronized StackNode node(int id) {
        return id >= 0 && id < nodes ? new StackNode(id, nodeFrame[id], nodeParent[id]) : null;
    }

    /** The frame id of node {@code id}; the node must exist. */
    public synchronized int nodeFrame(int id) {
        checkNode(id);
        return nodeFrame[id];
    }

    /** The parent of node {@code id} (-1 at the root); the node must exist. */
    public synchronized int nodeParent(int id) {
        checkNode(id);
        return nodeParent[id];
    }

    public synchronized int frameCount() {
        return frames.size();
    }

    public synchronized int nodeCount() {
        return nodes;
    }

    /** The frames of {@code site}, innermost first; empty for -1 or an unknown site. */
    public synchronized List<StackFrame> frames(int site) {
        List<StackFrame> out = new ArrayList<>();
        for (int n = site; n >= 0 && n < nodes; n = nodeParent[n]) {
            out.add(frames.get(nodeFrame[n]));
        }
        return out;
    }

    private void checkNode(int id) {
        if (id < 0 || id >= nodes) {
            throw new IndexOutOfBoundsException("stack node " + id + " of " + nodes);
        }
    }

    private int appendNode(int frame, int parent) {
        if (nodes == nodeFrame.length) {
            nodeFrame = Arrays.copyOf(nodeFrame, nodes * 2);
            nodeParent = Arrays.copyOf(nodeParent, nodes * 2);
        }
        nodeFrame[nodes] = frame;
        nodeParent[nodes] = parent;
        return nodes++;
    }
}
