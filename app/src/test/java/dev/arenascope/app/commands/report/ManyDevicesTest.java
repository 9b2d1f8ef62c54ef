package dev.arenascope.app.commands.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.cli.CliRun;
import dev.arenascope.core.analysis.MemoryAnalysis;
import dev.arenascope.core.analysis.TraceAnalysis;
import dev.arenascope.core.trace.file.TraceFormats;
import dev.arenascope.core.trace.torch.PickleWriter;

/**
 * A small snapshot naming thousands of devices (issue 29 #12: a 2 MB pickle of 65,534 devices took
 * 1.9 GB and wrote a 24 MB HTML report). Every device is a memory with its one event, but the charts,
 * the HTML and Markdown tables and the session's device rows are capped, so the report's size and the
 * analysis' memory follow the events, not the devices times a chart.
 */
class ManyDevicesTest {
    private static final int DEVICES = 5_000;

    @TempDir
    Path dir;

    /** {@code device_traces}: one list per device, each holding the same memoized alloc entry. */
    private Path snapshot() throws Exception {
        Path p = dir.resolve("devices.pickle");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(p))) {
            PickleWriter w = new PickleWriter(out);
            w.dict().mark().str("segments").list().str("device_traces").list().mark();
            w.list().mark().dict().mark().str("action").str("alloc").str("addr").integer(4096).str("size").integer(512)
                    .str("stream").integer(0).str("time_us").integer(1).str("frames").list().setItems();
            int entry = w.memoize();
            w.appends();
            for (int d = 1; d < DEVICES; d++) {
                w.list().mark().get(entry).appends();
            }
            w.appends().setItems().stop();
        }
        return p;
    }

    @Test
    void aSnapshotOfThousandsOfDevicesGivesAReportOfBoundedSize() throws Exception {
        Path p = snapshot();
        assertTrue(Files.size(p) < 64 * 1024, "a small file: " + Files.size(p));
        Path html = dir.resolve("r.html");
        CliRun r = CliRun.of("report", p.toString(), "--out", html.toString());
        assertEquals(0, r.code(), r.err());
        long size = Files.size(html);
        assertTrue(size < 400_000, "HTML of " + size + " bytes for " + DEVICES + " devices");
        String text = Files.readString(html);
        assertTrue(text.contains("the 256 memories with the largest footprints; " + (DEVICES - 256) + " more"), "the cap is said");
        assertTrue(text.contains((DEVICES - 256) + " more (" + DEVICES + " in all"), "the device rows are capped and said");
        Path md = dir.resolve("r.md");
        assertEquals(0, CliRun.of("report", p.toString(), "--out", md.toString()).code());
        assertTrue(Files.size(md) < 300_000, "Markdown of " + Files.size(md) + " bytes");
        // the JSON report and stats still list every memory
        JsonNode json = new ObjectMapper().readTree(CliRun.of("report", p.toString(), "--format", "json").out());
        assertEquals(DEVICES, json.get("trace").get("memories").size());
        assertEquals(DEVICES, new ObjectMapper().readTree(CliRun.of("stats", p.toString()).out()).get("memories").size());
    }

    @Test
    void onlyTheLargestMemoriesGetChartBuckets() throws Exception {
        TraceAnalysis a = TraceAnalysis.of(TraceFormats.load(snapshot()).store());
        assertEquals(DEVICES, a.memories().size());
        long charted = a.memories().stream().filter(m -> m.occupancy().buckets() == TraceAnalysis.DEFAULT_BUCKETS).count();
        assertEquals(TraceAnalysis.MAX_CHARTED, charted);
        for (MemoryAnalysis m : a.memories()) {
            assertEquals(512, m.peakUsedBytes(), m.name()); // one bucket or many, the figures are the same
            assertEquals(512, m.occupancy().usedMax()[m.occupancy().buckets() - 1], m.name());
        }
    }
}
