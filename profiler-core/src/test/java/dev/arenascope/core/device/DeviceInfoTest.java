package dev.arenascope.core.device;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class DeviceInfoTest {

    @Test
    void labelNamesTheIdOnce() {
        assertEquals("cuda:1 NVIDIA H200", new DeviceInfo(DeviceKind.CUDA, 1, "NVIDIA H200", 1, 1).label());
        assertEquals("host (amd64, java.lang.foreign)", new HostDevice().info().label().replaceAll("\\(.*\\)", "(amd64, java.lang.foreign)"));
        assertEquals("virtual (accounting only)", new VirtualDevice(1 << 20).info().label());
        assertEquals("cuda:0 (PyTorch snapshot)", new DeviceInfo(DeviceKind.CUDA, 0, "cuda:0 (PyTorch snapshot)", 1, 1).label());
    }

    @Test
    void describeAddsTheMemory() {
        assertEquals("virtual (accounting only), 1.00 MiB total, 1.00 MiB free", Devices.describe(new VirtualDevice(1 << 20).info()));
    }
}
