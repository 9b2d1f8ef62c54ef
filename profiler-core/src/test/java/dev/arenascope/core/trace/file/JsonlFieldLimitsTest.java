package dev.arenascope.core.trace.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.store.EventStore;

/**
 * Every field of a JSONL line at its limits and past them (issue 29 #11, the fuzz suite's new class):
 * each of ±2^63 and one past, 2^53 + 1, 2^62, -1, 0, fractions, exponents, strings, null, booleans and
 * containers, in every event field and every metadata field. Whatever the value, the reader neither
 * throws nor stops: the line is kept with exactly the value given, or it is one bad line named by its
 * number with the rest kept; a kept trace has no negative duration or gauge; and the file read whole
 * and read in small chunks on threads gives the same report.
 */
class JsonlFieldLimitsTest {
    @TempDir
    Path dir;

    static final List<String> VALUES = List.of("-9223372036854775808", "-9223372036854775807", "-4611686018427387904", "-1", "0", "1",
            "9007199254740993", "4611686018427387904", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
            "18446744073709551616", "1e30", "1.5", "-0", "0.0", "\"7\"", "null", "true", "[]", "{}");

    static final List<String> EVENT_FIELDS = List.of("t", "mem", "thread", "flags", "a", "b", "c", "used", "aux", "ref", "ref2",
            "site", "cat");

    private static final String HEADER = "{\"type\":\"memory\",\"id\":0,\"name\":\"m\",\"kind\":\"POOL\",\"capacity\":0}\n"
            + "{\"type\":\"string\",\"id\":0,\"value\":\"s\"}\n{\"type\":\"thread\",\"id\":0,\"name\":\"main\"}\n"
            + "{\"type\":\"frame\",\"id\":0,\"function\":\"f\",\"file\":\"f.py\",\"line\":1}\n"
            + "{\"type\":\"stack\",\"id\":0,\"frame\":0,\"parent\":-1}\n";
    private static final int HEADER_LINES = 5;
    private static final String SOUND = "{\"t\":5,\"kind\":\"ALLOC\",\"mem\":0,\"thread\":0,\"a\":128,\"b\":64,\"used\":128,\"aux\":128}\n";

    /** Reads {@code text}: returns the store, after the checks every variant must pass. */
    private EventStore check(String what, String text, int variantLine) throws Exception {
        Path p = Files.writeString(dir.resolve("limits.jsonl"), text);
        EventStore store = new EventStore("limits");
        ReadReport whole = JsonlReader.read(p, store);
        assertEquals(whole, JsonlReader.read(p, new EventStore("chunked"), 37, 2), what + ": read whole and in chunks");
        assertTrue(whole.problemCount() <= 1, what + ": " + whole.problems());
        if (whole.problemCount() == 1) {
            assertTrue(whole.problems().getFirst().contains(":" + variantLine + ": "), what + ": the bad line is named: " + whole.problems());
        }
        long sound = store.eventCount();
        assertTrue(sound >= 1, what + ": the sound line after it is kept");
        assertTrue(store.endNs() - store.startNs() >= 0, what + ": no negative duration");
        for (long i = 0; i < store.eventCount(); i++) {
            Event e = store.event(i);
            assertTrue(e.used() >= 0 && e.aux() >= 0, what + ": no negative gauge: " + e);
        }
        return store;
    }

    @Test
    void everyEventFieldAtItsLimitsIsKeptExactlyOrOneBadLine() throws Exception {
        int checked = 0;
        for (String field : EVENT_FIELDS) {
            for (String v : VALUES) {
                String line = "{\"t\":1,\"kind\":\"ALLOC\",\"mem\":0,\"thread\":0,\"a\":0,\"b\":64,\"used\":64,\"aux\":64}"
                        .replaceFirst("\"" + field + "\":[^,}]*", "\"" + field + "\":" + v);
                if (!line.contains("\"" + field + "\":")) {
                    line = line.substring(0, line.length() - 1) + ",\"" + field + "\":" + v + "}";
                }
                String what = field + "=" + v;
                EventStore store = check(what, HEADER + line + "\n" + SOUND, HEADER_LINES + 1);
                if (store.eventCount() == 2 && v.matches("-?\\d+") && List.of("a", "b", "used", "aux").contains(field)) {
                    Event e = store.event(0).timeNs() == 5 ? store.event(1) : store.event(0);
                    long got = switch (field) {
                        case "a" -> e.a();
                        case "b" -> e.b();
                        case "used" -> e.used();
                        default -> e.aux();
                    };
                    assertEquals(Long.parseLong(v), got, what + ": kept exactly as given");
                }
                checked++;
            }
        }
        assertEquals(EVENT_FIELDS.size() * VALUES.size(), checked);
    }

    @Test
    void everyMetadataFieldAtItsLimitsIsKeptOrOneBadLine() throws Exception {
        List<String> templates = List.of(
                "{\"type\":\"memory\",\"id\":V,\"name\":\"m2\",\"kind\":\"ARENA\",\"capacity\":0}",
                "{\"type\":\"memory\",\"id\":1,\"name\":\"m2\",\"kind\":\"ARENA\",\"capacity\":V}",
                "{\"type\":\"string\",\"id\":V,\"value\":\"x\"}",
                "{\"type\":\"thread\",\"id\":V,\"name\":\"other\"}",
                "{\"type\":\"loss\",\"count\":V}",
                "{\"type\":\"frame\",\"id\":V,\"function\":\"g\",\"file\":\"g.py\",\"line\":2}",
                "{\"type\":\"frame\",\"id\":1,\"function\":\"g\",\"file\":\"g.py\",\"line\":V}",
                "{\"type\":\"stack\",\"id\":V,\"frame\":0,\"parent\":-1}",
                "{\"type\":\"stack\",\"id\":1,\"frame\":V,\"parent\":-1}",
                "{\"type\":\"stack\",\"id\":1,\"frame\":0,\"parent\":V}");
        for (String t : templates) {
            for (String v : VALUES) {
                check(t.replace("V", v), HEADER + t.replace("V", v) + "\n" + SOUND, HEADER_LINES + 1);
            }
        }
    }
}
