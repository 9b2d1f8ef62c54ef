package dev.arenascope.core.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class PlanJsonTest {

    @Test
    void roundTripsEveryField() {
        MemoryPlan p = Plans.valid();
        String json = PlanJson.toJson(p);
        assertTrue(json.contains("\"tensorAllocs\"") && json.contains("\"constantArenas\"") && json.contains("\"sourceMemory\""), json);
        MemoryPlan back = PlanJson.fromJson(json, "mem");
        assertEquals(p, back);
        assertEquals(PlanJson.toJson(p), PlanJson.toJson(back));
        assertTrue(back.constantArenas().get("sram").staged());
        assertTrue(!back.constantArenas().get("flash").staged());
    }

    @Test
    void aLaidOutPlanCarriesItsProofAndAPlainOneNoPlanningKey() {
        assertTrue(!PlanJson.toJson(Plans.valid()).contains("planning"), "no planning key in a plan not laid out here");
        PlanProblem problem = new PlanProblem(List.of(new PlanBuffer("a", 0, 2, 128), new PlanBuffer("b", 1, 3, 64),
                new PlanBuffer("c", 2, 4, 128)), 64);
        Packing pk = new SearchPlanner().plan(problem, Long.MAX_VALUE, 5_000_000_000L);
        MemoryPlan p = PlanLayouts.scratchPlan("three", "arena", pk);
        String json = PlanJson.toJson(p);
        assertTrue(json.contains("\"planning\"") && json.contains("\"scratch:arena\"") && json.contains("\"proof\" : \"optimal\"")
                && json.contains("\"provedBoundBytes\" : 192") && json.contains("\"basis\" : \"load\""), json);
        MemoryPlan back = PlanJson.fromJson(json, "mem");
        assertEquals(p, back);
        ArenaPlanning a = back.planning().get("scratch:arena");
        assertEquals(new ArenaPlanning("search", 192, 192, 192, "optimal", 0.0, "load", false), a);
        // re-laying out keeps the keys and records the new packing's proof
        PlanLayouts.Replanned r = PlanLayouts.replan(back, new GreedyBySizePlanner(), Long.MAX_VALUE, 1_000_000_000L);
        assertEquals("greedy", r.plan().planning().get("scratch:arena").strategy());
        assertEquals(r.arenas().get(0).packing().proof(), r.plan().planning().get("scratch:arena").proof());
    }

    @Test
    void badJsonNamesSourceAndLine() {
        String json = PlanJson.toJson(Plans.valid()).replace("\"size\" : 256", "\"size\" : -256");
        PlanInputException e = assertThrows(PlanInputException.class, () -> PlanJson.fromJson(json, "plan.json"));
        assertTrue(e.getMessage().startsWith("plan.json:"), e.getMessage());
        assertTrue(e.getMessage().contains("negative"), e.getMessage());
        assertTrue(e.line() > 1, e.getMessage());

        PlanInputException unknown = assertThrows(PlanInputException.class,
                () -> PlanJson.fromJson("{\"name\":\"x\",\"alignment\":1,\n\"bogus\":3}", "u.json"));
        assertTrue(unknown.getMessage().contains("bogus") && unknown.line() == 2, unknown.getMessage());

        PlanInputException trunc = assertThrows(PlanInputException.class, () -> PlanJson.fromJson("{\"name\":", "t.json"));
        assertTrue(trunc.getMessage().startsWith("t.json:"), trunc.getMessage());
    }

    @Test
    void badPlansAreDescribedInTheUsersWordsNotJacksons() {
        String[][] cases = {
                {"{\"buffers\": [\n", "ends inside the JSON"},
                {"{\"foo\": 1}", ""},
                {"[1,2]", "expected a JSON object holding a memory plan, found array"},
                {"", "empty file"},
                {"{\"name\":\"x\",\"alignment\":\"eight\"}", "'alignment'"},
        };
        for (String[] c : cases) {
            PlanInputException e = assertThrows(PlanInputException.class, () -> PlanJson.fromJson(c[0], "p.json"), c[0]);
            String m = e.getMessage();
            assertTrue(m.startsWith("p.json:"), m);
            assertTrue(m.contains(c[1]), m);
            for (String leak : new String[] {"`", "REDACTED", "DeserializationConfig", "dev.arenascope", "JsonToken", "\n"}) {
                assertTrue(!m.contains(leak), "'" + leak + "' in: " + m);
            }
        }
    }
}
