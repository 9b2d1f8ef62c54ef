package dev.arenascope.core.trace.torch;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.ToIntFunction;

import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.SiteTable;
import dev.arenascope.core.trace.StackFrame;

/**
 * What an allocation's stack becomes in the event stream: the string id of its text (one frame a
 * line, {@code name at file:line}, led by the entry's {@code [category X]} and
 * {@code [compile_context X]} lines when it has them) and its site (a {@link SiteTable} node, frames
 * outermost first), plus the string ids of {@code user_metadata} names. Each distinct text, site and
 * name is built once, on first use, and its string announced through the emitter's string table.
 * Used by {@link SnapshotEmitter} on its thread only.
 */
final class StackTexts {
    /** The longest text one stack becomes, in characters; longer stacks end with a count of the frames left out. */
    static final int MAX_STACK_TEXT = 1 << 16;

    private final Snapshot snap;
    private final ToIntFunction<String> strings;
    private final int[] stackString;
    private final int[] stackSite;
    private final int[] frameSite;
    private final int[] metaString;
    private final SiteTable sites = new SiteTable();

    /** @param strings the emitter's string table: the id of a string, announced to the sink the first time */
    StackTexts(Snapshot snap, ToIntFunction<String> strings) {
        this.snap = snap;
        this.strings = strings;
        stackString = new int[snap.stacks().stackCount()];
        Arrays.fill(stackString, -2);
        stackSite = new int[snap.stacks().stackCount()];
        Arrays.fill(stackSite, -2);
        frameSite = new int[snap.stacks().frameCount()];
        Arrays.fill(frameSite, -1);
        metaString = new int[snap.strings().size()];
        Arrays.fill(metaString, -2);
    }

    /** Refuses a snapshot whose stacks would become more text than its size can honestly account for. */
    static void checkBudget(Snapshot snap, String source) throws SnapshotFormatException {
        StackTable st = snap.stacks();
        long budget = 16 * snap.inputBytes() + (64L << 20);
        long total = 0;
        for (int s = 1; s < st.stackCount(); s++) {
            long len = 0;
            for (int f : st.frames(s)) {
                len += st.name(f).length() + st.file(f).length() + 24;
                if (len > MAX_STACK_TEXT) {
                    break;
                }
            }
            total += Math.min(len, MAX_STACK_TEXT + 64);
            if (total > budget) {
                throw new SnapshotFormatException(source, "", "its " + st.stackCount() + " distinct stacks would become more than "
                        + budget + " characters of text, beyond what a snapshot of " + snap.inputBytes() + " bytes holds; refused");
            }
        }
    }

    /**
     * Whether a frame is the runtime's rather than the program's: a C++ internal of PyTorch's capture
     * ({@link StackTable#internal}), or any frame outside a Python file (the interpreter's own
     * {@code _PyEval_EvalFrameDefault}, {@code THPVariable_dealloc}, ... with {@code stacks="all"}).
     */
    private static boolean internal(StackTable st, int frame) {
        return st.internal(frame) || !st.file(frame).endsWith(".py");
    }

    /** A stack with the entry's labels, as one key of the text cache (ordered: an input cannot make keys collide). */
    private record Labelled(int stack, int context, int category) implements Comparable<Labelled> {
        @Override
        public int compareTo(Labelled o) {
            int c = Integer.compare(stack, o.stack);
            if (c == 0) {
                c = Integer.compare(context, o.context);
            }
            return c != 0 ? c : Integer.compare(category, o.category);
        }
    }

    private final Map<Labelled, Integer> labelled = new HashMap<>();

    /**
     * The string id of a stack's text (one frame a line, {@code name at file:line}, led by the entry's
     * category and compile context when it has them), or -1 for none. Each distinct text is built once.
     */
    int text(int stack, int context, int category) {
        if (context < 0 && category < 0) {
            if (stack == 0) {
                return -1;
            }
            if (stackString[stack] == -2) {
                stackString[stack] = strings.applyAsInt(build(stack, context, category));
            }
            return stackString[stack];
        }
        Labelled key = new Labelled(stack, context, category);
        Integer id = labelled.get(key);
        if (id == null) {
            id = strings.applyAsInt(build(stack, context, category));
            labelled.put(key, id);
        }
        return id;
    }

    private String build(int stack, int context, int category) {
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
        StackTable st = snap.stacks();
        int[] frames = st.frames(stack);
        for (int i = 0; i < frames.length; i++) {
            if (!sb.isEmpty()) {
                sb.append('\n');
            }
            if (sb.length() > MAX_STACK_TEXT) {
                sb.append("... ").append(frames.length - i).append(" more frames");
                break;
            }
            sb.append(st.text(frames[i]));
        }
        return sb.toString();
    }

    /**
     * The site (a {@link SiteTable} node) of a stack: its frames outermost first (PyTorch lists them
     * innermost first), C++ internals flagged {@link StackFrame#FLAG_INTERNAL}; -1 for no frames.
     */
    int site(int stack) {
        if (stack == 0) {
            return -1;
        }
        if (stackSite[stack] == -2) {
            StackTable st = snap.stacks();
            int[] frames = st.frames(stack);
            int node = -1;
            for (int i = frames.length - 1; i >= 0; i--) {
                int f = frames[i];
                if (frameSite[f] < 0) {
                    long line = st.line(f);
                    frameSite[f] = sites.frame(st.name(f), st.file(f), line < 0 || line > Integer.MAX_VALUE ? 0 : (int) line,
                            internal(st, f) ? StackFrame.FLAG_INTERNAL : 0);
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

    /** Announces the frames and stack nodes made since the last call, before the events that name them. */
    void announceNew(EventSink out) {
        sites.announceNew(out);
    }
}
