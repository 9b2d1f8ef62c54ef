package dev.arenascope.core.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.plan.PlanViolation.Kind;

class PlanValidatorTest {

    @Test
    void validPlanHasNoViolations() {
        assertEquals(List.of(), Plans.valid().validate());
    }

    @Test
    void tensorsSharingBytesButNotStepsAreFine() {
        MemoryPlan p = Plans.valid();
        assertEquals(p.getAllocation("a").binding().offset(), p.getAllocation("c").binding().offset());
        assertTrue(p.validate().isEmpty());
    }

    @Test
    void getAllocationNamesTheUnknownId() {
        UnknownTensorException e = assertThrows(UnknownTensorException.class, () -> Plans.valid().getAllocation("nope"));
        assertTrue(e.getMessage().contains("'nope'"), e.getMessage());
        assertEquals("nope", e.tensorId());
    }

    @Test
    void everyViolationOfADeliberatelyBrokenPlanIsReported() {
        MemoryPlan p = Plans.valid();
        // outside: b reaches past the 768-byte scratch arena
        p = Plans.with(p, "b", Plans.scratch(512, 512));
        // overlap: d shares bytes and steps with a
        p = Plans.with(p, "d", Plans.scratch(128, 64));
        // misaligned: e at offset 100 with alignment 64 (does not overlap anything: steps 3 only)
        p = Plans.with(p, "e", Plans.scratch(300, 8));
        // mixed sources: a staged constant in sram that claims another source
        p = Plans.with(p, "w_other", new TensorAllocation(64, new TensorBinding(TensorRole.CONSTANT, "sram", 0, "hbm")));
        Map<String, TensorLifetime> life = new LinkedHashMap<>(p.tensorLifetimes());
        life.put("d", new TensorLifetime(1, 1));
        life.put("e", new TensorLifetime(3, 3));
        // staged from writable: the persistent bank hbm as the source of a staged arena in sram2
        Map<String, MemoryBank> banks = new LinkedHashMap<>(p.memoryBanks());
        banks.put("sram2", new MemoryBank("sram2", true));
        Map<String, ArenaUsage> constants = new LinkedHashMap<>(p.constantArenas());
        constants.put("sram2", new ArenaUsage("sram2", 64, "hbm"));
        MemoryPlan broken = new MemoryPlan(p.name(), p.alignment(), banks, p.tensorAllocs(), p.arenaUsages(),
                p.persistentArenas(), constants, life);

        List<PlanViolation> v = broken.validate();
        Set<Kind> kinds = v.stream().map(PlanViolation::kind).collect(Collectors.toCollection(() -> EnumSet.noneOf(Kind.class)));
        assertEquals(EnumSet.of(Kind.OUTSIDE_ARENA, Kind.OVERLAP, Kind.MISALIGNED, Kind.MIXED_SOURCES, Kind.STAGED_FROM_WRITABLE), kinds,
                v.toString());
        assertTrue(has(v, Kind.OUTSIDE_ARENA, "b"), v.toString());
        assertTrue(has(v, Kind.OVERLAP, "a", "d"), v.toString());
        assertTrue(has(v, Kind.MISALIGNED, "e"), v.toString());
        assertTrue(has(v, Kind.MIXED_SOURCES, "w_other"), v.toString());
        // b [512, 1024) steps 1..2 also overlaps nothing else; d [128,192) step 1 overlaps a only (b starts at 512)
        assertEquals(1, v.stream().filter(x -> x.kind() == Kind.OVERLAP).count(), v.toString());
        PlanViolation staged = v.stream().filter(x -> x.kind() == Kind.STAGED_FROM_WRITABLE).findFirst().orElseThrow();
        assertEquals("constant:sram2", staged.arena());
        assertTrue(staged.message().contains("hbm"), staged.message());
    }

    @Test
    void everyOverlappingPairIsReported() {
        MemoryPlan p = Plans.valid();
        p = Plans.with(p, "x", Plans.scratch(0, 768)); // no lifetime: a scratch tensor without one is also reported
        Map<String, TensorLifetime> life = new LinkedHashMap<>(p.tensorLifetimes());
        life.put("x", new TensorLifetime(0, 3));
        p = new MemoryPlan(p.name(), p.alignment(), p.memoryBanks(), p.tensorAllocs(), p.arenaUsages(),
                p.persistentArenas(), p.constantArenas(), life);
        List<PlanViolation> v = p.validate();
        assertEquals(3, v.size(), v.toString());
        assertTrue(has(v, Kind.OVERLAP, "a", "x") && has(v, Kind.OVERLAP, "b", "x") && has(v, Kind.OVERLAP, "c", "x"), v.toString());
    }

    @Test
    void missingArenasUnknownBanksAndStrayLifetimesAreReported() {
        MemoryPlan p = Plans.valid();
        p = Plans.with(p, "p2", new TensorAllocation(8, new TensorBinding(TensorRole.PERSISTENT, "sram", 0)));
        p = Plans.with(p, "q", new TensorAllocation(8, new TensorBinding(TensorRole.SCRATCH, "dram", 0)));
        Map<String, TensorLifetime> life = new LinkedHashMap<>(p.tensorLifetimes());
        life.put("ghost", new TensorLifetime(0, 0));
        life.put("q", new TensorLifetime(0, 0));
        Map<String, ArenaUsage> scratch = new LinkedHashMap<>(p.arenaUsages());
        scratch.put("flash", new ArenaUsage("flash", 8));
        p = new MemoryPlan(p.name(), p.alignment(), p.memoryBanks(), p.tensorAllocs(), scratch, p.persistentArenas(),
                p.constantArenas(), life);
        List<PlanViolation> v = p.validate();
        assertTrue(has(v, Kind.MISSING_ARENA, "p2"), v.toString());
        assertTrue(has(v, Kind.MISSING_ARENA, "q"), v.toString());
        assertTrue(has(v, Kind.UNKNOWN_MEMORY, "q"), v.toString());
        assertTrue(has(v, Kind.BAD_LIFETIME, "ghost"), v.toString());
        assertTrue(v.stream().anyMatch(x -> x.kind() == Kind.READ_ONLY_ARENA && "scratch:flash".equals(x.arena())), v.toString());
        assertEquals(5, v.size(), v.toString());
    }

    private static boolean has(List<PlanViolation> v, Kind kind, String... ids) {
        return v.stream().anyMatch(x -> x.kind() == kind && x.tensors().containsAll(List.of(ids))
                && Arrays.stream(ids).allMatch(id -> x.message().contains("'" + id + "'")));
    }
}
