package dev.arenascope.app.commands.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.arenascope.app.cli.CliRun;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.file.AstraceReader;
import dev.arenascope.core.trace.file.AstraceWriter;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.trace.store.TraceStore;
import dev.arenascope.core.trace.torch.SyntheticSnapshot;
import dev.arenascope.core.format.TimeAxis;
import dev.arenascope.core.trace.file.TraceFormats;

class TraceCommandsTest {
    @TempDir
    Path dir;

    static CliRun cli(String... args) {
        return CliRun.of(args);
    }

    Path synthetic(long events) throws Exception {
        Path f = dir.resolve("in.astrace");
        SyntheticTrace.write(4, events, new AstraceWriter(f));
        return f;
    }

    @Test
    void convertGoesAroundTheFormatsLosslessly() throws Exception {
        Path a = synthetic(150_000);
        Path j = dir.resolve("out.jsonl");
        Path b = dir.resolve("back.astrace");
        Path c = dir.resolve("out.csv");
        CliRun r = cli("convert", a.toString(), j.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals("wrote " + j + ": 150000 events\n", r.out());
        assertEquals(0, cli("convert", j.toString(), b.toString()).code());
        assertEquals(0, cli("convert", b.toString(), c.toString()).code());
        TraceStore x = AstraceReader.load(a).store();
        TraceStore y = AstraceReader.load(b).store();
        assertEquals(x.eventCount(), y.eventCount());
        for (long i = 0; i < x.eventCount(); i += 101) {
            assertEquals(x.event(i), y.event(i));
        }
        assertEquals(x.memories(), y.memories());
        assertEquals(150_001, Files.readAllLines(c).size());
    }

    @Test
    void statsOfASnapshotWithoutTimestampsCountsEntriesNotTime() throws Exception {
        // a generated snapshot without time_us: placed on its entries' order, so its span is entries
        Path f = dir.resolve("untimed.pickle");
        SyntheticSnapshot.write(f, new SyntheticSnapshot.Spec(7, 2000, 100, 0, 0, 0, false, false));
        CliRun r = cli("stats", f.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode n = new ObjectMapper().readTree(r.out());
        assertEquals("entry_order", n.get("time_axis").asText());
        assertTrue(n.get("duration_ns").isNull(), "no time where there are no timestamps: " + n.get("duration_ns"));
        LoadedTrace t = TraceFormats.load(f);
        assertEquals((t.store().endNs() - t.store().startNs()) / TimeAxis.NS_PER_ENTRY, n.get("duration_entries").asLong());
        assertTrue(n.get("duration_entries").asLong() > 0);
    }

    @Test
    void statsPrintsTheSummaryKeys() throws Exception {
        Path a = synthetic(100_000);
        CliRun r = cli("stats", a.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode n = new ObjectMapper().readTree(r.out());
        LoadedTrace t = AstraceReader.load(a);
        assertEquals(100_000, n.get("events").asLong());
        assertEquals(t.store().endNs() - t.store().startNs(), n.get("duration_ns").asLong());
        assertEquals("time", n.get("time_axis").asText());
        assertFalse(n.has("duration_entries"));
        JsonNode mems = n.get("memories");
        assertEquals(3, mems.size());
        JsonNode arena = mems.get(0);
        assertEquals("frame", arena.get("name").asText());
        assertEquals("ARENA", arena.get("kind").asText());
        assertEquals("virtual", arena.get("device").asText());
        assertEquals(1L << 30, arena.get("capacity").asLong());
        assertEquals(t.store().peakUsed(0), arena.get("peak_bytes").asLong());
        assertFalse(arena.has("reserved_peak_bytes"));
        JsonNode pool = mems.get(1);
        assertEquals("POOL", pool.get("kind").asText());
        assertEquals(t.store().peakAux(1), pool.get("reserved_peak_bytes").asLong());
        assertTrue(pool.get("reserved_peak_bytes").asLong() >= pool.get("peak_bytes").asLong());
    }

    @Test
    void damagedAndUnknownInputsExitTwoWithOneLine() throws Exception {
        Path a = synthetic(200_000);
        byte[] all = Files.readAllBytes(a);
        Path cut = dir.resolve("cut.astrace");
        Files.write(cut, Arrays.copyOf(all, all.length / 2));
        Path out = dir.resolve("cut.jsonl");
        CliRun r = cli("convert", cut.toString(), out.toString());
        assertEquals(2, r.code());
        List<String> lines = r.err().lines().toList();
        assertEquals(1, lines.size(), r.err());
        assertTrue(lines.getFirst().startsWith("arenascope convert: " + cut + " at byte "), lines.getFirst());
        assertTrue(lines.getFirst().contains("recovered 65536 events in 1 chunks"), lines.getFirst());
        assertTrue(Files.size(out) > 0, "what was sound is written");

        CliRun s = cli("stats", cut.toString());
        assertEquals(2, s.code());
        assertEquals(65536, new ObjectMapper().readTree(s.out()).get("events").asLong());

        Path notTrace = dir.resolve("junk.astrace");
        Files.writeString(notTrace, "hello, this is not a trace at all");
        CliRun j = cli("stats", notTrace.toString());
        assertEquals(2, j.code());
        assertEquals("arenascope stats: " + notTrace + " at byte 0: not an .astrace file (wrong magic)\n", j.err());

        CliRun u = cli("convert", a.toString(), dir.resolve("x.bin").toString());
        assertEquals(2, u.code());
        assertTrue(u.err().contains("cannot write '.bin' files"), u.err());
        assertEquals(2, cli("convert", dir.resolve("missing.astrace").toString(), out.toString()).code());
        assertEquals(2, cli("convert", a.toString()).code());
        assertEquals(2, cli("stats").code());
    }
}
