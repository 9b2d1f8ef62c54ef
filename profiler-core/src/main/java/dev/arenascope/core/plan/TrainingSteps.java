package dev.arenascope.core.plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * Seeded big problems shaped like a training loop's buffers, for the planners at scale (10^4 to 10^6
 * buffers): a few long-lived buffers (weights, allocated first; optimizer state, allocated at the end of
 * the first backward pass) live to the end, and iterations of a forward pass (per layer an activation
 * kept until the layer's backward, and short temporaries) and a backward pass in reverse layer order
 * (temporaries, a gradient that lives a little longer, the layer's activation freed). Temporaries live
 * for a few events each (geometric, mean about 3), so they end out of order and leave holes, as real
 * allocator traces do. Sizes are heavy tailed (Pareto: most a few KiB, some tens of MiB), multiples of
 * 512 bytes like PyTorch's rounding.
 *
 * <p>Time is an event counter: every allocation and every free is one event, so a buffer lives from
 * its allocation's event to its free's. Exactly {@code n} buffers; the same arguments always give the
 * same problem. Buffers are named {@code w0..}, {@code o0..}, {@code a0..}, {@code t0..}, {@code g0..}
 * by kind and numbered in allocation order. Stateless and thread-safe.
 */
public final class TrainingSteps {
    /** Layers of the modelled network. */
    public static final int LAYERS = 200;
    private static final long ROUND = 512;

    private TrainingSteps() {}

    /** {@code n} buffers (at least 1) from seed {@code seed}. */
    public static PlanProblem generate(int n, long seed) {
        if (n < 1) {
            throw new IllegalArgumentException("a training-step problem needs at least 1 buffer, got " + n);
        }
        Gen g = new Gen(n, seed);
        g.run();
        return new PlanProblem(g.out, 1);
    }

    private static final class Gen {
        final int n;
        final SplittableRandom rnd;
        final List<PlanBuffer> out;
        final List<long[]> open = new ArrayList<>();          // {lower, size, kind, number} of live buffers
        final PriorityQueue<long[]> due = new PriorityQueue<>((x, y) -> Long.compare(x[0], y[0])); // {due, slot}
        long clock;
        boolean ending;
        int made;
        int[] counts = new int[5];
        static final String[] KIND = {"w", "o", "a", "t", "g"};

        Gen(int n, long seed) {
            this.n = n;
            this.rnd = new SplittableRandom(seed);
            this.out = new ArrayList<>(n);
        }

        void run() {
            int weights = Math.max(1, Math.min(LAYERS, n / 100));
            List<Integer> forever = new ArrayList<>();
            for (int i = 0; i < weights && made < n; i++) {
                forever.add(alloc(0, pareto(64 << 10, 1.3, 64L << 20)));
            }
            boolean first = true;
            while (made < n) {
                int[] act = new int[LAYERS];
                Arrays.fill(act, -1);
                for (int l = 0; l < LAYERS && made < n; l++) {
                    temporaries(1 + rnd.nextInt(4));
                    act[l] = alloc(2, pareto(32 << 10, 1.4, 32L << 20));
                }
                for (int l = LAYERS - 1; l >= 0 && made < n; l--) {
                    if (act[l] < 0) {
                        continue;
                    }
                    temporaries(1 + rnd.nextInt(5));
                    if (made == n) {
                        break;
                    }
                    int grad = alloc(4, pareto(16 << 10, 1.3, 32L << 20));
                    due.add(new long[]{clock + 2 + rnd.nextInt(12), grad});
                    release();
                    free(act[l]);
                }
                while (!due.isEmpty()) {
                    free((int) due.poll()[1]);
                }
                for (int l = 0; l < LAYERS; l++) {
                    if (act[l] >= 0) {
                        free(act[l]);   // a pass cut short by n
                    }
                }
                if (first) {
                    for (int i = 0; i < weights && made < n; i++) {
                        forever.add(alloc(1, pareto(64 << 10, 1.3, 64L << 20)));
                    }
                    first = false;
                }
            }
            while (!due.isEmpty()) {
                free((int) due.poll()[1]);
            }
            clock++;
            ending = true;     // what is still live (weights, optimizer state) ends together at the end
            for (int s = 0; s < open.size(); s++) {
                free(s);
            }
        }

        void temporaries(int k) {
            for (int j = 0; j < k && made < n; j++) {
                int t = alloc(3, pareto(4 << 10, 1.1, 64L << 20));
                long life = 1;
                while (life < 64 && rnd.nextDouble() < 0.7) {
                    life++;
                }
                due.add(new long[]{clock + life, t});
                release();
            }
        }

        void release() {
            while (!due.isEmpty() && due.peek()[0] <= clock) {
                free((int) due.poll()[1]);
            }
        }

        /** A new live buffer; returns its slot in {@link #open}. */
        int alloc(int kind, long size) {
            release();
            open.add(new long[]{clock, size, kind, counts[kind]++});
            made++;
            clock++;
            return open.size() - 1;
        }

        /** Frees the buffer in {@code slot} (nothing when already freed). */
        void free(int slot) {
            long[] b = open.get(slot);
            if (b == null) {
                return;
            }
            open.set(slot, null);
            long upper = Math.max(clock, b[0] + 1);
            out.add(new PlanBuffer(KIND[(int) b[2]] + b[3], b[0], upper, b[1]));
            if (!ending) {
                clock = upper + 1;
            }
        }

        long pareto(long min, double alpha, long max) {
            double u = 1 - rnd.nextDouble();
            double x = min / Math.pow(u, 1 / alpha);
            long v = (long) Math.min(max, x);
            return Math.max(ROUND, (v + ROUND - 1) / ROUND * ROUND);
        }
    }
}
