package dev.arenascope.core.arena;

import java.util.Optional;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;

import dev.arenascope.core.device.CudaDevice;
import dev.arenascope.core.device.HostDevice;
import dev.arenascope.core.device.MemoryDevice;
import dev.arenascope.core.device.VirtualDevice;

/** The devices the arena tests run on: host, virtual and CUDA (skipped, with the probe's reason, where none answers). */
final class TestDevices {
    private TestDevices() {}

    static Stream<String> all() {
        return Stream.of("host", "virtual", "cuda");
    }

    /** Devices whose bytes can be read back (not virtual). */
    static Stream<String> withBytes() {
        return Stream.of("host", "cuda");
    }

    static MemoryDevice open(String name) {
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
