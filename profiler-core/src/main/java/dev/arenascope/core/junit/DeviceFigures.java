package dev.arenascope.core.junit;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.analysis.SiteBreakdown;
import dev.arenascope.core.analysis.SiteQuestion;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.TraceView;

/**
 * The device-memory figures of one recorded test, read once from its store: per memory the peak bytes
 * in use (the {@code used} gauge's largest value, {@code arenascope stats}' {@code peak_bytes}), the bytes
 * in use where the measured run began (the {@link #MEASURE_MARKER} marker; the start when there is none)
 * and at the end, and the allocations of the measured run ({@code ALLOC}, {@code POOL_REQUEST},
 * {@code PLAN_BIND}). Sites come from {@link SiteAnalysis}, as {@code arenascope sites} answers.
 */
public final class DeviceFigures {
    /** The marker the extension publishes where the measured run starts (after warm-ups). */
    public static final String MEASURE_MARKER = "arenascope: measured run";

    /**
     * One memory's figures.
     *
     * @param leakedBytes bytes in use at the end beyond those in use where the measured run began (0 or more)
     */
    public record Memory(MemoryInfo info, long peakBytes, long reservedPeakBytes, long startBytes, long endBytes,
                         long allocations, long leakedBytes) {
        /** The name without the {@code " #N"} number the allocators add. */
        public String family() {
            return info.name().replaceFirst(" #\\d+$", "");
        }
    }

    private final TraceView view;
    private final List<Memory> memories;
    private final long measureNs;

    private DeviceFigures(TraceView view, List<Memory> memories, long measureNs) {
        this.view = view;
        this.memories = List.copyOf(memories);
        this.measureNs = measureNs;
    }

    /** Reads the figures of {@code view} (one pass over its events). */
    public static DeviceFigures of(TraceView view) {
        int n = view.memories().stream().mapToInt(MemoryInfo::id).max().orElse(-1) + 1;
        long[] peak = new long[n];
        long[] reserved = new long[n];
        long[] start = new long[n];
        long[] end = new long[n];
        long[] allocs = new long[n];
        long measureNs = -1;
        for (long i = 0, count = view.eventCount(); i < count; i++) {
            Event e = view.event(i);
            if (e.kind() == EventKind.MARKER && MEASURE_MARKER.equals(view.string(e.ref()))) {
                measureNs = e.timeNs();
                System.arraycopy(end, 0, start, 0, n);
                Arrays.fill(allocs, 0);
                continue;
            }
            int m = e.memory();
            if (m < 0 || m >= n) {
                continue;
            }
            if (e.kind() == EventKind.ALLOC || e.kind() == EventKind.POOL_REQUEST || e.kind() == EventKind.PLAN_BIND) {
                allocs[m]++;
            }
            peak[m] = Math.max(peak[m], e.used());
            reserved[m] = Math.max(reserved[m], e.aux());
            end[m] = e.used();
        }
        List<Memory> out = new ArrayList<>();
        for (MemoryInfo info : view.memories()) {
            int m = info.id();
            long res = info.kind() == MemoryKind.POOL ? reserved[m] : 0;
            out.add(new Memory(info, peak[m], res, start[m], end[m], allocs[m], Math.max(0, end[m] - start[m])));
        }
        return new DeviceFigures(view, out, measureNs);
    }

    public List<Memory> memories() {
        return memories;
    }

    /** The memories {@code name} selects (all for empty); empty when it names none. */
    public List<Memory> select(String name) {
        if (name == null || name.isEmpty()) {
            return memories;
        }
        return memories.stream().filter(m -> m.info().name().equals(name) || m.family().equals(name)
                || m.info().kind().name().equalsIgnoreCase(name)).toList();
    }

    /** The top {@code n} sites live at {@code memory}'s peak, as (label, bytes). */
    public List<Map.Entry<String, Long>> sitesAtPeak(Memory memory, int n) {
        List<Map.Entry<String, Long>> all = rows(SiteAnalysis.of(view, memory.info(), false).ask(new SiteQuestion.AtPeak()), false);
        return all.subList(0, Math.min(n, all.size()));
    }

