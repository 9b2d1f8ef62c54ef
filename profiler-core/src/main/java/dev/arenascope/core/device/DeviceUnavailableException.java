package dev.arenascope.core.device;

/** A device that was asked for by name cannot be opened on this machine; the message says why. */
public class DeviceUnavailableException extends RuntimeException {
    /** @param message why the device cannot be opened, one line */
    public DeviceUnavailableException(String message) {
        super(message);
    }

    /**
     * @param message why the device cannot be opened, one line
     * @param cause   the driver's or library's error
     */
    public DeviceUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
