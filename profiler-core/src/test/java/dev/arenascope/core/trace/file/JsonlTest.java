package dev.arenascope.core.trace.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.SitedTrace;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.store.EventStore;

class JsonlTest {
    @TempDir
    Path dir;

    @Test
    void syntheticStreamRoundTripsThroughJsonl() throws Exception {
        EventStore src = new EventStore();
        SyntheticTrace.write(8, 100_000, src);
        src.onLoss(3);
        Path f = dir.resolve("t.jsonl");
        src.replayTo(new JsonlWriter(f));
        LoadedTrace back = JsonlReader.load(f);
        assertFalse(back.report().damaged(), back.report().summary());
        TraceAssertions.assertSameTrace(src, back.store());
    }

    @Test
    void sitesFramesAndCategoriesRoundTripThroughJsonl() throws Exception {
        EventStore src = SitedTrace.store(3, 20_000);
        Path f = dir.resolve("s.jsonl");
        src.replayTo(new JsonlWriter(f));
        LoadedTrace back = JsonlReader.load(f);
        assertFalse(back.report().damaged(), back.report().summary());
        TraceAssertions.assertSameTrace(src, back.store());
        assertTrue(src.hasSites());
        assertEquals(src.stackNodeCount(), back.store().stackNodeCount());
        for (long i = 0; i < src.eventCount(); i += 7) {
            assertEquals(src.event(i), back.store().event(i));
            assertEquals(src.stack(src.event(i).site()), back.store().stack(back.store().event(i).site()));
        }
    }

    @Test
    void siteRecordsThatBreakTheRulesAreNamedByLine() throws Exception {
        Path f = dir.resolve("sites.jsonl");
        Files.writeString(f, String.join("\n",
                "{\"type\":\"memory\",\"id\":0,\"name\":\"m\",\"kind\":\"SEGMENTED\",\"device\":\"d\",\"capacity\":0}",
                "{\"type\":\"frame\",\"id\":0,\"function\":\"main\",\"file\":\"a.py\",\"line\":3}",
                "{\"type\":\"frame\",\"id\":5,\"function\":\"skips\",\"file\":\"a.py\",\"line\":3}",
                "{\"type\":\"stack\",\"id\":0,\"frame\":0,\"parent\":-1}",
                "{\"type\":\"stack\",\"id\":1,\"frame\":9,\"parent\":0}",
                "{\"type\":\"stack\",\"id\":1,\"frame\":0,\"parent\":1}",
                "{\"type\":\"frame\",\"id\":1,\"file\":\"a.py\"}",
                "{\"t\":1,\"kind\":\"ALLOC\",\"mem\":0,\"b\":16,\"used\":16,\"site\":0}",
                "{\"t\":2,\"kind\":\"ALLOC\",\"mem\":0,\"a\":16,\"b\":16,\"used\":32,\"site\":7}",
                "{\"t\":3,\"kind\":\"ALLOC\",\"mem\":0,\"a\":32,\"b\":16,\"used\":48,\"cat\":4}",
                "{\"t\":4,\"kind\":\"ALLOC\",\"mem\":0,\"a\":48,\"b\":16,\"used\":64,\"site\":-2}",
                ""));
        LoadedTrace t = JsonlReader.load(f);
        String all = String.join("\n", t.report().problems());
        assertTrue(all.contains("sites.jsonl:3: frame 5 announced before frame 1"), all);
        assertTrue(all.contains("sites.jsonl:5: stack node 1 names frame 9"), all);
        assertTrue(all.contains("sites.jsonl:6: stack 1 has parent 1"), all);
        assertTrue(all.contains("sites.jsonl:7: frame line needs a 'function'"), all);
        assertTrue(all.contains("sites.jsonl:9: stack 7 is not declared"), all);
        assertTrue(all.contains("sites.jsonl:10: string 4 is not declared"), all);
        assertTrue(all.contains("sites.jsonl:11: site or cat out of range"), all);
        assertEquals(1, t.store().eventCount());
        assertEquals("main", t.store().stack(t.store().event(0).site()).getFirst().function());
    }

