package dev.arenascope.core.trace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.core.util.KeyIds;

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
    /**
     * The session attribute in which a sampling recorder says how it sampled its stacks
     * ({@code one allocation in 16}); absent when every allocation was walked.
     */
    public static final String SAMPLING_ATTRIBUTE = "sites.sampling";

    /*
     * Everything is in primitive arrays, linear in the distinct frames and nodes (no object per frame or
     * node): strings once each, a frame as two longs (function and file string ids; line and flags), a
     * node as one (parent and frame), each table indexed by a seeded open-addressing hash (KeyIds). A
     * frame costs about 32 bytes beside its strings, a node 16 to 24.
     */
    private final Map<String, Integer> stringIds = new HashMap<>();
    private String[] strings = new String[64];
    private final KeyIds frames = new KeyIds(2);
    private final KeyIds nodes = new KeyIds(1);
    private int announcedFrames;
    private int announcedNodes;

    private int stringId(String s) {
        Integer id = stringIds.get(s);
        if (id == null) {
            id = stringIds.size();
            if (id == strings.length) {
                strings = Arrays.copyOf(strings, Math.max(16, id * 2));
            }
            strings[id] = s;
            stringIds.put(s, id);
        }
        return id;
    }

    private static long frameKey(int function, int file) {
        return (long) function << 32 | (file & 0xFFFF_FFFFL);
    }

    private static long frameKey2(int line, int flags) {
        return (long) line << 32 | (flags & 0xFFFF_FFFFL);
    }

    private static long nodeKey(int parent, int frame) {
        return (long) parent << 32 | (frame & 0xFFFF_FFFFL);
    }

    private StackFrame frameAt(int id) {
        long a = frames.key(id), b = frames.key2(id);
        return new StackFrame(id, strings[(int) (a >>> 32)], strings[(int) a], (int) (b >> 32), (int) b);
    }

    // ---------------------------------------------------------------- producers

    /**
     * Sizes the frame index for {@code frames} distinct frames to come (a bound the caller knows, such
     * as an importer's own frame count), so it is not rehashed while they are added; ids are the same.
     */
    public synchronized void expectFrames(int frames) {
        this.frames.expect(frames);
    }

    /**
     * Sizes the node index for up to {@code nodes} distinct nodes (a bound the caller knows, such as
     * the frames of an importer's distinct stacks together), so it is not rehashed while they are
     * added: neither the rehashes' work nor their old index arrays, garbage a serial collector promotes
     * and keeps. Ids are the same.
     */
    public synchronized void expectNodes(int nodes) {
        this.nodes.expect(nodes);
    }

    /**
     * The id of the frame at this location, interning it on first use.
     *
     * @throws IllegalArgumentException when function or file is null, line is negative or flags out of range
     */
    public synchronized int frame(String function, String file, int line, int flags) {
        if (function == null || file == null || line < 0 || flags < 0 || flags > 0xff) {
            new StackFrame(frames.size(), function, file, line, flags); // refuses them as a frame would
        }
        Integer fn = stringIds.get(function), fl = stringIds.get(file);
        if (fn != null && fl != null) {
            int id = frames.find(frameKey(fn, fl), frameKey2(line, flags));
            if (id >= 0) {
                return id;
            }
        }
        return frames.intern(frameKey(stringId(function), stringId(file)), frameKey2(line, flags));
    }

    /**
     * The id of string {@code s} (a function or file name) in this table, interning it: an importer
     * that has its own ids for its names maps each to this id once, then interns its frames by id
     * ({@link #frame(int, int, int, int)}) without a lookup of the names per frame.
     *
     * @throws IllegalArgumentException when {@code s} is null
     */
    public synchronized int string(String s) {
        if (s == null) {
            throw new IllegalArgumentException("a frame's function or file is null");
        }
        return stringId(s);
    }

    /**
     * As {@link #frame(String, String, int, int)}, the function and file given by their ids from
     * {@link #string(String)}.
     *
     * @throws IllegalArgumentException when a string id is not in the table, line is negative or flags out of range
     */
    public synchronized int frame(int function, int file, int line, int flags) {
        int n = stringIds.size();
        if (function < 0 || function >= n || file < 0 || file >= n) {
            throw new IllegalArgumentException("no string " + (function < 0 || function >= n ? function : file) + " (the table has " + n + ")");
        }
        if (line < 0 || flags < 0 || flags > 0xff) {
            new StackFrame(frames.size(), strings[function], strings[file], line, flags); // refuses them as a frame would
        }
        return frames.intern(frameKey(function, file), frameKey2(line, flags));
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
        if (parent < -1 || parent >= nodes.size()) {
            throw new IllegalArgumentException("no stack node " + parent + " (the table has " + nodes.size() + ")");
        }
        if (parent == nodes.size() - 1) {
            // the newest node has no children (a child's id is always above its parent's), nor has the
            // root an empty table: the node is new, appended without a lookup. Its index entry is made at
            // the next lookup with the others appended since, misses in a big index that overlap there
            // instead of each waiting on the one before (a new stack's frames below its first new node:
            // 1 M all-distinct PyTorch allocations make some 15 M nodes, nearly all this way)
            return nodes.append(nodeKey(parent, frame), 0);
        }
        return nodes.intern(nodeKey(parent, frame));
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
        takeNew().deliverTo(sink);
    }

    /** Frames and nodes not yet announced, taken once to hand to several sinks. */
    public record Delta(List<StackFrame> frames, List<StackNode> nodes) {
        public boolean isEmpty() {
            return frames.isEmpty() && nodes.isEmpty();
        }

        /** Frames first, then nodes. */
        public void deliverTo(EventSink sink) {
            frames.forEach(sink::onFrame);
            nodes.forEach(sink::onStack);
        }
    }

    /** Takes the frames and nodes not yet announced (as {@link #announceNew} does), for delivery to several sinks. */
    public Delta takeNew() {
        List<StackFrame> newFrames = new ArrayList<>();
        List<StackNode> newNodes = new ArrayList<>();
        synchronized (this) {
            for (int i = announcedFrames; i < frames.size(); i++) {
                newFrames.add(frameAt(i));
            }
            for (int i = announcedNodes; i < nodes.size(); i++) {
                newNodes.add(nodeAt(i));
            }
            announcedFrames = frames.size();
            announcedNodes = nodes.size();
        }
        return new Delta(List.copyOf(newFrames), List.copyOf(newNodes));
    }

    /** Whether frames or nodes were added since the last {@link #announceNew}. */
    public synchronized boolean hasUnannounced() {
        return announcedFrames < frames.size() || announcedNodes < nodes.size();
    }

    /** Delivers every frame and node to {@code sink} (a replay), frames first. */
    public void announceAll(EventSink sink) {
        int fs, ns;
        synchronized (this) {
            fs = frames.size();
            ns = nodes.size();
        }
        for (int i = 0; i < fs; i++) {
            sink.onFrame(frame(i));
        }
        for (int i = 0; i < ns; i++) {
            sink.onStack(node(i));
        }
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
            if (!frameAt(f.id()).equals(f)) {
                throw new IllegalArgumentException("frame " + f.id() + " announced twice with different contents");
            }
            return;
        }
        if (f.id() > frames.size()) {
            throw new IllegalArgumentException("frame " + f.id() + " announced before frame " + frames.size()
                    + " (frame ids must be announced in order from 0)");
        }
        frames.append(frameKey(stringId(f.function()), stringId(f.file())), frameKey2(f.line(), f.flags()));
    }

    /**
     * Adds an announced stack node.
     *
     * @throws IllegalArgumentException when its id skips ahead, it names a frame or parent not yet
     *                                  announced, or it repeats an id with different contents
     */
    public synchronized void add(StackNode n) {
        if (n.id() < nodes.size()) {
            if (nodeFrame0(n.id()) != n.frame() || nodeParent0(n.id()) != n.parent()) {
                throw new IllegalArgumentException("stack node " + n.id() + " announced twice with different contents");
            }
            return;
        }
        if (n.id() > nodes.size()) {
            throw new IllegalArgumentException("stack node " + n.id() + " announced before node " + nodes.size()
                    + " (node ids must be announced in order from 0)");
        }
        if (n.frame() >= frames.size()) {
            throw new IllegalArgumentException("stack node " + n.id() + " names frame " + n.frame()
                    + ", which was not announced (" + frames.size() + " frames so far)");
        }
        nodes.append(nodeKey(n.parent(), n.frame()), 0);
    }

    // ---------------------------------------------------------------- reading

    /** The frame with this id, or null. */
    public synchronized StackFrame frame(int id) {
        return id >= 0 && id < frames.size() ? frameAt(id) : null;
    }

    /** The node with this id, or null. */
    public synchronized StackNode node(int id) {
        return id >= 0 && id < nodes.size() ? nodeAt(id) : null;
    }

    /** The frame id of node {@code id}; the node must exist. */
    public synchronized int nodeFrame(int id) {
        checkNode(id);
        return nodeFrame0(id);
    }

    /** The parent of node {@code id} (-1 at the root); the node must exist. */
    public synchronized int nodeParent(int id) {
        checkNode(id);
        return nodeParent0(id);
    }

    public synchronized int frameCount() {
        return frames.size();
    }

    public synchronized int nodeCount() {
        return nodes.size();
    }

    /**
     * Gives back the room the tables kept to grow and their lookup indexes (a consumer's copy that is
     * complete: a store after its stream closed); lookups still work, building an index again.
     */
    public synchronized void trim() {
        frames.trim();
        nodes.trim();
        frames.dropIndex();
        nodes.dropIndex();
        strings = Arrays.copyOf(strings, stringIds.size());
    }

    /** Bytes the table's arrays hold (its strings aside). */
    public synchronized long bytes() {
        return frames.bytes() + nodes.bytes() + 4L * strings.length;
    }

    /** The frames of {@code site}, innermost first; empty for -1 or an unknown site. */
    public synchronized List<StackFrame> frames(int site) {
        List<StackFrame> out = new ArrayList<>();
        for (int n = site; n >= 0 && n < nodes.size(); n = nodeParent0(n)) {
            out.add(frameAt(nodeFrame0(n)));
        }
        return out;
    }

    private void checkNode(int id) {
        if (id < 0 || id >= nodes.size()) {
            throw new IndexOutOfBoundsException("stack node " + id + " of " + nodes.size());
        }
    }

    private int nodeFrame0(int id) {
        return (int) nodes.key(id);
    }

    private int nodeParent0(int id) {
        return (int) (nodes.key(id) >> 32);
    }

    private StackNode nodeAt(int id) {
        return new StackNode(id, nodeFrame0(id), nodeParent0(id));
    }
}
