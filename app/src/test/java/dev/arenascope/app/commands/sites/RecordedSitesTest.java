package dev.arenascope.app.commands.sites;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.arenascope.app.cli.CliRun;

/** A recorded {@code render} run asked who holds its arena: with stack capture, and without. */
class RecordedSitesTest {
    @TempDir
    Path dir;

    private Path record(String name, String... extra) {
        Path out = dir.resolve(name);
        String[] base = {"record", "render", "--device", "virtual", "--frames", "4", "--out", out.toString()};
        String[] args = Arrays.copyOf(base, base.length + extra.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        CliRun r = CliRun.of(args);
        assertEquals(0, r.code(), r.err());
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"stacks.astrace", "stacks.jsonl"})
    void withStacksTheSitesAreTheRenderersJavaMethods(String file) throws Exception {
        Path t = record(file, "--stacks"); // .astrace is record's default output: its stacks must survive too
        CliRun r = CliRun.of("sites", t.toString(), "--format", "json");
        assertEquals(0, r.code(), r.err());
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertEquals("stacks", j.get("source").asText());
        long sum = 0;
        boolean renderer = false;
        for (JsonNode s : j.get("sites")) {
            sum += s.get("bytes").asLong();
            for (JsonNode f : s.get("frames")) {
                String fn = f.get("function").asText();
                renderer |= fn.startsWith("RenderWorkload.") && f.get("file").asText().equals("RenderWorkload.java")
                        && f.get("line").asInt() > 0;
                assertTrue(!fn.startsWith("ManualMemory."), "the profiler's own frames are left out: " + fn);
            }
        }
        assertTrue(renderer, "a site names the render workload's methods: " + r.out());
        assertEquals(j.get("total_bytes").asLong(), sum);
        CliRun text = CliRun.of("sites", t.toString(), "--top-down");
        assertEquals(0, text.code(), text.err());
        assertTrue(text.out().contains("RenderWorkload."), text.out());
    }

    @Test
    void withoutStacksTheSitesAreScopesAndTheAnswerSaysSo() throws Exception {
        Path t = record("plain.astrace");
        CliRun r = CliRun.of("sites", t.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("no allocation carries a call stack: sites are the scopes"), r.out());
        JsonNode j = new ObjectMapper().readTree(CliRun.of("sites", t.toString(), "--format", "json").out());
        assertEquals("scopes", j.get("source").asText());
        assertTrue(j.get("sites").get(0).get("frames").size() > 0, "scope names as frames");
    }

    @Test
    void sampledStacksAreReportedAsSampled() throws Exception {
        Path t = record("sampled.astrace", "--stacks", "--sample-every", "4");
        CliRun r = CliRun.of("sites", t.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("stacks sampled (one allocation in 4)"), r.out());
        CliRun.of("record", "render", "--sample-every", "4").isOneLineUsageError("record", "--stacks");
    }
}
