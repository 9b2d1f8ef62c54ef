package dev.arenascope.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.arenascope.core.device.VirtualDevice;
import dev.arenascope.core.record.Session;

/**
 * Random sequences of requests, closes, double closes, bad requests and frees against a plain model
 * of the pool: bins as stacks of addresses, the ceiling, eviction from the largest bin down. After
 * every step the pool must agree with the model on which block it hands out, what it holds, what it
 * has reserved from the device, and its statistics.
 */
class MemoryPoolModelTest {
    private static final long CEILING = 256 * 1024;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void poolAgreesWithTheModel(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int m = 2;
        try (VirtualDevice device = new VirtualDevice(1L << 30);
             MemoryPool pool = new MemoryPool("model", device, CEILING, m, new Session("model"))) {
            TreeMap<Integer, Deque<Long>> held = new TreeMap<>();
            List<PooledBuffer> out = new ArrayList<>();
            List<PooledBuffer> closedOnes = new ArrayList<>();
            long used = 0;
            long heldBytes = 0;
            long requests = 0;
            long reuses = 0;
            long failures = 0;
            long returns = 0;
            boolean holding = true;
            for (int step = 0; step < 20_000; step++) {
                int op = rnd.nextInt(100);
                if (op < 50) {
                    long size = rnd.nextLong(1, 1L << (4 + rnd.nextInt(13)));
                    int bin = Bins.binNumber(size, m);
                    long alloc = Bins.allocSize(bin, m);
                    Deque<Long> stack = held.get(bin);
                    if (stack != null && !stack.isEmpty()) {
                        PooledBuffer b = pool.allocate(size);
                        assertEquals(stack.pop(), b.address(), "a hit takes the last block held in the bin");
                        if (stack.isEmpty()) {
                            held.remove(bin);
                        }
                        heldBytes -= alloc;
                        used += alloc;
                        out.add(b);
                        requests++;
                        reuses++;
                    } else {
                        long need = alloc - (CEILING - used - heldBytes);
                        // evict from the largest bin down, last in first out, until need bytes are freed
                        while (need > 0 && heldBytes > 0) {
                            var top = held.lastEntry();
                            long a = Bins.allocSize(top.getKey(), m);
                            top.getValue().pop();
                            if (top.getValue().isEmpty()) {
                                held.remove(top.getKey());
                            }
                            heldBytes -= a;
                            need -= a;
                        }
                        if (need > 0) {
                            assertThrows(PoolOutOfMemoryException.class, () -> pool.allocate(size));
                            failures++;
                        } else {
                            PooledBuffer b = pool.allocate(size);
                            assertEquals(alloc, b.allocatedBytes());
                            used += alloc;
                            out.add(b);
                            requests++;
                        }
                    }
                } else if (op < 88 && !out.isEmpty()) {
                    PooledBuffer b = out.remove(rnd.nextInt(out.size()));
                    b.close();
                    returns++;
                    used -= b.allocatedBytes();
                    if (holding) {
                        held.computeIfAbsent(b.bin(), k -> new ArrayDeque<>()).push(b.deviceBuffer().address());
                        heldBytes += b.allocatedBytes();
                    }
                    closedOnes.add(b);
                } else if (op < 93 && !closedOnes.isEmpty()) {
                    closedOnes.get(rnd.nextInt(closedOnes.size())).close(); // harmless
                } else if (op < 97) {
                    long bad = rnd.nextBoolean() ? -rnd.nextLong(1, 1000) : 0;
                    if (bad < 0) {
                        assertThrows(IllegalArgumentException.class, () -> pool.allocate(bad));
                    } else {
                        assertThrows(IllegalArgumentException.class, () -> pool.allocate(64, 3 + 2L * rnd.nextInt(100)));
                    }
                } else if (op < 99) {
                    pool.freeHeld();
                    held.clear();
                    heldBytes = 0;
                } else if (holding && rnd.nextInt(4) == 0) {
                    pool.stopHolding();
                    holding = false;
                    held.clear();
                    heldBytes = 0;
                }
                assertEquals(used, pool.bytesInUse(), "step " + step);
                assertEquals(heldBytes, pool.heldBytes(), "step " + step);
                assertEquals(used + heldBytes, pool.reservedBytes(), "step " + step);
                assertEquals(pool.reservedBytes(), device.totalBytes() - device.freeBytes(), "device agrees, step " + step);
                assertEquals(held.values().stream().mapToInt(Deque::size).sum(), pool.heldBlocks());
                assertEquals(out.size(), pool.activeBlocks());
                assertTrue(pool.reservedBytes() <= CEILING);
            }
            PoolStatistics s = pool.statistics();
            assertEquals(requests, s.requests());
            assertEquals(reuses, s.reuses());
            assertEquals(failures, s.failures());
            assertEquals(returns, s.returns());
            assertEquals(s.allocations() - s.frees(), pool.heldBlocks() + pool.activeBlocks());
            long binRequests = s.bins().stream().mapToLong(BinStatistics::requests).sum();
            assertEquals(requests, binRequests);
            assertEquals(reuses, s.bins().stream().mapToLong(BinStatistics::hits).sum());
            assertTrue(failures > 0 && reuses > 0, "the sequence exercised hits and refusals");
        }
    }
}
