package dev.arenascope.core.trace.torch;

import java.io.IOException;

/**
 * A pickle that is malformed, truncated or refers to classes or calls. The message is one line naming
 * the source, the byte offset of the offending opcode and what was wrong, e.g.
 * {@code snapshot.pickle: byte 1234: opcode GLOBAL (0x63) references a class; refused}.
 */
public final class PickleFormatException extends IOException {
    private final String source;
    private final long offset;

    public PickleFormatException(String source, long offset, String problem) {
        super(source + ": byte " + offset + ": " + problem);
        this.source = source;
        this.offset = offset;
    }

    /** The file or stream name the pickle came from. */
    public String source() {
        return source;
    }

    /** Byte offset of the opcode (or field) that was wrong, from the start of the input. */
    public long offset() {
        return offset;
    }
}
