package dev.arenascope.core.sql;

/**
 * A query that failed: the engine's message on one line (a syntax error with where it is, an unknown
 * column and the ones that exist, a refused file access), or {@link #timedOut()} when it ran past its
 * time limit and was cancelled.
 */
public final class QueryException extends RuntimeException {
    private final boolean timedOut;

    QueryException(String message, boolean timedOut, Throwable cause) {
        super(message, cause);
        this.timedOut = timedOut;
    }

    /** Whether the query was cancelled for running past its limit. */
    public boolean timedOut() {
        return timedOut;
    }

    /** {@code text} on one line: runs of white space (the engine's line breaks and caret lines) become one space. */
    static String oneLine(String text) {
        return text == null ? "(no message)" : text.strip().replaceAll("\\s+", " ");
    }
}
