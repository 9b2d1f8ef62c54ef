package dev.arenascope.core.plan;

import java.util.List;

/**
 * The tests' independent check of a packing: written from the definition only (pairwise, no sorting,
 * no shared code with the planners): every offset aligned and not negative, no two buffers live at a
 * common step share a byte, the reported height is the highest end, and the lower bound is the most
 * bytes live at any step (computed step by step over the distinct starts).
 */
final class OverlapCheck {
    private OverlapCheck() {}

    static void assertValid(Packing p) {
        PlanProblem prob = p.problem();
        List<PlanBuffer> bs = prob.buffers();
        long[] off = p.offsets();
        if (off.length != bs.size()) {
            throw new AssertionError("packing has " + off.length + " offsets for " + bs.size() + " buffers");
        }
        long height = 0;
        for (int i = 0; i < bs.size(); i++) {
            long size = roundUp(bs.get(i).size(), prob.alignment());
            if (off[i] < 0 || off[i] % prob.alignment() != 0) {
                throw new AssertionError("buffer " + bs.get(i).id() + " at bad offset " + off[i]);
            }
            height = Math.max(height, off[i] + size);
            for (int j = i + 1; j < bs.size(); j++) {
                PlanBuffer a = bs.get(i);
                PlanBuffer b = bs.get(j);
                long sb = roundUp(b.size(), prob.alignment());
                boolean time = a.lower() < b.upper() && b.lower() < a.upper();
                boolean space = off[i] < off[j] + sb && off[j] < off[i] + size && size > 0 && sb > 0;
                if (time && space) {
                    throw new AssertionError("buffers " + a.id() + " [" + off[i] + "+" + size + ") and " + b.id() + " ["
                            + off[j] + "+" + sb + ") overlap in time and space");
                }
            }
        }
        if (height != p.height()) {
            throw new AssertionError("reported height " + p.height() + " but the buffers reach " + height);
        }
        long lb = 0;
        for (PlanBuffer s : bs) {
            long live = 0;
            for (PlanBuffer b : bs) {
                if (b.lower() <= s.lower() && s.lower() < b.upper()) {
                    live += roundUp(b.size(), prob.alignment());
                }
            }
            lb = Math.max(lb, live);
        }
        if (lb != p.lowerBound()) {
            throw new AssertionError("reported lower bound " + p.lowerBound() + " but " + lb + " bytes are live at once");
        }
        if (p.height() < p.lowerBound()) {
            throw new AssertionError("height below the lower bound");
        }
    }

    private static long roundUp(long v, long a) {
        return (v + a - 1) / a * a;
    }
}
