package dev.arenascope.app.commands.sites;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.cli.CliRun;
import dev.arenascope.testsupport.Fixtures;

/** {@code arenascope sites} on the PyTorch fixtures, as a user runs it. */
class SitesCommandTest {
    static final long MAGMA27_PEAK = 13_927_831_556L;

    @TempDir
    Path dir;

    static Path torch(String name) {
        return Fixtures.torch(name);
    }

    private static JsonNode json(CliRun r) throws Exception {
        assertEquals(0, r.code(), r.err());
        return new ObjectMapper().readTree(r.out());
    }

    @Test
    void aSnapshotConvertedToAstraceAndJsonlAnswersTheSame() throws Exception {
        String pickle = torch("cs336-a2-magma27.pickle").toString();
        JsonNode want = json(CliRun.of("sites", pickle, "--at", "peak", "--format", "json"));
        for (String ext : new String[] {".astrace", ".jsonl"}) {
            Path f = dir.resolve("magma27" + ext);
            CliRun c = CliRun.of("convert", pickle, f.toString());
            assertEquals(0, c.code(), c.err());
            JsonNode got = json(CliRun.of("sites", f.toString(), "--at", "peak", "--format", "json"));
            assertEquals(MAGMA27_PEAK, got.get("total_bytes").asLong(), ext);
            assertEquals("stacks", got.get("source").asText(), ext + " keeps the stacks");
            assertEquals(want.get("sites"), got.get("sites"), ext + ": the same sites, bytes and frames");
        }
    }

    @Test
    void magma27AtThePeakAddsUpToThePeakAndNamesPythonFrames() throws Exception {
        JsonNode j = json(CliRun.of("sites", torch("cs336-a2-magma27.pickle").toString(), "--at", "peak", "--format", "json"));
        assertEquals(MAGMA27_PEAK, j.get("total_bytes").asLong());
        long sum = 0;
        long prev = Long.MAX_VALUE;
        for (JsonNode s : j.get("sites")) {
            sum += s.get("bytes").asLong();
            assertTrue(s.get("bytes").asLong() <= prev, "largest first");
            prev = s.get("bytes").asLong();
            for (JsonNode f : s.get("frames")) {
                assertFalse(f.has("internal"), "C++ internals are hidden unless asked: " + f);
            }
        }
        assertEquals(MAGMA27_PEAK, sum, "the sites' bytes add up to exactly the peak");
        assertEquals("stacks", j.get("source").asText());
        JsonNode top = j.get("sites").get(0).get("frames");
        assertTrue(top.size() > 0, "the top site has frames");
        assertTrue(top.get(0).get("file").asText().endsWith(".py"), "innermost shown frame is Python: " + top.get(0));
        assertTrue(top.get(0).get("line").asInt() > 0);
        assertFalse(top.get(0).get("function").asText().isEmpty());

        // this snapshot was recorded with Python stacks only; TorchSitesTest covers one with C++ frames
        JsonNode all = json(CliRun.of("sites", torch("cs336-a2-magma27.pickle").toString(), "--internal", "--format", "json"));
        assertEquals(MAGMA27_PEAK, all.get("total_bytes").asLong());
        assertFalse(all.get("internal_frames_hidden").asBoolean());
    }

    @Test
    void bcraftonAtThePeakAddsUpToItsPeak() throws Exception {
        Path f = torch("cs336-a2-bcrafton.pickle");
        CliRun stats = CliRun.of("stats", f.toString());
        JsonNode st = new ObjectMapper().readTree(stats.out());
        long peak = 0;
        for (JsonNode m : st.get("memories")) {
            peak = Math.max(peak, m.get("peak_bytes").asLong());
        }
        JsonNode j = json(CliRun.of("sites", f.toString(), "--format", "json"));
        assertEquals(peak, j.get("total_bytes").asLong());
        long sum = 0;
        for (JsonNode s : j.get("sites")) {
            sum += s.get("bytes").asLong();
        }
        assertEquals(peak, sum);
        // blocks live before the trace began carry no frames in this snapshot: they are one row named
        // so (a frame of that name and no file), never "(no site)" as if the program made them at 0
        JsonNode firstWithFrames = null;
        boolean older = false;
        for (JsonNode s : j.get("sites")) {
            assertTrue(!s.get("label").asText().equals("(no site)"), "no '(no site)' row");
            if (s.get("label").asText().equals(dev.arenascope.core.trace.Event.BEFORE_RECORDING)) {
                older = true;
                continue;
            }
            if (s.get("frames").size() > 0) {
                firstWithFrames = s;
                break;
            }
        }
        assertTrue(older, "the older blocks' row");
        assertTrue(firstWithFrames != null);
        assertTrue(firstWithFrames.get("frames").get(0).get("file").asText().endsWith(".py"));
        assertTrue(firstWithFrames.get("frames").get(0).get("function").asText().equals("step"), firstWithFrames.toString());
        // recorded with stacks="all": the C++ frames are there, marked, and shown when asked for
        JsonNode all = json(CliRun.of("sites", f.toString(), "--internal", "--format", "json"));
        assertEquals(peak, all.get("total_bytes").asLong());
        boolean sawInternal = false;
        for (JsonNode s : all.get("sites")) {
            for (JsonNode fr : s.get("frames")) {
                sawInternal |= fr.has("internal") && fr.get("internal").asBoolean();
            }
        }
        assertTrue(sawInternal, "--internal shows the C++ frames");
    }