    /** The sites of the bytes the measured run allocated and left in use, largest first. */
    public List<Map.Entry<String, Long>> sitesLeaked(Memory memory) {
        SiteAnalysis a = SiteAnalysis.of(view, memory.info(), false);
        long from = Math.max(measureNs, view.startNs());
        return rows(a.ask(new SiteQuestion.AllocatedIn(Math.min(from, view.endNs()), view.endNs())), true);
    }

    private static List<Map.Entry<String, Long>> rows(SiteBreakdown b, boolean live) {
        Map<String, Long> by = new LinkedHashMap<>();
        for (SiteBreakdown.Row r : b.rows()) {
            long bytes = live ? r.stillLiveBytes() : r.bytes();
            if (bytes > 0) {
                by.merge(label(r), bytes, Long::sum);
            }
        }
        List<Map.Entry<String, Long>> out = new ArrayList<>(by.entrySet());
        out.sort((x, y) -> Long.compare(y.getValue(), x.getValue()));
        return out;
    }

    /** The allocating frame and its caller ({@code upload (T.java:97) <- grows (T.java:105)}): a helper that
     * allocates for many callers is one row per caller. */
    private static String label(SiteBreakdown.Row r) {
        List<StackFrame> f = r.frames();
        if (f.size() >= 2) {
            return f.get(0).label() + " <- " + f.get(1).label();
        }
        return r.label();
    }

    /** Per memory as a JSON object (the keys of the Python plugin's report). */
    public static Map<String, Object> json(Memory m) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("name", m.info().name());
        o.put("kind", m.info().kind().name());
        o.put("device", m.info().device());
        o.put("peak_bytes", m.peakBytes());
        o.put("reserved_peak_bytes", m.reservedPeakBytes());
        o.put("leaked_bytes", m.leakedBytes());
        o.put("allocations", m.allocations());
        return o;
    }

    // ---------------------------------------------------------------- sizes

    private static final Pattern SIZE = Pattern.compile("\\s*([0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)\\s*([A-Za-z]*)\\s*");
    private static final Map<String, Long> UNITS = Map.ofEntries(
            Map.entry("", 1L), Map.entry("b", 1L),
            Map.entry("k", 1000L), Map.entry("kb", 1000L), Map.entry("m", 1_000_000L), Map.entry("mb", 1_000_000L),
            Map.entry("g", 1_000_000_000L), Map.entry("gb", 1_000_000_000L), Map.entry("t", 1_000_000_000_000L),
            Map.entry("tb", 1_000_000_000_000L), Map.entry("kib", 1L << 10), Map.entry("mib", 1L << 20),
            Map.entry("gib", 1L << 30), Map.entry("tib", 1L << 40));

    /**
     * Bytes of a size written as in the Python plugin ({@code "64 MiB"}, {@code "1.5GB"}, {@code "1024"}).
     *
     * @throws IllegalArgumentException saying why it is not one (negative, an unknown unit, a rate)
     */
    public static long parseSize(String text) {
        if (text == null) {
            throw new IllegalArgumentException("no size given");
        }
        if (text.strip().startsWith("-")) {
            throw new IllegalArgumentException("'" + text + "' is negative (a size is 0 or more bytes)");
        }
        Matcher m = SIZE.matcher(text);
        Long unit = m.matches() ? UNITS.get(m.group(2).toLowerCase(Locale.ROOT)) : null;
        if (unit == null) {
            throw new IllegalArgumentException("'" + text + "' is not a size (a number and one of B, kB, MB, GB, KiB, MiB, GiB)");
        }
        BigDecimal v = new BigDecimal(m.group(1).endsWith(".") ? m.group(1) + "0" : m.group(1))
                .multiply(BigDecimal.valueOf(unit));
        try {
            return v.longValueExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("'" + text + "' is not a whole number of bytes up to 2^63");
        }
    }

    /** {@code n} bytes as the messages write them: {@code 123 B}, {@code 4.0 KiB}, {@code 96.0 MiB}. */
    public static String formatBytes(long n) {
        String[] units = {"GiB", "MiB", "KiB"};
        int[] shifts = {30, 20, 10};
        for (int i = 0; i < units.length; i++) {
            if (Math.abs(n) >= 1L << shifts[i]) {
                return String.format(Locale.ROOT, "%.1f %s", n / (double) (1L << shifts[i]), units[i]);
            }
        }
        return n + " B";
    }
}
