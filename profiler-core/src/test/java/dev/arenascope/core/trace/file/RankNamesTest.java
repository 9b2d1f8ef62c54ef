package dev.arenascope.core.trace.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

/** Rank names from the file names distributed trainers write. */
class RankNamesTest {

    @Test
    void namesFollowTheRulesInOrder() {
        assertEquals("rank3", RankNames.name(Path.of("runs/snapshot_rank3.pickle"), null));
        assertEquals("rank12", RankNames.name(Path.of("oom_RANK12.pickle"), null), "any case");
        assertEquals("rank7", RankNames.name(Path.of("memory_7.pickle"), null));
        assertEquals("rank0", RankNames.name(Path.of("rank00_step_5.pickle"), null), "rank(\\d+) before _(\\d+).pickle; the number as a number");
        assertEquals("trace-a.astrace", RankNames.name(Path.of("trace-a.astrace"), null), "else the file name");
        assertEquals("memory_7.jsonl", RankNames.name(Path.of("memory_7.jsonl"), null), "_N only before .pickle");
        assertEquals("rank5", RankNames.name(Path.of("node-5.astrace"), RankNames.pattern("node-(\\d+)")));
        assertEquals("worker", RankNames.name(Path.of("worker.pickle"), RankNames.pattern("^[a-z]+")), "no group: the whole match");
        assertEquals("rank2", RankNames.name(Path.of("snapshot_rank2.pickle"), RankNames.pattern("node-(\\d+)")), "a pattern that misses falls back");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RankNames.pattern("rank("));
        assertTrue(e.getMessage().contains("rank pattern 'rank('"), e.getMessage());
    }

    @Test
    void membersComeInRankOrderAndDuplicatesAreToldApart() {
        List<JobMember> m = RankNames.members(List.of(Path.of("b/snapshot_rank10.pickle"), Path.of("b/snapshot_rank9.pickle"),
                Path.of("z.astrace"), Path.of("b/oom_rank9.pickle"), Path.of("a.jsonl")), null);
        assertEquals(List.of("rank9", "rank9#2", "rank10", "a.jsonl", "z.astrace"), m.stream().map(JobMember::rank).toList());
        assertEquals(List.of(9, 9, 10, -1, -1), m.stream().map(JobMember::number).toList());
        assertEquals(Path.of("b/oom_rank9.pickle"), m.get(0).file(), "the first in path order keeps the name");
        assertFalse(m.get(0).duplicate());
        assertTrue(m.get(1).duplicate());
    }
}
