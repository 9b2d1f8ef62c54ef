package dev.arenascope.app.commands.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.cli.CliRun;
import dev.arenascope.testsupport.Fixtures;

/** {@code arenascope report} on the real PyTorch fixtures: figures, formats, the regression gate and bad input. */
class ReportCommandTest {
    static final Path MAGMA = Fixtures.torch("cs336-a2-magma27.pickle");
    static final Path BCRAFTON = Fixtures.torch("cs336-a2-bcrafton.pickle");
    /** Peak live bytes on device 0, as the fixtures' README states them. */
    static final long MAGMA_PEAK = 13_927_831_556L;
    static final long BCRAFTON_PEAK = 3_853_700_352L;

    @TempDir
    Path dir;
    /** The last run of the command line: its exit code and both streams. */
    private CliRun last;

    private int run(String... args) {
        last = CliRun.of(args);
        return last.code();
    }

    private String out() {
        return last.out();
    }

    private String err() {
        return last.err();
    }

    @Test
    void fixturesReportTheirStatedPeaks() throws Exception {
        for (Object[] f : new Object[][] {{MAGMA, MAGMA_PEAK}, {BCRAFTON, BCRAFTON_PEAK}}) {
            Path trace = (Path) f[0];
            long peak = (Long) f[1];
            assertEquals(0, run("report", trace.toString(), "--format", "json"), err());
            JsonNode j = new ObjectMapper().readTree(out());
            JsonNode mem = j.at("/trace/memories/0");
            assertEquals("cuda:0", mem.get("name").asText());
            assertEquals("segmented", mem.get("kind").asText());
            assertEquals(peak, mem.get("peakUsedBytes").asLong(), trace.toString());
            long reserved = mem.at("/highWaterMarks/1/bytes").asLong();
            assertEquals("reserved", mem.at("/highWaterMarks/1/key").asText());
            assertTrue(reserved >= peak, "segments hold at least the live blocks");
            assertEquals(reserved, mem.get("footprintBytes").asLong());
            assertEquals(1.0 - (double) peak / reserved, mem.get("fragmentation").asDouble(), 1e-12);

            Path html = dir.resolve(trace.getFileName() + ".html");
            assertEquals(0, run("report", trace.toString(), "--out", html.toString()), err());
            String page = Files.readString(html);
            assertTrue(page.contains(String.format(Locale.ROOT, "%,d B", peak)), "exact peak in the summary");
            assertTrue(page.contains("<svg class=\"chart\""));
            assertTrue(err().contains("wrote " + html));

            Path md = dir.resolve(trace.getFileName() + ".md");
            assertEquals(0, run("report", trace.toString(), "--out", md.toString()), err());
            assertTrue(Files.readString(md).contains("| **cuda:0** · segmented · cuda:0 |"));
        }
    }

    @Test
    void gateExitsFourWhenAPeakGrowsPastIt() throws Exception {
        // magma27's run peaks at 3.6 times bcrafton's
        assertEquals(4, run("report", MAGMA.toString(), "--baseline", BCRAFTON.toString(), "--format", "json",
                "--fail-on-regression", "5"), err());
        JsonNode j = new ObjectMapper().readTree(out());
        assertTrue(j.at("/comparison/gateFailed").asBoolean());
        assertEquals(BCRAFTON_PEAK, j.at("/baseline/memories/0/peakUsedBytes").asLong());
        assertTrue(err().contains("report: regression: memories cuda:0 peak in use"), err());
        boolean sawPeak = false;
        for (JsonNode c : j.at("/comparison/regressions")) {
            if (c.get("figure").asText().equals("peakUsedBytes")) {
                assertEquals(MAGMA_PEAK - BCRAFTON_PEAK, c.get("delta").asLong());
                assertEquals((MAGMA_PEAK - BCRAFTON_PEAK) * 100.0 / BCRAFTON_PEAK, c.get("deltaPct").asDouble(), 1e-9);
                assertTrue(c.get("failsGate").asBoolean());
                sawPeak = true;
            }
        }
        assertTrue(sawPeak);
        // a gate above the growth passes; the other way round is an improvement
        assertEquals(0, run("report", MAGMA.toString(), "--baseline", BCRAFTON.toString(), "--format", "md",
                "--fail-on-regression", "300%"), err());
        assertTrue(out().contains("**Gate passed:**"));
        assertEquals(0, run("report", BCRAFTON.toString(), "--baseline", MAGMA.toString(), "--format", "md",
                "--fail-on-regression", "0"), err());
        assertTrue(out().contains("## Improvements"));
        // without a gate a regression does not change the exit code
        assertEquals(0, run("report", MAGMA.toString(), "--baseline", BCRAFTON.toString(), "--format", "html"), err());
        assertTrue(out().contains("Regressions"));
    }

