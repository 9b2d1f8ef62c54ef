package dev.arenascope.core.trace;

import java.util.Arrays;

/**
 * The bounds every reader of a trace from outside puts on its allocation sites, the same for
 * {@code .astrace} files, JSON Lines, both live protocols and the PyTorch importer's names: a frame's
 * function and file at most {@value #MAX_FRAME_TEXT} characters each, a stack at most
 * {@value #MAX_STACK_DEPTH} frames deep. Whatever prints whole stacks (folded sites, CSV cells, the site
 * tree) costs a site its depth, so without the bound a forged chain of K nodes, one allocation at each,
 * costs K² to print from an input of size K.
 *
 * <p>An instance follows one stream's stack nodes (announced in id order, parents first) and knows each
 * one's depth: 4 bytes a node. Not thread-safe.
 */
public final class StackBounds {
    /** The most frames a stack may have (what {@code StackCapture} records at most). */
    public static final int MAX_STACK_DEPTH = 1024;
    /** The longest function or file name of a frame, in characters (the PyTorch importer's bound). */
    public static final int MAX_FRAME_TEXT = 4096;

    private int[] depths = new int[64];
    private int count;

    /** Why {@code f} is refused, or null when its names are within the bound. */
    public static String frameProblem(StackFrame f) {
        if (f.function().length() > MAX_FRAME_TEXT || f.file().length() > MAX_FRAME_TEXT) {
            return "frame " + f.id() + ": a function or file name of " + Math.max(f.function().length(), f.file().length())
                    + " characters, more than the " + MAX_FRAME_TEXT + " a frame may have";
        }
        return null;
    }

    /**
     * Takes the next node of the stream; returns why it is refused (too deep), or null when it is
     * within the bound. A node seen before (the same id again) or one out of order is left to the site
     * table to judge: it is taken here as the depth of its parent plus one, or one.
     */
    public String add(StackNode n) {
        int depth = n.parent() >= 0 && n.parent() < count ? depths[n.parent()] + 1 : 1;
        if (n.id() < count) {
            return null;
        }
        if (depth > MAX_STACK_DEPTH) {
            return "stack node " + n.id() + " is " + depth + " frames deep, more than the " + MAX_STACK_DEPTH + " a stack may have";
        }
        if (n.id() == count) {
            if (count == depths.length) {
                depths = Arrays.copyOf(depths, count * 2);
            }
            depths[count++] = depth;
        }
        return null;
    }
}
