package dev.arenascope.core.pool;

import java.util.function.Supplier;
import java.util.stream.Stream;

import org.junit.jupiter.params.provider.Arguments;

import dev.arenascope.core.device.MemoryDevice;
import dev.arenascope.testsupport.TestDevices;

/** The devices pool tests run on: host, virtual and CUDA (skipped with the probe's reason where no GPU answers). */
final class PoolTestDevices {
    private PoolTestDevices() {}

    static Stream<Arguments> all() {
        return TestDevices.all().map(name -> Arguments.of(name, (Supplier<MemoryDevice>) () -> TestDevices.open(name)));
    }
}
