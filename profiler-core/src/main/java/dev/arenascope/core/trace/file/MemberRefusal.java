package dev.arenascope.core.trace.file;

/**
 * Why a job's member could not be read, in two parts kept apart: the reason in words, for the Ranks view's cell, and
 * the reader's exact words, for its hover and for the lines that say everything ({@link #line()}).
 *
 * @param reason why, in words, starting with the file ({@code r7.pickle: not a PyTorch snapshot or ArenaScope trace: it is text})
 * @param detail the reader's exact words ({@code at byte 0: unknown opcode 0x6e}), null when there are none
 */
public record MemberRefusal(String reason, String detail) {
    public MemberRefusal {
        if (reason == null) {
            throw new IllegalArgumentException("a refusal needs its reason");
        }
    }

    /** The refusal in one line: the reason, then {@link FileKind#READER_STOPPED} and the detail where there is one. */
    public String line() {
        return detail == null ? reason : reason + FileKind.READER_STOPPED + detail;
    }
}
