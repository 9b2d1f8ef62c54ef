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
import dev.arenascope.core.trace.EventKind;
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
    void handWrittenFixtureWithDefaultsReads() throws Exception {
        Path f = dir.resolve("fixture.jsonl");
        Files.writeString(f, """
                {"type":"memory","id":0,"name":"frame","kind":"ARENA","device":"host","capacity":4096}
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