    @Test
    void readsEveryTraceFormat() throws Exception {
        Path astrace = dir.resolve("magma.astrace");
        Path jsonl = dir.resolve("magma.jsonl");
        assertEquals(0, run("convert", MAGMA.toString(), astrace.toString()), err());
        assertEquals(0, run("convert", MAGMA.toString(), jsonl.toString()), err());
        for (Path p : new Path[] {astrace, jsonl}) {
            assertEquals(0, run("report", p.toString(), "--format", "json"), err());
            JsonNode j = new ObjectMapper().readTree(out());
            assertEquals(MAGMA_PEAK, j.at("/trace/memories/0/peakUsedBytes").asLong(), p.toString());
        }
        // a native trace against the pickle it came from: nothing changed, the gate passes at 0%
        assertEquals(0, run("report", astrace.toString(), "--baseline", MAGMA.toString(), "--format", "json",
                "--fail-on-regression", "0"), err());
        JsonNode j = new ObjectMapper().readTree(out());
        assertEquals(0, j.at("/comparison/regressions").size(), out());
        // a truncated native trace: reported from what was recovered (or refused when nothing was), exit 2, one line
        byte[] whole = Files.readAllBytes(astrace);
        Path cut = dir.resolve("cut.astrace");
        Files.write(cut, Arrays.copyOf(whole, whole.length * 2 / 3));
        assertEquals(2, run("report", cut.toString(), "--format", "json"), err());
        assertEquals(1, err().lines().count(), err());
        assertTrue(err().startsWith("arenascope report: " + cut + " at byte "), err());
    }

    @Test
    void aDamagedTraceIsReportedFromWhatWasRecoveredAndExitsTwo() throws Exception {
        Path jsonl = dir.resolve("magma.jsonl");
        assertEquals(0, run("convert", MAGMA.toString(), jsonl.toString()), err());
        long lines = Files.readAllLines(jsonl).size();
        Files.writeString(jsonl, "this line is not JSON\n", StandardOpenOption.APPEND);
        // stats and convert: the sound part, then one line and exit 2; report does the same
        assertEquals(2, run("stats", jsonl.toString()), err());
        String statsLine = err().strip();
        assertEquals(2, run("report", jsonl.toString(), "--format", "json"), err());
        JsonNode j = new ObjectMapper().readTree(out());
        assertEquals(MAGMA_PEAK, j.at("/trace/memories/0/peakUsedBytes").asLong(), "the report covers what was recovered");
        assertEquals(1, err().lines().count(), err());
        assertEquals(statsLine.replace("arenascope stats: ", "arenascope report: ") + "; the report covers what was recovered", err().strip());
        assertTrue(err().contains(jsonl + ":" + (lines + 1) + ": not valid JSON"), err());
        // as the baseline too, and it comes before the gate's exit 4
        assertEquals(2, run("report", MAGMA.toString(), "--baseline", jsonl.toString(), "--format", "md",
                "--fail-on-regression", "0"), err());
        assertTrue(err().lines().anyMatch(l -> l.startsWith("arenascope report: " + jsonl + ":")), err());
        // written to a file: the file is there, then the line
        Path html = dir.resolve("damaged.html");
        assertEquals(2, run("report", jsonl.toString(), "--out", html.toString()), err());
        assertTrue(Files.size(html) > 1000, "report written");
    }

    @Test
    void aLoneSurrogateInTheSessionNameAndHugeLossesStillReport() throws Exception {
        Path f = dir.resolve("odd.jsonl");
        Files.writeString(f, String.join("\n",
                "{\"type\":\"session\",\"name\":\"odd \\ud800 name\"}",
                "{\"type\":\"memory\",\"id\":0,\"name\":\"m\",\"kind\":\"POOL\",\"device\":\"host\",\"capacity\":0}",
                "{\"t\":1,\"kind\":\"ALLOC\",\"mem\":0,\"b\":16,\"used\":16}",
                "{\"type\":\"loss\",\"count\":9223372036854775807}",
                "{\"type\":\"loss\",\"count\":9223372036854775807}") + "\n");
        for (String format : new String[] {"html", "md", "json"}) {
            Path target = dir.resolve("odd." + format);
            assertEquals(0, run("report", f.toString(), "--format", format, "--out", target.toString()), err());
            assertTrue(Files.size(target) > 0, format);
        }
        assertEquals(0, run("stats", f.toString()), err());
        assertEquals(Long.MAX_VALUE, new ObjectMapper().readTree(out()).get("lost_events").asLong(), "held at 2^63-1, never -2: " + out());
    }

