package dev.arenascope.core.trace.torch;

import dev.arenascope.core.trace.TraceFormatException;

/**
 * A pickle that parsed as data but is not a PyTorch memory snapshot, or holds an entry that cannot be
 * one. The one-line message names the file and the path of the bad value inside the snapshot (the
 * parsed data keeps no byte offsets), e.g.
 * {@code run.pickle: device_traces[0][17]: has no integer 'size'}.
 */
public final class SnapshotFormatException extends TraceFormatException {
    public SnapshotFormatException(String source, String where, String problem) {
        super(source, -1, (where.isEmpty() ? "" : where + ": ") + problem);
    }
}
