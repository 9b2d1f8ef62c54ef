package dev.arenascope.core.format;

import java.util.Locale;

/** Byte counts as people read them: binary units (KiB, MiB, GiB, TiB), and parsing of the same. */
public final class Bytes {
    private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

    private Bytes() {}

    /** Formats {@code bytes} with a binary unit and up to two decimals: {@code 1536 -> "1.50 KiB"}. */
    public static String format(long bytes) {
        if (bytes < 0) {
            return "-" + format(bytes == Long.MIN_VALUE ? Long.MAX_VALUE : -bytes);
        }
        if (bytes < 1024) {
            return bytes + " B";
        }
        int unit = (63 - Long.numberOfLeadingZeros(bytes)) / 10;
        double value = bytes / (double) (1L << (10 * unit));
        return String.format(Locale.ROOT, value >= 100 ? "%.0f %s" : value >= 10 ? "%.1f %s" : "%.2f %s", value, UNITS[unit]);
    }

    /**
     * Parses a byte count: a plain integer (optionally with {@code B}), or a number with a suffix
     * K/Ki/KB/KiB, M/Mi/MB/MiB, G/Gi/GB/GiB, T/Ti/TB/TiB, any case, all binary (a memory profiler's KB is
     * 1024 bytes) — {@code "512MiB"}, {@code "300Mi"}, {@code "2G"}, {@code "1048576"}.
     *
     * @throws IllegalArgumentException naming the text when it is not a non-negative byte count
     */
    public static long parse(String text) {
        String t = text.trim();
        int i = 0;
        while (i < t.length() && (Character.isDigit(t.charAt(i)) || t.charAt(i) == '.')) {
            i++;
        }
        String number = t.substring(0, i);
        String unit = t.substring(i).trim().toUpperCase(Locale.ROOT);
        if (unit.endsWith("B")) {
            unit = unit.substring(0, unit.length() - 1);
        }
        if (unit.endsWith("I")) {
            unit = unit.substring(0, unit.length() - 1);
        }
        int shift = switch (unit) {
            case "" -> 0;
            case "K" -> 10;
            case "M" -> 20;
            case "G" -> 30;
            case "T" -> 40;
            default -> throw new IllegalArgumentException("'" + text + "' is not a byte count (e.g. 300MiB, 300Mi, 300MB, 300M"
                    + " or 314572800; units K, M, G, T are binary)");
        };
        if (number.isEmpty()) {
            throw new IllegalArgumentException("'" + text + "' is not a byte count");
        }
        try {
            if (number.contains(".")) {
                double v = Double.parseDouble(number) * (1L << shift);
                if (v >= 0x1p63) {
                    throw new IllegalArgumentException("'" + text + "' is too large");
                }
                return (long) v;
            }
            long v = Long.parseLong(number);
            if (shift > 0 && v > (Long.MAX_VALUE >> shift)) {
                throw new IllegalArgumentException("'" + text + "' is too large");
            }
            return v << shift;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not a byte count");
        }
    }
}
