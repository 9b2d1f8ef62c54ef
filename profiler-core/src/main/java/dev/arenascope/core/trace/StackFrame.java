package dev.arenascope.core.trace;

/**
 * One frame of a call stack in a session's site table: the code location an allocation passed
 * through. Frames are interned: a session announces each distinct (function, file, line, flags) once,
 * with a small id, before the first {@link StackNode} that names it (see {@link EventSink#onFrame}).
 *
 * @param id       the frame's id in its session, {@code 0, 1, 2, ...} in the order announced
 * @param function the function or method ({@code Rasterizer.drawTriangles}, {@code forward}); never null, may be empty
 * @param file     the source file ({@code model.py}, {@code Rasterizer.java}); never null, may be empty
 * @param line     the line number, 0 when unknown
 * @param flags    {@link #FLAG_INTERNAL} and future bits; views and reports hide internal frames by default
 */
public record StackFrame(int id, String function, String file, int line, int flags) {

    /**
     * The frame belongs to the runtime rather than to the program: PyTorch's C++ allocator and unwinder
     * ({@code torch::unwind}, {@code c10::}, {@code at::}), native code, the JDK's own methods, the
     * profiler's recording path. Kept, so nothing is lost, but hidden unless asked for.
     */
    public static final int FLAG_INTERNAL = 1;

    public StackFrame {
        if (id < 0) {
            throw new IllegalArgumentException("frame id must not be negative, got " + id);
        }
        if (function == null || file == null) {
            throw new IllegalArgumentException("frame " + id + " has a null function or file");
        }
        if (line < 0) {
            throw new IllegalArgumentException("frame " + id + " has a negative line " + line);
        }
        if (flags < 0 || flags > 0xff) {
            throw new IllegalArgumentException("frame " + id + " flags out of range: " + flags);
        }
    }

    /** Whether {@link #FLAG_INTERNAL} is set. */
    public boolean internal() {
        return (flags & FLAG_INTERNAL) != 0;
    }

    /** {@code function (file:line)}, the way reports print a frame. */
    public String label() {
        if (file.isEmpty()) {
            return function;
        }
        return function + " (" + file + (line > 0 ? ":" + line : "") + ")";
    }

    /** Whether {@code other} is the same code location (function, file and line; ids and flags aside). */
    public boolean sameLocation(StackFrame other) {
        return line == other.line && function.equals(other.function) && file.equals(other.file);
    }
}