    @Test
    void handWrittenFixtureWithDefaultsReads() throws Exception {
        Path f = dir.resolve("fixture.jsonl");
        Files.writeString(f, """
                {"type":"memory","id":0,"name":"frame","kind":"ARENA","device":"host","capacity":4096}
                {"type":"string","id":0,"value":"frame 1 done"}
                {"t":10,"kind":"ALLOC","mem":0,"b":256,"c":200,"used":256}

                {"t":20,"kind":"MARKER","ref":0}
                """);
        LoadedTrace t = JsonlReader.load(f);
        assertFalse(t.report().damaged(), t.report().summary());
        assertEquals(2, t.store().eventCount());
        assertEquals(new Event(10, EventKind.ALLOC, 0, 0, 0, 0, 256, 200, 256, 0, -1, -1), t.store().event(0));
        assertEquals(new Event(20, EventKind.MARKER, 0, -1, 0, 0, 0, 0, 0, 0, 0, -1), t.store().event(1));
        assertEquals(256, t.store().peakUsed(0));
        assertEquals("fixture.jsonl", t.store().session().name());
    }

    @Test
    void badLinesAreSkippedAndNamedByLine() throws Exception {
        Path f = dir.resolve("bad.jsonl");
        List<String> lines = new ArrayList<>();
        lines.add("{\"type\":\"memory\",\"id\":0,\"name\":\"m\",\"kind\":\"POOL\",\"device\":\"host\",\"capacity\":0}");
        lines.add("{\"t\":1,\"kind\":\"ALLOC\",\"mem\":0,\"b\":16,\"used\":16}");
        lines.add("{\"t\":2,\"kind\":\"NOPE\",\"mem\":0}");                  // 3: unknown kind
        lines.add("{\"t\":3,\"kind\":\"ALLOC\",\"mem\":0,\"b\":16,\"used\"");  // 4: cut mid-object
        lines.add("{\"t\":4,\"kind\":\"ALLOC\",\"mem\":0,\"b\":16,\"used\":32}");
        lines.add("[1,2,3]");                                                // 6: not an object
        lines.add("{\"t\":\"five\",\"kind\":\"FREE\"}");                     // 7: t is not a number
        lines.add("{\"t\":6,\"kind\":\"FREE\",\"mem\":99999999999}");        // 8: memory out of range
        lines.add("{\"hello\":\"world\"}");                                  // 9: not an event
        lines.add("{\"t\":7,\"kind\":\"FREE\",\"mem\":0,\"b\":16,\"used\":16}");
        lines.add("{\"t\":8,\"kind\":\"FREE\",\"mem\":0,\"b\":16,\"used\":0,");  // 11: cut at end of file
        Files.writeString(f, String.join("\n", lines));
        LoadedTrace t = JsonlReader.load(f);
        assertEquals(3, t.store().eventCount());
        assertEquals(List.of(1L, 4L, 7L), List.of(t.store().event(0).timeNs(), t.store().event(1).timeNs(), t.store().event(2).timeNs()));
        ReadReport r = t.report();
        assertEquals(7, r.problemCount());
        assertEquals(f + ":3: unknown event kind 'NOPE'", r.problems().get(0));
        assertTrue(r.problems().get(1).startsWith(f + ":4: not valid JSON"), r.problems().get(1));
        assertEquals(f + ":6: not a JSON object ([)", r.problems().get(2));
        assertEquals(f + ":7: 't' is not an integer", r.problems().get(3));
        assertEquals(f + ":8: memory id 99999999999 out of range", r.problems().get(4));
        assertEquals(f + ":9: not an event: no 't' (and no 'type')", r.problems().get(5));
        assertTrue(r.problems().get(6).startsWith(f + ":11: not valid JSON"), r.problems().get(6));
    }

