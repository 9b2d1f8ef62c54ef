package dev.arenascope.core.plan;

/**
 * Bad plan or problem input: a malformed CSV line, a forged JSON field, an impossible size. The
 * message is one line naming the file, the line (1-based, 0 when unknown) and what was wrong.
 */
public final class PlanInputException extends IllegalArgumentException {
    private final String source;
    private final long line;

    public PlanInputException(String source, long line, String problem) {
        super(source + (line > 0 ? ":" + line : "") + ": " + problem);
        this.source = source;
        this.line = line;
    }

    /** The file (or other source) the input came from. */
    public String source() {
        return source;
    }

    /** The 1-based line of the problem, or 0 when not tied to a line. */
    public long line() {
        return line;
    }
}
