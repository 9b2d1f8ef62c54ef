package dev.arenascope.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.arenascope.core.device.DeviceBuffer;
import dev.arenascope.core.device.HostDevice;
import dev.arenascope.core.device.MemoryDevice;
import dev.arenascope.core.device.VirtualDevice;
import dev.arenascope.core.record.Session;

/**
 * Worker threads hammer one pool, each holding a few buffers at a time, while a janitor frees held
 * blocks. Every buffer handed out is claimed in an ownership map (and, on the host, stamped with its
 * owner in its own bytes and checked before it is closed): a second owner fails the test. At the end
 * every block is accounted for, in the pool and on the device.
 */
class MemoryPoolConcurrencyTest {
    private static final int THREADS = 4;
    /** Operations (an allocation or a close) each worker makes: a fixed amount of work, not a time. */
    private static final int OPS = 20_000;
    /** Buffers served before the janitor stops holding, in the runs that do: well inside the workers' work. */
    private static final long STOP_HOLDING_AFTER = THREADS * OPS / 8;
    /** Buffers served between two rounds of the janitor (freeing held blocks, reading the statistics). */
    private static final long JANITOR_EVERY = 256;

    @ParameterizedTest(name = "{0}, ceiling {1}, recording {2}, stop holding midway {3}")
    @CsvSource({"host, 0, false, false", "virtual, 0, true, false", "virtual, 1000000, false, false",
            "host, 0, true, true"})
    void noBufferHasTwoOwnersAndNoneIsLost(String kind, long ceiling, boolean recording, boolean stopHolding) throws Exception {
        MemoryDevice device = kind.equals("host") ? new HostDevice() : new VirtualDevice(1L << 30);
        Session session = new Session("stress");
        if (recording) {
            session.addSink(batch -> { });
        }
        MemoryPool pool = new MemoryPool("shared", device, ceiling == 0 ? MemoryPool.NO_LIMIT : ceiling, 2, session);
        ConcurrentHashMap<DeviceBuffer, Long> owners = new ConcurrentHashMap<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean stoppedHolding = new AtomicBoolean();
        AtomicLong served = new AtomicLong();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            long me = t + 1;
            threads.add(Thread.ofPlatform().name("worker-" + t).start(() -> {
                SplittableRandom rnd = new SplittableRandom(me * 7919);
                List<PooledBuffer> mine = new ArrayList<>();
                try {
                    start.await();
                    long seq = 0;
                    // the janitor must stop holding while this worker still runs: it runs on until it has
                    for (int op = 0; (op < OPS || (stopHolding && !stoppedHolding.get())) && !stop.get(); op++) {
                        if (mine.size() < 4 && (mine.isEmpty() || rnd.nextBoolean())) {
                            // sizes over few bins so blocks travel between threads
                            long size = 64L << rnd.nextInt(10);
                            PooledBuffer b = rnd.nextInt(8) == 0 ? pool.allocate(size, 4096) : pool.allocate(size);
                            Long previous = owners.putIfAbsent(b.deviceBuffer(), me);
                            assertNull(previous, () -> "block " + b + " handed to thread " + me + " while thread " + previous + " owns it");
                            long stamp = me << 40 | ++seq;
                            b.hostSegment().ifPresent(s -> s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, stamp));
                            mine.add(b);
                            served.incrementAndGet();
                        } else {
                            PooledBuffer b = mine.remove(rnd.nextInt(mine.size()));
                            b.hostSegment().ifPresent(s -> {
                                long stamp = s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
                                assertEquals(me, stamp >>> 40, "another thread wrote into this thread's buffer");
                            });
                            assertEquals(me, owners.remove(b.deviceBuffer()));
                            b.close();
                            if (rnd.nextInt(16) == 0) {
                                b.close(); // a second close must change nothing
                            }
                        }
                    }
                    for (PooledBuffer b : mine) {
                        owners.remove(b.deviceBuffer());
                        b.close();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    stop.set(true);
                }
            }));
        }
        AtomicBoolean workersDone = new AtomicBoolean();
        Thread janitor = Thread.ofPlatform().name("janitor").start(() -> {
            try {
                start.await();
                // a round per 256 buffers served, beside the workers, until they are done; the midway point is
                // a count of buffers served too, not a time
                long lastRound = -JANITOR_EVERY;
                while (!workersDone.get()) {
                    long now = served.get();
                    if (now - lastRound < JANITOR_EVERY) {
                        Thread.yield();
                        continue;
                    }
                    lastRound = now;
                    if (stopHolding && !stoppedHolding.get() && served.get() >= STOP_HOLDING_AFTER) {
                        pool.stopHolding();
                        stoppedHolding.set(true);
                    }
                    pool.freeHeld();
                    pool.statistics();
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
                stop.set(true);
            }
        });
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        workersDone.set(true);
        janitor.join();
        if (failure.get() != null) {
            throw new AssertionError("worker failed", failure.get());
        }
        assertEquals(stopHolding, stoppedHolding.get(), "the janitor stopped holding while workers ran");

        assertTrue(served.get() > 1000, "the stress ran: " + served.get() + " buffers");
        assertTrue(owners.isEmpty());
        PoolStatistics s = pool.statistics();
        assertEquals(served.get(), s.requests(), "every request counted once");
        assertEquals(served.get(), s.returns(), "every buffer came back once");
        assertEquals(0, s.failures());
        assertEquals(0, pool.activeBlocks());
        assertEquals(0, pool.bytesInUse());
        assertEquals(pool.heldBytes(), pool.reservedBytes(), "reserved = held when nothing is in use");
        assertEquals(s.allocations() - s.frees(), pool.heldBlocks(), "no block lost between device and bins");
        assertEquals(s.bytesAllocated() - s.bytesFreed(), pool.heldBytes());
        long onDevice = device instanceof HostDevice h ? h.liveBytes() : device.totalBytes() - device.freeBytes();
        assertEquals(pool.reservedBytes(), onDevice, "the device holds exactly the pool's blocks");
        assertTrue(s.reuses() > 0);
        if (stopHolding) {
            assertEquals(0, pool.heldBlocks());
            assertEquals(s.allocations(), s.frees(), "not holding: every block went back");
        }
        pool.close();
        onDevice = device instanceof HostDevice h ? h.liveBytes() : device.totalBytes() - device.freeBytes();
        assertEquals(0, onDevice);
        session.close();
        device.close();
    }
}
