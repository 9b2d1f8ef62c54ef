package dev.arenascope.core.trace.torch;

import dev.arenascope.core.trace.TraceFormatException;

/**
 * A pickle that is malformed, truncated or refers to classes or calls. The message is one line naming
 * the source, the byte offset of the offending opcode and what was wrong, e.g.
 * {@code snapshot.pickle at byte 1234: opcode GLOBAL (0x63) references a class; refused ...}.
 */
public final class PickleFormatException extends TraceFormatException {
    public PickleFormatException(String source, long offset, String problem) {
        super(source, offset, problem);
    }
}
