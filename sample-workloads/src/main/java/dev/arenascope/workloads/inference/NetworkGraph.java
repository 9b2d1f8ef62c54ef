package dev.arenascope.workloads.inference;

import java.util.ArrayList;
import java.util.List;

/**
 * A network as an ahead-of-time compiler sees it for memory planning: tensors with sizes and
 * lifetimes by role, and the steps that read and write them. Built from layer shapes by
 * {@link ResNet50} and {@link TransformerEncoder}; float32 throughout.
 *
 * @param name    e.g. {@code resnet50}
 * @param batch   the batch size the shapes were built for
 * @param tensors every tensor, id = index
 * @param steps   the execution order
 */
public record NetworkGraph(String name, int batch, List<TensorSpec> tensors, List<StepSpec> steps) {

    /** What a tensor is for, which decides the arena it is planned into. */
    public enum Role {
        /** An intermediate result: planned into scratch, live from its producer to its last reader. */
        ACTIVATION,
        /** A weight: a staged constant, hydrated once from the cold blob. */
        WEIGHT,
        /** State that outlives one run (a KV cache): the persistent arena. */
        STATE
    }

    /**
     * One tensor.
     *
     * @param id     its index in {@link #tensors()}
     * @param name   e.g. {@code layer2.0.conv2.out}
     * @param shape  dimensions
     * @param role   its role
     * @param first  the step that writes it first (0 for inputs, weights and state)
     * @param last   the last step that reads it (the last step for weights and state)
     */
    public record TensorSpec(int id, String name, long[] shape, Role role, int first, int last) {
        /** Bytes (float32). */
        public long bytes() {
            long n = 4;
            for (long d : shape) {
                n = Math.multiplyExact(n, d);
            }
            return n;
        }

        /** e.g. {@code float32[8,64,112,112]}. */
        public String descriptor() {
            StringBuilder sb = new StringBuilder("float32[");
            for (int i = 0; i < shape.length; i++) {
                sb.append(i == 0 ? "" : ",").append(shape[i]);
            }
            return sb.append(']').toString();
        }
    }

    /**
     * One step: an operator reading {@code inputs} and {@code weights}, writing {@code outputs}.
     *
     * @param index   its position
     * @param op      e.g. {@code conv3x3}, {@code add_relu}, {@code softmax}
     * @param name    e.g. {@code layer1.0.conv2}
     * @param inputs  tensor ids read (activations and state)
     * @param weights tensor ids of the weights read
     * @param outputs tensor ids written
     */
    public record StepSpec(int index, String op, String name, List<Integer> inputs, List<Integer> weights, List<Integer> outputs) {}

    /** Bytes of all tensors of one role. */
    public long bytes(Role role) {
        long n = 0;
        for (TensorSpec t : tensors) {
            if (t.role() == role) {
                n += t.bytes();
            }
        }
        return n;
    }

    /** The most activation bytes live at one step: the lower bound any scratch plan must reach. */
    public long activationLowerBound() {
        long[] live = new long[steps.size()];
        for (TensorSpec t : tensors) {
            if (t.role() == Role.ACTIVATION) {
                for (int s = t.first(); s <= t.last(); s++) {
                    live[s] += t.bytes();
                }
            }
        }
        long max = 0;
        for (long l : live) {
            max = Math.max(max, l);
        }
        return max;
    }

    /** Builds a graph step by step; lifetimes are derived from reads and writes. Not thread-safe. */
    static final class Builder {
        private final String name;
        private final int batch;
        private final List<long[]> shapes = new ArrayList<>();
        private final List<String> names = new ArrayList<>();
        private final List<Role> roles = new ArrayList<>();
        private final List<Integer> firsts = new ArrayList<>();
        private final List<Integer> lasts = new ArrayList<>();
        private final List<StepSpec> steps = new ArrayList<>();

        Builder(String name, int batch) {
            if (batch < 1) {
                throw new IllegalArgumentException(name + ": batch must be >= 1, got " + batch);
            }
            this.name = name;
            this.batch = batch;
        }

        int tensor(String tensorName, Role role, long... shape) {
            for (long d : shape) {
                if (d < 1) {
                    throw new IllegalArgumentException(name + ": tensor " + tensorName + " has a non-positive dimension");
                }
            }
            shapes.add(shape.clone());
            names.add(tensorName);
            roles.add(role);
            firsts.add(role == Role.ACTIVATION ? steps.size() : 0);
            lasts.add(role == Role.ACTIVATION ? steps.size() : Integer.MAX_VALUE);
            return shapes.size() - 1;
        }

        /** Adds a step; outputs created by {@link #tensor} just before it start at this step. */
        void step(String op, String stepName, List<Integer> inputs, List<Integer> weights, List<Integer> outputs) {
            int index = steps.size();
            for (int in : inputs) {
                if (roles.get(in) == Role.ACTIVATION) {
                    lasts.set(in, Math.max(lasts.get(in), index));
                }
            }
            for (int out : outputs) {
                if (roles.get(out) == Role.ACTIVATION) {
                    firsts.set(out, Math.min(firsts.get(out), index));
                    lasts.set(out, Math.max(lasts.get(out), index));
                }
            }
            steps.add(new StepSpec(index, op, stepName, List.copyOf(inputs), List.copyOf(weights), List.copyOf(outputs)));
        }

        /** The graph; weights and state live over every step, activations from their writer to their last reader. */
        NetworkGraph build() {
            int lastStep = steps.size() - 1;
            List<TensorSpec> out = new ArrayList<>();
            for (int i = 0; i < shapes.size(); i++) {
                int last = lasts.get(i) == Integer.MAX_VALUE ? lastStep : lasts.get(i);
                out.add(new TensorSpec(i, names.get(i), shapes.get(i), roles.get(i), Math.min(firsts.get(i), last), last));
            }
            return new NetworkGraph(name, batch, List.copyOf(out), List.copyOf(steps));
        }

        int batch() {
            return batch;
        }
    }
}
