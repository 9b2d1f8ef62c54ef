package dev.arenascope.core.trace.torch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The safe pickle reader against pickles written by CPython 3 (protocols 0 to 5) and forged ones. */
class PickleReaderTest {

    /**
     * {@code core-pN.pickle} is {@code pickle.dumps(core, protocol=N)} for N = 0..5 of
     * {@code core = {'i': [0, 1, -1, 255, 256, 65535, 65536, -2**31, 2**31, 2**63-1, -2**63, 2**64, -2**100],
     * 'f': 1.5, 's': 'héllo ✓', 't': (1, 'a', None), 'e': (), 'x': True, 'y': False, 'n': None,
     * (1, 2): 'tuplekey', 'big': 'x' * 300, 'shared': [l, l]}} with {@code l = [1, 2]};
     * {@code full-p5.pickle} adds {@code 'b': b'\x00\x01', 'set': {1, 2}, 'fs': frozenset({3}), 'ba': bytearray(b'zz')};
     * {@code set-p2.pickle} is {@code {'set': {1}}} in protocol 2, which writes a set as GLOBAL + REDUCE (GLOBAL at byte 15).
     */
    static byte[] resource(String name) {
        try (var in = PickleReaderTest.class.getResourceAsStream("/pickles/" + name)) {
            return in.readAllBytes();
        } catch (IOException | NullPointerException e) {
            throw new AssertionError("test resource /pickles/" + name + " missing", e);
        }
    }

    private static Object readResource(String name) throws PickleFormatException {
        return PickleReader.read(resource(name), "t.pickle");
    }

