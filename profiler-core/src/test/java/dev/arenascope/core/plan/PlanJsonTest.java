package dev.arenascope.core.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
