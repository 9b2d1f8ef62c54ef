package dev.arenascope.core.device;

import java.util.Locale;

/** What backs a {@link MemoryDevice}'s bytes. */
public enum DeviceKind {
    /** NVIDIA GPU memory through the CUDA runtime API (JCuda). */
    CUDA,
    /** Off-heap host memory through {@code java.lang.foreign}. */
    HOST,
    /** Addresses and accounting only; no bytes exist. For dry runs, size probes and replays. */
    VIRTUAL;

    /** Lower-case name as used on the command line ({@code cuda}, {@code host}, {@code virtual}). */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
