package dev.arenascope.core.trace.file;

import java.util.List;

import dev.arenascope.core.format.Printable;

/**
 * What reading a trace file found: how much was recovered and what was wrong with it.
 *
 * @param file           the file read
 * @param events         events recovered
 * @param parts          chunks ({@code .astrace}) or lines ({@code .jsonl}) read soundly
 * @param partName       "chunks" or "lines"
 * @param fileBytes      the file's size
 * @param expectedEvents events the file says it holds (an {@code .astrace} footer), -1 when unknown
 * @param lostEvents     events the recording itself lost (counted at record time, not damage)
 * @param problemCount   problems found (damaged chunks, bad lines, a missing footer)
 * @param problems       the first few problems, each one line naming the file and the byte offset or line
 * @param stillWriting   the file is still being written (its {@link WriterNote} names a running process): what
 *                       was read is what was sealed when it was opened, and its missing footer is no damage
 */
public record ReadReport(String file, long events, long parts, String partName, long fileBytes,
                         long expectedEvents, long lostEvents, int problemCount, List<String> problems,
                         boolean stillWriting) {
    public ReadReport {
        problems = List.copyOf(problems);
    }

    /** A report on a file that is not being written. */
    public ReadReport(String file, long events, long parts, String partName, long fileBytes,
                      long expectedEvents, long lostEvents, int problemCount, List<String> problems) {
        this(file, events, parts, partName, fileBytes, expectedEvents, lostEvents, problemCount, problems, false);
    }

    /** Whether anything was wrong with the file. */
    public boolean damaged() {
        return problemCount > 0;
    }

    /** One line: the first problem (if any) and what was recovered. */
    public String summary() {
        StringBuilder sb = new StringBuilder();
        if (!problems.isEmpty()) {
            sb.append(Printable.line(problems.getFirst())); // it may quote the file's bytes
            if (problemCount > 1) {
                sb.append(" (and ").append(problemCount - 1).append(" more problem").append(problemCount > 2 ? "s" : "").append(')');
            }
            sb.append("; ");
        }
        if (stillWriting) {
            sb.append("still being written: ");
        }
        sb.append(stillWriting ? "read " : "recovered ").append(events).append(expectedEvents >= events ? " of " + expectedEvents : "")
                .append(" events in ").append(parts).append(' ').append(partName);
        if (expectedEvents >= 0 && expectedEvents < events) {
            // a stale or forged footer: say what it claims instead of "recovered 1882 of 0"
            sb.append(" (the footer says ").append(expectedEvents).append(')');
        }
        if (stillWriting) {
            sb.append(" sealed so far");
        }
        return sb.toString();
    }
}