    @Test
    void aLineOfGarbageBetweenEventsIsNamedByItsOwnLineOnce() throws Exception {
        Path f = dir.resolve("garbage.jsonl");
        List<String> lines = new ArrayList<>();
        lines.add("{\"type\":\"memory\",\"id\":0,\"name\":\"m\",\"kind\":\"POOL\",\"device\":\"host\",\"capacity\":0}");
        lines.add("{\"t\":1,\"kind\":\"ALLOC\",\"mem\":0,\"b\":16,\"used\":16}");
        lines.add("garbage");                                                          // 3
        lines.add("{\"t\":4,\"kind\":\"ALLOC\",\"mem\":0,\"b\":16,\"used\":32}");
        lines.add("{\"t\":5,\"kind\":\"FREE\",\"mem\":0,\"b\":16,\"used\":16} junk");  // 5: the event stands, the junk does not
        lines.add("{\"t\":6,\"kind\":\"FREE\",\"mem\":0,\"b\":16,\"used\":0}");
        lines.add("");
        lines.add("%%%");                                                              // 8
        lines.add("{\"t\":9,\"kind\":\"ALLOC\",\"mem\":0,\"b\":16,\"used\":16}");
        Files.writeString(f, String.join("\n", lines) + "\n");
        LoadedTrace t = JsonlReader.load(f);
        List<Long> times = new ArrayList<>();
        for (int i = 0; i < t.store().eventCount(); i++) {
            times.add(t.store().event(i).timeNs());
        }
        assertEquals(List.of(1L, 4L, 5L, 6L, 9L), times);
        ReadReport r = t.report();
        assertEquals(3, r.problemCount(), r.problems().toString());
        assertTrue(r.problems().get(0).startsWith(f + ":3: not valid JSON"), r.problems().get(0));
        assertTrue(r.problems().get(1).startsWith(f + ":5: not valid JSON"), r.problems().get(1));
        assertTrue(r.problems().get(2).startsWith(f + ":8: not valid JSON"), r.problems().get(2));
    }

    /** Everything a read delivered, in order, as text: to compare reads line by line. */
    private static final class Transcript implements EventSink {
        final List<String> out = new ArrayList<>();

        @Override
        public void onSession(SessionInfo s) {
            out.add("session " + s.name());
        }

        @Override
        public void onMemory(MemoryInfo m) {
            out.add("memory " + m);
        }

        @Override
        public void onString(int id, String value) {
            out.add("string " + id + " " + value);
        }

        @Override
        public void onThread(int id, String name) {
            out.add("thread " + id + " " + name);
        }

        @Override
        public void onLoss(long count) {
            out.add("loss " + count);
        }

        @Override
        public void onEvents(EventBatch batch) {
            for (int i = 0; i < batch.size(); i++) {
                out.add(batch.get(i).toString());
            }
        }

        @Override
        public void onClose() {
            out.add("close");
        }
    }

    /** A file with every kind of trouble between sound lines, CRLF and lone CR line ends included. */
    private static String troubledFile() {
        StringBuilder sb = new StringBuilder();
        sb.append("{\"type\":\"session\",\"name\":\"s\",\"host\":\"h\",\"start_epoch_ns\":5,\"devices\":[],\"attributes\":{}}\n");
        sb.append("{\"type\":\"memory\",\"id\":0,\"name\":\"m\",\"kind\":\"ARENA\",\"device\":\"host\",\"capacity\":4096}\n");
        sb.append("{\"type\":\"string\",\"id\":0,\"value\":\"scope\"}\n");
        for (int i = 0; i < 40; i++) {
            sb.append("{\"t\":").append(10 * i).append(",\"kind\":\"ALLOC\",\"mem\":0,\"b\":16,\"used\":").append(16 * i).append("}\n");
            switch (i % 13) {
                case 1 -> sb.append("garbage\n");
                case 2 -> sb.append("{\"t\":1,\"kind\":\"ALLOC\",\n\"mem\":0}\n");                   // a value over two lines
                case 3 -> sb.append("{\"t\":2,\"kind\":\"FREE\",\"mem\":0} junk\n");                   // good value, then junk
                case 4 -> sb.append("[1,\n2]\n");                                                    // an array over two lines
                case 5 -> sb.append("{\"t\":3,\"kind\":\"MARKER\",\"ref\":7}\n");                   // undeclared string
                case 6 -> sb.append("{\"t\":4,\"kind\":\"FREE\",\"mem\":3}\r\n");                  // undeclared memory, CRLF
                case 7 -> sb.append("{\"t\":5,\"kind\":\"FREE\",\"mem\":0}\r{\"t\":6,\"kind\":\"NOPE\"}\n"); // lone CR
                case 8 -> sb.append("{\"name\":\"cut\n");                                             // a string cut by its line end
                case 9 -> sb.append("\n  \n{\"t\":7,\"kind\":\"MARKER\",\"ref\":0} {\"t\":8,\"kind\":\"MARKER\"}\n");
                case 10 -> sb.append("{\"type\":\"session\",\"name\":\"again\"}\n");              // a second session
                case 11 -> sb.append("{\"type\":\"string\",\"id\":7,\"value\":\"late\"}\n");     // declares 7 from here on
                default -> { }
            }
        }
        sb.append("{\"t\":999,\"kind\":\"FREE\",\"mem\":0,\"b\":16");  // cut at the end of the file
        return sb.toString();
    }

