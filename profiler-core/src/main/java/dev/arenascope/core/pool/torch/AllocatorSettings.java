package dev.arenascope.core.pool.torch;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

import dev.arenascope.core.format.Bytes;

/**
 * The settings of PyTorch's caching allocator that change where blocks go ({@code PYTORCH_CUDA_ALLOC_CONF}),
 * and the device's capacity. Immutable.
 *
 * @param maxSplitSize        {@code max_split_size_mb} in bytes: blocks at or above it are never split
 *                            ({@link #NO_LIMIT}: the default, no limit)
 * @param maxNonSplitRounding {@code max_non_split_rounding_mb} in bytes: how much larger than the request an
 *                            oversize cached block may be and still serve it (default 20 MiB)
 * @param roundupDivisions    {@code roundup_power2_divisions}: per power-of-two interval of request sizes
 *                            (index 0: below 2 MiB, i: [2^i, 2^(i+1)) MiB, 15: 32 GiB and up), the divisions
 *                            sizes are rounded up to (0 or 1: none, plain 512-byte rounding)
 * @param gcThreshold         {@code garbage_collection_threshold}, a fraction of the capacity (0: off); it
 *                            acts only with a capacity, as PyTorch's acts only with a memory fraction set
 * @param expandableSegments  {@code expandable_segments}
 * @param capacity            bytes the allocator may reserve (a memory fraction's allowed maximum, or the
 *                            device's size); 0 for no limit
 */
