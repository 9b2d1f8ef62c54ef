package dev.arenascope.app.ui.slots;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import dev.arenascope.app.ui.model.TensorSlot;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.plan.MemoryPlan;
import dev.arenascope.core.plan.Packing;
import dev.arenascope.core.plan.PlanArena;
import dev.arenascope.core.plan.PlanBuffer;
import dev.arenascope.core.plan.PlanJson;
import dev.arenascope.core.plan.PlanProblem;
import dev.arenascope.core.plan.Planner;
import dev.arenascope.core.plan.ProblemCsv;
import dev.arenascope.core.plan.TensorAllocation;
import dev.arenascope.core.plan.TensorLifetime;
import dev.arenascope.core.plan.TensorRole;

/** Slot-map arenas from a {@link MemoryPlan} file, and re-planning an arena with the core's planners. */
public final class PlanSlots {
    /** How long "Re-plan" lets the search run per arena: {@code arenascope plan}'s own budget. */
    public static final long REPLAN_LIMIT_NANOS = Planner.DEFAULT_TIME_LIMIT_NANOS;

    private PlanSlots() {}

    /** Reads a plan (.json as {@code arenascope plan} writes it) into one slot arena per plan arena. */
    public static List<SlotArena> read(Path file) throws IOException {
        return of(PlanJson.read(file));
    }

    /**
     * Reads a MiniMalloc-style allocation problem ({@code id,lower,upper,size}, buffers live over
     * {@code [lower, upper)}) into one slot arena. A solution (a fifth column {@code offset}) is shown
     * as packed; a bare problem is packed here by the search planner within {@link #REPLAN_LIMIT_NANOS}
     * (the arena's lower bound says how close that came).
     *
     * @throws dev.arenascope.core.plan.PlanInputException naming the file and line on bad input
     */
    public static SlotArena readProblem(Path file) throws IOException {
        PlanProblem problem = ProblemCsv.read(file, 1);
        String name = String.valueOf(file.getFileName());
        if (hasOffsets(file)) {
            Map<String, Long> offsets = ProblemCsv.readOffsets(file);
            List<TensorSlot> slots = new ArrayList<>(problem.size());
            for (PlanBuffer b : problem.buffers()) {
                slots.add(slot(b, offsets.getOrDefault(b.id(), 0L)));
            }
            return SlotArena.of(name, -1, slots, "solution in the file");
        }
        Packing p = Planner.named(Planner.DEFAULT_STRATEGY).plan(problem, Long.MAX_VALUE, REPLAN_LIMIT_NANOS);
        List<TensorSlot> slots = new ArrayList<>(problem.size());
        for (int i = 0; i < problem.size(); i++) {
            slots.add(slot(problem.buffers().get(i), p.offset(i)));
        }
        return SlotArena.of(name, -1, slots, "packed on open by " + p.strategy() + (p.timedOut() ? " (time limit)" : ""))
                .withProof(p.proof());
    }

    private static TensorSlot slot(PlanBuffer b, long offset) {
        int first = (int) Math.min(Integer.MAX_VALUE, b.lower());
        int last = (int) Math.min(Integer.MAX_VALUE, Math.max(b.lower(), b.upper() - 1));
        return new TensorSlot(-1, b.id(), offset, b.size(), 0, first, last);
    }

    private static boolean hasOffsets(Path file) throws IOException {
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            for (String line; (line = r.readLine()) != null; ) {
                String t = line.strip();
                if (!t.isEmpty() && !t.startsWith("#")) {
                    return t.replace(" ", "").toLowerCase(Locale.ROOT).endsWith(",offset");
                }
            }
        }
        return false;
    }

    /** One slot arena per arena of {@code plan}, tensors coloured by role (constants split cold / staged). */
    public static List<SlotArena> of(MemoryPlan plan) {
        List<SlotArena> out = new ArrayList<>();
        for (PlanArena arena : plan.arenas()) {
            List<TensorSlot> slots = new ArrayList<>();
            for (String id : plan.tensorsIn(arena.role(), arena.memory())) {
                TensorAllocation a = plan.getAllocation(id);
                TensorLifetime life = plan.lifetimeOf(id);
                int first = life == null ? 0 : (int) Math.min(Integer.MAX_VALUE, life.firstStep());
                int last = life == null ? (int) Math.max(0, plan.stepCount() - 1) : (int) Math.min(Integer.MAX_VALUE, life.lastStep());
                slots.add(new TensorSlot(-1, id, a.binding().offset(), a.size(), roleCode(arena), first, last));
            }
            out.add(SlotArena.of(arena.label(), -1, slots, "loaded"));
        }
        return out;
    }

    /** Slot-map role code: 0 scratch, 1 persistent, 2 constant cold, 3 constant staged. */
    static int roleCode(PlanArena a) {
        if (a.role() == TensorRole.CONSTANT) {
            return a.staged() ? 3 : 2;
        }
        return a.role().ordinal();
    }

    /**
     * Packs {@code arena}'s tensors again as {@code arenascope plan} does by default (its strategy and
     * its time limit), keeping the loaded packing where the new one is no lower.
     */
    public static SlotArena replan(SlotArena arena) {
        return replan(arena, Planner.named(Planner.DEFAULT_STRATEGY), REPLAN_LIMIT_NANOS);
    }

    /** Packs {@code arena}'s tensors with {@code planner}, keeping their sizes, lifetimes and roles. */
    public static SlotArena replan(SlotArena arena, Planner planner, long limitNanos) {
        List<PlanBuffer> buffers = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        long align = 256;
        for (TensorSlot s : arena.slots()) {
            while (align > 1 && s.offset() % align != 0) {
                align >>= 1;
            }
            String id = s.id();
            for (int k = 2; !ids.add(id); k++) {
                id = s.id() + "#" + k;
            }
            buffers.add(new PlanBuffer(id, s.firstStep(), (long) s.lastStep() + 1, s.bytes()));
        }
        Packing p = planner.plan(new PlanProblem(buffers, Math.max(1, align)), Long.MAX_VALUE, limitNanos);
        List<TensorSlot> out = new ArrayList<>(arena.slots().size());
        for (int i = 0; i < arena.slots().size(); i++) {
            TensorSlot s = arena.slots().get(i);
            out.add(new TensorSlot(s.memory(), s.id(), p.offset(i), s.bytes(), s.role(), s.firstStep(), s.lastStep()));
        }
        SlotArena packed = SlotArena.of(arena.label(), arena.memory(), out, p.strategy() + (p.timedOut() ? ", time limit" : ""))
                .withProof(p.proof());
        if (packed.height() > arena.height() && !arena.slots().isEmpty()) {
            // a re-plan never shows a worse packing than the one loaded (1.00 MiB -> 1.04 MiB): it keeps
            // the loaded offsets and says what the planner found
            return SlotArena.of(arena.label(), arena.memory(), arena.slots(), arena.strategy() + "; kept: " + p.strategy()
                    + " found " + Bytes.format(packed.height())).withProof(arena.proof());
        }
        return packed;
    }
}