    @Test
    void resultDoesNotDependOnChunksOrThreads() throws Exception {
        Path f = dir.resolve("troubled.jsonl");
        Files.writeString(f, troubledFile());
        Transcript whole = new Transcript();
        ReadReport ref = JsonlReader.read(f, whole, 1 << 20, 0);
        assertTrue(ref.problemCount() > 20, ref.problems().toString());
        assertTrue(ref.events() > 40, ref.summary());
        for (int chunk : new int[] {1, 2, 3, 5, 8, 13, 29, 64, 100, 333, 1000}) {
            for (int workers : new int[] {0, 3}) {
                Transcript t = new Transcript();
                ReadReport r = JsonlReader.read(f, t, chunk, workers);
                String where = "chunk " + chunk + ", workers " + workers;
                assertEquals(whole.out, t.out, where);
                assertEquals(ref, r, where);
            }
        }
    }

    /** A small sound JSONL file: a synthetic trace written by the writer. */
    private Path writeSample() throws Exception {
        Path f = dir.resolve("sample.jsonl");
        if (!Files.exists(f)) {
            EventStore src = new EventStore();
            SyntheticTrace.write(2, 200, src);
            src.replayTo(new JsonlWriter(f));
        }
        return f;
    }

    @Test
    void aLineNestedTooDeepOrANumberTooLongIsOneBadLineAndTheRestIsRead() throws Exception {
        String good = Files.readString(writeSample());
        List<String> lines = new ArrayList<>(good.lines().toList());
        int n = lines.size();
        lines.add(2, "[".repeat(1001));
        lines.add(4, "{\"t\":" + "9".repeat(1001) + ",\"kind\":\"MARKER\"}");
        Path f = dir.resolve("hostile.jsonl");
        Files.writeString(f, String.join("\n", lines) + "\n");
        for (int workers : new int[] {0, 2}) {
            Transcript t = new Transcript();
            ReadReport r = JsonlReader.read(f, t, 1 << 20, workers);
            assertEquals(2, r.problemCount(), r.problems().toString());
            assertEquals(f + ":3: not valid JSON (nested more than 1000 levels deep)", r.problems().get(0));
            assertEquals(f + ":5: not valid JSON (a number of more than 1000 digits)", r.problems().get(1));
            Transcript whole = new Transcript();
            JsonlReader.read(writeSample(), whole, 1 << 20, 0);
            assertEquals(whole.out, t.out, "every other line read, workers " + workers);
            assertEquals(n, r.parts(), "lines read soundly");
        }
    }

    @Test
    void problemsNameTheirLinesWhateverTheLineEnds() throws Exception {
        Path f = dir.resolve("troubled.jsonl");
        Files.writeString(f, troubledFile());
        ReadReport r = JsonlReader.read(f, new Transcript(), 1 << 20, 0);
        List<String> lines = troubledFile().lines().toList(); // \n, \r\n and a lone \r end a line, as for the reader
        assertEquals(f + ":6: not valid JSON (unknown word 'garbage')", r.problems().get(0));
        assertEquals("garbage", lines.get(5));
        assertEquals(f + ":8: not valid JSON (the line ends inside an object)", r.problems().get(1));
        assertEquals("{\"t\":1,\"kind\":\"ALLOC\",", lines.get(7));
        assertEquals(f + ":9: not a JSON object (a string)", r.problems().get(2)); // "mem":0} read alone
        assertEquals(f + ":9: not valid JSON (unexpected ':')", r.problems().get(3));
        assertEquals(f + ":11: not valid JSON (unknown word 'junk')", r.problems().get(4));
        assertEquals(f + ":13: not valid JSON (the line ends inside an array)", r.problems().get(5));
        assertEquals(f + ":14: not valid JSON (unexpected ']')", r.problems().get(6));
        assertEquals(f + ":16: string 7 is not declared (no \"string\" line with \"id\":7 before this MARKER event's 'ref')", r.problems().get(7));
        assertEquals("{\"t\":3,\"kind\":\"MARKER\",\"ref\":7}", lines.get(15));
    }

