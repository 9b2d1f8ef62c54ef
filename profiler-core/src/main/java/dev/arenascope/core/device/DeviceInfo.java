package dev.arenascope.core.device;

/**
 * A device as it goes into every recording: what it is, its name and its memory when it was opened.
 *
 * @param kind       what backs the memory
 * @param index      the device ordinal (CUDA), 0 otherwise
 * @param name       a human readable name, e.g. {@code "NVIDIA H200"} or {@code "host (java.lang.foreign)"}
 * @param totalBytes total memory of the device in bytes
 * @param freeBytes  free memory in bytes when the device was opened
 */
public record DeviceInfo(DeviceKind kind, int index, String name, long totalBytes, long freeBytes) {

    /** The short id used in traces and on the command line: {@code cuda:0}, {@code host}, {@code virtual}. */
    public String id() {
        return kind == DeviceKind.CUDA ? "cuda:" + index : kind.cliName();
    }

    /**
     * The id and the name for people, {@code "cuda:0 NVIDIA H200"}, without saying the id twice where
     * the name already starts with it ({@code "host (amd64, java.lang.foreign)"}, not {@code "host host (...)"}).
     */
    public String label() {
        return name.startsWith(id()) ? name : id() + " " + name;
    }
}
