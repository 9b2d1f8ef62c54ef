package dev.arenascope.core.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Seeded <em>tight</em> problems: a {@code steps x capacity} rectangle (time by bytes) cut by random
 * guillotine cuts into {@code n} rectangles, each one a buffer live over its steps with its height in
 * bytes. The rectangles tile the whole arena, so every step has exactly {@code capacity} bytes live:
 * the lower bound is the capacity, and a packing within it is known to exist (the cut positions,
 * {@link Tight#knownOffsets}). These are where solvers time out — there is no slack anywhere.
 *
 * <p>Each cut takes a rectangle chosen uniformly among those that can still be cut (at least two
 * steps wide or two bytes high), and splits it across time or across bytes (a fair coin, unless only
 * one is possible) at a uniformly random position. Sizes are multiples of {@code granule} bytes (a cut
 * across bytes lands on a granule boundary), the way real tensors come in multiples of 64 or 512
 * bytes. The same arguments always give the same problem, byte for byte; buffers are numbered in the
 * order the cuts leave them ({@code t0}, {@code t1}, ...).
 *
 * <p>Stateless and thread-safe. Bad arguments (n below 1 or above what the rectangle can be cut into,
 * capacity not a multiple of the granule) raise {@link IllegalArgumentException}.
 */
public final class TightProblems {
    /** MiniMalloc's setting for such problems: 4,096 steps, 1,048,576 bytes, 64-byte granules. */
    public static final long STEPS = 4096;
    public static final long CAPACITY = 1_048_576;
    public static final long GRANULE = 64;

    private TightProblems() {}

    /**
     * A tight problem and the packing it was cut from.
     *
     * @param problem      the buffers (alignment 1)
     * @param capacity     the arena's bytes: the problem's lower bound
     * @param knownOffsets offset of buffer i in the packing the cuts made (height = capacity)
     */
    public record Tight(PlanProblem problem, long capacity, long[] knownOffsets) {}

    /** {@code n} buffers from seed {@code seed}, with MiniMalloc's steps, capacity and granule. */
    public static Tight generate(int n, long seed) {
        return generate(n, seed, STEPS, CAPACITY, GRANULE);
    }

    /** {@code n} buffers cut from a {@code steps x capacity} arena, sizes multiples of {@code granule}. */
    public static Tight generate(int n, long seed, long steps, long capacity, long granule) {
        if (granule < 1 || capacity < granule || capacity % granule != 0 || steps < 1) {
            throw new IllegalArgumentException("tight problem needs steps >= 1 and a capacity that is a positive multiple of the granule, got "
                    + steps + " steps, " + capacity + " bytes, granule " + granule);
        }
        long units = capacity / granule;
        if (n < 1 || (double) n > (double) steps * units) {
            throw new IllegalArgumentException("cannot cut " + steps + " x " + units + " granules into " + n + " buffers");
        }
        SplittableRandom rnd = new SplittableRandom(seed);
        // rectangles as {t0, t1, y0, y1} in steps and granules
        List<long[]> rects = new ArrayList<>();
        List<long[]> cuttable = new ArrayList<>();
        long[] all = {0, steps, 0, units};
        rects.add(all);
        if (steps > 1 || units > 1) {
            cuttable.add(all);
        }
        while (rects.size() < n) {
            int pick = rnd.nextInt(cuttable.size());
            long[] r = cuttable.get(pick);
            boolean canTime = r[1] - r[0] > 1;
            boolean canBytes = r[3] - r[2] > 1;
            boolean acrossTime = canTime && (!canBytes || rnd.nextBoolean());
            long[] a;
            long[] b;
            if (acrossTime) {
                long cut = r[0] + 1 + rnd.nextLong(r[1] - r[0] - 1);
                a = new long[] {r[0], cut, r[2], r[3]};
                b = new long[] {cut, r[1], r[2], r[3]};
            } else {
                long cut = r[2] + 1 + rnd.nextLong(r[3] - r[2] - 1);
                a = new long[] {r[0], r[1], r[2], cut};
                b = new long[] {r[0], r[1], cut, r[3]};
            }
            // r becomes a in place (keeps rects' order stable), b is appended
            System.arraycopy(a, 0, r, 0, 4);
            rects.add(b);
            if (!(r[1] - r[0] > 1 || r[3] - r[2] > 1)) {
                cuttable.set(pick, cuttable.get(cuttable.size() - 1));
                cuttable.remove(cuttable.size() - 1);
            }
            if (b[1] - b[0] > 1 || b[3] - b[2] > 1) {
                cuttable.add(b);
            }
        }
        List<PlanBuffer> buffers = new ArrayList<>(n);
        long[] offsets = new long[n];
        for (int i = 0; i < n; i++) {
            long[] r = rects.get(i);
            buffers.add(new PlanBuffer("t" + i, r[0], r[1], (r[3] - r[2]) * granule));
            offsets[i] = r[2] * granule;
        }
        return new Tight(new PlanProblem(buffers, 1), capacity, offsets);
    }

    /** The suite kept as fixtures and measured by the bench: sizes, three seeds each. */
    public static final int[] SUITE_SIZES = {256, 512, 1000, 2048, 4096, 16384};
    /** Seeds of each size in the suite. */
    public static final long[] SUITE_SEEDS = {1, 2, 3};

    /** The fixture file name of one problem of the suite: {@code tight-1000-s2.csv}. */
    public static String suiteName(int n, long seed) {
        return "tight-" + n + "-s" + seed + ".csv";
    }
}
