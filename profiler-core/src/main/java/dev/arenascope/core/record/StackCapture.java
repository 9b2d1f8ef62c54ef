package dev.arenascope.core.record;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import dev.arenascope.core.trace.SiteTable;
import dev.arenascope.core.trace.StackFrame;

/**
 * Opt-in call-stack capture for a {@link Session}'s allocations: each sampled allocation walks its
 * thread's stack ({@link StackWalker}, at most {@link #depth()} frames, the profiler's own
 * {@code dev.arenascope.core} frames left out) and becomes a site of the session's {@link SiteTable}.
 * A stack seen before costs its walk and one hash lookup; its frames are interned once.
 *
 * <h2>Sampling</h2>
 * A walk costs microseconds, far more than a recorded allocation, so a program that allocates in a
 * tight loop may sample: {@link #everyNth(int, int)} walks every Nth allocation of the session;
 * {@link #everyBytes(long, int)} walks, per thread, at byte intervals drawn from an exponential
 * distribution of the given mean, as tcmalloc's sampler does, so an allocation is picked with a
 * probability growing with its size. Unsampled allocations carry no site; the session says how it
 * sampled in its {@link SiteTable#SAMPLING_ATTRIBUTE} attribute, and reports repeat it.
 *
 * <p>Frames of {@code java.*}, {@code jdk.*} and {@code sun.*} are marked
 * {@link StackFrame#FLAG_INTERNAL}. Thread-safe: allocating threads call {@link #capture(long)} concurrently.
 */
public final class StackCapture {
    private static final String OWN = "dev.arenascope.core.";
    private static final StackWalker WALKER = StackWalker.getInstance();

    private final int depth;
    private final long every;       // > 0: every Nth allocation
    private final long meanBytes;   // > 0: bytes-based sampling
    private final AtomicLong count = new AtomicLong();
    private final ThreadLocal<long[]> untilSample = ThreadLocal.withInitial(() -> new long[] {-1});
    private SiteTable table;
    private final ConcurrentHashMap<Key, Integer> sites = new ConcurrentHashMap<>();

    private StackCapture(int depth, long every, long meanBytes) {
        if (depth < 1 || depth > 1024) {
            throw new IllegalArgumentException("stack depth must be 1 to 1024 frames, got " + depth);
        }
        this.depth = depth;
        this.every = every;
        this.meanBytes = meanBytes;
    }

    /** Walks every allocation, keeping up to {@code depth} frames. */
    public static StackCapture all(int depth) {
        return new StackCapture(depth, 1, 0);
    }

    /**
     * Walks every {@code n}th allocation of the session.
     *
     * @throws IllegalArgumentException when {@code n} is not positive or the depth is out of 1..1024
     */
    public static StackCapture everyNth(int n, int depth) {
        if (n < 1) {
            throw new IllegalArgumentException("sample every N allocations: N must be at least 1, got " + n);
        }
        return new StackCapture(depth, n, 0);
    }

    /**
     * Walks allocations at exponentially distributed byte intervals of mean {@code meanBytes}, per thread.
     *
     * @throws IllegalArgumentException when {@code meanBytes} is not positive or the depth is out of 1..1024
     */
    public static StackCapture everyBytes(long meanBytes, int depth) {
        if (meanBytes < 1) {
            throw new IllegalArgumentException("the mean sampling interval must be at least 1 byte, got " + meanBytes);
        }
        return new StackCapture(depth, 0, meanBytes);
    }

    /** Frames kept per stack, innermost first. */
    public int depth() {
        return depth;
    }

    /** How this capture samples, in words; null when it walks every allocation. */
    public String sampling() {
        if (every == 1) {
            return null;
        }
        return every > 1 ? String.format(Locale.ROOT, "one allocation in %d", every)
                : String.format(Locale.ROOT, "on average one allocation per %d bytes", meanBytes);
    }

    void attach(SiteTable sessionSites) {
        this.table = sessionSites;
    }

    /**
     * The site of the calling thread's current stack, or -1 when this allocation is not sampled.
     *
     * @param bytes the allocation's size (for bytes-based sampling)
     */
    public int capture(long bytes) {
        if (!sampled(bytes)) {
            return -1;
        }
        return WALKER.walk(s -> {
            String[] cls = new String[depth];
            String[] method = new String[depth];
            String[] file = new String[depth];
            int[] line = new int[depth];
            int[] n = {0};
            s.filter(f -> !f.getClassName().startsWith(OWN)).limit(depth).forEach(f -> {
                int k = n[0]++;
                cls[k] = f.getClassName();
                method[k] = f.getMethodName();
                file[k] = f.getFileName() == null ? "" : f.getFileName();
                line[k] = Math.max(0, f.getLineNumber());
            });
            Key key = new Key(Arrays.copyOf(cls, n[0]), Arrays.copyOf(method, n[0]), Arrays.copyOf(line, n[0]));
            Integer site = sites.get(key);
            if (site != null) {
                return site;
            }
            return sites.computeIfAbsent(key, k -> intern(k, file));
        });
    }

    private int intern(Key k, String[] file) {
        int[] frames = new int[k.cls.length];
        for (int i = 0; i < frames.length; i++) {
            String c = k.cls[i];
            String simple = c.substring(c.lastIndexOf('.') + 1);
            boolean internal = c.startsWith("java.") || c.startsWith("jdk.") || c.startsWith("sun.");
            // outermost first for the table: the walk gave innermost first
            frames[frames.length - 1 - i] = table.frame(simple + "." + k.method[i], file[i], k.line[i],
                    internal ? StackFrame.FLAG_INTERNAL : 0);
        }
        return table.stack(frames);
    }

    private boolean sampled(long bytes) {
        if (every == 1) {
            return true;
        }
        if (every > 1) {
            return count.getAndIncrement() % every == 0;
        }
        long[] left = untilSample.get();
        if (left[0] < 0) {
            left[0] = nextInterval();
        }
        left[0] -= Math.max(1, bytes);
        if (left[0] >= 0) {
            return false;
        }
        left[0] = nextInterval();
        return true;
    }

    private long nextInterval() {
        double u = ThreadLocalRandom.current().nextDouble();
        return (long) Math.max(1, -Math.log(1 - u) * meanBytes);
    }

    private record Key(String[] cls, String[] method, int[] line) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && Arrays.equals(line, k.line) && Arrays.equals(method, k.method) && Arrays.equals(cls, k.cls);
        }

        @Override
        public int hashCode() {
            return 31 * (31 * Arrays.hashCode(cls) + Arrays.hashCode(method)) + Arrays.hashCode(line);
        }
    }
}