    /**
     * flamegraph.pl's reading of a collapsed line: everything before the last run of spaces is the stack
     * (frames split on ';'), the rest a non-negative number; it skips lines that do not match.
     */
    private static final Pattern FLAMEGRAPH_LINE = Pattern.compile("^(.*)\\s+?(\\d+(?:\\.\\d*)?)$");

    @Test
    void foldedOutputIsWhatFlameGraphToolsReadAndWeighsTheTotal() throws Exception {
        Path f = torch("cs336-a2-magma27.pickle");
        CliRun r = CliRun.of("sites", f.toString(), "--format", "folded");
        assertEquals(0, r.code(), r.err());
        long sum = 0;
        int lines = 0;
        for (String line : r.out().split("\n", -1)) {
            if (line.isEmpty()) {
                continue;
            }
            lines++;
            Matcher m = FLAMEGRAPH_LINE.matcher(line);
            assertTrue(m.matches(), "flamegraph.pl would skip: " + line);
            String stack = m.group(1);
            assertFalse(stack.isBlank());
            for (String frame : stack.split(";", -1)) {
                assertFalse(frame.isEmpty(), "no empty frame in " + line);
            }
            assertFalse(line.contains("\t") || line.contains("\r"));
            sum += Long.parseLong(m.group(2));
        }
        assertTrue(lines > 1);
        assertEquals(MAGMA27_PEAK, sum, "weights add up to total_bytes");
    }

    @Test
    void textTreesCategoriesAndBaselineRun() throws Exception {
        String f = torch("cs336-a2-magma27.pickle").toString();
        CliRun text = CliRun.of("sites", f);
        assertEquals(0, text.code(), text.err());
        assertTrue(text.out().contains("live at the peak"), text.out());
        assertTrue(text.out().contains("13,927,831,556"), text.out());
        CliRun tree = CliRun.of("sites", f, "--bottom-up", "--top", "5");
        assertEquals(0, tree.code(), tree.err());
        assertTrue(tree.out().contains("bottom-up"));
        JsonNode cat = json(CliRun.of("sites", f, "--by", "category", "--format", "json"));
        assertEquals(MAGMA27_PEAK, cat.get("total_bytes").asLong());
        JsonNode diff = json(CliRun.of("sites", f, "--baseline", torch("cs336-a2-bcrafton.pickle").toString(), "--format", "json"));
        assertTrue(diff.get("diff").size() > 0);
        long deltas = 0;
        for (JsonNode e : diff.get("diff")) {
            deltas += e.get("delta_bytes").asLong();
        }
        assertEquals(MAGMA27_PEAK - diff.get("baseline").get("total_bytes").asLong(), deltas);
        JsonNode leaks = json(CliRun.of("sites", f, "--leaks", "--format", "json"));
        assertTrue(leaks.get("total_bytes").asLong() >= 0);
        JsonNode temps = json(CliRun.of("sites", f, "--temporary", "--shorter-than", "10ms", "--format", "json"));
        assertTrue(temps.get("total_count").asLong() >= 0);
    }

    @Test
    void badQuestionsAreOneLineAndExit2() {
        String f = torch("cs336-a2-magma27.pickle").toString();
        CliRun.of("sites", f, "--at", "100000s").isOneLineUsageError("sites", "outside the trace");
        CliRun.of("sites", f, "--memory", "cuda:9").isOneLineUsageError("sites", "cuda:9", "cuda:0");
        CliRun.of("sites", f, "--range", "5s..1s").isOneLineUsageError("sites", "reversed");
        CliRun.of("sites", f, "--at", "soon").isOneLineUsageError("sites", "--at");
        CliRun.of("sites", f, "--format", "xml").isOneLineUsageError("sites", "--format");
    }
}
