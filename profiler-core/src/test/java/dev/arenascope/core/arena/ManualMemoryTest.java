package dev.arenascope.core.arena;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.arenascope.core.device.HostDevice;
import dev.arenascope.core.device.MemoryDevice;
import dev.arenascope.core.device.VirtualDevice;
import dev.arenascope.core.record.Session;
import dev.arenascope.testsupport.CollectingSink;
import dev.arenascope.testsupport.TestDevices;

class ManualMemoryTest {
    private MemoryDevice device;
    private Session session;

    private ManualMemory arena(String dev, long bytes) {
        device = TestDevices.open(dev);
        session = new Session("test");
        return ManualMemory.builder().device(device).session(session).name("render").numBytes(bytes).noPoison().build();
    }

    @AfterEach
    void closeDevice() {
        if (session != null) {
            session.close();
        }
        if (device != null) {
            device.close();
        }
    }

    /** What a failed call must leave exactly as it was. */
    private static void assertUnchanged(ManualMemory a, Runnable failing, Class<? extends Throwable> type) {
        Pointers before = a.getPointers();
        long high = a.highWaterMark();
        int saved = a.savedPointers();
        Throwable t = assertThrows(type, failing::run);
        assertFalse(t.getMessage().contains("\n"), "one-line message: " + t.getMessage());
        assertEquals(before, a.getPointers(), "pointers moved by a failed call");
        assertEquals(high, a.highWaterMark());
        assertEquals(saved, a.savedPointers());
    }

