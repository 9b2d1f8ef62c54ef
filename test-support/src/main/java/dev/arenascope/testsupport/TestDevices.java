package dev.arenascope.testsupport;

import java.util.Optional;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;

import dev.arenascope.core.device.CudaDevice;
import dev.arenascope.core.device.HostDevice;
import dev.arenascope.core.device.MemoryDevice;
import dev.arenascope.core.device.VirtualDevice;

/**
 * The devices the core's tests run on: host, virtual (1 GiB) and CUDA (skipped, with the probe's reason,
 * where none answers). One place for arena, pool and plan tests alike, in every module.
 *
 * <p>A CUDA test is skipped only where {@link CudaDevice#probe} gives the driver's reason; on a machine
 * with a working driver it runs.
 */
public final class TestDevices {
    private TestDevices() {}

    public static Stream<String> all() {
        return Stream.of("host", "virtual", "cuda");
    }

    /** Devices whose bytes can be read back (not virtual). */
    public static Stream<String> withBytes() {
        return Stream.of("host", "cuda");
    }

    public static MemoryDevice open(String name) {
        return switch (name) {
            case "host" -> new HostDevice();
            case "virtual" -> new VirtualDevice(1L << 30);
            case "cuda" -> {
                Optional<String> why = CudaDevice.probe(0);
                Assumptions.assumeTrue(why.isEmpty(), () -> "CUDA skipped: " + why.orElse(""));
                yield CudaDevice.open(0);
            }
            default -> throw new IllegalArgumentException(name);
        };
    }
}
