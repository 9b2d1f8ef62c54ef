package dev.arenascope.app.commands.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.cli.CliRun;
import dev.arenascope.core.trace.torch.SyntheticJob;
import dev.arenascope.testsupport.Fixtures;

/**
 * {@code stats}, {@code report} and {@code sites} on a job, as a user runs them, against the truth of
 * the job generator ({@link SyntheticJob}: a 6-stage pipeline, rank r holding 6 - r micro-batches, rank 0
 * with a site of its own and one out-of-memory entry) and on the two real PyTorch fixtures as a two-rank
 * job.
 */
class JobCommandsTest {
    static final SyntheticJob.Spec SPEC = new SyntheticJob.Spec(11, 6, 4, 6, 4, 3, 2, true);
    static final long MAGMA27_PEAK = 13_927_831_556L;
    static final long BCRAFTON_PEAK = 3_853_700_352L;

    @TempDir
    static Path shared;
    static Path job;
    static SyntheticJob.Truth truth;

    @TempDir
    Path dir;

    @BeforeAll
    static void generate() throws Exception {
        job = Files.createDirectory(shared.resolve("job"));
        truth = SyntheticJob.write(job, SPEC);
    }

    private static JsonNode json(CliRun r, int code) throws Exception {
        assertEquals(code, r.code(), r.err());
        return new ObjectMapper().readTree(r.out());
    }

    private static String rank(int r) {
        return "rank" + r;
    }

    @Test
    void statsOfAFolderIsTheRankTableOfTheGeneratorsTruth() throws Exception {
        JsonNode j = json(CliRun.of("stats", job.toString()), 0);
        assertEquals("", CliRun.of("stats", job.toString()).err());
        JsonNode ranks = j.get("ranks");
        assertEquals(SPEC.ranks(), ranks.size());
        for (int r = 0; r < SPEC.ranks(); r++) {
            SyntheticJob.RankTruth t = truth.rank(r);
            JsonNode row = ranks.get(r);
            assertEquals(rank(r), row.get("rank").asText());
            assertEquals(r, row.get("number").asInt());
            assertEquals("ok", row.get("status").asText());
            assertEquals(t.peakBytes(), row.get("peak_live_bytes").asLong(), "rank " + r);
            assertEquals(t.reservedPeak(), row.get("peak_reserved_bytes").asLong(), "rank " + r);
            assertEquals("ProfilerStep#" + t.peakStep(), row.get("step").asText(), "rank " + r);
            assertEquals("annotations", row.get("step_source").asText());
            assertEquals(t.outOfMemory(), row.get("out_of_memory").asInt());
            assertEquals(t.allocations() + t.initialBlocks(), row.get("allocations").asLong(), "trace allocs and the blocks live before it");
            assertEquals("cuda:0", row.get("memory").asText());
            assertTrue(row.get("top_site").get("bytes").asLong() > 0);
        }
        JsonNode jb = j.get("job");
        assertEquals(rank(truth.worstRank()), jb.get("worst_rank").asText());
        assertEquals(rank(truth.medianRank()), jb.get("median_rank").asText());
        long worst = truth.rank(truth.worstRank()).peakBytes();
        long median = truth.rank(truth.medianRank()).peakBytes();
        assertEquals(100.0 * (worst - median) / median, jb.get("imbalance_pct").asDouble(), 1e-3);
        JsonNode live = jb.get("columns").get("peak_live_bytes");
        assertEquals(worst, live.get("max").asLong());
        assertEquals(median, live.get("median").asLong());
        long min = truth.ranks().stream().mapToLong(SyntheticJob.RankTruth::peakBytes).min().orElseThrow();
        assertEquals(min, live.get("min").asLong());
        assertEquals(worst - min, live.get("max_minus_min").asLong());
        assertEquals(1, jb.get("columns").get("out_of_memory").get("max").asInt());
        assertEquals(6, jb.get("read").asInt());
        assertEquals(0, jb.get("failed").asInt());
    }

