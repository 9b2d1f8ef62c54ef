package dev.arenascope.core.trace.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.store.EventStore;

/**
 * JSON Lines as an attacker or an unlucky program writes them: a line Jackson would take for UTF-32,
 * numbers at their limits, a key given twice, a memory id reused for another kind, a stack chain
 * thousands deep, frame names of megabytes. Each is one bad line, named by its number; the rest is kept.
 */
class HostileJsonlTest {
    @TempDir
    Path dir;

    private static final String MEMORY = "{\"type\":\"memory\",\"id\":0,\"name\":\"m\",\"kind\":\"POOL\",\"capacity\":0}\n";

    private static String alloc(long t, long b, long used) {
        return "{\"t\":" + t + ",\"kind\":\"ALLOC\",\"mem\":0,\"a\":" + t * 64 + ",\"b\":" + b + ",\"used\":" + used + "}\n";
    }

    private record Read(ReadReport report, EventStore store) {}

    private Read read(byte[] content) throws Exception {
        Path f = dir.resolve("t" + System.nanoTime() + ".jsonl");
        Files.write(f, content);
        EventStore store = new EventStore("t");
        return new Read(JsonlReader.read(f, store), store);
    }

    private Read read(String content) throws Exception {
        return read(content.getBytes(StandardCharsets.UTF_8));
    }

    private static void badLine(Read r, int line, String what) {
        assertEquals(1, r.report().problemCount(), r.report().summary());
        String p = r.report().problems().getFirst();
        assertTrue(p.matches(".*\\.jsonl:" + line + ": .*"), p);
        assertTrue(p.contains(what), "expected '" + what + "' in " + p);
    }

    @Test
    void aLineJacksonWouldTakeForUtf32IsOneBadLineWhereverItIs() throws Exception {
        byte[] sniffed = {'{', 0, 0, 0, '\n'};
        for (int at = 0; at < 3; at++) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            List<String> lines = List.of(MEMORY, alloc(1, 64, 64), alloc(2, 64, 128));
            for (int i = 0; i < 3; i++) {
                if (i == at) {
                    b.write(sniffed);
                }
                b.write(lines.get(i).getBytes(StandardCharsets.UTF_8));
            }
            b.write("not json\n".getBytes(StandardCharsets.UTF_8)); // the fast pass restarts after this line
            b.write(sniffed);
            b.write(alloc(3, 64, 192).getBytes(StandardCharsets.UTF_8));
            Read r = read(b.toByteArray());
            assertEquals(3, r.report().problemCount(), r.report().summary());
            assertEquals(3, r.store().eventCount(), r.report().summary());
            assertEquals(192, r.store().peakUsed(0));
        }
    }

    @Test
    void timesThatWouldOverflowADurationAreRefused() throws Exception {
        Read r = read(MEMORY + alloc(1, 64, 64) + alloc(Long.MAX_VALUE - 5, 64, 128));
        badLine(r, 3, "'t' " + (Long.MAX_VALUE - 5) + " is out of range");
        r = read(MEMORY + alloc(Long.MIN_VALUE + 3, 64, 64) + alloc(1, 64, 128));
        badLine(r, 2, "is out of range");
        assertEquals(1, r.store().eventCount());
    }

    @Test
    void negativeSizesAndGaugesAreRefused() throws Exception {
        badLine(read(MEMORY + alloc(1, -4096, 0)), 2, "'b' is negative (-4096)");
        badLine(read(MEMORY + alloc(1, 64, -200)), 2, "gauge 'used' is negative");
        badLine(read(MEMORY + "{\"t\":1,\"kind\":\"RESERVE\",\"mem\":0,\"b\":64,\"aux\":-1}\n"), 2, "gauge 'aux' is negative");
    }

    @Test
    void aKeyGivenTwiceIsRefusedNotResolvedByWhicheverWins() throws Exception {
        Read r = read(MEMORY + alloc(1, 200, 200) + "{\"t\":2,\"kind\":\"ALLOC\",\"mem\":0,\"b\":64,\"used\":264,\"used\":0}\n");
        badLine(r, 3, "the key 'used' appears twice");
        assertEquals(200, r.store().peakUsed(0));
    }

    @Test
    void aMemoryIdDeclaredAgainWithAnotherKindIsRefused() throws Exception {
        Read r = read(MEMORY + alloc(1, 64, 64) + "{\"type\":\"memory\",\"id\":0,\"name\":\"m\",\"kind\":\"ARENA\",\"capacity\":0}\n");
        badLine(r, 3, "memory 0 declared again as ARENA (it is POOL)");
        assertEquals(MemoryKind.POOL, r.store().memories().getFirst().kind());
    }

    @Test
    void aStackChainDeeperThanTheBoundStopsAtIt() throws Exception {
        StringBuilder sb = new StringBuilder(MEMORY);
        sb.append("{\"type\":\"frame\",\"id\":0,\"function\":\"f\",\"file\":\"x.py\",\"line\":1}\n");
        int k = JsonlReader.MAX_STACK_DEPTH + 200;
        for (int i = 0; i < k; i++) {
            sb.append("{\"type\":\"stack\",\"id\":").append(i).append(",\"frame\":0,\"parent\":").append(i - 1).append("}\n");
        }
        Read r = read(sb.toString());
        assertEquals(200, r.report().problemCount(), r.report().summary());
        assertTrue(r.report().problems().getFirst().contains("stack " + JsonlReader.MAX_STACK_DEPTH + " is "
                + (JsonlReader.MAX_STACK_DEPTH + 1) + " frames deep, more than the " + JsonlReader.MAX_STACK_DEPTH), r.report().summary());
        assertEquals(JsonlReader.MAX_STACK_DEPTH, r.store().sites().nodeCount());
    }

    @Test
    void aFrameNameLongerThanTheBoundIsRefused() throws Exception {
        String name = "f".repeat(JsonlChunkParser.MAX_FRAME_TEXT + 1);
        Read r = read(MEMORY + "{\"type\":\"frame\",\"id\":0,\"function\":\"" + name + "\",\"file\":\"x.py\",\"line\":1}\n");
        badLine(r, 2, "longer than the 4096 characters a frame may have");
        assertFalse(r.report().summary().contains(name));
    }
}
