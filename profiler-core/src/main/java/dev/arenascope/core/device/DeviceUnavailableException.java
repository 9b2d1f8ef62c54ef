package dev.arenascope.core.device;

/** A device that was asked for by name cannot be opened on this machine; the message says why. */
public class DeviceUnavailableException extends RuntimeException {
    public DeviceUnavailableException(String message) {
        super(message);
    }

    public DeviceUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
