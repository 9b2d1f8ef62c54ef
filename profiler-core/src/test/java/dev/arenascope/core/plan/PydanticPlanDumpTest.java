package dev.arenascope.core.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** A compiler's pydantic dump (snake_case, lowercase roles) reads as the same plan as its camelCase form. */
class PydanticPlanDumpTest {
    private static final String DUMP = """
            {"name": "kws",
             "tensor_allocs": {
               "act": {"memory": "SRAM", "offset": 0, "size": 2048,
                       "binding": {"role": "scratch", "memory": "SRAM", "offset": 0, "source_memory": "SRAM"}},
               "w": {"memory": "DTCM", "offset": 0, "size": 512,
                     "binding": {"role": "constant", "memory": "DTCM", "offset": 0, "source_memory": "MRAM"}},
               "cold": {"size": 64, "binding": {"role": "constant", "memory": "MRAM", "offset": 0}}},
             "arena_usages": {"SRAM": {"memory": "SRAM", "total_size": 2048, "source_memory": "SRAM"}},
             "persistent_arenas": {},
             "constant_arenas": {"DTCM": {"memory": "DTCM", "total_size": 512, "source_memory": "MRAM"},
                                 "MRAM": {"total_size": 64}},
             "tensor_lifetimes": {"act": {"first_step": 0, "last_step": 3}}}
            """;

    @Test
    void snakeCaseDumpReadsWithLowercaseRolesAndDerivedBanks() {
        MemoryPlan p = PlanJson.fromJson(DUMP, "kws.json");
        assertEquals("kws", p.name());
        assertEquals(1, p.alignment());
        assertEquals(TensorRole.SCRATCH, p.getAllocation("act").binding().role());
        assertEquals("MRAM", p.getAllocation("w").binding().sourceMemory());
        assertEquals(2048, p.arenaUsages().get("SRAM").size());
        assertTrue(p.constantArenas().get("DTCM").staged());
        assertEquals("MRAM", p.constantArenas().get("MRAM").memory());
        assertEquals(new TensorLifetime(0, 3), p.lifetimeOf("act"));
        assertTrue(p.memoryBanks().get("SRAM").writable());
        assertTrue(p.memoryBanks().get("DTCM").writable());
        assertFalse(p.memoryBanks().get("MRAM").writable());
        assertEquals(List.of(), p.validate());
        // the camelCase form it converts to reads back as the same plan
        assertEquals(p, PlanJson.fromJson(PlanJson.toJson(p), "again"));
    }

    @Test
    void disagreeingOffsetAndUnknownKeysAreNamed() {
        PlanInputException off = assertThrows(PlanInputException.class,
                () -> PlanJson.fromJson(DUMP.replace("\"offset\": 0, \"size\": 2048", "\"offset\": 8, \"size\": 2048"), "d.json"));
        assertTrue(off.getMessage().startsWith("d.json") && off.getMessage().contains("tensor 'act'"), off.getMessage());
        PlanInputException unknown = assertThrows(PlanInputException.class,
                () -> PlanJson.fromJson(DUMP.replace("\"total_size\": 64", "\"total_size\": 64, \"bogus_field\": 1"), "u.json"));
        assertTrue(unknown.getMessage().contains("bogus_field"), unknown.getMessage());
    }
}
