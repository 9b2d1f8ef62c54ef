package dev.arenascope.core.plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Lower bounds on the height of every packing of a problem, each one a proof: no packing is lower.
 *
 * <ul>
 *   <li><b>Load</b> ({@link PlanProblem#lowerBound()}): the most aligned bytes live at one step.</li>
 *   <li><b>Granule</b> ({@link #granule}): push every buffer of a packing down until it rests on a
 *       buffer live at a common step (or on 0); the height does not grow, and every offset, so the
 *       height too, becomes a sum of aligned sizes, a multiple of their greatest common divisor
 *       {@code g}. So a bound the search proves ({@code mid + 1} after {@code mid} failed) rounds up to
 *       a multiple of {@code g}: a height between is never the least one ({@link #rounded}).</li>
 *   <li><b>Windows</b> ({@link #windows}): cut a range of time out of the problem, keep the buffers
 *       live in it with their lifetimes clipped to it, and drop the rest. Every packing of the problem
 *       is a packing of that window (the constraints left are a subset), so a height the window cannot
 *       pack in, proved by the complete search, no packing of the whole problem packs in either. Small
 *       windows are searched exhaustively in milliseconds; an obstruction that is local in time (a
 *       buffer that must sit in two incompatible places of two neighbouring peaks) lifts the bound
 *       past the load there, where the whole problem's search would have to exhaust every other
 *       choice first.</li>
 * </ul>
 *
 * <p>The window proofs rest on {@link CanonicalSearch}'s table of failed states, keyed by 64-bit
 * hashes (see the planning guide). Stateless and thread-safe.
 */
public final class LowerBounds {
    private LowerBounds() {}

    /** What a proved bound rests on, as {@code plan} and the plan JSON name it. */
    public enum Basis {
        /** the most bytes live at one step */
        LOAD("load"),
        /** a window of time proved unable to pack below the bound */
        WINDOW("window"),
        /** the whole problem's search proved every lower height impossible */
        SEARCH("search");

        private final String label;

        Basis(String label) {
            this.label = label;
        }

        /** The lower-case name used in output ({@code load}, {@code granule}, {@code window}, {@code search}). */
        public String label() {
            return label;
        }
    }

    /** A proved bound and what it rests on. */
    public record Bound(long bytes, Basis basis) {}

    /**
     * The greatest common divisor of the non-zero aligned sizes (the alignment when every size is
     * zero): every canonical packing's offsets and height are multiples of it.
     */
    public static long granule(PlanProblem p) {
        long g = 0;
        for (int i = 0; i < p.size(); i++) {
            g = gcd(g, p.alignedSize(i));
        }
        return g == 0 ? p.alignment() : g;
    }

    /** {@code bytes} rounded up to the problem's {@link #granule}: still a bound when {@code bytes} is one. */
    public static long rounded(PlanProblem p, long bytes) {
        return PlanProblem.alignUp(bytes, granule(p));
    }

    /**
     * The load bound with its basis. (The load is a sum of sizes, so already a multiple of the
     * granule; bounds the search proves are rounded up to it.) O(n log n).
     */
    public static Bound basic(PlanProblem p) {
        return new Bound(p.lowerBound(), Basis.LOAD);
    }

    /**
     * Raises {@code from} (a proved bound, a multiple of the granule) by windows of time, searched by
     * the complete search until {@code deadline} ({@link System#nanoTime()}), and never past
     * {@code upTo} (a height known to pack: nothing above it can be proved impossible).
     *
     * <p>Windows grow from two sections (one is the load) to all but one of the problem's sections (lengths rising by half
     * each round, starts a quarter of the length apart), the busiest first within a round; each is
     * asked whether it packs within {@code bound} bytes (heights below it are already impossible), and
     * while it does not the bound rises by the granule {@code g} (no height in between is canonical). A window gets at most 50 ms a question (an undecided one is passed over), so
     * the method returns within about that of {@code deadline}. Windows as long as the whole problem
     * are left to the whole problem's search.
     *
     * @return the bound reached: {@code from} unless a window proved more
     */
    public static long windows(PlanProblem p, long from, long upTo, long deadline) {
        long g = granule(p);
        long bound = rounded(p, from);
        long[] pts = sectionPoints(p);
        int sections = pts.length - 1;
        for (int w = 2; w < sections && bound < upTo; w = Math.max(w + 1, w * 3 / 2)) {
            List<Window> round = new ArrayList<>();
            int stride = Math.max(1, w / 4);
            for (int i = 0; i + w <= sections; i += stride) {
                round.add(window(p, pts[i], pts[i + w]));
            }
            round.sort((a, b) -> Long.compare(b.load, a.load));
            for (Window win : round) {
                long now = System.nanoTime();
                if (now >= deadline || bound >= upTo) {
                    return bound;
                }
                if (win.load < bound - g * 64) {
                    break; // far below the bound: a window this slack is not where the bound rises
                }
                while (bound < upTo) {
                    long[] out = new long[win.problem.size()];
                    long until = Math.min(deadline, System.nanoTime() + 50_000_000L);
                    CanonicalSearch.Outcome o = SearchPlanner.portfolio(win.problem, bound, until, out);
                    if (o != CanonicalSearch.Outcome.INFEASIBLE) {
                        break;
                    }
                    bound += g; // the window packs in no height up to bound, nor does the problem
                }
            }
        }
        return Math.min(bound, upTo);
    }

    /** One window of time: its buffers clipped to it, and its load. */
    private record Window(PlanProblem problem, long load) {}

    private static Window window(PlanProblem p, long start, long end) {
        List<PlanBuffer> in = new ArrayList<>();
        for (PlanBuffer b : p.buffers()) {
            if (b.lower() < end && start < b.upper() && b.size() > 0) {
                in.add(new PlanBuffer(b.id(), Math.max(b.lower(), start), Math.min(b.upper(), end), b.size()));
            }
        }
        PlanProblem q = new PlanProblem(in, p.alignment());
        return new Window(q, q.lowerBound());
    }

    /** The distinct starts and ends of the non-empty buffers, ascending: section {@code s} is {@code [pts[s], pts[s+1])}. */
    private static long[] sectionPoints(PlanProblem p) {
        long[] pts = new long[2 * p.size()];
        int k = 0;
        for (int i = 0; i < p.size(); i++) {
            if (p.alignedSize(i) > 0) {
                pts[k++] = p.buffers().get(i).lower();
                pts[k++] = p.buffers().get(i).upper();
            }
        }
        return Arrays.stream(pts, 0, k).sorted().distinct().toArray();
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }
}
