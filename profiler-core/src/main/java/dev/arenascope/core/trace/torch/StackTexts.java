package dev.arenascope.core.trace.torch;

import java.util.Arrays;
import java.util.function.ToIntFunction;

import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.SiteTable;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.util.LongLongMap;

/**
 * What an allocation's stack becomes in the event stream: its site (a {@link SiteTable} node, frames
 * outermost first), plus the string ids of the entry's labels ({@code [category X]} and
 * {@code [compile_context X]} lines, when it has them) and of {@code user_metadata} names. A stack is
 * never turned into text: each distinct frame becomes one site frame and each distinct stack one walk
 * of the site trie (its nodes shared with every stack of the same callers), so the cost is linear in
 * the distinct frames and stack nodes, whatever the stacks look like. Each distinct label text and
 * name is built once and its string announced through the emitter's string table. Used by
 * {@link SnapshotEmitter} on its thread only.
 */
final class StackTexts {
    private final Snapshot snap;
    private final ToIntFunction<String> strings;
    private final int[] stackSite;
    private final int[] frameSite;
    private final int[] metaString;
    private final SiteTable sites;
    /** Whether {@link #sites} is the sink's own ({@link EventSink#sharedSites}): nothing is then announced. */
    private final boolean shared;

    /**
     * @param strings the emitter's string table: the id of a string, announced to the sink the first time
     * @param sinkSites the sink's site table to intern into instead of announcing ({@link EventSink#sharedSites}), or null
     */
    StackTexts(Snapshot snap, ToIntFunction<String> strings, SiteTable sinkSites) {
        this.snap = snap;
        this.strings = strings;
        this.shared = sinkSites != null;
        this.sites = shared ? sinkSites : new SiteTable();
        // a stack's frames are at most that many new nodes: the node index is sized once for all of them
        // (at 2 M distinct stacks of 3-12 frames, ~15 M nodes, its doublings left ~110 MB of old indexes)
        sites.expectNodes(snap.stacks().poolSize());
        stackSite = new int[snap.stacks().stackCount()];
        Arrays.fill(stackSite, -2);
        frameSite = new int[snap.stacks().frameCount()];
        sites.expectFrames(snap.stacks().frameCount()); // each of the snapshot's frames is one site frame at most
        Arrays.fill(frameSite, -1);
        textString = new int[snap.stacks().textCount()];
        Arrays.fill(textString, -1);
        metaString = new int[snap.strings().size()];
        Arrays.fill(metaString, -2);
    }

    /** Per {@link StackTable} text id, its string id in {@link #sites} (-1: not yet interned there). */
    private final int[] textString;

    private int siteString(StackTable st, int text) {
        int id = textString[text];
        if (id < 0) {
            id = textString[text] = sites.string(st.textOf(text));
        }
        return id;
    }

    /** An entry's labels, as one key of the label cache. */
    private static long labels(int context, int category) {
        return (long) context << 32 | (category & 0xFFFF_FFFFL);
    }

    private final LongLongMap labelled = new LongLongMap();

    /**
     * The string id of an entry's labels (its category and compile context, one a line), or -1 when it
     * has none. Each distinct text is built once.
     */
    int text(int context, int category) {
        if (context < 0 && category < 0) {
            return -1;
        }
        long key = labels(context, category);
        long id = labelled.get(key, -1);
        if (id < 0) {
            StringBuilder sb = new StringBuilder();
            if (category >= 0) {
                sb.append("[category ").append(snap.strings().get(category)).append(']');
            }
            if (context >= 0) {
                if (!sb.isEmpty()) {
                    sb.append('\n');
                }
                sb.append("[compile_context ").append(snap.strings().get(context)).append(']');
            }
            id = strings.applyAsInt(sb.toString());
            labelled.put(key, id, -1);
        }
        return (int) id;
    }

    /**
     * The site (a {@link SiteTable} node) of a stack: its frames outermost first (PyTorch lists them
     * innermost first), the runtime's frames ({@link StackTable#runtime}) flagged
     * {@link StackFrame#FLAG_INTERNAL}; -1 for no frames. A frame's names are mapped to the site
     * table's string ids once per distinct name, not looked up per frame.
     */
    int site(int stack) {
        if (stack == 0) {
            return -1;
        }
        if (stackSite[stack] == -2) {
            StackTable st = snap.stacks();
            int node = -1;
            for (int i = st.depth(stack) - 1; i >= 0; i--) {
                int f = st.frameAt(stack, i);
                if (frameSite[f] < 0) {
                    long line = st.line(f);
                    frameSite[f] = sites.frame(siteString(st, st.nameText(f)), siteString(st, st.fileText(f)),
                            line < 0 || line > Integer.MAX_VALUE ? 0 : (int) line, st.runtime(f) ? StackFrame.FLAG_INTERNAL : 0);
                }
                node = sites.node(node, frameSite[f]);
            }
            stackSite[stack] = node;
        }
        return stackSite[stack];
    }
    /** An allocation's category: its {@code category} field, else its {@code user_metadata}; -1 for none. */
    int category(int category, int meta) {
        return category >= 0 ? metaName(category) : meta >= 0 ? metaName(meta) : -1;
    }

    int metaName(int meta) {
        if (metaString[meta] == -2) {
            metaString[meta] = strings.applyAsInt(snap.strings().get(meta));
        }
        return metaString[meta];
    }

    /**
     * Announces the frames and stack nodes made since the last call, before the events that name them
     * (none when they were made in the sink's own table).
     */
    void announceNew(EventSink out) {
        if (!shared) {
            sites.announceNew(out);
        }
    }
}
