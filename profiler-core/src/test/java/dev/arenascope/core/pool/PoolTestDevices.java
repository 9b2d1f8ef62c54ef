package dev.arenascope.core.pool;

import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.provider.Arguments;

import dev.arenascope.core.device.CudaDevice;
import dev.arenascope.core.device.HostDevice;
import dev.arenascope.core.device.MemoryDevice;
import dev.arenascope.core.device.VirtualDevice;

/** The devices pool tests run on: host, virtual and CUDA (skipped with the probe's reason where no GPU answers). */
final class PoolTestDevices {
    private PoolTestDevices() {}

    static Stream<Arguments> all() {
        return Stream.of(
                Arguments.of("host", (Supplier<MemoryDevice>) HostDevice::new),
                Arguments.of("virtual", (Supplier<MemoryDevice>) () -> new VirtualDevice(1L << 30)),
                Arguments.of("cuda", (Supplier<MemoryDevice>) () -> {
                    Optional<String> why = CudaDevice.probe(0);
                    Assumptions.assumeTrue(why.isEmpty(), () -> "CUDA skipped: " + why.orElse(""));
                    return CudaDevice.open(0);
                }));
    }
}