    @Test
    void severalFilesAndAGlobAreTheSameJob() throws Exception {
        JsonNode folder = json(CliRun.of("stats", job.toString()), 0);
        List<String> files = new ArrayList<>(List.of("stats"));
        for (int r = SPEC.ranks() - 1; r >= 0; r--) {
            files.add(job.resolve(SyntheticJob.fileName(r)).toString());
        }
        JsonNode listed = json(CliRun.of(files.toArray(String[]::new)), 0);
        JsonNode globbed = json(CliRun.of("stats", job + "/snapshot_rank*.pickle"), 0);
        for (JsonNode other : List.of(listed, globbed)) {
            assertEquals(folder.get("job"), other.get("job"));
            for (int r = 0; r < SPEC.ranks(); r++) {
                assertEquals(folder.get("ranks").get(r).get("peak_live_bytes"), other.get("ranks").get(r).get("peak_live_bytes"));
                assertEquals(rank(r), other.get("ranks").get(r).get("rank").asText(), "in rank order whatever the order given");
            }
        }
        CliRun none = CliRun.of("stats", job + "/nothing_*.pickle");
        none.isOneLineUsageError("stats", "nothing_*.pickle", "no trace file matches");
    }

    @Test
    void sitesOfTheWorstRankAgainstTheMedianFindTheRankSpecificSite() throws Exception {
        JsonNode j = json(CliRun.of("sites", job.toString(), "--rank", "WORST", "--baseline-rank", "MEDIAN", "--format", "json"), 0);
        assertEquals(truth.rank(truth.worstRank()).peakBytes(), j.get("total_bytes").asLong(), "the worst rank at its own peak");
        assertEquals(truth.rank(truth.medianRank()).peakBytes(), j.get("baseline").get("total_bytes").asLong(), "the median at its own");
        assertTrue(j.get("trace").asText().startsWith(rank(truth.worstRank()) + " (worst), snapshot_rank"), j.get("trace").asText());
        JsonNode top = j.get("diff").get(0);
        JsonNode inner = top.get("frames").get(0);
        assertEquals(truth.topDifferingSite().function(), inner.get("function").asText());
        assertEquals(truth.topDifferingSite().file(), inner.get("file").asText());
        assertEquals(truth.topDifferingSite().line(), inner.get("line").asInt());
        assertEquals(truth.topDifferingDelta(), top.get("delta_bytes").asLong());
        assertEquals("added", top.get("status").asText(), "a site only the worst rank has");
        // any two ranks by name or number; text output names both
        CliRun text = CliRun.of("sites", job.toString(), "--rank", "rank2", "--baseline-rank", "5");
        assertEquals(0, text.code(), text.err());
        assertTrue(text.out().startsWith("rank2, snapshot_rank2.pickle, memory cuda:0: live at the peak"), text.out());
        assertTrue(text.out().contains("against rank5, snapshot_rank5.pickle: "), text.out());
        CliRun nope = CliRun.of("sites", job.toString(), "--rank", "rank9");
        nope.isOneLineUsageError("sites", "--rank", "no rank named 'rank9'", "rank0, rank1");
    }

