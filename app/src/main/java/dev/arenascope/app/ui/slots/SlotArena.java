package dev.arenascope.app.ui.slots;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.app.ui.model.TensorSlot;

/**
 * One plan arena as the slot map draws it: its tensors as offset-over-step rectangles, the lower bound
 * (most bytes live at one step: no packing is lower) and the packing's height.
 *
 * @param label     e.g. {@code scratch · sram}
 * @param memory    the trace's memory id, or -1 for a plan file
 * @param slots     the tensors
 * @param steps     steps the plan runs (x extent)
 * @param height    one past the highest byte any tensor uses
 * @param lowerBound the most bytes live at once
 * @param strategy  who packed it ({@code recorded}, {@code greedy}, {@code search}, ...)
 * @param proof     for a packing made here, how close it is proved to the least height ({@code optimal} or
 *                  {@code gap <= X%}, as {@code plan} prints it); empty otherwise
 */
public record SlotArena(String label, int memory, List<TensorSlot> slots, int steps, long height, long lowerBound, String strategy,
                        String proof) {

    public SlotArena {
        proof = proof == null ? "" : proof;
    }

    /** This arena with a packing's proof status. */
    public SlotArena withProof(String status) {
        return new SlotArena(label, memory, slots, steps, height, lowerBound, strategy, status);
    }

    /** Builds an arena from its slots, computing steps, height and the lower bound. */
    public static SlotArena of(String label, int memory, List<TensorSlot> slots, String strategy) {
        int steps = 1;
        long height = 0;
        for (TensorSlot s : slots) {
            steps = Math.max(steps, s.lastStep() + 1);
            height = Math.max(height, s.end());
        }
        long[] live = new long[steps + 1];
        for (TensorSlot s : slots) {
            live[Math.max(0, s.firstStep())] += s.bytes();
            live[Math.min(steps, s.lastStep() + 1)] -= s.bytes();
        }
        long cur = 0;
        long lb = 0;
        for (int i = 0; i < steps; i++) {
            cur += live[i];
            lb = Math.max(lb, cur);
        }
        return new SlotArena(label, memory, List.copyOf(slots), steps, height, lb, strategy, "");
    }

    /** Groups tensors into one arena per memory, labelled by {@code labels}. */
    public static List<SlotArena> byMemory(List<TensorSlot> tensors, Map<Integer, String> labels) {
        Map<Integer, List<TensorSlot>> by = new HashMap<>();
        List<Integer> order = new ArrayList<>();
        for (TensorSlot t : tensors) {
            by.computeIfAbsent(t.memory(), m -> {
                order.add(m);
                return new ArrayList<>();
            }).add(t);
        }
        List<SlotArena> out = new ArrayList<>();
        for (int m : order) {
            out.add(of(labels.getOrDefault(m, "memory " + m), m, by.get(m), "recorded"));
        }
        return out;
    }

    /** The tensor at step {@code step} covering byte {@code offset}, or null. */
    public TensorSlot at(double step, double offset) {
        for (TensorSlot s : slots) {
            if (step >= s.firstStep() && step < s.lastStep() + 1 && offset >= s.offset() && offset < s.end()) {
                return s;
            }
        }
        return null;
    }
}
