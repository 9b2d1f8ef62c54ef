package dev.arenascope.core.arena;

import dev.arenascope.core.device.DeviceBuffer;
import dev.arenascope.core.device.DeviceKind;
import dev.arenascope.core.device.MemoryDevice;

/**
 * Copying an arena's bytes in use (both ends) into another block, for {@link ManualMemory#clone()}
 * (device to device) and {@link ManualMemory#cast} (through the host, in 64 MiB chunks, so any two
 * devices work; a virtual device holds no bytes, so nothing is copied to or from one). Static and
 * thread-safe; the caller owns both blocks.
 */
final class ArenaCopy {
    private static final long CHUNK = 64L << 20;

    private ArenaCopy() {
    }

    /** Copies {@code [0, forward)} and {@code [backward, capacity)} between two blocks of one device. */
    static void onDevice(MemoryDevice device, DeviceBuffer from, DeviceBuffer to, long forward, long backward, long capacity) {
        if (forward > 0) {
            device.copy(from, 0, to, 0, forward);
        }
        if (backward < capacity) {
            device.copy(from, backward, to, backward, capacity - backward);
        }
    }

    /** Copies {@code [0, forward)} and {@code [backward, capacity)} from one device's block to another's through the host. */
    static void throughHost(MemoryDevice fromDevice, DeviceBuffer from, MemoryDevice toDevice, DeviceBuffer to,
                            long forward, long backward, long capacity) {
        range(fromDevice, from, toDevice, to, 0, forward);
        range(fromDevice, from, toDevice, to, backward, capacity - backward);
    }

    private static void range(MemoryDevice fromDevice, DeviceBuffer from, MemoryDevice toDevice, DeviceBuffer to,
                              long offset, long length) {
        if (length == 0 || fromDevice.info().kind() == DeviceKind.VIRTUAL || toDevice.info().kind() == DeviceKind.VIRTUAL) {
            return;
        }
        byte[] chunk = new byte[(int) Math.min(CHUNK, Math.max(1, length))];
        for (long done = 0; done < length; ) {
            int n = (int) Math.min(chunk.length, length - done);
            fromDevice.copyToHost(from, offset + done, chunk, 0, n);
            toDevice.copyFromHost(chunk, 0, to, offset + done, n);
            done += n;
        }
    }
}
