package dev.arenascope.app.commands.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.cli.CliRun;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MetaRecord;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.codec.ChunkCodec;
import dev.arenascope.core.trace.file.AstraceWriter;

/**
 * A corpus of small traces that claim far more than they hold (issue 19 #1 #2): string bombs, a flood
 * of identical events, many chunks that together claim too much, a chunk copied twice. Every command
 * that reads them answers with exit 0 or 2 and, on 2, one line naming the file and a byte offset,
 * never a stack trace; the worst one also runs in a JVM of 128 MiB, where an unbounded reader would
 * run out of memory.
 */
class TraceBombCorpusTest {
    @TempDir
    Path dir;

    private byte[] honestWithoutFooter() throws Exception {
        Path p = dir.resolve("honest.astrace");
        SyntheticTrace.write(3, 2_000, new AstraceWriter(p));
        byte[] f = Files.readAllBytes(p);
        int footer = (int) ByteBuffer.wrap(f, f.length - 16, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        return Arrays.copyOf(f, footer);
    }

    private static byte[] frame(List<MetaRecord> meta, EventBatch events) {
        try (ChunkCodec c = new ChunkCodec()) {
            return c.encodeFrame(meta, events, 0, events.size());
        }
    }

    private Path file(String name, byte[] head, byte[] frame, int times) throws Exception {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        o.write(head);
        for (int i = 0; i < times; i++) {
            o.write(frame);
        }
        Path p = dir.resolve(name);
        Files.write(p, o.toByteArray());
        return p;
    }

    private Map<String, Path> corpus() throws Exception {
        byte[] head = honestWithoutFooter();
        Map<String, Path> c = new LinkedHashMap<>();
        c.put("string bombs", stringBombs(head));
        EventBatch flood = new EventBatch(1 << 20);
        for (int i = 0; i < 1 << 20; i++) {
            flood.add(1, EventBatch.pack(EventKind.MARKER.code(), 0, -1), 1, 0, 0, 0, 0, 0, 0, 0);
        }
        c.put("marker flood", file("markers.astrace", head, frame(List.of(), flood), 200));
        c.put("long string", file("long.astrace", head,
                frame(List.of(new MetaRecord.Str(501, "y".repeat(2 << 20))), new EventBatch()), 3));
        byte[] copy = Arrays.copyOfRange(head, head.length - chunkLength(head), head.length);
        c.put("duplicated chunk", file("dup.astrace", head, copy, 2));
        return c;
    }

    /** 40 chunks of a few hundred bytes, each one 24 MiB string once decompressed. */
    private Path stringBombs(byte[] head) throws Exception {
        return file("strings.astrace", head, frame(List.of(new MetaRecord.Str(500, "x".repeat(24 << 20))), new EventBatch()), 40);
    }

    /** The length of the last frame of a file that ends with a whole frame (scans for the last "ASCK"). */
    private static int chunkLength(byte[] f) {
        for (int i = f.length - 36; i >= 0; i--) {
            if (f[i] == 'A' && f[i + 1] == 'S' && f[i + 2] == 'C' && f[i + 3] == 'K'
                    && i + 36 + ByteBuffer.wrap(f, i + 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt() == f.length) {
                return f.length - i;
            }
        }
        throw new AssertionError("no whole frame at the end");
    }

    @Test
    void everyReaderAnswersWithOneLineAndExitTwo() throws Exception {
        for (var e : corpus().entrySet()) {
            for (String cmd : List.of("stats", "report")) {
                List<String> args = new ArrayList<>(List.of(cmd, e.getValue().toString()));
                if (cmd.equals("report")) {
                    args.addAll(List.of("--out", dir.resolve("r.md").toString(), "--force")); // one file, replaced each time
                }
                CliRun r = CliRun.of(args.toArray(String[]::new));
                String what = e.getKey() + " / " + cmd + ": " + r.err();
                assertTrue(r.code() == 0 || r.code() == 2, what);
                assertEquals(2, r.code(), what); // every file here is damaged, and says so
                // report says first what it wrote from the events recovered; the problem is one line
                List<String> lines = r.err().lines().toList();
                assertEquals(1, lines.stream().filter(l -> l.contains("at byte ")).count(), what);
                assertTrue(lines.size() == 1 || lines.size() == 2 && lines.getFirst().startsWith("report: wrote "), what);
                assertTrue(lines.getLast().contains(e.getValue().toString()) && lines.getLast().contains("at byte "), what);
                assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), what);
            }
        }
    }

    @Test
    void theStringBombsReadInASmallHeap() throws Exception {
        Path bomb = stringBombs(honestWithoutFooter());
        CliRun r = CliRun.inChild(List.of("-Xmx128m"), 120, "stats", bomb.toString());
        String out = r.out() + r.err();
        assertEquals(2, r.code(), out);
        assertFalse(out.contains("OutOfMemoryError") || out.contains("\tat "), out);
        assertTrue(out.contains("decompression bomb"), out);
    }
}