    @Test
    void reportGatesOnImbalanceAndPeakNamingTheRank() throws Exception {
        Path html = dir.resolve("job.html");
        CliRun gated = CliRun.of("report", job.toString(), "--fail-on-imbalance", "10%", "--out", html.toString());
        assertEquals(4, gated.code(), gated.err());
        List<String> lines = gated.err().lines().filter(l -> !l.startsWith("report: wrote")).toList();
        assertEquals(1, lines.size(), gated.err());
        assertTrue(lines.getFirst().startsWith("report: imbalance: rank0 peaks at "), lines.getFirst());
        assertTrue(lines.getFirst().contains("over the median") && lines.getFirst().contains(rank(truth.medianRank())), lines.getFirst());
        String page = Files.readString(html);
        assertEquals(SPEC.ranks(), page.split("<svg class=\"spark", -1).length - 1, "one sparkline per rank");
        assertTrue(page.contains("id=\"small-multiples\"") && page.contains("id=\"worst-vs-median\""));
        assertTrue(page.contains("embedding_lookup"), "the worst rank's own site in the comparison");
        assertTrue(page.contains("banner fail"));

        CliRun loose = CliRun.of("report", job.toString(), "--fail-on-imbalance", "1000", "--format", "md");
        assertEquals(0, loose.code(), loose.err());
        assertTrue(loose.out().contains("**Gates passed.**"));
        assertTrue(loose.out().contains("## Live bytes per rank") && loose.out().contains("█"), loose.out());

        long worst = truth.rank(0).peakBytes();
        CliRun peak = CliRun.of("report", job.toString(), "--fail-on-peak", String.valueOf(worst - 1), "--format", "json");
        assertEquals(4, peak.code(), peak.err());
        assertEquals(1, peak.err().lines().count(), peak.err());
        assertTrue(peak.err().startsWith("report: peak: rank0 peaks at "), peak.err());
        JsonNode j = new ObjectMapper().readTree(peak.out());
        assertEquals("arenascope.job-report/1", j.get("schema").asText());
        assertEquals("peak", j.get("gates").get("failed").get(0).get("gate").asText());
        assertEquals(SPEC.ranks(), j.get("ranks").size());
        assertEquals(truth.topDifferingSite().function(), j.get("worst_vs_median").get("diff").get(0).get("frames").get(0).get("function").asText());
        assertEquals(0, CliRun.of("report", job.toString(), "--fail-on-peak", String.valueOf(worst), "--format", "json").code());

        CliRun single = CliRun.of("report", job.resolve(SyntheticJob.fileName(0)).toString(), "--fail-on-imbalance", "10");
        single.isOneLineUsageError("report", "--fail-on-imbalance needs a job");
        CliRun singlePeak = CliRun.of("report", job.resolve(SyntheticJob.fileName(0)).toString(), "--fail-on-peak", "1MiB", "--format", "json");
        assertEquals(4, singlePeak.code(), singlePeak.err());
        assertTrue(singlePeak.err().startsWith("report: peak: snapshot_rank0.pickle cuda:0 peaks at"), singlePeak.err());
    }

