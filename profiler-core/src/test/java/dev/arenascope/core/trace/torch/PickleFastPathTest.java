package dev.arenascope.core.trace.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The reader's fast paths (dicts of atoms read without building them, integers kept unboxed, the
 * paged memo) give exactly what the opcodes read one by one give, and keep the memo's bounds.
 */
class PickleFastPathTest {

    /** A consumer that replaces nothing: the reader then takes its fast paths and must build the same values. */
    private static final PicklePlacement PASS = (value, container, key, offset) -> value;

    private static Object both(byte[] pickle) throws PickleFormatException {
        Object plain = PickleReader.read(pickle, "t.pickle");
        Object fast = PickleReader.read(pickle, "t.pickle", PASS);
        assertEquals(plain, fast);
        return fast;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"core-p0.pickle", "core-p1.pickle", "core-p2.pickle", "core-p3.pickle", "core-p4.pickle", "core-p5.pickle",
            "full-p5.pickle", "small-snapshot-p4.pickle", "small-snapshot-p5.pickle", "stacks-all-snapshot-p4.pickle"})
    void cpythonPicklesReadTheSameWithAConsumer(String name) throws Exception {
        byte[] b = PickleReaderTest.resource(name);
        Object plain = PickleReader.read(b, name);
        Object fast = PickleReader.read(b, name, PASS);
        if (name.startsWith("full")) { // byte arrays compare by identity: compare them by content, the rest as values
            Map<Object, Object> p = new LinkedHashMap<>((Map<?, ?>) plain);
            Map<Object, Object> f = new LinkedHashMap<>((Map<?, ?>) fast);
            for (String k : List.of("b", "ba")) {
                Assertions.assertArrayEquals((byte[]) p.remove(k), (byte[]) f.remove(k));
            }
            plain = p;
            fast = f;
        }
        assertEquals(plain, fast);
    }

    @Test
    void dictsOfAtomsKeepEveryKindOfAtomAndKey() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PickleWriter w = new PickleWriter(out);
        w.list().mark();
        for (int i = 0; i < 3; i++) { // the second and third dicts fetch every string from the memo
            w.dict().mark().str("name").str("f").str("line").integer(300 + i).str("big").integer(1L << 40).str("neg").integer(-70000)
                    .str("none").none().str("yes").bool(true).str("no").bool(false).integer(7).str("int key").setItems();
        }
        w.appends().stop();
        List<?> l = (List<?>) both(out.toByteArray());
        assertEquals(3, l.size());
        Map<?, ?> d = (Map<?, ?>) l.get(2);
        assertEquals(302L, d.get("line"));
        assertEquals(1L << 40, d.get("big"));
        assertEquals(-70000L, d.get("neg"));
        assertNull(d.get("none"));
        assertTrue(d.containsKey("none"));
        assertEquals(Boolean.TRUE, d.get("yes"));
        assertEquals(Boolean.FALSE, d.get("no"));
        assertEquals("int key", d.get(7L));
    }

    @Test
    void aDictHoldingItselfIsReadTheOrdinaryWay() throws Exception {
        // EMPTY_DICT BINPUT 0 MARK 'k' BINGET 0 SETITEMS STOP: the value is the dict itself, not an atom
        byte[] b = {(byte) 0x80, 4, '}', 'q', 0, '(', (byte) 0x8c, 1, 'k', 'h', 0, 'u', '.'};
        Map<?, ?> d = (Map<?, ?>) PickleReader.read(b, "t.pickle", PASS);
        assertSame(d, d.get("k"));
    }

    @Test
    void aDictOfAtomsReplacedByTheConsumerIsReplacedInTheMemoToo() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PickleWriter w = new PickleWriter(out);
        w.list().mark();
        int memo = w.nextMemo();
        w.dict().mark().str("a").integer(1).setItems();
        w.get(memo).get(memo).appends().stop();
        Object token = new Object();
        PicklePlacement swap = new PicklePlacement() {
            @Override
            public Object placed(Object value, Object container, Object key, long offset) {
                return value;
            }

            @Override
            public Object dict(PyDict d, PicklePlacement.Items items, long offset) {
                assertEquals(2, items.size());
                assertEquals("a", items.at(0));
                assertSame(PickleReader.LONG, items.at(1));
                assertEquals(1L, items.longAt(1));
                return token;
            }
        };
        List<?> l = (List<?>) PickleReader.read(out.toByteArray(), "t.pickle", swap);
        assertEquals(List.of(token, token, token), l);
    }

    @Test
    void anOddDictOrAnEmptyMemoSlotIsRefusedWithItsOffset() {
        // EMPTY_DICT MEMOIZE MARK BINGET 0 SETITEMS: one item only (BINGET 0 is the dict)
        byte[] odd = {(byte) 0x80, 4, '}', (byte) 0x94, '(', 'K', 1, 'u', '.'};
        var e = assertThrows(PickleFormatException.class, () -> PickleReader.read(odd, "t.pickle", PASS));
        assertTrue(e.getMessage().contains("odd number of items"), e.getMessage());
        assertTrue(e.getMessage().contains("at byte 7"), e.getMessage());
        byte[] never = {(byte) 0x80, 4, '}', (byte) 0x94, '(', 'h', 9, 'K', 1, 'u', '.'};
        var e2 = assertThrows(PickleFormatException.class, () -> PickleReader.read(never, "t.pickle", PASS));
        assertTrue(e2.getMessage().contains("memo index 9 was never stored"), e2.getMessage());
    }

    @Test
    void memoSlotsFarApartAreKeptAndMovedIntoTheirPageWhenItFills() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PickleWriter w = new PickleWriter(out);
        w.list().mark(); // memo 0
        // a string put at 20,000 before the memo is dense there (it goes to the sparse map) ...
        w.freshStr("early"); // memo 1
        out.write('r');
        out.write(new byte[] {(byte) 0x20, 0x4e, 0, 0}); // LONG_BINPUT 20000
        out.write('0'); // POP
        // ... and one at 60,000, past any page in use
        w.freshStr("far");
        out.write('r');
        out.write(new byte[] {0x60, (byte) 0xea, 0, 0}); // LONG_BINPUT 60000
        out.write('0');
        // MEMOIZE takes slot len(memo), as Python does: 4, 5, ... 18,003 (the page of 20,000 comes into use; slots 2 and 3 stay
        // empty, and 20,000 keeps its string: MEMOIZE reaches it only when the memo holds 20,000 entries)
        for (int i = 0; i < 18_000; i++) {
            out.write('K');
            out.write(1);
            out.write(0x94);
            out.write('0');
        }
        out.write('j');
        out.write(new byte[] {(byte) 0x20, 0x4e, 0, 0}); // LONG_BINGET 20000
        out.write('j');
        out.write(new byte[] {0x60, (byte) 0xea, 0, 0}); // LONG_BINGET 60000
        out.write('e');
        out.write('.');
        List<?> l = (List<?>) both(out.toByteArray());
        assertEquals(List.of("early", "far"), l);
    }
}
