package dev.arenascope.core.trace;

import java.io.IOException;

/**
 * Input that is not a valid trace: its message is one line naming the source (a file), the byte
 * offset or line where the problem was found, and what was wrong.
 */
public class TraceFormatException extends IOException {
    private final String source;
    private final long offset;

    /**
     * @param source the file or stream name
     * @param offset the byte offset (or, for line formats, the line number) of the problem; -1 unknown
     * @param what   what was wrong
     */
    public TraceFormatException(String source, long offset, String what) {
        super(source + (offset >= 0 ? " at byte " + offset : "") + ": " + what);
        this.source = source;
        this.offset = offset;
    }

    /** For line-oriented formats: {@code file:line: what}. */
    public static TraceFormatException atLine(String source, long line, String what) {
        return new TraceFormatException(source, line, what, true);
    }

    private TraceFormatException(String source, long line, String what, boolean lines) {
        super(source + ":" + line + ": " + what);
        this.source = source;
        this.offset = line;
    }

    public String source() {
        return source;
    }

    /** The byte offset or line number of the problem, -1 when unknown. */
    public long offset() {
        return offset;
    }
}