    @Test
    void badMembersAreRowsWithTheirReasonAndTheOthersStillLoad() throws Exception {
        Path bad = Files.createDirectory(dir.resolve("bad"));
        for (int r = 0; r < 3; r++) {
            Files.copy(job.resolve(SyntheticJob.fileName(r)), bad.resolve(SyntheticJob.fileName(r)));
        }
        Files.writeString(bad.resolve("snapshot_rank3.pickle"), "not a pickle at all\n");
        byte[] whole = Files.readAllBytes(job.resolve(SyntheticJob.fileName(4)));
        Files.write(bad.resolve("snapshot_rank4.pickle"), Arrays.copyOf(whole, whole.length / 2));
        Files.writeString(bad.resolve("README.md"), "not a member: a folder takes trace files only\n");
        CliRun r = CliRun.of("stats", bad.toString(), bad.resolve("snapshot_rank5.pickle").toString());
        assertEquals(2, r.code(), r.err());
        JsonNode j = new ObjectMapper().readTree(r.out());
        JsonNode ranks = j.get("ranks");
        assertEquals(6, ranks.size());
        for (int k = 0; k < 3; k++) {
            assertEquals("ok", ranks.get(k).get("status").asText());
            assertEquals(truth.rank(k).peakBytes(), ranks.get(k).get("peak_live_bytes").asLong());
        }
        for (int k = 3; k < 6; k++) {
            assertEquals("failed", ranks.get(k).get("status").asText(), ranks.get(k).toString());
            assertTrue(ranks.get(k).get("failure").asText().contains("snapshot_rank" + k + ".pickle"), ranks.get(k).toString());
        }
        assertTrue(ranks.get(5).get("failure").asText().endsWith("no such file"));
        assertEquals("rank0", j.get("job").get("worst_rank").asText());
        assertEquals(3, j.get("job").get("failed").asInt());
        List<String> err = r.err().lines().toList();
        assertEquals(3, err.size(), r.err());
        assertTrue(err.stream().allMatch(l -> l.startsWith("arenascope stats: rank rank")), r.err());
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), r.err());
        // the report of the same job is written, then exits 2 (before any gate's 4)
        CliRun rep = CliRun.of("report", bad.toString(), "--fail-on-imbalance", "1", "--format", "md");
        assertEquals(2, rep.code(), rep.err());
        assertTrue(rep.out().contains("not read: "), rep.out());
    }

    @Test
    void twoFilesWithOneRankNameAreBothKeptAndToldApart() throws Exception {
        Path a = Files.createDirectories(dir.resolve("run-a"));
        Path b = Files.createDirectories(dir.resolve("run-b"));
        Files.copy(job.resolve(SyntheticJob.fileName(0)), a.resolve("snapshot_rank0.pickle"));
        Files.copy(job.resolve(SyntheticJob.fileName(1)), b.resolve("oom_rank0.pickle"));
        CliRun r = CliRun.of("stats", a.toString(), b.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode ranks = new ObjectMapper().readTree(r.out()).get("ranks");
        assertEquals("rank0", ranks.get(0).get("rank").asText());
        assertEquals("rank0#2", ranks.get(1).get("rank").asText());
        assertFalse(ranks.get(0).get("duplicate_name").asBoolean());
        assertTrue(ranks.get(1).get("duplicate_name").asBoolean());
        assertEquals(truth.rank(1).peakBytes(), ranks.get(1).get("peak_live_bytes").asLong());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains("oom_rank0.pickle names the same rank as ") && r.err().contains("as rank0#2"), r.err());
        CliRun s = CliRun.of("sites", a.toString(), b.toString(), "--rank", "rank0#2", "--baseline-rank", "rank0", "--format", "json");
        assertEquals(0, s.code(), s.err());
        assertEquals(truth.rank(1).peakBytes(), new ObjectMapper().readTree(s.out()).get("total_bytes").asLong());
    }

    @Test
    void theTwoRealSnapshotsAreATwoRankJob() throws Exception {
        Path torch = Fixtures.torchDir();
        JsonNode j = json(CliRun.of("stats", torch.resolve("cs336-a2-bcrafton.pickle").toString(), torch.resolve("cs336-a2-magma27.pickle").toString()), 0);
        JsonNode ranks = j.get("ranks");
        assertEquals(2, ranks.size());
        assertEquals("cs336-a2-bcrafton.pickle", ranks.get(0).get("rank").asText(), "no rank number in the names: the file names");
        assertEquals(BCRAFTON_PEAK, ranks.get(0).get("peak_live_bytes").asLong());
        assertEquals(MAGMA27_PEAK, ranks.get(1).get("peak_live_bytes").asLong());
        assertEquals("cs336-a2-magma27.pickle", j.get("job").get("worst_rank").asText());
        assertEquals("cs336-a2-bcrafton.pickle", j.get("job").get("median_rank").asText());
        assertEquals(MAGMA27_PEAK - BCRAFTON_PEAK, j.get("job").get("columns").get("peak_live_bytes").get("max_minus_min").asLong());

        JsonNode named = json(CliRun.of("stats", torch.toString(), "--rank-pattern", "a2-([a-z]+)"), 0);
        assertEquals("bcrafton", named.get("ranks").get(0).get("rank").asText());
        assertEquals("magma27".replaceAll("\\d", ""), named.get("ranks").get(1).get("rank").asText().replaceAll("\\d", ""));

        JsonNode s = json(CliRun.of("sites", torch.toString(), "--rank", "WORST", "--baseline-rank", "MEDIAN", "--format", "json"), 0);
        assertEquals(MAGMA27_PEAK, s.get("total_bytes").asLong());
        assertEquals(BCRAFTON_PEAK, s.get("baseline").get("total_bytes").asLong());
        long sum = 0;
        for (JsonNode d : s.get("diff")) {
            sum += d.get("delta_bytes").asLong();
        }
        assertEquals(MAGMA27_PEAK - BCRAFTON_PEAK, sum, "the site deltas add up to the difference of the peaks");

        CliRun md = CliRun.of("report", torch.toString(), "--format", "md");
        assertEquals(0, md.code(), md.err());
        assertTrue(md.out().contains("# Job memory report: 2 ranks"));
        CliRun bad = CliRun.of("stats", torch.toString(), "--rank-pattern", "a2-(");
        bad.isOneLineUsageError("stats", "--rank-pattern", "not a regular expression");
    }
}
