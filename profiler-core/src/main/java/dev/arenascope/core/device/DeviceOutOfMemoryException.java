package dev.arenascope.core.device;

/** The device could not provide the requested bytes. Nothing was allocated. */
public class DeviceOutOfMemoryException extends RuntimeException {
    private final long requestedBytes;

    /**
     * @param message        the one-line message naming the device and the request
     * @param requestedBytes the bytes asked for
     */
    public DeviceOutOfMemoryException(String message, long requestedBytes) {
        super(message);
        this.requestedBytes = requestedBytes;
    }

    /** The size of the failed request, in bytes. */
    public long requestedBytes() {
        return requestedBytes;
    }
}
