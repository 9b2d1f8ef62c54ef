package dev.arenascope.core.plan;

import java.util.List;

/**
 * The tests' exhaustive reference: whether a (tiny) problem packs within a capacity, trying every
 * offset in steps of the sizes' greatest common divisor for every buffer. Written from the definition
 * only; exponential, for a handful of buffers.
 */
final class BruteForce {
    private BruteForce() {}

    static boolean packs(PlanProblem p, long capacity) {
        long g = 0;
        for (int i = 0; i < p.size(); i++) {
            g = gcd(g, p.alignedSize(i));
        }
        return place(p, capacity, Math.max(1, g), new long[p.size()], 0);
    }

    private static boolean place(PlanProblem p, long cap, long step, long[] off, int i) {
        if (i == p.size()) {
            return true;
        }
        List<PlanBuffer> bs = p.buffers();
        long size = p.alignedSize(i);
        for (long o = 0; o + size <= cap; o += step) {
            boolean ok = true;
            for (int j = 0; j < i && ok; j++) {
                long sj = p.alignedSize(j);
                boolean time = bs.get(i).lower() < bs.get(j).upper() && bs.get(j).lower() < bs.get(i).upper();
                ok = !(time && o < off[j] + sj && off[j] < o + size && size > 0 && sj > 0);
            }
            if (ok) {
                off[i] = o;
                if (place(p, cap, step, off, i + 1)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }
}