    @Test
    void eventsMustReferToMemoriesAndStringsDeclaredBeforeThem() throws Exception {
        Path f = dir.resolve("refs.jsonl");
        Files.writeString(f, """
                {"t":1,"kind":"ALLOC","mem":0,"b":16,"used":16}
                {"type":"memory","id":0,"name":"m","kind":"ARENA","device":"host","capacity":4096}
                {"t":2,"kind":"ALLOC","mem":0,"b":16,"used":16}
                {"t":3,"kind":"ALLOC","mem":1,"b":16,"used":16}
                {"t":4,"kind":"MARKER","ref":5}
                {"t":5,"kind":"ALLOC","mem":0,"b":16,"used":32,"ref":5}
                {"type":"string","id":5,"value":"float32[4]"}
                {"t":6,"kind":"ALLOC","mem":0,"b":16,"used":48,"ref":5}
                {"t":7,"kind":"MARKER","ref":5}
                {"t":8,"kind":"MARKER"}
                {"type":"memory","id":1,"name":"p","kind":"POOL","device":"host","capacity":0}
                {"t":9,"kind":"POOL_REQUEST","mem":1,"a":4096,"b":512,"c":500,"used":512,"aux":512,"ref":9,"ref2":120}
                """);
        LoadedTrace t = JsonlReader.load(f);
        List<Long> times = new ArrayList<>();
        for (int i = 0; i < t.store().eventCount(); i++) {
            times.add(t.store().event(i).timeNs());
        }
        assertEquals(List.of(2L, 6L, 7L, 8L, 9L), times); // a pool's ref is its bin, not a string
        ReadReport r = t.report();
        assertEquals(List.of(
                f + ":1: memory 0 is not declared (no \"memory\" line with \"id\":0 before this event)",
                f + ":4: memory 1 is not declared (no \"memory\" line with \"id\":1 before this event)",
                f + ":5: string 5 is not declared (no \"string\" line with \"id\":5 before this MARKER event's 'ref')",
                f + ":6: string 5 is not declared (no \"string\" line with \"id\":5 before this ALLOC event's 'ref')"), r.problems());
        assertEquals(8, r.parts(), "sound lines");
        assertEquals(5, r.events());
    }

    @Test
    void aLineLongerThanTheLimitIsOneProblemAndTheRestIsRead() throws Exception {
        Path f = dir.resolve("long.jsonl");
        StringBuilder sb = new StringBuilder();
        sb.append("{\"type\":\"memory\",\"id\":0,\"name\":\"m\",\"kind\":\"ARENA\",\"device\":\"host\",\"capacity\":4096}\n");
        sb.append("{\"t\":1,\"kind\":\"ALLOC\",\"mem\":0,\"b\":16,\"used\":16}\n");
        sb.append("{\"t\":2,\"kind\":\"ALLOC\",\"mem\":0,\"pad\":\"").append("x".repeat(JsonlReader.MAX_LINE)).append("\"}\n");
        sb.append("{\"t\":3,\"kind\":\"FREE\",\"mem\":0,\"b\":16}\n");
        Files.writeString(f, sb);
        for (int workers : new int[] {0, 2}) {
            Transcript tr = new Transcript();
            ReadReport r = JsonlReader.read(f, tr, 1 << 16, workers);
            assertEquals(List.of(f + ":3: line longer than 16 MiB"), r.problems());
            assertEquals(2, r.events());
            assertTrue(tr.out.get(tr.out.size() - 2).startsWith("Event[timeNs=3"), tr.out.toString());
        }
    }

    @Test
    void csvHasAHeaderAndOneRowPerEvent() throws Exception {
        EventStore src = new EventStore();
        SyntheticTrace.write(2, 5000, src);
        Path f = dir.resolve("t.csv");
        src.replayTo(new CsvWriter(f));
        List<String> rows = Files.readAllLines(f);
        assertEquals(CsvWriter.HEADER, rows.getFirst());
        assertEquals(5001, rows.size());
        Event e = src.event(10);
        String[] cols = rows.get(11).split(",");
        assertEquals(String.valueOf(e.timeNs()), cols[0]);
        assertEquals(e.kind().name(), cols[1]);
        assertEquals(src.memory(e.memory()).name(), cols[4]);
        assertEquals(String.valueOf(e.used()), cols[9]);
        assertEquals("\"a,\"\"b\"\"\"", CsvWriter.quote("a,\"b\""));
    }
}