public record AllocatorSettings(long maxSplitSize, long maxNonSplitRounding, int[] roundupDivisions, double gcThreshold,
                                boolean expandableSegments, long capacity) {
    public static final long NO_LIMIT = Long.MAX_VALUE;
    static final long MIB = 1L << 20;
    public static final AllocatorSettings DEFAULTS = new AllocatorSettings(NO_LIMIT, 20 * MIB, new int[16], 0, false, 0);

    public AllocatorSettings {
        if (roundupDivisions.length != 16) {
            throw new IllegalArgumentException("roundup_power2_divisions needs 16 intervals, got " + roundupDivisions.length);
        }
        roundupDivisions = roundupDivisions.clone();
    }

    @Override
    public int[] roundupDivisions() {
        return roundupDivisions.clone();
    }

    int divisionsFor(long size) {
        int log = 63 - Long.numberOfLeadingZeros(size);
        return roundupDivisions[Math.max(0, Math.min(15, log - 20))];
    }

    /**
     * The settings a snapshot recorded ({@code allocator_settings.max_split_size}, {@code
     * .garbage_collection_threshold}, {@code .expandable_segments}, {@code .roundup_power2_divisions.N},
     * {@code .max_non_split_rounding_size}), the defaults for what it does not say.
     */
    public static AllocatorSettings fromSnapshot(Map<String, String> s) {
        long split = NO_LIMIT;
        String ms = s.get("allocator_settings.max_split_size");
        if (ms != null) {
            long v = parseLong(ms, NO_LIMIT);
            split = v <= 0 ? NO_LIMIT : v;
        }
        long rounding = 20 * MIB;
        String nr = s.get("allocator_settings.max_non_split_rounding_size");
        if (nr != null && parseLong(nr, -1) > 0) {
            rounding = parseLong(nr, -1);
        }
        int[] div = new int[16];
        for (int i = 0; i < 16; i++) {
            String d = s.get("allocator_settings.roundup_power2_divisions." + (1L << i));
            if (d != null) {
                div[i] = (int) Math.max(0, Math.min(1 << 20, parseLong(d, 0)));
            }
        }
        double gc = 0;
        String g = s.get("allocator_settings.garbage_collection_threshold");
        if (g != null) {
            try {
                gc = Double.parseDouble(g);
            } catch (NumberFormatException ignored) {
                gc = 0;
            }
        }
        boolean exp = "True".equalsIgnoreCase(s.getOrDefault("allocator_settings.expandable_segments", "false"));
        return new AllocatorSettings(split, rounding, div, gc > 0 && gc < 1 ? gc : 0, exp, 0);
    }

    private static long parseLong(String s, long bad) {
        try {
            return Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            return bad;
        }
    }

    /**
     * These settings with one changed, named as {@code PYTORCH_CUDA_ALLOC_CONF} names it:
     * {@code max_split_size_mb} 128 (or {@code none}), {@code max_non_split_rounding_mb=N},
     * {@code roundup_power2_divisions=4} or {@code =[256:1,512:2,>:8]}, {@code garbage_collection_threshold=0.8},
     * {@code expandable_segments=true}; and {@code capacity=80GiB}.
     *
     * @throws IllegalArgumentException naming the key or value that is wrong
     */
    public AllocatorSettings with(String key, String value) {
        String v = value.trim();
        return switch (key.trim().toLowerCase(Locale.ROOT)) {
            case "max_split_size_mb" -> {
                if (v.equalsIgnoreCase("none") || v.equals("-1")) {
                    yield new AllocatorSettings(NO_LIMIT, maxNonSplitRounding, roundupDivisions, gcThreshold, expandableSegments, capacity);
                }
                long mb = mib(key, v);
                if (mb < 20) {
                    throw new IllegalArgumentException("max_split_size_mb must be at least 20 (PyTorch refuses less), got " + v);
                }
                yield new AllocatorSettings(mb * MIB, maxNonSplitRounding, roundupDivisions, gcThreshold, expandableSegments, capacity);
            }
            case "max_non_split_rounding_mb" -> {
                long mb = mib(key, v);
                if (mb < 20) {
                    throw new IllegalArgumentException("max_non_split_rounding_mb must be at least 20, got " + v);
                }
                yield new AllocatorSettings(maxSplitSize, mb * MIB, roundupDivisions, gcThreshold, expandableSegments, capacity);
            }
            case "roundup_power2_divisions" -> new AllocatorSettings(maxSplitSize, maxNonSplitRounding, divisions(v), gcThreshold,
                    expandableSegments, capacity);
            case "garbage_collection_threshold" -> {
                double t;
                try {
                    t = Double.parseDouble(v);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("garbage_collection_threshold: not a number: " + v);
                }
                if (!(t >= 0 && t < 1)) {
                    throw new IllegalArgumentException("garbage_collection_threshold must be in (0, 1), got " + v);
                }
                yield new AllocatorSettings(maxSplitSize, maxNonSplitRounding, roundupDivisions, t, expandableSegments, capacity);
            }
            case "expandable_segments" -> {
                if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
                    throw new IllegalArgumentException("expandable_segments must be true or false, got " + v);
                }
                yield new AllocatorSettings(maxSplitSize, maxNonSplitRounding, roundupDivisions, gcThreshold, v.equalsIgnoreCase("true"), capacity);
            }
            case "capacity" -> new AllocatorSettings(maxSplitSize, maxNonSplitRounding, roundupDivisions, gcThreshold, expandableSegments,
                    parseBytes(v));
            default -> throw new IllegalArgumentException("unknown allocator setting '" + key + "' (known: max_split_size_mb, "
                    + "max_non_split_rounding_mb, roundup_power2_divisions, garbage_collection_threshold, expandable_segments, capacity)");
        };
    }

    /**
     * These settings with every pair of {@code conf} applied in order, written as {@code PYTORCH_CUDA_ALLOC_CONF}
     * writes them ({@code expandable_segments:True,max_split_size_mb:128}) or with {@code =}
     * ({@code max_split_size_mb=128}); a {@code roundup_power2_divisions:[256:1,512:2,>:8]} list keeps its
     * commas. The keys are those of {@link #with}.
     *
     * @throws IllegalArgumentException naming the pair that is wrong
     */
    public AllocatorSettings withConf(String conf) {
        AllocatorSettings s = this;
        int depth = 0;
        int start = 0;
        int pairs = 0;
        for (int i = 0; i <= conf.length(); i++) {
            char c = i < conf.length() ? conf.charAt(i) : ',';
            if (c == '[') {
                depth++;
            } else if (c == ']') {
                depth = Math.max(0, depth - 1);
            } else if (c == ',' && depth == 0 || i == conf.length()) { // the end closes an unclosed list too: with() names it
                String pair = conf.substring(start, i).trim();
                start = i + 1;
                if (pair.isEmpty() && i == conf.length() && pairs > 0) {
                    continue; // a trailing comma
                }
                pairs++;
                int sep = separator(pair);
                if (sep <= 0) {
                    throw new IllegalArgumentException("'" + pair + "': expected KEY:VALUE or KEY=VALUE");
                }
                s = s.with(pair.substring(0, sep), pair.substring(sep + 1));
            }
        }
        return s;
    }

    /** Where a pair's key ends: its first {@code =} or {@code :}, whichever comes first; -1 when it has neither. */
    private static int separator(String pair) {
        int eq = pair.indexOf('=');
        int colon = pair.indexOf(':');
        return eq < 0 ? colon : colon < 0 ? eq : Math.min(eq, colon);
    }

    private static long mib(String key, String v) {
        try {
            long mb = Long.parseLong(v);
            if (mb < 0 || mb > (Long.MAX_VALUE >> 20)) {
                throw new IllegalArgumentException(key + ": out of range: " + v);
            }
            return mb;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + ": not a whole number of MiB: " + v);
        }
    }

    /** {@code 4}, or {@code [256:1,512:2,>:8]} as PyTorch reads it (interval starts in MiB, powers of two). */
    static int[] divisions(String v) {
        int[] d = new int[16];
        if (!v.startsWith("[")) {
            int n = division(v);
            Arrays.fill(d, n);
            return d;
        }
        if (!v.endsWith("]")) {
            throw new IllegalArgumentException("roundup_power2_divisions: missing ']' in " + v);
        }
        String body = v.substring(1, v.length() - 1).trim();
        boolean first = true;
        int last = 0;
        for (String part : body.isEmpty() ? new String[0] : body.split(",")) {
            String[] kv = part.split(":");
            if (kv.length != 2) {
                throw new IllegalArgumentException("roundup_power2_divisions: expected START:DIVISIONS, got '" + part.trim() + "'");
            }
            String k = kv[0].trim();
            int n = division(kv[1].trim());
            if (k.equals(">")) {
                Arrays.fill(d, last, 16, n);
                continue;
            }
            long start;
            try {
                start = Long.parseLong(k);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("roundup_power2_divisions: interval '" + k + "' is not a number");
            }
            if (start <= 0 || Long.bitCount(start) != 1) {
                throw new IllegalArgumentException("roundup_power2_divisions: interval " + k + " is not a power of two");
            }
            int index = Math.min(15, 63 - Long.numberOfLeadingZeros(start));
            if (first) {
                Arrays.fill(d, 0, index, n);
                first = false;
            }
            d[index] = n;
            last = index;
        }
        return d;
    }

    private static int division(String v) {
        int n;
        try {
            n = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("roundup_power2_divisions: not a number: " + v);
        }
        if (n < 0 || n != 0 && Integer.bitCount(n) != 1) {
            throw new IllegalArgumentException("roundup_power2_divisions must be 0 or a power of two, got " + v);
        }
        return n;
    }

    /** {@code 80GiB}, {@code 512MiB}, {@code 2G} or bytes ({@link dev.arenascope.core.format.Bytes#parse}: binary units). */
    public static long parseBytes(String v) {
        long b = Bytes.parse(v);
        if (b <= 0) {
            throw new IllegalArgumentException("capacity must be above 0, got '" + v + "'");
        }
        return b;
    }

    /** The settings as {@code PYTORCH_CUDA_ALLOC_CONF} would say them ({@code defaults} when none is set). */
    public String describe() {
        StringBuilder b = new StringBuilder();
        if (expandableSegments) {
            b.append("expandable_segments:True,");
        }
        if (maxSplitSize != NO_LIMIT) {
            b.append("max_split_size_mb:").append(maxSplitSize >> 20).append(',');
        }
        if (maxNonSplitRounding != 20 * MIB) {
            b.append("max_non_split_rounding_mb:").append(maxNonSplitRounding >> 20).append(',');
        }
        boolean anyDiv = false;
        boolean same = true;
        for (int d : roundupDivisions) {
            anyDiv |= d > 1;
            same &= d == roundupDivisions[0];
        }
        if (anyDiv) {
            if (same) {
                b.append("roundup_power2_divisions:").append(roundupDivisions[0]).append(',');
            } else {
                b.append("roundup_power2_divisions:[");
                for (int i = 0; i < 16; i++) {
                    b.append(i == 0 ? "" : ",").append(1L << i).append(':').append(roundupDivisions[i]);
                }
                b.append("],");
            }
        }
        if (gcThreshold > 0) {
            b.append("garbage_collection_threshold:").append(gcThreshold).append(',');
        }
        if (b.isEmpty()) {
            return "defaults";
        }
        b.setLength(b.length() - 1);
        return b.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AllocatorSettings s && s.maxSplitSize == maxSplitSize && s.maxNonSplitRounding == maxNonSplitRounding
                && Arrays.equals(s.roundupDivisions, roundupDivisions) && s.gcThreshold == gcThreshold
                && s.expandableSegments == expandableSegments && s.capacity == capacity;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(maxSplitSize) * 31 + Arrays.hashCode(roundupDivisions) + Boolean.hashCode(expandableSegments) + Long.hashCode(capacity);
    }

    @Override
    public String toString() {
        return describe() + (capacity > 0 ? " capacity " + capacity : "");
    }
}