    private static Object read(int... bytes) throws PickleFormatException {
        byte[] b = new byte[bytes.length];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) bytes[i];
        }
        return PickleReader.read(b, "t.pickle");
    }

    @ParameterizedTest(name = "protocol {0}")
    @ValueSource(ints = {0, 1, 2, 3, 4, 5})
    void readsEveryProtocolAsCPythonWroteIt(int protocol) throws Exception {
        Map<?, ?> d = (Map<?, ?>) readResource("core-p" + protocol + ".pickle");
        assertEquals(List.of(0L, 1L, -1L, 255L, 256L, 65535L, 65536L, -2147483648L, 2147483648L, Long.MAX_VALUE, Long.MIN_VALUE,
                BigInteger.TWO.pow(64), BigInteger.TWO.pow(100).negate()), d.get("i"));
        assertEquals(1.5, d.get("f"));
        assertEquals("héllo ✓", d.get("s"));
        assertEquals(List.of(1L, "a"), ((List<?>) d.get("t")).subList(0, 2));
        assertNull(((List<?>) d.get("t")).get(2));
        assertEquals(List.of(), d.get("e"));
        assertEquals(Boolean.TRUE, d.get("x"));
        assertEquals(Boolean.FALSE, d.get("y"));
        assertTrue(d.containsKey("n"));
        assertNull(d.get("n"));
        assertEquals("tuplekey", d.get(List.of(1L, 2L)));
        assertEquals("x".repeat(300), d.get("big"));
        List<?> shared = (List<?>) d.get("shared");
        assertSame(shared.get(0), shared.get(1), "the memo shares one object, as Python does");
        assertEquals(List.of(1L, 2L), shared.get(0));
        assertEquals(11, d.size());
    }

    @Test
    void readsBytesSetsAndByteArraysOfProtocol5() throws Exception {
        Map<?, ?> d = (Map<?, ?>) readResource("full-p5.pickle");
        assertArrayEquals(new byte[] {0, 1}, (byte[]) d.get("b"));
        assertEquals(Set.of(1L, 2L), d.get("set"));
        assertEquals(Set.of(3L), d.get("fs"));
        assertArrayEquals(new byte[] {'z', 'z'}, (byte[]) d.get("ba"));
    }

    @Test
    void refusesAClassReferenceAndSaysWhere() {
        PickleFormatException e = assertThrows(PickleFormatException.class, () -> readResource("set-p2.pickle"));
        assertEquals("t.pickle at byte 15: opcode GLOBAL (0x63) references a class; refused (only plain data pickles are read)", e.getMessage());
        assertEquals(15, e.offset());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"GLOBAL,0x63", "STACK_GLOBAL,0x93", "REDUCE,0x52", "BUILD,0x62", "INST,0x69", "OBJ,0x6f", "NEWOBJ,0x81",
            "NEWOBJ_EX,0x92", "EXT1,0x82", "EXT2,0x83", "EXT4,0x84", "PERSID,0x50", "BINPERSID,0x51",
            "NEXT_BUFFER,0x97", "READONLY_BUFFER,0x98"})
    void refusesEveryOpcodeThatReachesCode(String name, String hex) {
        int op = Integer.decode(hex);
        // PROTO 4, EMPTY_DICT, then the opcode at byte 3
        PickleFormatException e = assertThrows(PickleFormatException.class, () -> read(0x80, 4, '}', op, '.'));
        assertTrue(e.getMessage().startsWith("t.pickle at byte 3: opcode " + name + " (" + String.format("0x%02x", op) + ")"), e.getMessage());
        assertEquals(3, e.offset());
    }

    @Test
    void forgedLengthsNeverAllocateBeyondTheInput() {
        // BINUNICODE8 claiming 2^62 bytes
        var e = assertThrows(PickleFormatException.class, () -> read(0x80, 4, 0x8d, 0, 0, 0, 0, 0, 0, 0, 0x40, 'x', '.'));
        assertEquals("t.pickle at byte 2: the file ends early (truncated or damaged): BINUNICODE8 of 4611686018427387904 bytes announced, 2 bytes left", e.getMessage());
        // BINBYTES8 with the top bit set (negative as a signed long)
        e = assertThrows(PickleFormatException.class, () -> read(0x80, 4, 0x8e, 0, 0, 0, 0, 0, 0, 0, 0x80, '.'));
        assertTrue(e.getMessage().contains("BINBYTES8 of 9223372036854775808 bytes announced"), e.getMessage());
        // LONG4 of 2^31-1 bytes
        e = assertThrows(PickleFormatException.class, () -> read(0x80, 2, 0x8b, 0xff, 0xff, 0xff, 0x7f, '.'));
        assertTrue(e.getMessage().contains("byte 2: truncated"), e.getMessage());
        // FRAME longer than the file
        e = assertThrows(PickleFormatException.class, () -> read(0x80, 4, 0x95, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 'N', '.'));
        assertTrue(e.getMessage().contains("byte 2: the file ends early (truncated or damaged): a FRAME of 4294967295 bytes announced, 2 bytes left"), e.getMessage());
        // BINUNICODE with 0xffffffff
        e = assertThrows(PickleFormatException.class, () -> read('X', 0xff, 0xff, 0xff, 0xff, '.'));
        assertTrue(e.getMessage().contains("byte 0: the file ends early (truncated or damaged): BINUNICODE of 4294967295 bytes announced, 1 bytes left"), e.getMessage());
        // a memo index past the input
        e = assertThrows(PickleFormatException.class, () -> read('N', 'r', 0xff, 0xff, 0xff, 0x7f, '.'));
        assertTrue(e.getMessage().contains("byte 1: memo index 2147483647 is out of range"), e.getMessage());
        // a memo get of an index never stored
        e = assertThrows(PickleFormatException.class, () -> read('h', 3, '.'));
        assertEquals("t.pickle at byte 0: memo index 3 was never stored", e.getMessage());
    }

    @Test
    void malformedStreamsFailWithTheirOffset() {
        assertEquals("t.pickle at byte 0: truncated: the pickle ends without a STOP opcode",
                assertThrows(PickleFormatException.class, () -> read()).getMessage());
        assertEquals("t.pickle at byte 3: truncated: the pickle ends without a STOP opcode",
                assertThrows(PickleFormatException.class, () -> read(0x80, 2, 'N')).getMessage());
        assertEquals("t.pickle at byte 0: unknown opcode 0xff",
                assertThrows(PickleFormatException.class, () -> read(0xff)).getMessage());
        assertEquals("t.pickle at byte 2: STOP with 2 values and 0 marks on the stack (expected exactly one value)",
                assertThrows(PickleFormatException.class, () -> read('N', 'N', '.')).getMessage());
        assertEquals("t.pickle at byte 2: APPEND on a None, not a list",
                assertThrows(PickleFormatException.class, () -> read('N', 'N', 'a', '.')).getMessage());
        assertEquals("t.pickle at byte 0: no MARK on the stack",
                assertThrows(PickleFormatException.class, () -> read('t', '.')).getMessage());
        assertEquals("t.pickle at byte 0: unsupported pickle protocol 9",
                assertThrows(PickleFormatException.class, () -> read(0x80, 9, 'N', '.')).getMessage());
        assertTrue(assertThrows(PickleFormatException.class, () -> read('I', '1', '2')).getMessage()
                .contains("byte 0: truncated: a text argument has no terminating newline"));
    }

    @Test
    void refusesUnhashableKeysIncludingSelfReferences() {
        // EMPTY_DICT, EMPTY_LIST, EMPTY_LIST (as the key), SETITEM: a list as a dict key
        var e = assertThrows(PickleFormatException.class, () -> read('}', ']', 'N', 's', '.'));
        assertTrue(e.getMessage().contains("byte 3: unhashable dict key or set member of type list"), e.getMessage());
        // t = ([],); t[0].append(t); {t: None}: a tuple that holds a list is unhashable
        e = assertThrows(PickleFormatException.class, () -> read('}', ']', 'q', 0, 0x85, 'q', 1, 'h', 0, 'h', 1, 'a', '0', 'N', 's', '.'));
        assertTrue(e.getMessage().contains("unhashable dict key"), e.getMessage());
    }

    @Test
    void deepNestingIsReadWithoutRecursion() throws Exception {
        int depth = 200_000;
        // ']' x depth opens lists, 'a' x (depth-1) appends each into the one below it, then STOP
        byte[] p = new byte[depth + (depth - 1) + 1];
        Arrays.fill(p, 0, depth, (byte) ']');
        Arrays.fill(p, depth, depth + depth - 1, (byte) 'a');
        p[p.length - 1] = '.';
        Object root = PickleReader.read(p, "deep.pickle");
        int n = 0;
        for (Object o = root; o instanceof List<?> l && !l.isEmpty(); o = l.get(0)) {
            n++;
        }
        assertEquals(depth - 1, n);
    }
}
