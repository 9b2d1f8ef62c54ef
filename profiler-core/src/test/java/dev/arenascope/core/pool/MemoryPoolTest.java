package dev.arenascope.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.arenascope.core.device.DeviceKind;
import dev.arenascope.core.device.DeviceOutOfMemoryException;
import dev.arenascope.core.device.HostDevice;
import dev.arenascope.core.device.MemoryDevice;
import dev.arenascope.core.device.VirtualDevice;
import dev.arenascope.core.record.Session;

class MemoryPoolTest {

    private static MemoryPool pool(MemoryDevice device, long max) {
        return new MemoryPool("test", device, max, 4, new Session("pool-test"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.arenascope.core.pool.PoolTestDevices#all")
    void returnedBlocksAreHeldAndReusedLastInFirstOut(String kind, Supplier<MemoryDevice> devices) {
        try (MemoryDevice device = devices.get(); MemoryPool pool = pool(device, MemoryPool.NO_LIMIT)) {
            PooledBuffer a = pool.allocate(1000);
            PooledBuffer b = pool.allocate(995);
            assertEquals(159, a.bin());
            assertEquals(159, b.bin());
            assertEquals(1023, a.allocatedBytes());
            assertEquals(1000, a.size());
            assertNotEquals(a.address(), b.address());
            long addrA = a.address();
            long addrB = b.address();
            a.close();
            b.close();
            assertEquals(2, pool.heldBlocks());
            assertEquals(2046, pool.heldBytes());
            assertEquals(0, pool.bytesInUse());
            assertEquals(2046, pool.reservedBytes());
            try (PooledBuffer c = pool.allocate(1010); PooledBuffer d = pool.allocate(1020)) {
                assertEquals(addrB, c.address(), "last in, first out");
                assertEquals(addrA, d.address());
                assertEquals(0, pool.heldBlocks());
                assertEquals(2046, pool.bytesInUse());
                // another bin misses even though blocks are in use
                try (PooledBuffer e = pool.allocate(5000)) {
                    assertEquals(pool.binNumber(5000), e.bin());
                }
            }
            PoolStatistics s = pool.statistics();
            assertEquals(3, s.allocations());
            assertEquals(2, s.reuses());
            assertEquals(5, s.returns());
            assertEquals(0, s.frees());
            assertEquals(5.0 / 3, s.reuseFactor(), 1e-12);
            BinStatistics bin = s.bin(159);
            assertEquals(4, bin.requests());
            assertEquals(2, bin.hits());
            assertEquals(2, bin.misses());
            assertEquals(2, bin.heldBlocks());
            assertEquals(2046, bin.heldBytes());
            assertEquals(23 + 28 + 13 + 3, bin.roundingWasteBytes());
            assertTrue(s.meanAllocNanos() > 0);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.arenascope.core.pool.PoolTestDevices#all")
    void freeHeldAndStopHolding(String kind, Supplier<MemoryDevice> devices) {
        try (MemoryDevice device = devices.get(); MemoryPool pool = pool(device, MemoryPool.NO_LIMIT)) {
            List<PooledBuffer> bufs = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                bufs.add(pool.allocate(256L << i));
            }
            bufs.forEach(PooledBuffer::close);
            assertEquals(6, pool.heldBlocks());
            pool.freeHeld();
            assertEquals(0, pool.heldBlocks());
            assertEquals(0, pool.reservedBytes());
            assertEquals(6, pool.statistics().frees());
            assertTrue(pool.isHolding());
            pool.allocate(300).close();
            assertEquals(1, pool.heldBlocks(), "still holding after freeHeld");
            pool.stopHolding();
            assertFalse(pool.isHolding());
            assertEquals(0, pool.heldBlocks());
            pool.allocate(300).close();
            assertEquals(0, pool.heldBlocks(), "returned blocks go straight to the device");
            assertEquals(0, pool.reservedBytes());
            PoolStatistics s = pool.statistics();
            assertEquals(8, s.allocations());
            assertEquals(8, s.frees());
            assertEquals(s.bytesAllocated(), s.bytesFreed());
            if (device instanceof HostDevice host) {
                assertEquals(0, host.liveBytes(), "every block went back to the host device");
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.arenascope.core.pool.PoolTestDevices#all")
    void ceilingFreesHeldBlocksLargestFirstThenFails(String kind, Supplier<MemoryDevice> devices) {
        try (MemoryDevice device = devices.get(); MemoryPool pool = pool(device, 20_000)) {
            // held: 4351 (bin 192) and 1023 (bin 159) and 8703 (bin 208)
            pool.allocate(4097).close();
            pool.allocate(1000).close();
            pool.allocate(8193).close();
            assertEquals(3, pool.heldBlocks());
            assertEquals(14077, pool.reservedBytes());
            assertTrue(pool.mayAlloc(12_000));
            assertFalse(pool.mayAlloc(20_001));
            // 8000 -> 8191: needs 2268 more than the ceiling allows; the largest held block (8703) goes
            try (PooledBuffer b = pool.allocate(8000)) {
                assertEquals(8191, b.allocatedBytes());
                assertEquals(2, pool.heldBlocks());
                PoolStatistics s = pool.statistics();
                assertEquals(1, s.bin(159).heldBlocks(), "the small block is still held");
                assertEquals(1, s.bin(192).heldBlocks());
                assertEquals(0, s.bin(208).heldBlocks(), "the largest went first");
                // nothing that fits: every held block is freed, then the request fails
                PoolOutOfMemoryException e = assertThrows(PoolOutOfMemoryException.class, () -> pool.allocate(15_000));
                assertTrue(e.getMessage().startsWith("pool 'test': cannot allocate 15000 bytes (bin "), e.getMessage());
                assertTrue(e.getMessage().contains("maxAllocBytes 20000"), e.getMessage());
                assertFalse(e.getMessage().contains("\n"));
                assertEquals(15_000, e.requestedBytes());
                assertEquals(0, pool.heldBlocks());
                assertEquals(8191, pool.reservedBytes());
                assertEquals(8191, pool.bytesInUse());
                assertEquals(1, pool.activeBlocks());
                assertEquals(1, pool.statistics().failures());
                assertEquals(15_000, pool.statistics().bytesFailed());
                assertEquals(4, pool.statistics().requests(), "failed requests are not counted as served");
            }
            // the pool still works after the failure
            pool.allocate(15_000).close();
            assertEquals(0, pool.bytesInUse());
        }
    }

    @Test
    void deviceOutOfMemoryFreesHeldBlocksAndRetries() {
        try (VirtualDevice device = new VirtualDevice(64 * 1024); MemoryPool pool = pool(device, MemoryPool.NO_LIMIT)) {
            pool.allocate(1000).close();         // 1023 held
            pool.allocate(20_000).close();       // 20479 held
            pool.allocate(30_000).close();       // 30719 held
            assertEquals(3, pool.heldBlocks());
            // 64 KiB - 52221 = 13315 free on the device: 16000 -> 16383 needs the largest held block freed
            try (PooledBuffer b = pool.allocate(16_000)) {
                assertEquals(2, pool.heldBlocks());
                assertEquals(0, pool.statistics().bin(pool.binNumber(30_000)).heldBlocks());
                assertEquals(1, pool.statistics().bin(pool.binNumber(20_000)).heldBlocks());
                // more than the device has at all: held blocks freed, then a clear error
                PoolOutOfMemoryException e = assertThrows(PoolOutOfMemoryException.class, () -> pool.allocate(60_000));
                assertTrue(e.getMessage().startsWith("pool 'test': cannot allocate 60000 bytes"), e.getMessage());
                assertTrue(e.getMessage().contains("device virtual refused"), e.getMessage());
                assertEquals(0, pool.heldBlocks());
                assertEquals(b.allocatedBytes(), pool.reservedBytes());
                assertEquals(device.totalBytes() - b.allocatedBytes(), device.freeBytes(), "nothing leaked on the device");
            }
        }
    }

    @Test
    void hostDeviceRefusalFreesHeldBlocksThenFails() {
        try (HostDevice device = new HostDevice(); MemoryPool pool = pool(device, MemoryPool.NO_LIMIT)) {
            pool.allocate(4096).close();
            DeviceOutOfMemoryException e = assertThrows(DeviceOutOfMemoryException.class, () -> pool.allocate(1L << 60));
            assertTrue(e.getMessage().contains("cannot allocate " + (1L << 60) + " bytes"), e.getMessage());
            assertEquals(0, pool.heldBlocks());
            assertEquals(0, device.liveBytes());
        }
    }

    @Test
    void defaultCeilings() {
        try (HostDevice host = new HostDevice(); VirtualDevice virtual = new VirtualDevice()) {
            assertEquals((long) (host.totalBytes() * 0.8), MemoryPool.defaultMaxAllocBytes(host));
            assertEquals(MemoryPool.NO_LIMIT, MemoryPool.defaultMaxAllocBytes(virtual));
            assertEquals(MemoryPool.defaultMaxAllocBytes(host), new MemoryPool("h", host).maxAllocBytes());
            assertEquals(DeviceKind.HOST, host.info().kind());
            // a host request past the ceiling fails before the device is asked
            MemoryPool pool = new MemoryPool("h", host);
            PoolOutOfMemoryException e = assertThrows(PoolOutOfMemoryException.class, () -> pool.allocate(host.totalBytes()));
            assertTrue(e.getMessage().contains("maxAllocBytes"), e.getMessage());
            assertEquals(0, host.liveBytes());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.arenascope.core.pool.PoolTestDevices#all")
    void alignmentIsHonoured(String kind, Supplier<MemoryDevice> devices) {
        try (MemoryDevice device = devices.get(); MemoryPool pool = pool(device, MemoryPool.NO_LIMIT)) {
            for (long alignment = 1; alignment <= (1 << 16); alignment <<= 1) {
                try (PooledBuffer b = pool.allocate(100, alignment)) {
                    assertEquals(0, b.address() % alignment, "alignment " + alignment);
                    assertEquals(100, b.size());
                    assertEquals(b.deviceBuffer().address() + b.offset(), b.address());
                    assertTrue(b.offset() + b.size() <= b.allocatedBytes());
                    if (alignment <= MemoryPool.DEVICE_ALIGNMENT) {
                        assertEquals(0, b.offset());
                    }
                    device.memset(b.deviceBuffer(), b.offset(), b.size(), (byte) 7);
                    b.hostSegment().ifPresent(s -> {
                        assertEquals(100, s.byteSize());
                        assertEquals(b.address(), s.address());
                        assertEquals(7, s.get(ValueLayout.JAVA_BYTE, 99));
                    });
                }
            }
            try (PooledBuffer b = pool.allocateAligned(0, 4096)) {
                assertEquals(0, b.address() % 4096);
                assertEquals(0, b.size());
            }
        }
    }

    @Test
    void badInputLeavesStateAndStatisticsRight() {
        try (VirtualDevice device = new VirtualDevice(1 << 20); MemoryPool pool = pool(device, MemoryPool.NO_LIMIT)) {
            pool.allocate(500).close();
            PoolStatistics before = pool.statistics();
            IllegalArgumentException neg = assertThrows(IllegalArgumentException.class, () -> pool.allocate(-1));
            assertEquals("pool 'test': negative size -1 bytes", neg.getMessage());
            for (long bad : new long[] {0, 3, -4, 96, Long.MIN_VALUE}) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pool.allocate(8, bad));
                assertEquals("pool 'test': alignment " + bad + " is not a positive power of two", e.getMessage());
            }
            assertThrows(IllegalArgumentException.class, () -> pool.allocate(Long.MAX_VALUE - 10, 1 << 20));
            assertThrows(IllegalArgumentException.class, () -> pool.mayAlloc(-5));
            PoolStatistics after = pool.statistics();
            assertEquals(before.requests(), after.requests());
            assertEquals(before.failures(), after.failures());
            assertEquals(1, pool.heldBlocks());

            // a buffer closed twice is held once, never freed twice
            PooledBuffer b = pool.allocate(500);
            b.close();
            b.close();
            assertTrue(b.isClosed());
            assertEquals(1, pool.heldBlocks());
            assertEquals(2, pool.statistics().returns());
            try (PooledBuffer x = pool.allocate(500); PooledBuffer y = pool.allocate(500)) {
                assertNotEquals(x.address(), y.address(), "the doubly closed block has one owner");
            }

            assertThrows(IllegalArgumentException.class, () -> new MemoryPool("p", device, 0));
            assertThrows(IllegalArgumentException.class, () -> new MemoryPool("p", device, MemoryPool.NO_LIMIT, 17));
        }
    }

    @Test
    void closedPoolRefusesRequestsAndLetsOutstandingBuffersGo() {
        VirtualDevice device = new VirtualDevice(1 << 20);
        MemoryPool pool = pool(device, MemoryPool.NO_LIMIT);
        PooledBuffer out = pool.allocate(2000);
        pool.allocate(3000).close();
        pool.close();
        pool.close();
        assertTrue(pool.isClosed());
        assertEquals(0, pool.heldBlocks());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> pool.allocate(10));
        assertEquals("pool 'test' is closed", e.getMessage());
        assertEquals(2, pool.statistics().requests());
        assertEquals(out.allocatedBytes(), device.totalBytes() - device.freeBytes(), "the outstanding buffer is intact");
        out.close();
        out.close();
        assertEquals(device.totalBytes(), device.freeBytes(), "returned straight to the device");
        assertEquals(0, pool.reservedBytes());
        assertTrue(pool.allocationReport().contains("[closed]"));
    }

    @Test
    void reportNamesBinsAndTotals() {
        try (VirtualDevice device = new VirtualDevice(1 << 20); MemoryPool pool = pool(device, 1 << 20)) {
            pool.allocate(1000).close();
            pool.allocate(1000).close();
            pool.allocate(4097).close();
            String report = pool.allocationReport();
            assertTrue(report.startsWith("MemoryPool 'test' on virtual (mantissa bits 4, max alloc 1.00 MiB)\n"), report);
            assertTrue(report.contains("requests 3: 1 reuses (hits), 2 device allocations"), report);
            assertTrue(report.matches("(?s).*\\n\\s+159\\s+1023\\s+2\\s+1\\s+1\\s+1 .*"), report);
            assertTrue(report.matches("(?s).*\\n\\s+192\\s+4351\\s+1\\s+0\\s+1\\s+1 .*"), report);
            assertEquals(pool.header(), pool.toString());
            var sink = new ByteArrayOutputStream();
            pool.printAllocationReport(new PrintStream(sink, true));
            assertEquals(report, sink.toString());
        }
    }

    @Test
    void poolsShareTheirDevice() {
        try (VirtualDevice device = new VirtualDevice(1 << 20)) {
            MemoryPool a = pool(device, MemoryPool.NO_LIMIT);
            MemoryPool b = pool(device, MemoryPool.NO_LIMIT);
            PooledBuffer x = a.allocate(100);
            x.close();
            PooledBuffer y = b.allocate(100);
            assertNotEquals(x.deviceBuffer(), y.deviceBuffer());
            assertSame(a, x.pool());
            a.close();
            b.close();
            y.close();
            assertEquals(device.totalBytes(), device.freeBytes());
        }
    }
}
