package dev.arenascope.core.trace.torch;

import java.io.IOException;

/**
 * A pickle that parsed as data but is not a PyTorch memory snapshot, or holds an entry that cannot be
 * one. The one-line message names the file and the path of the bad value inside the snapshot, e.g.
 * {@code run.pickle: device_traces[0][17]: alloc entry has no integer 'size'}.
 */
public final class SnapshotFormatException extends IOException {
    public SnapshotFormatException(String source, String where, String problem) {
        super(source + ": " + (where.isEmpty() ? "" : where + ": ") + problem);
    }
}
