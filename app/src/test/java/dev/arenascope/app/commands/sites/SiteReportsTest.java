package dev.arenascope.app.commands.sites;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.arenascope.app.cli.CliRun;
import dev.arenascope.testsupport.Fixtures;

/** Reports with allocation sites: the top sites at the peak, by category, and per-site deltas against a baseline. */
class SiteReportsTest {
    @TempDir
    Path dir;

    @Test
    void aReportOfMagma27ShowsTheTopSitesAtThePeak() throws Exception {
        String f = Fixtures.torch("cs336-a2-magma27.pickle").toString();
        CliRun md = CliRun.of("report", f, "--format", "md");
        assertEquals(0, md.code(), md.err());
        assertTrue(md.out().contains("At the peak, by site: cuda:0"), md.out());
        assertTrue(md.out().contains("At the peak, by category: cuda:0"), md.out());
        assertTrue(md.out().contains("einsum (") && md.out().contains("functional.py:373)"), "the top site is named by its Python frame");
        CliRun html = CliRun.of("report", f, "--format", "html");
        assertEquals(0, html.code(), html.err());
        assertTrue(html.out().contains("At the peak, by site: cuda:0"));
        JsonNode j = new ObjectMapper().readTree(CliRun.of("report", f, "--format", "json").out());
        JsonNode sites = j.get("trace").get("sites").get(0);
        assertEquals(13_927_831_556L, sites.get("peakBytes").asLong());
        long sum = 0;
        for (JsonNode s : sites.get("bySite")) {
            sum += s.get("bytes").asLong();
        }
        assertEquals(13_927_831_556L, sum);
    }

    @Test
    void aBaselineReportOfTwoRecordingsListsPerSiteDeltas() throws Exception {
        Path small = dir.resolve("small.jsonl");
        Path big = dir.resolve("big.jsonl");
        for (Object[] run : new Object[][] {{small, "1000"}, {big, "6000"}}) {
            CliRun r = CliRun.of("record", "render", "--device", "virtual", "--frames", "4", "--stacks", "--triangles",
                    (String) run[1], "--max-triangles", "12000", "--out", run[0].toString());
            assertEquals(0, r.code(), r.err());
        }
        CliRun md = CliRun.of("report", big.toString(), "--baseline", small.toString(), "--format", "md");
        assertEquals(0, md.code(), md.err());
        assertTrue(md.out().contains("Site changes at the peak"), md.out());
        JsonNode j = new ObjectMapper().readTree(CliRun.of("report", big.toString(), "--baseline", small.toString(), "--format", "json").out());
        JsonNode changes = j.get("comparison").get("siteChanges");
        assertTrue(changes.size() > 0, j.get("comparison").toString());
        boolean moved = false;
        for (JsonNode s : changes.get(0).get("sites")) {
            moved |= s.get("deltaBytes").asLong() != 0;
            assertEquals(s.get("bytes").asLong() - s.get("baselineBytes").asLong(), s.get("deltaBytes").asLong());
        }
        assertTrue(moved, "more triangles: some site holds more at the peak");
        CliRun gated = CliRun.of("report", big.toString(), "--baseline", small.toString(), "--fail-on-regression", "1000");
        assertEquals(0, gated.code(), "the gate keeps its meaning: peaks within 1000% pass");
    }
}