    @ParameterizedTest
    @MethodSource("dev.arenascope.testsupport.TestDevices#all")
    void forwardAllocationsAreAlignedToItemSizeFromArenaStart(String dev) {
        try (ManualMemory a = arena(dev, 4096)) {
            Tensor flag = a.getTensor(DType.BOOL, 3);
            Tensor f = a.getTensor(DType.FLOAT32, 1024 / 4 - 1, 1);
            Tensor d = a.getTensor(DType.INT64, 2);
            Tensor h = a.getTensor(DType.FLOAT16, 1);
            assertEquals(0, flag.byteOffset());
            assertEquals(4, f.byteOffset(), "float32 after 3 bools starts at the next multiple of 4");
            assertEquals(4 + 255 * 4, 1024);
            assertEquals(1024, d.byteOffset());
            assertEquals(1040, h.byteOffset());
            assertEquals(1042, a.getPointers().forward());
            assertEquals(4096 - 1042, a.getNumBytesRemaining());
            assertEquals(a.buffer().address() + 4, f.address());
            assertEquals(0, f.address() % 4);
            assertArrayEquals(new long[] {255, 1}, f.shape());
            assertEquals("float32[255,1]", f.descriptor());
            assertEquals(1020, f.byteSize());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.arenascope.testsupport.TestDevices#all")
    void persistentAllocationsGrowDownFromTheEndAligned(String dev) {
        try (ManualMemory a = arena(dev, 1000)) {
            Tensor b = a.getPersistentTensor(DType.BOOL, 3);
            Tensor l = a.getPersistentTensor(DType.INT64, 2);
            assertEquals(997, b.byteOffset());
            assertEquals(976, l.byteOffset(), "int64 x2 below 997 aligned down to 8");
            assertEquals(new Pointers(0, 976), a.getPointers());
            assertEquals(24, a.backwardBytes());
            assertEquals(24, a.usedBytes());
            assertEquals(2.4, a.getPercentUsed(), 1e-9);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.arenascope.testsupport.TestDevices#all")
    void crossingPointersThrowNamingArenaBytesAndScopesAndMoveNothing(String dev) {
        try (ManualMemory a = arena(dev, 1024)) {
            a.getTensor(DType.FLOAT32, 100);
            a.getPersistentTensor(DType.FLOAT32, 100);
            try (var s1 = a.scope("frame", "frames", 4); var s2 = a.scope("raster")) {
                assertUnchanged(a, () -> a.getTensor(DType.FLOAT32, 57), InsufficientMemoryException.class);
                assertUnchanged(a, () -> a.getPersistentTensor(DType.INT64, 29), InsufficientMemoryException.class);
                InsufficientMemoryException e = assertThrows(InsufficientMemoryException.class, () -> a.getTensor(DType.FLOAT32, 57));
                assertAll(
                        () -> assertEquals("render", e.arena()),
                        () -> assertEquals(228, e.requestedBytes()),
                        () -> assertEquals(224, e.remainingBytes()),
                        () -> assertEquals("frame/raster", e.scopePath()),
                        () -> assertTrue(e.getMessage().contains("'render'"), e.getMessage()),
                        () -> assertTrue(e.getMessage().contains("228 bytes"), e.getMessage()),
                        () -> assertTrue(e.getMessage().contains("224 bytes"), e.getMessage()),
                        () -> assertTrue(e.getMessage().contains("frame/raster"), e.getMessage()),
                        () -> assertTrue(e.getMessage().contains("float32[57]"), e.getMessage()));
            }
            // exactly the remaining bytes still fit
            a.getTensor(DType.FLOAT32, 56);
            assertEquals(0, a.getNumBytesRemaining());
            assertUnchanged(a, () -> a.getTensor(DType.BOOL, 1), InsufficientMemoryException.class);
            assertEquals(0, a.getTensor(DType.BOOL, 0).byteSize(), "an empty tensor fits a full arena");
        }
    }

    @ParameterizedTest
    @MethodSource("dev.arenascope.testsupport.TestDevices#all")
    void badShapesAndDtypesAreRefusedWithTheArenaUnchanged(String dev) {
        try (ManualMemory a = arena(dev, 4096)) {
            a.getTensor(DType.INT8, 5);
            assertUnchanged(a, () -> a.getTensor(DType.FLOAT32, 4, -3), IllegalArgumentException.class);
            assertUnchanged(a, () -> a.getTensor(DType.FLOAT32, Long.MAX_VALUE / 2, 3), IllegalArgumentException.class);
            assertUnchanged(a, () -> a.getTensor(DType.INT64, Long.MAX_VALUE / 4), IllegalArgumentException.class);
            assertUnchanged(a, () -> a.getTensor(DType.FLOAT32, 1L << 32, 1L << 32), IllegalArgumentException.class);
            assertUnchanged(a, () -> a.getTensor((DType) null, 4), IllegalArgumentException.class);
            assertUnchanged(a, () -> a.getTensor((long[]) null, DType.FLOAT32), IllegalArgumentException.class);
            assertUnchanged(a, () -> a.getPersistentTensor(DType.FLOAT64, 1, -1), IllegalArgumentException.class);
            assertUnchanged(a, () -> a.getTensor(DType.FLOAT32, 1L << 40), InsufficientMemoryException.class);
            assertUnchanged(a, () -> a.getPersistentTensor(DType.FLOAT32, 1L << 40), InsufficientMemoryException.class);
            IllegalArgumentException neg = assertThrows(IllegalArgumentException.class, () -> a.getTensor(DType.FLOAT32, 4, -3));
            assertTrue(neg.getMessage().contains("negative dimension -3 at index 1"), neg.getMessage());
            IllegalArgumentException over = assertThrows(IllegalArgumentException.class, () -> a.getTensor(DType.INT64, Long.MAX_VALUE / 4));
            assertTrue(over.getMessage().contains("overflows"), over.getMessage());
        }
    }

    @Test
    void unknownDtypeNamesAreRefusedNamingTheText() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DType.parse("float31"));
        assertTrue(e.getMessage().contains("'float31'") && e.getMessage().contains("bfloat16"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> DType.parse(null));
        assertEquals(DType.BFLOAT16, DType.parse("torch.bfloat16"));
        assertEquals(DType.FLOAT32, DType.parse("Float32"));
        assertEquals(DType.FLOAT16, DType.parse("half"));
        for (DType d : DType.values()) {
            assertEquals(d, DType.parse(d.id()));
        }
        assertEquals(2, DType.BFLOAT16.itemSize());
        assertEquals(8, DType.INT64.itemSize());
        assertEquals(1, DType.BOOL.itemSize());
    }

    @Test
    void portionsOutsideZeroOneAndSizesBeyondFreeMemoryAreRefused() {
        VirtualDevice v = new VirtualDevice(1 << 20);
        for (double p : new double[] {0, -0.1, 1.5, Double.NaN, Double.POSITIVE_INFINITY}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ManualMemory.builder().device(v).portion(p).build());
            assertTrue(e.getMessage().contains("(0, 1]"), e.getMessage());
        }
        IllegalArgumentException big = assertThrows(IllegalArgumentException.class,
                () -> ManualMemory.builder().device(v).numBytes((1 << 20) + 1).name("big").build());
        assertTrue(big.getMessage().contains("'big'") && big.getMessage().contains("1048577"), big.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ManualMemory.builder().device(v).numBytes(0).build());
        assertThrows(IllegalArgumentException.class, () -> ManualMemory.builder().device(v).numBytes(-5).build());
        assertThrows(IllegalArgumentException.class, () -> ManualMemory.builder().device(v).build());
        assertThrows(IllegalArgumentException.class, () -> ManualMemory.builder().poison(256));
        assertEquals(1 << 20, v.freeBytes(), "failed arenas claimed nothing");
        try (ManualMemory half = ManualMemory.builder().device(v).portion(0.5).build()) {
            assertEquals(1 << 19, half.capacity());
            assertEquals(1 << 19, v.freeBytes());
        }
        assertEquals(1 << 20, v.freeBytes(), "close gives the block back");
        try (ManualMemory all = new ManualMemory(1.0, v)) {
            assertEquals(1 << 20, all.capacity());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.arenascope.testsupport.TestDevices#all")
    void everyOperationOnAClosedArenaFailsClearly(String dev) {
        ManualMemory a = arena(dev, 4096);
        Tensor t = a.getTensor(DType.FLOAT32, 4);
        a.close();
        a.close();
        assertTrue(a.isClosed());
        for (Runnable op : new Runnable[] {
                () -> a.getTensor(DType.FLOAT32, 4), () -> a.getPersistentTensor(DType.INT8, 1), a::temp,
                () -> a.scope("x"), a::reset, a::savePointer, a::resetPointer, () -> a.setPointers(0, 4096),
                a::recording, a::clone, () -> a.cast(new VirtualDevice())}) {
            IllegalStateException e = assertThrows(IllegalStateException.class, op::run);
            assertEquals("arena 'render' is closed", e.getMessage());
        }
        assertTrue(t.buffer().isClosed());
    }

    @ParameterizedTest
    @MethodSource("dev.arenascope.testsupport.TestDevices#all")
    void pointerSetsOutOfRangeOrCrossingAreRefused(String dev) {
        try (ManualMemory a = arena(dev, 4096)) {
            a.getTensor(DType.FLOAT32, 10);
            a.getPersistentTensor(DType.FLOAT32, 10);
            assertUnchanged(a, () -> a.setPointers(-1, 4000), IllegalArgumentException.class);
            assertUnchanged(a, () -> a.setPointers(10, 4097), IllegalArgumentException.class);
            assertUnchanged(a, () -> a.setPointers(3000, 2000), IllegalArgumentException.class);
            assertUnchanged(a, () -> a.setPointers(Long.MIN_VALUE, Long.MAX_VALUE), IllegalArgumentException.class);
            Pointers p = a.getPointers();
            a.getTensor(DType.FLOAT32, 100);
            a.setPointers(p);
            assertEquals(p, a.getPointers());
            a.setPointers(4096, 4096);
            assertEquals(0, a.getNumBytesRemaining());
            assertEquals(4096, a.highWaterMark());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.arenascope.testsupport.TestDevices#all")
    void tempRestoresTheForwardPointerAndOptionallyClearsPersistent(String dev) {
        try (ManualMemory a = arena(dev, 1 << 16)) {
            a.getTensor(DType.FLOAT32, 10);
            try (var t = a.temp()) {
                a.getTensor(DType.FLOAT32, 1000);
                a.getPersistentTensor(DType.FLOAT32, 16);
                try (var inner = a.temp()) {
                    a.getTensor(DType.INT8, 7);
                }
                assertEquals(4040, a.getPointers().forward());
                assertEquals(40, t.entryForward());
            }
            assertEquals(new Pointers(40, (1 << 16) - 64), a.getPointers(), "temp keeps persistent results by default");
            try (var t = a.temp(true)) {
                a.getTensor(DType.FLOAT32, 10);
                a.getPersistentTensor(DType.FLOAT32, 8);
            }
            assertEquals(new Pointers(40, (1 << 16) - 64), a.getPointers(), "clearPersistent releases what was made inside");
            long floor;
            try (var t = a.temp(true, (1 << 16) - 96)) {
                a.getPersistentTensor(DType.FLOAT32, 8); // [-96, -64): survives
                floor = a.getPointers().backward();
                a.getPersistentTensor(DType.FLOAT32, 8); // [-128, -96): cleared
            }
            assertEquals(new Pointers(40, floor), a.getPointers(), "cleared down to the floor");
            assertEquals(4047 + 64, a.highWaterMark());
            assertThrows(IllegalArgumentException.class, () -> a.temp(true, -1));
            assertThrows(IllegalArgumentException.class, () -> a.temp(true, (1 << 16) + 1));
        }
    }

    @ParameterizedTest
    @MethodSource("dev.arenascope.testsupport.TestDevices#all")
    void tempAndScopeClosedOutOfOrderAreErrors(String dev) {
        try (ManualMemory a = arena(dev, 4096)) {
            var outer = a.temp();
            var inner = a.temp();
            IllegalStateException e = assertThrows(IllegalStateException.class, outer::close);
            assertTrue(e.getMessage().contains("out of order"), e.getMessage());
            inner.close();
            outer.close();
            var s = a.scope("outer");
            var s2 = a.scope("inner");
            IllegalStateException se = assertThrows(IllegalStateException.class, s::close);
            assertTrue(se.getMessage().contains("'outer'") && se.getMessage().contains("'inner'"), se.getMessage());
            s2.close();
            s.close();
            assertEquals("", a.scopePath());
            Map<String, Long> nullValue = new HashMap<>();
            nullValue.put("frames", null);
            assertThrows(IllegalArgumentException.class, () -> a.scope(null));
            assertThrows(IllegalArgumentException.class, () -> a.scope("x", null, 1));
            assertThrows(IllegalArgumentException.class, () -> a.scope("x", "k", 1, null, 2));
            assertThrows(IllegalArgumentException.class, () -> a.scope("x", (Map<String, Long>) null));
            assertThrows(IllegalArgumentException.class, () -> a.scope("x", nullValue));
            assertEquals("", a.scopePath(), "a refused scope leaves no scope open");
            try (var ok = a.scope("after")) {
                assertEquals("after", a.scopePath());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.arenascope.testsupport.TestDevices#all")
    void tempNeverMovesAPointerForwardAfterAReset(String dev) {
        try (ManualMemory a = arena(dev, 4096)) {
            a.getTensor(DType.FLOAT32, 100);
            try (var t = a.temp()) {
                a.reset();
                a.getTensor(DType.INT8, 8);
            }
            assertEquals(new Pointers(8, 4096), a.getPointers());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.arenascope.testsupport.TestDevices#all")
    void saveAndResetPointerFormAStack(String dev) {
        try (ManualMemory a = arena(dev, 4096)) {
            assertUnchanged(a, a::resetPointer, IllegalStateException.class);
            a.getTensor(DType.INT8, 10);
            a.savePointer();
            a.getTensor(DType.INT8, 20);
            a.savePointer();
            a.getTensor(DType.INT8, 30);
            assertEquals(2, a.savedPointers());
            a.resetPointer();
            assertEquals(30, a.getPointers().forward());
            a.resetPointer();
            assertEquals(10, a.getPointers().forward());
            assertEquals(60, a.highWaterMark());
            // a saved pointer that now lies beyond the backward pointer is refused
            a.savePointer();
            a.getTensor(DType.INT8, 1000);
            a.savePointer();
            a.reset();
            a.getPersistentTensor(DType.INT8, 4000);
            assertUnchanged(a, a::resetPointer, IllegalStateException.class);
            a.reset();
            a.resetPointer();
            assertEquals(1010, a.getPointers().forward());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.arenascope.testsupport.TestDevices#all")
    void resetReleasesEverythingAndHighWaterMarkRemembers(String dev) {
        try (ManualMemory a = arena(dev, 4096)) {
            a.getTensor(DType.FLOAT64, 100);
            a.getPersistentTensor(DType.FLOAT64, 100);
            assertEquals(1600, a.usedBytes());
            a.reset();
            assertEquals(new Pointers(0, 4096), a.getPointers());
            assertEquals(4096, a.getNumBytesRemaining());
            assertEquals(0.0, a.getPercentUsed());
            assertEquals(1600, a.highWaterMark());
            assertEquals(800, a.peakForwardBytes());
            assertEquals(800, a.peakBackwardBytes());
            a.resetHighWaterMark();
            assertEquals(0, a.highWaterMark());
        }
    }

    @Test
    void unmanagedArenaHoldsOneByteAndNeitherPoisonsNorRecords() {
        VirtualDevice v = new VirtualDevice(1 << 20);
        Session s = new Session("unmanaged");
        var sink = new CollectingSink();
        s.addSink(sink);
        try (ManualMemory a = ManualMemory.builder().device(v).session(s).managed(false).portion(0.5).poison(0xFF).build()) {
            assertFalse(a.isManaged());
            assertEquals(1, a.capacity());
            assertEquals((1 << 20) - 1, v.freeBytes());
            assertEquals(-1, a.poisonByte());
            assertEquals(-1, a.memoryId());
            try (var rec = a.recording(); var sc = a.scope("probe", "frames", 1)) {
                a.getTensor(DType.INT8, 1);
                assertEquals(0, rec.allocationCount());
            }
            assertThrows(InsufficientMemoryException.class, () -> a.getTensor(DType.INT8, 1));
        }
        s.flush();
        assertTrue(sink.events.isEmpty(), "an unmanaged arena publishes nothing: " + sink.events);
        assertTrue(sink.memories.isEmpty());
        s.close();
    }

    @ParameterizedTest
    @MethodSource("dev.arenascope.testsupport.TestDevices#withBytes")
    void poisonFillsEveryNewAllocation(String dev) {
        device = TestDevices.open(dev);
        try (ManualMemory a = ManualMemory.builder().device(device).numBytes(1 << 16).poison(0xFF).build()) {
            assertEquals(0xFF, a.poisonByte());
            Tensor f = a.getTensor(DType.FLOAT32, 64);
            for (byte b : f.copyToHost()) {
                assertEquals((byte) 0xFF, b);
            }
            Tensor i = a.getPersistentTensor(DType.INT32, 8);
            assertArrayEquals(new int[] {-1, -1, -1, -1, -1, -1, -1, -1}, i.toIntArray());
            assertTrue(Float.isNaN(f.toFloatArray()[17]));
            float[] values = new float[64];
            for (int k = 0; k < 64; k++) {
                values[k] = k * 0.5f;
            }
            f.copyFromHost(values);
            assertArrayEquals(values, f.toFloatArray());
        }
        try (ManualMemory a = ManualMemory.builder().device(device).numBytes(1 << 12).poison(0x00).build()) {
            Tensor x = a.getTensor(DType.INT64, 4);
            x.fill((byte) 7);
            try (var t = a.temp()) {
                // nothing
            }
            a.reset();
            assertArrayEquals(new byte[32], a.getTensor(DType.INT64, 4).copyToHost(), "poisoned again when re-handed out");
        }
    }

    @Test
    void poisonSettingsParseAsTheEnvironmentVariableAllows() {
        assertEquals(0xFF, Poison.parse("0xFF", "ARENASCOPE_POISON"));
        assertEquals(0xAB, Poison.parse(" 0xab ", "ARENASCOPE_POISON"));
        assertEquals(7, Poison.parse("7", "ARENASCOPE_POISON"));
        assertEquals(0, Poison.parse("0", "ARENASCOPE_POISON"));
        for (String off : new String[] {null, "", "off", "none", "false", "NO"}) {
            assertEquals(-1, Poison.parse(off, "ARENASCOPE_POISON"));
        }
        for (String bad : new String[] {"0x100", "-1", "ff", "yes", "256"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Poison.parse(bad, "ARENASCOPE_POISON"));
            assertTrue(e.getMessage().startsWith("ARENASCOPE_POISON='" + bad + "'"), e.getMessage());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.arenascope.testsupport.TestDevices#withBytes")
    void cloneCopiesBytesAndPointersAndCastMovesThemToAnotherDevice(String dev) {
        try (ManualMemory a = arena(dev, 1 << 12)) {
            Tensor f = a.getTensor(DType.INT32, 4);
            f.copyFromHost(new int[] {1, 2, 3, 4});
            Tensor p = a.getPersistentTensor(DType.INT32, 2);
            p.copyFromHost(new int[] {9, 8});
            try (ManualMemory c = a.clone(); ManualMemory h = a.cast(new HostDevice());
                 ManualMemory v = a.cast(new VirtualDevice())) {
                for (ManualMemory m : new ManualMemory[] {c, h, v}) {
                    assertEquals(a.getPointers(), m.getPointers());
                    assertEquals(a.capacity(), m.capacity());
                }
                assertEquals("render-clone", c.name());
                assertEquals(c.device(), a.device());
                byte[] orig = new byte[1 << 12];
                byte[] copy = new byte[1 << 12];
                a.device().copyToHost(a.buffer(), 0, orig, 0, 16);
                c.device().copyToHost(c.buffer(), 0, copy, 0, 16);
                assertArrayEquals(Arrays.copyOf(orig, 16), Arrays.copyOf(copy, 16));
                h.device().copyToHost(h.buffer(), (1 << 12) - 8, copy, 0, 8);
                a.device().copyToHost(a.buffer(), (1 << 12) - 8, orig, 0, 8);
                assertArrayEquals(Arrays.copyOf(orig, 8), Arrays.copyOf(copy, 8));
                // the copies are independent
                c.reset();
                assertEquals(16, a.getPointers().forward());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.arenascope.testsupport.TestDevices#withBytes")
    void tensorsReadAndWriteEveryDtype(String dev) {
        try (ManualMemory a = arena(dev, 1 << 12)) {
            if (dev.equals("host")) {
                Tensor h = a.getTensor(DType.FLOAT16, 3);
                h.setFloat(0, 1.5f);
                h.setFloat(2, -2.25f);
                assertEquals(1.5f, h.getFloat(0));
                assertEquals(-2.25f, h.getFloat(2));
                Tensor bf = a.getTensor(DType.BFLOAT16, 2);
                bf.setFloat(1, 3.0f);
                assertEquals(3.0f, bf.getFloat(1));
                Tensor d = a.getTensor(DType.FLOAT64, 1);
                d.setDouble(0, Math.PI);
                assertEquals(Math.PI, d.getDouble(0));
                Tensor u = a.getTensor(DType.UINT8, 1);
                u.setLong(0, 200);
                assertEquals(200, u.getLong(0));
                Tensor i8 = a.getTensor(DType.INT8, 1);
                i8.setLong(0, 200);
                assertEquals(-56, i8.getLong(0));
                Tensor l = a.getTensor(DType.INT64, 2);
                l.setLong(1, Long.MIN_VALUE);
                assertEquals(Long.MIN_VALUE, l.getLong(1));
                assertThrows(IndexOutOfBoundsException.class, () -> l.getLong(2));
                assertThrows(UnsupportedOperationException.class, () -> l.getFloat(0));
                assertTrue(l.hostSegment().isPresent());
            } else {
                Tensor x = a.getTensor(DType.FLOAT32, 2);
                UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, () -> x.getFloat(0));
                assertTrue(e.getMessage().contains("copyToHost"), e.getMessage());
            }
            Tensor t = a.getTensor(DType.INT16, 3);
            t.copyFromHost(new byte[] {1, 0, 2, 0, 3, 0});
            assertArrayEquals(new byte[] {1, 0, 2, 0, 3, 0}, t.copyToHost());
            assertThrows(IllegalArgumentException.class, () -> t.copyFromHost(new byte[5]));
        }
    }

    @Test
    void defaultConstructorsAndScopeParamsMapsWork() {
        VirtualDevice v = new VirtualDevice(1 << 20);
        try (ManualMemory a = ManualMemory.builder().device(v).numBytes(1 << 10).build()) {
            Consumer<Map<String, Long>> noop = m -> {};
            noop.accept(Map.of());
            try (var s = a.scope("frame", Map.of("frames", 2))) {
                a.noteScopeParams(Map.of("fragments", 10));
                assertEquals("frame", s.name());
            }
            assertTrue(a.name().startsWith("arena-"));
            assertTrue(a.toString().contains("virtual"));
        }
    }
}
