package dev.arenascope.app.commands.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.cli.CliRun;
import dev.arenascope.core.plan.ArenaUsage;
import dev.arenascope.core.plan.MemoryBank;
import dev.arenascope.core.plan.MemoryPlan;
import dev.arenascope.core.plan.Packing;
import dev.arenascope.core.plan.PlanJson;
import dev.arenascope.core.plan.ProblemCsv;
import dev.arenascope.core.plan.SweepPlanner;
import dev.arenascope.core.plan.TensorAllocation;
import dev.arenascope.core.plan.TensorBinding;
import dev.arenascope.core.plan.TensorLifetime;
import dev.arenascope.core.plan.TensorRole;
import dev.arenascope.core.plan.TrainingSteps;
import dev.arenascope.testsupport.Fixtures;

class PlanCommandTest {
    @TempDir
    Path dir;

    static CliRun run(String... args) {
        return CliRun.of(args);
    }

    Path csv(String name, String text) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    // three buffers: x and y live together (300 bytes), z alone later: lower bound 300
    static final String SMALL = "id,lower,upper,size\nx,0,2,100\ny,1,3,200\nz,3,5,300\n";

    @Test
    void aProblemAboveTheThresholdIsSweptByDefaultAndItsPackingHoldsNoOverlap() throws Exception {
        var problem = TrainingSteps.generate(SweepPlanner.AUTO_THRESHOLD + 500, 2);
        StringBuilder sb = new StringBuilder("id,lower,upper,size\n");
        for (var b : problem.buffers()) {
            sb.append(b.id()).append(',').append(b.lower()).append(',').append(b.upper()).append(',').append(b.size()).append('\n');
        }
        Path in = csv("big.csv", sb.toString());
        Path outFile = dir.resolve("big.out.csv");
        CliRun r = run("plan", "--input", in.toString(), "--time-limit", "20", "--output", outFile.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains(" sweep "), r.out());
        Map<String, Long> off = ProblemCsv.readOffsets(outFile);
        long[] offsets = new long[problem.size()];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = off.get(problem.buffers().get(i).id());
        }
        long height = 0;
        for (int i = 0; i < offsets.length; i++) {
            height = Math.max(height, offsets[i] + problem.alignedSize(i));
        }
        var packing = new Packing(problem, offsets, height, problem.lowerBound(), Long.MAX_VALUE, "x", 0, false);
        assertTrue(packing.overlapFree(), "the written packing overlaps");
        assertTrue(r.out().contains(String.format(Locale.ROOT, "height %,d B", height)), r.out());
    }

    @Test
    void packsWithinCapacityAndWritesOffsets() throws Exception {
        Path in = csv("p.csv", SMALL);
        Path outFile = dir.resolve("out.csv");
        for (String strategy : List.of("greedy", "search")) {
            CliRun r = run("plan", "--input", in.toString(), "--capacity", "300", "--strategy", strategy,
                    "--time-limit", "5", "--output", outFile.toString(), "--force"); // one file, replaced by each strategy
            assertEquals(0, r.code(), r.out() + r.err());
            assertTrue(r.out().contains("lower bound 300 B") && r.out().contains("height 300 B") && r.out().contains("ratio 1.0000"), r.out());
            assertTrue(r.out().lines().anyMatch(l -> l.equals("proof: optimal")), r.out());
            Map<String, Long> off = ProblemCsv.readOffsets(outFile);
            assertEquals(3, off.size());
            assertTrue(off.get("x") + 100 <= off.get("y") || off.get("y") + 200 <= off.get("x"), off.toString());
            assertTrue(Files.readString(outFile).startsWith("id,lower,upper,size,offset\n"));
        }
    }

    @Test
    void exitsThreeWhenNothingFitsAndStillWritesTheBest() throws Exception {
        // x and y are live together: 300 bytes are needed, 299 are impossible
        Path in = csv("p.csv", "id,lower,upper,size\nx,0,2,150\ny,1,3,150\n");
        Path outFile = dir.resolve("best.csv");
        CliRun r = run("plan", "--input", in.toString(), "--capacity", "299", "--strategy", "search",
                "--time-limit", "1", "--output", outFile.toString());
        assertEquals(3, r.code(), r.out() + r.err());
        assertTrue(Files.exists(outFile));
        assertTrue(r.out().contains("no packing can fit 299 B: 300 B are live at once (the lower bound)")
                && r.out().contains("written to " + outFile), r.out());
        CliRun g = run("plan", "--input", in.toString(), "--capacity", "299", "--strategy", "greedy");
        assertEquals(3, g.code(), g.out() + g.err());
        assertTrue(g.out().contains("give --output FILE to keep the best one found"), "nothing was written, so it must not say so: " + g.out());
    }

    @Test
    void hostileCsvExitsTwoNamingFileLineAndField() throws Exception {
        // issue 19 #6: bytes that are not UTF-8, a size of 2^63-1 (sums overflow), a lifetime ending at
        // 2^63-1, a number past a long, a fraction
        Map<byte[], String> cases = new LinkedHashMap<>();
        cases.put(bytes("id,lower,upper,size\nok,0,1,8\ncaf", 0xe9, ",0,2,64\n"), ":3: field 'id' is not UTF-8 text: byte 0xe9 at byte 4");
        cases.put(bytes("id,lower,upper,size\na,0,2,9223372036854775807\nb,1,3,5\n"), ":2: field 'size' of buffer 'a'");
        cases.put(bytes("id,lower,upper,size\na,0,9223372036854775807,64\n"), ":2: field 'upper' of buffer 'a'");
        cases.put(bytes("id,lower,upper,size\na,0,2,92233720368547758070\n"), ":2: size is past the largest integer");
        cases.put(bytes("id,lower,upper,size\na,0,2,64.5\n"), ":2: size is not an integer: '64.5'");
        cases.put(bytes("id,lower,upper,size\na,0,2,4611686018427387904\nb,0,2,4611686018427387904\n"), "field 'size' of buffer 'b': the sizes add up past 2^62");
        int k = 0;
        for (var c : cases.entrySet()) {
            Path in = dir.resolve("hostile" + k++ + ".csv");
            Files.write(in, c.getKey());
            for (String strategy : List.of("greedy", "search")) {
                CliRun r = run("plan", "--input", in.toString(), "--strategy", strategy);
                assertEquals(2, r.code(), c.getValue() + " -> " + r.out() + r.err());
                assertTrue(r.err().contains(in.toString()) && r.err().contains(c.getValue()), r.err());
                assertEquals(1, r.err().strip().lines().count(), r.err());
                String message = r.err().replace(in.toString(), ""); // a temporary folder's name may hold "-9"
                assertFalse(message.contains("Exception") || message.contains("overflow") || message.contains("-9"), r.err());
            }
        }
    }

    @Test
    void hostileJsonExitsTwoNamingTheField() throws Exception {
        String ok = """
                {"name":"t","alignment":64,"memoryBanks":{"hbm":{"name":"hbm","writable":true}},
                "tensorAllocs":{"a":{"size":64,"binding":{"role":"SCRATCH","memory":"hbm","offset":0}},
                "b":{"size":128,"binding":{"role":"SCRATCH","memory":"hbm","offset":64}}},
                "arenaUsages":{"hbm":{"memory":"hbm","size":192}},
                "tensorLifetimes":{"a":{"firstStep":0,"lastStep":1},"b":{"firstStep":1,"lastStep":2}}}
                """;
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put(ok.replace("\"size\":64,", "\"size\":64.5,"), ":2: 'tensorAllocs.a.size': not an integer: 64.5");
        cases.put(ok.replace("\"lastStep\":2", "\"lastStep\":9223372036854775807"), ":5: 'tensorLifetimes.b'");
        cases.put(ok.replace("\"size\":64,", "\"size\":9223372036854775807,"), "'tensorAllocs.a.size'");
        int k = 0;
        for (var c : cases.entrySet()) {
            Path in = dir.resolve("hostile" + k++ + ".json");
            Files.writeString(in, c.getKey());
            CliRun r = run("plan", "--input", in.toString());
            assertEquals(2, r.code(), c.getValue() + " -> " + r.out() + r.err());
            assertTrue(r.err().contains(in.toString()) && r.err().contains(c.getValue()), r.err());
            assertEquals(1, r.err().strip().lines().count(), r.err());
            assertFalse(r.err().contains("Exception") || r.err().contains("coercion"), r.err());
        }
        Path latin1 = dir.resolve("latin1.json");
        Files.write(latin1, bytes(ok.substring(0, ok.indexOf("\"t\"") + 2), 0xe9, ok.substring(ok.indexOf("\"t\"") + 2)));
        CliRun r = run("plan", "--input", latin1.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains(latin1 + ":1:") && r.err().contains("UTF-8"), r.err());
    }

    @Test
    void outputFormatFollowsTheFileName() throws Exception {
        // issue 21: --output A.plan.json gets a memory plan, --output A.csv the CSV, whatever the input
        Path in = csv("p.csv", SMALL);
        Path planOut = dir.resolve("p.plan.json");
        CliRun r = run("plan", "--input", in.toString(), "--output", planOut.toString(), "--time-limit", "5");
        assertEquals(0, r.code(), r.out() + r.err());
        MemoryPlan plan = PlanJson.read(planOut);
        assertEquals(List.of(), plan.validate());
        assertEquals(3, plan.tensorAllocs().size());
        assertEquals(300, plan.arenaUsages().values().iterator().next().size());
        Path csvOut = dir.resolve("again.csv");
        CliRun back = run("plan", "--input", planOut.toString(), "--output", csvOut.toString(), "--time-limit", "5");
        assertEquals(0, back.code(), back.out() + back.err());
        assertEquals(3, ProblemCsv.readOffsets(csvOut).size());
        assertTrue(Files.readString(csvOut).startsWith("id,lower,upper,size,offset\n"));
    }

    @Test
    void provesTheMinimumWhenSearchClosesTheGap() throws Exception {
        // x,y live together (200), z,w live together (200) but z/w overlap x or y in a way that forces
        // 300: a and b of 100 overlap each other and c of 200 at different steps
        Path in = csv("gap.csv", "id,lower,upper,size\na,0,2,100\nb,1,3,100\nc,0,1,100\nd,2,3,100\ne,1,2,50\n");
        CliRun r = run("plan", "--input", in.toString(), "--time-limit", "10");
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.equals("proof: optimal")), r.out());
        CliRun g = run("plan", "--input", in.toString(), "--strategy", "greedy");
        assertTrue(g.out().lines().anyMatch(l -> l.equals("proof: optimal") || l.matches("proof: gap <= \\d+\\.\\d\\d%")), g.out());
    }

    @Test
    void provesAnOptimumAboveTheLoadAndSaysWhy() throws Exception {
        // 256 bytes live at every step, yet 320 are needed (see LowerBoundsTest's gadget)
        Path in = csv("above.csv", "id,lower,upper,size\na,0,1,128\nb,0,2,128\nc,1,3,64\nd,1,4,64\ne,2,3,64\n"
                + "f,2,4,64\ng,3,5,128\nh,4,5,128\n");
        CliRun r = run("plan", "--input", in.toString(), "--time-limit", "10");
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("lower bound 256 B"), r.out());
        assertTrue(r.out().contains("height 320 B"), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.equals("proof: optimal")), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.equals("proved bound 320 B (the search proved every lower height impossible)")), r.out());
        Path out = dir.resolve("above.plan.json");
        assertEquals(0, run("plan", "--input", in.toString(), "--output", out.toString()).code());
        var plan = PlanJson.read(out);
        var rec = plan.planning().get("scratch:arena");
        assertEquals("optimal", rec.proof());
        assertEquals(320, rec.provedBoundBytes());
        assertEquals("search", rec.basis());
        assertEquals(320, rec.heightBytes());
    }

    @Test
    void timeLimitZeroStillWritesAValidPacking() throws Exception {
        // the limit covers the whole run: with none left the first answer is written, marked as cut short
        StringBuilder sb = new StringBuilder("id,lower,upper,size\n");
        Random rnd = new Random(3);
        for (int i = 0; i < 3000; i++) {
            int lo = rnd.nextInt(500);
            sb.append("b").append(i).append(',').append(lo).append(',').append(lo + 1 + rnd.nextInt(30)).append(',')
                    .append(1 + rnd.nextInt(5000)).append('\n');
        }
        Path in = csv("many.csv", sb.toString());
        Path out = dir.resolve("many.out.csv");
        CliRun r = run("plan", "--input", in.toString(), "--time-limit", "0", "--output", out.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        assertEquals(3000, ProblemCsv.readOffsets(out).size());
    }

    private static byte[] bytes(String before, int b, String after) {
        byte[] x = before.getBytes(StandardCharsets.UTF_8);
        byte[] y = after.getBytes(StandardCharsets.UTF_8);
        byte[] all = new byte[x.length + 1 + y.length];
        System.arraycopy(x, 0, all, 0, x.length);
        all[x.length] = (byte) b;
        System.arraycopy(y, 0, all, x.length + 1, y.length);
        return all;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void badInputExitsTwoNamingTheLine() throws Exception {
        Map<String, String> cases = Map.of(
                "id,lower,upper,size\nx,0,2,100\ny,1,3\n", ":3: expected 4 fields",
                "id,lower,upper,size\nx,0,2,-100\n", ":2: buffer 'x' has a negative size",
                "id,lower,upper,size\nx,0,2,100\ny,4,4,10\n", ":3: buffer 'y' has lower 4 >= upper 4",
                "id,lower,upper,size\nx,0,2,100\nx,3,4,10\n", ":3: duplicate id 'x' (first on line 2)",
                "id,lower,upper,size\nx,0,two,100\n", ":2: upper is not an integer: 'two'");
        int k = 0;
        for (var c : cases.entrySet()) {
            Path in = csv("bad" + k++ + ".csv", c.getKey());
            CliRun r = run("plan", "--input", in.toString(), "--strategy", "greedy");
            assertEquals(2, r.code(), c.getValue() + " -> " + r.err());
            assertTrue(r.err().contains(in + c.getValue()), r.err());
            assertEquals(1, r.err().strip().lines().count(), r.err());
            assertFalse(r.err().contains("Exception"), r.err());
        }
        Path in = csv("p.csv", SMALL);
        CliRun small = run("plan", "--input", in.toString(), "--capacity", "250");
        assertEquals(2, small.code());
        assertTrue(small.err().contains("capacity 250 is below the largest buffer 'z' of 300 bytes"), small.err());
        assertEquals(2, run("plan", "--input", dir.resolve("missing.csv").toString()).code());
        assertEquals(2, run("plan", "--input", in.toString(), "--strategy", "magic").code());
        assertEquals(2, run("plan").code());
    }

    @Test
    void relaysAJsonPlan() throws Exception {
        Map<String, TensorAllocation> t = new LinkedHashMap<>();
        Map<String, TensorLifetime> life = new LinkedHashMap<>();
        // a deliberately wasteful layout: every tensor at its own offset
        long off = 0;
        for (int i = 0; i < 6; i++) {
            t.put("t" + i, new TensorAllocation(64 * (i + 1), new TensorBinding(TensorRole.SCRATCH, "hbm", off)));
            life.put("t" + i, new TensorLifetime(i, i + 1));
            off += 64 * (i + 1);
        }
        MemoryPlan plan = new MemoryPlan("chain", 64, Map.of("hbm", new MemoryBank("hbm", true)), t,
                Map.of("hbm", new ArenaUsage("hbm", off)), Map.of(), Map.of(), life);
        Path in = dir.resolve("plan.json");
        PlanJson.write(plan, in);
        Path outFile = dir.resolve("out.json");
        CliRun r = run("plan", "--input", in.toString(), "--strategy", "search", "--time-limit", "5", "--output", outFile.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        MemoryPlan back = PlanJson.read(outFile);
        assertEquals(List.of(), back.validate());
        // the most live at once is t4 + t5 = 320 + 384 bytes
        assertEquals(704, back.arenaUsages().get("hbm").size());
        assertTrue(r.out().contains("scratch:hbm: lower bound 704 B"), r.out());

        Files.writeString(in, Files.readString(in).replace("\"alignment\" : 64", "\"alignment\" : 0"));
        CliRun bad = run("plan", "--input", in.toString());
        assertEquals(2, bad.code(), bad.err());
        assertTrue(bad.err().contains(in.toString() + ":"), bad.err());
        assertTrue(bad.err().contains("alignment"), bad.err());
    }

    @Test
    void everyMiniMallocProblemGetsAValidGreedyPlanThroughTheCli() throws Exception {
        Path f = Fixtures.miniMalloc().get(0);
        CliRun r = run("plan", "--input", f.toString(), "--capacity", "1048576", "--strategy", "greedy");
        assertEquals(3, r.code(), r.out());
        assertTrue(r.out().contains("lower bound 1,048,576 B") && r.out().contains("height 1,374,208 B"), r.out());
    }

    @Test
    void theSearchPacksTheHardestMiniMallocProblemThroughTheCli() throws Exception {
        Path d = Fixtures.file("minimalloc/E.1048576.csv");
        Path outFile = dir.resolve("E.packed.csv");
        CliRun r = run("plan", "--input", d.toString(), "--capacity", "1048576", "--strategy", "search",
                "--time-limit", "60", "--output", outFile.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("lower bound 1,048,576 B") && r.out().contains("height 1,048,576 B")
                && r.out().contains("ratio 1.0000"), r.out());
        // the written offsets: every buffer within the capacity, no two live together sharing a byte
        List<String> lines = Files.readAllLines(outFile);
        assertEquals("id,lower,upper,size,offset", lines.get(0));
        List<long[]> b = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",");
            b.add(new long[] {Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4])});
        }
        assertEquals(215, b.size());
        for (int i = 0; i < b.size(); i++) {
            long[] x = b.get(i);
            assertTrue(x[3] >= 0 && x[3] + x[2] <= 1_048_576, "buffer on line " + (i + 2) + " outside the capacity");
            for (int j = 0; j < i; j++) {
                long[] y = b.get(j);
                boolean together = x[0] < y[1] && y[0] < x[1];
                boolean share = x[3] < y[3] + y[2] && y[3] < x[3] + x[2];
                assertFalse(together && share, "lines " + (j + 2) + " and " + (i + 2) + " overlap");
            }
        }
    }
}
