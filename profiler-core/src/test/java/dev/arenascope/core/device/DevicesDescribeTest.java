package dev.arenascope.core.device;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The one line that says which device a run chose names it once ("host (amd64, ...)", not "host host (...)"). */
class DevicesDescribeTest {
    @Test
    void aDeviceWhoseNameStartsWithItsIdIsNamedOnce() throws Exception {
        try (HostDevice host = new HostDevice()) {
            String d = Devices.describe(host.info());
            assertTrue(d.startsWith("host ("), d);
            assertFalse(d.contains("host host"), d);
            assertTrue(d.contains(" total, ") && d.endsWith(" free"), d);
        }
        Devices.Selection auto = Devices.open("auto");
        try (MemoryDevice device = auto.device()) {
            assertFalse(auto.reason().contains("host host") || auto.reason().contains("virtual virtual"), auto.reason());
        }
    }
}
