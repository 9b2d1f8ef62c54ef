package dev.arenascope.core.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.arenascope.core.device.DeviceKind;
import dev.arenascope.core.device.MemoryDevice;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.testsupport.CollectingSink;
import dev.arenascope.testsupport.Fixtures;
import dev.arenascope.testsupport.TestDevices;

class PlanRuntimeTest {

    static MemoryDevice open(String kind) {
        return TestDevices.open(kind);
    }

    @ParameterizedTest
    @ValueSource(strings = {"host", "virtual", "cuda"})
    void runsAPlanAndPublishesItsSlotMap(String kind) throws Exception {
        MemoryPlan plan = Plans.valid();
        byte[] coldBlob = new byte[64];
        byte[] stagedBlob = new byte[256];
        for (int i = 0; i < stagedBlob.length; i++) {
            stagedBlob[i] = (byte) (i * 7 + 1);
        }
        coldBlob[5] = 42;
        try (MemoryDevice device = open(kind); Session session = new Session("t")) {
            CollectingSink cap = new CollectingSink();
            session.addSink(cap);
            List<String> seen = new ArrayList<>();
            try (PlanRuntime rt = PlanRuntime.load(plan, device, session, Map.of("flash", coldBlob, "sram", stagedBlob))) {
                assertEquals(4, rt.stepCount());
                assertEquals(4, rt.arenas().size());
                boolean real = device.info().kind() != DeviceKind.VIRTUAL;
                // staged constants were copied from their blob, cold ones loaded in place
                byte[] w = new byte[192];
                rt.tensor("w_staged").read(0, w, 0, w.length);
                byte[] expect = Arrays.copyOfRange(stagedBlob, 64, 256);
                if (real) {
                    assertArrayEquals(expect, w);
                    byte[] c = new byte[64];
                    rt.tensor("w_cold").read(0, c, 0, 64);
                    assertEquals(42, c[5]);
                }
                assertTrue(rt.hydratedBytes() == 256 && rt.hydrateNanos() > 0);
                rt.run((step, r) -> {
                    // write a step stamp into each live scratch tensor; read back what earlier steps wrote
                    for (String id : r.liveAt(step)) {
                        PlanTensor t = r.tensor(id);
                        if (t.role() == TensorRole.SCRATCH) {
                            t.write(0, new byte[] {(byte) step}, 0, 1);
                            seen.add(step + ":" + id);
                        }
                    }
                });
                assertEquals(List.of("0:a", "1:a", "1:b", "2:b", "2:c", "3:c"), seen);
                if (real) {
                    byte[] one = new byte[1];
                    rt.tensor("a").read(0, one, 0, 1); // a and c share bytes: c wrote last at step 3
                    assertEquals(3, one[0]);
                }
                assertThrows(UnknownTensorException.class, () -> rt.tensor("zzz"));
                assertThrows(IndexOutOfBoundsException.class, () -> rt.tensor("a").write(250, new byte[8], 0, 8));
            }
            session.flush(); // delivers everything published so far before it returns
            List<Event> created = cap.of(EventKind.MEMORY_CREATED);
            assertEquals(4, created.size());
            assertEquals(List.of(MemoryKind.PLAN_SCRATCH, MemoryKind.PLAN_PERSISTENT, MemoryKind.PLAN_CONSTANT, MemoryKind.PLAN_CONSTANT),
                    created.stream().map(e -> cap.memory(e.memory()).kind()).toList());
            assertEquals(List.of(768L, 128L, 64L, 256L), created.stream().map(Event::b).toList());
            assertEquals(1, cap.of(EventKind.PLAN_LOADED).size());
            assertEquals(6, cap.of(EventKind.PLAN_LOADED).get(0).a());
            assertEquals(6, cap.of(EventKind.PLAN_BIND).size());
            Event hyd = cap.of(EventKind.PLAN_HYDRATE).get(0);
            assertEquals(256, hyd.b());
            assertEquals("flash", cap.strings.get(hyd.ref()));
            assertEquals(16, cap.of(EventKind.PLAN_STEP).size()); // 4 steps x 4 arenas
            assertEquals(6, cap.of(EventKind.TENSOR_LIVE).size());
            assertEquals(6, cap.of(EventKind.TENSOR_DEAD).size());
            // the scratch arena's used gauge: a(256) at 0, +b(512) at 1, -a, +c(256) at 2, -b, -c
            int scratch = created.get(0).memory();
            List<Long> used = cap.events.stream().filter(e -> e.memory() == scratch
                    && (e.kind() == EventKind.TENSOR_LIVE || e.kind() == EventKind.TENSOR_DEAD)).map(Event::used).toList();
            assertEquals(List.of(256L, 768L, 512L, 768L, 256L, 0L), used);
            Event liveB = cap.of(EventKind.TENSOR_LIVE).stream().filter(e -> "b".equals(cap.strings.get(e.ref()))).findFirst().orElseThrow();
            assertEquals(256, liveB.a());
            assertEquals(512, liveB.b());
            assertEquals(1, liveB.c());
            assertEquals(4, cap.of(EventKind.MEMORY_CLOSED).size());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"host", "virtual"})
    void refusesAnInvalidPlanAndAnOversizedBlob(String kind) {
        try (MemoryDevice device = open(kind); Session session = new Session("t")) {
            MemoryPlan broken = Plans.with(Plans.valid(), "b", Plans.scratch(0, 512));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> PlanRuntime.load(broken, device, session, Map.of()));
            assertTrue(e.getMessage().contains("'a'") && e.getMessage().contains("'b'"), e.getMessage());
            IllegalArgumentException blob = assertThrows(IllegalArgumentException.class,
                    () -> PlanRuntime.load(Plans.valid(), device, session, Map.of("sram", new byte[257])));
            assertTrue(blob.getMessage().contains("257"), blob.getMessage());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"host", "virtual"})
    void runsAPlannedMiniMallocProblem(String kind) throws Exception {
        PlanProblem p = ProblemCsv.read(Fixtures.miniMalloc().get(0), 1);
        Packing pk = new GreedyBySizePlanner().plan(p, Long.MAX_VALUE, 0);
        MemoryPlan plan = PlanLayouts.scratchPlan("A", "hbm", pk);
        assertEquals(List.of(), plan.validate());
        try (MemoryDevice device = open(kind); Session session = new Session("t");
             PlanRuntime rt = PlanRuntime.load(plan, device, session, Map.of())) {
            long[] peak = {0};
            rt.run((s, r) -> peak[0] = Math.max(peak[0], r.liveBytes(0)));
            assertEquals(pk.lowerBound(), peak[0]);
            assertEquals(0, rt.liveBytes(0));
        }
    }
}
