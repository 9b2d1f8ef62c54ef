package dev.arenascope.app.commands.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.cli.CliRun;
import dev.arenascope.core.plan.MemoryPlan;
import dev.arenascope.core.plan.PlanJson;
import dev.arenascope.core.plan.PlanViolation;
import dev.arenascope.testsupport.Fixtures;

class BankedPlanTest {
    @TempDir
    Path dir;

    private Path csv(String name, String text) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    /** id -> {lower, upper, size, offset, bank index in names} read back from a written CSV. */
    private static Map<String, String[]> rows(Path file) throws Exception {
        List<String> lines = Files.readAllLines(file);
        assertEquals("id,lower,upper,size,offset,banks", lines.getFirst());
        Map<String, String[]> out = new HashMap<>();
        for (String l : lines.subList(1, lines.size())) {
            String[] f = l.split(",");
            out.put(f[0], f);
        }
        return out;
    }

    @Test
    void aTwoBankPlanOfAProblemPutsWhatFitsInTheFastBankAndWritesEachBuffersBank() throws Exception {
        // a and b live together and only one fits the 100-byte sram; c is pinned to psram; d is accessed often
        Path in = csv("p.csv", """
                id,lower,upper,size,banks,accesses
                a,0,4,80,,1
                b,0,4,80,,1
                c,4,6,50,psram,1
                d,4,8,60,,9
                """);
        Path out = dir.resolve("p.banked.csv");
        CliRun r = CliRun.of("plan", "--input", in.toString(), "--banks", "sram=100:1,psram=1KiB:10", "--output", out.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("proof: optimal"), r.out());
        assertTrue(r.out().contains("fits every bank"), r.out());
        Map<String, String[]> rows = rows(out);
        assertEquals("psram", rows.get("c")[5]);
        assertEquals("sram", rows.get("d")[5]);
        assertTrue(rows.get("a")[5].equals("sram") != rows.get("b")[5].equals("sram"), "exactly one of a and b in sram");
        // cost: one of a/b 80 in sram (80) + the other in psram (800) + c 500 + d 60*9 in sram (540) = 1,920
        assertTrue(r.out().contains("cost 1,920, proved bound 1,920"), r.out());
        // the written file reads back as a problem with every buffer pinned where it went
        CliRun again = CliRun.of("plan", "--input", out.toString(), "--banks", "sram=100:1,psram=1KiB:10");
        assertEquals(0, again.code(), again.out() + again.err());
        assertTrue(again.out().contains("cost 1,"), again.out());
    }

    @Test
    void theJsonOutputIsAMemoryPlanWithOneArenaPerBankThatValidates() throws Exception {
        Path in = Fixtures.file("minimalloc/A.1048576.csv");
        Path out = dir.resolve("A.banked.plan.json");
        CliRun r = CliRun.of("plan", "--input", in.toString(), "--banks", "sram=512KiB:1,psram=1MiB:10", "--time-limit", "5",
                "--output", out.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        MemoryPlan plan = PlanJson.read(out);
        assertEquals(List.of("sram", "psram"), List.copyOf(plan.memoryBanks().keySet()));
        assertEquals(2, plan.arenaUsages().size());
        List<PlanViolation> v = plan.validate();
        assertTrue(v.isEmpty(), "violations: " + v);
        assertTrue(plan.arenaUsages().get("sram").size() <= 512 * 1024, "sram arena over its capacity");
        assertTrue(r.out().contains("proof: "), r.out());
    }

    @Test
    void badBankInputIsOneLineNamingWhatIsWrong() throws Exception {
        Path in = csv("p.csv", "id,lower,upper,size,banks\nweights,0,4,4096,sram\nx,0,2,16,\n");
        CliRun pinned = CliRun.of("plan", "--input", in.toString(), "--banks", "sram=1KiB:1,psram=1MiB:10");
        assertEquals(2, pinned.code());
        assertTrue(pinned.err().contains("'weights'") && pinned.err().contains("pinned"), pinned.err());
        assertEquals(1, pinned.err().strip().lines().count(), pinned.err());

        CliRun unknown = CliRun.of("plan", "--input", in.toString(), "--banks", "tcm=1MiB:1");
        assertEquals(2, unknown.code());
        assertTrue(unknown.err().contains("'sram'"), unknown.err());

        CliRun spec = CliRun.of("plan", "--input", in.toString(), "--banks", "sram=lots");
        assertEquals(2, spec.code());
        assertTrue(spec.err().contains("--banks") && spec.err().contains("lots"), spec.err());

        CliRun both = CliRun.of("plan", "--input", in.toString(), "--banks", "sram=1MiB", "--capacity", "1MiB");
        assertEquals(2, both.code());
        assertTrue(both.err().contains("--capacity"), both.err());

        Path badCol = csv("q.csv", "id,lower,upper,size,bankz\nx,0,2,16,sram\n");
        CliRun col = CliRun.of("plan", "--input", badCol.toString(), "--banks", "sram=1MiB");
        assertEquals(2, col.code());
        assertTrue(col.err().contains("q.csv:1:") && col.err().contains("bankz"), col.err());

        Path negative = csv("n.csv", "id,lower,upper,size,accesses\nx,0,2,16,-3\n");
        CliRun neg = CliRun.of("plan", "--input", negative.toString(), "--banks", "sram=1MiB");
        assertEquals(2, neg.code());
        assertTrue(neg.err().contains("n.csv:2:") && neg.err().contains("negative accesses"), neg.err());
    }

    @Test
    void whenNoAssignmentFitsThePlanExitsThreeAndSaysSo() throws Exception {
        Path in = csv("p.csv", "id,lower,upper,size,banks\na,0,4,8,sram\nb,0,4,8,sram\nc,0,4,8,psram\n");
        CliRun r = CliRun.of("plan", "--input", in.toString(), "--banks", "sram=10:1,psram=10:5");
        assertEquals(3, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("OVER CAPACITY"), r.out());
        assertTrue(r.out().contains("no assignment within every bank's capacity"), r.out());
        assertFalse(r.out().contains("proof: optimal"), r.out());
    }
}