    @Test
    void badInputExitsTwoWithOneLine() throws Exception {
        Path garbage = dir.resolve("broken.pickle");
        Files.write(garbage, new byte[] {(byte) 0x80, 4, (byte) 0x95, 1, 2, 3});
        String[][] cases = {
                {"report"},
                {"report", MAGMA.toString(), "--format", "pdf"},
                {"report", MAGMA.toString(), "--fail-on-regression", "5"},
                {"report", MAGMA.toString(), "--baseline", BCRAFTON.toString(), "--fail-on-regression", "-3"},
                {"report", MAGMA.toString(), "--baseline", BCRAFTON.toString(), "--fail-on-regression", "lots"},
                {"report", dir.resolve("missing.pickle").toString()},
                {"report", garbage.toString()},
                {"report", MAGMA.toString(), "--baseline", garbage.toString()},
                {"report", Path.of("pom.xml").toAbsolutePath().toString()},
                {"report", MAGMA.toString(), "--colour", "red"},
                // two traces are a job (issue 30, docs/guide/jobs.md); comparing one with a baseline inside a job is refused
                {"report", MAGMA.toString(), BCRAFTON.toString(), "--baseline", BCRAFTON.toString()},
                {"report", MAGMA.toString(), "--stretch-baseline"},
        };
        for (String[] c : cases) {
            assertEquals(2, run(c), String.join(" ", c) + " -> " + err());
            assertEquals(1, err().lines().count(), err());
            assertTrue(err().startsWith("arenascope report: "), err());
            assertFalse(err().contains("Exception"), err());
        }
        assertTrue(run("report", garbage.toString()) == 2 && err().contains("broken.pickle"), err());
        Path target = dir.resolve("keep.json");
        Files.writeString(target, "previous");
        assertEquals(2, run("report", garbage.toString(), "--out", target.toString(), "--force"));
        assertEquals("previous", Files.readString(target), "a failed report leaves the old file alone");
    }

    @Test
    void helpNamesTheOptionsAndExitCodes() {
        assertEquals(0, run("report", "--help"));
        for (String s : new String[] {"--baseline", "--format", "--out", "--fail-on-regression", "--stretch-baseline", "4"}) {
            assertTrue(out().contains(s), s);
        }
        assertEquals(0, run("--help"));
        assertTrue(out().contains("report"));
    }

    @Test
    void whatIfSectionTakesTheRecordedPeakApartOnBothFixtures() throws Exception {
        for (Path trace : new Path[] {MAGMA, BCRAFTON}) {
            assertEquals(0, run("report", trace.toString(), "--whatif", "--format", "json"), err());
            JsonNode w = new ObjectMapper().readTree(out()).get("whatif");
            assertTrue(w.at("/check/exact").asBoolean(), trace + ": " + w.at("/check/line").asText());
            assertTrue(w.at("/check/line").asText().startsWith("model: exact"));
            JsonNode p = w.at("/recorded/at_peak");
            long reserved = p.get("reserved").asLong();
            assertEquals(w.at("/recorded/reserved_peak").asLong(), reserved, "the breakdown is of the recorded peak");
            assertEquals(reserved, p.get("live").asLong() + p.get("rounding").asLong() + p.get("split_remainders").asLong() + p.get("cached").asLong(),
                    "reserved = live + rounding + split remainders + cached");
            assertEquals(12, w.get("grid").size());
            long bestPeak = Long.MAX_VALUE;
            for (JsonNode g : w.get("grid")) {
                if (g.get("out_of_memory").isNull()) {
                    bestPeak = Math.min(bestPeak, g.get("reserved_peak").asLong());
                }
            }
            String best = w.get("best").asText();
            long named = -1;
            for (JsonNode g : w.get("grid")) {
                if (g.get("settings").asText().equals(best)) {
                    named = g.get("reserved_peak").asLong();
                }
            }
            assertEquals(bestPeak, named, "best names the grid's lowest reserved peak");
            long live = w.at("/floor/live_peak").asLong();
            assertTrue(live <= bestPeak && live <= reserved, "no allocator beats the live peak");
            assertTrue(w.at("/summary").asText().contains("the floor"));

            assertEquals(0, run("report", trace.toString(), "--whatif", "--format", "md"), err());
            String md = out();
            assertTrue(md.contains("## Caching allocator what-if (device 0)"), md);
            assertTrue(md.contains("| **recorded (the file)** |"));
            assertTrue(md.contains("| **floor: live peak** |"));
            Path html = dir.resolve(trace.getFileName() + ".whatif.html");
            assertEquals(0, run("report", trace.toString(), "--whatif", "--out", html.toString()), err());
            assertTrue(Files.readString(html).contains("<section id=\"whatif\">"));
        }
    }

    @Test
    void whatIfIsAskedForAndNeedsASnapshot() throws Exception {
        assertEquals(0, run("report", MAGMA.toString(), "--format", "md"), err());
        assertFalse(out().contains("what-if"), "not without --whatif");
        Path jsonl = dir.resolve("t.jsonl");
        assertEquals(0, run("convert", MAGMA.toString(), jsonl.toString()), err());
        assertEquals(2, run("report", jsonl.toString(), "--whatif"));
        assertTrue(err().contains("--whatif needs a PyTorch memory snapshot"), err());
        assertEquals(1, err().strip().lines().count(), err());
        assertEquals(2, run("report", MAGMA.toString(), "--floor-time", "1"));
        assertTrue(err().contains("go with --whatif"), err());
    }
}
