package dev.arenascope.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.device.VirtualDevice;
import dev.arenascope.core.record.Session;

class PoolStatisticsTest {

    @Test
    void pushesAddUpAndCopiesAreFrozen() {
        PoolStatistics s = new PoolStatistics();
        assertEquals(0, s.reuseFactor());
        assertEquals(0, s.meanAllocNanos());
        s.pushAlloc(1023, 300);
        s.pushAlloc(4351, 500);
        s.pushReuse(1023);
        s.pushReuse(1023);
        s.pushReuse(4351);
        s.pushReturn(1023);
        s.pushFree(1023, 120);
        s.pushFailure(1 << 20);
        PoolStatistics copy = s.copy(List.of(new BinStatistics(159, 1023, 3, 2, 1, 0, 0, 69)));
        s.pushAlloc(1, 1);
        assertEquals(2, copy.allocations());
        assertEquals(3, copy.reuses());
        assertEquals(5, copy.requests());
        assertEquals(1, copy.returns());
        assertEquals(1, copy.frees());
        assertEquals(1, copy.failures());
        assertEquals(1 << 20, copy.bytesFailed());
        assertEquals(400.0, copy.meanAllocNanos());
        assertEquals(120.0, copy.meanFreeNanos());
        assertEquals(2.5, copy.reuseFactor());
        assertEquals(5374, copy.bytesAllocated());
        assertEquals(6397, copy.bytesReused());
        assertEquals(69, copy.roundingWasteBytes());
        assertEquals(159, copy.bin(159).bin());
        assertEquals(null, copy.bin(160));
        assertEquals(3, s.allocations(), "the original keeps counting");
    }

    @Test
    void zeroSizeAndMayAllocOnAHeldBin() {
        try (VirtualDevice device = new VirtualDevice(1 << 20);
             MemoryPool pool = new MemoryPool("z", device, 4096, 4, new Session("z"))) {
            try (PooledBuffer empty = pool.allocate(0)) {
                assertEquals(0, empty.size());
                assertEquals(0, empty.bin());
                assertEquals(1, empty.allocatedBytes());
            }
            PooledBuffer big = pool.allocate(4000);
            assertTrue(!pool.mayAlloc(200), "4000 in use + 207 passes the 4096 ceiling");
            big.close();
            assertTrue(pool.mayAlloc(4000), "a block of that bin is held");
            assertTrue(pool.mayAlloc(3000), "held blocks would be freed first");
            assertTrue(!pool.mayAlloc(5000));
        }
    }
}
