package dev.arenascope.core.trace.file;

import java.util.Locale;

import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Durations;

/**
 * How much of a long recording an {@link AstraceWriter} keeps: at most {@code maxBytes} of file and
 * events no older than {@code maxDurationNs} before the newest, either one off (0). When a limit is
 * passed the writer drops the oldest chunks whole (a ring of chunks) and counts what it dropped in the
 * trace (see {@link RingWindow}).
 *
 * <p>Slack: by size the writer rewrites the file down to {@value #KEEP_PERCENT}% of the cap when the
 * next chunk would take it past the cap, so the file stays at or under {@code maxBytes} (unless one chunk
 * alone is larger) and holds between {@value #KEEP_PERCENT}% and 100% of it. By time it keeps at least the
 * last {@code maxDurationNs} and rewrites when the file spans more than {@value #DURATION_SLACK_PERCENT}%
 * of it, dropping every chunk that ended before the newest minus the duration.
 *
 * @param maxBytes      the largest the file may grow, in bytes, or 0 for no size cap
 * @param maxDurationNs the span of session time kept, in ns, or 0 for no time cap
 */
public record RingCap(long maxBytes, long maxDurationNs) {
    /** The smallest size cap the API takes: below it the header and one chunk would not fit. */
    public static final long MIN_BYTES = 64 << 10;
    /**
     * The smallest size cap the command line takes, 1 MiB: a full chunk of 65,536 events takes 0.2 to
     * 0.5 MiB on disk, so the ring holds a few whole chunks. (A chunk larger than the room left is still
     * kept whole, alone: the file then passes the cap by what that one chunk passes it.)
     */
    public static final long MIN_CLI_BYTES = 1L << 20;
    /** The smallest time cap: one second, the longest a writer holds a chunk before writing it. */
    public static final long MIN_DURATION_NS = 1_000_000_000L;
    /** What a rewrite by size keeps, in percent of the cap. */
    public static final int KEEP_PERCENT = 75;
    /** How far past the time cap the file may span before it is rewritten, in percent of the cap. */
    public static final int DURATION_SLACK_PERCENT = 125;

    public RingCap {
        if (maxBytes < 0 || maxBytes > 0 && maxBytes < MIN_BYTES) {
            throw new IllegalArgumentException("max size must be at least " + Bytes.format(MIN_BYTES) + ", got " + maxBytes + " bytes");
        }
        if (maxDurationNs < 0 || maxDurationNs > 0 && maxDurationNs < MIN_DURATION_NS) {
            throw new IllegalArgumentException("max duration must be at least 1 s, got " + Durations.format(maxDurationNs));
        }
        if (maxBytes == 0 && maxDurationNs == 0) {
            throw new IllegalArgumentException("a ring cap needs a max size or a max duration");
        }
    }

    /** A size cap only. */
    public static RingCap ofBytes(long maxBytes) {
        return new RingCap(maxBytes, 0);
    }

    /** A time cap only. */
    public static RingCap ofDuration(long maxDurationNs) {
        return new RingCap(0, maxDurationNs);
    }

    /**
     * The cap the options {@code --max-size} and {@code --max-duration} ask for (either may be null), or
     * null when neither is given; the size must be at least {@link #MIN_CLI_BYTES}.
     *
     * @throws IllegalArgumentException naming the option and the value when one is not valid
     */
    public static RingCap parseOptions(String maxSize, String maxDuration) {
        if (maxSize == null && maxDuration == null) {
            return null;
        }
        long bytes = 0;
        if (maxSize != null) {
            try {
                bytes = Bytes.parse(maxSize);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--max-size: " + e.getMessage());
            }
            if (bytes < MIN_CLI_BYTES) {
                throw new IllegalArgumentException("--max-size: '" + maxSize + "' is smaller than one chunk can be ("
                        + Bytes.format(MIN_CLI_BYTES) + "); give at least 1MiB");
            }
        }
        long ns = maxDuration == null ? 0 : parseDuration(maxDuration);
        return new RingCap(bytes, ns);
    }

    /**
     * A duration such as {@code 8h}, {@code 90min}, {@code 1h30m}, {@code 45s} or {@code 2d}; a bare number is
     * seconds. At least one second.
     *
     * @throws IllegalArgumentException naming {@code --max-duration} and the text
     */
    public static long parseDuration(String text) {
        String s = text.strip().toLowerCase(Locale.ROOT);
        double total = 0;
        int i = 0;
        boolean any = false;
        while (i < s.length()) {
            int start = i;
            while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
                i++;
            }
            int unitStart = i;
            while (i < s.length() && Character.isLetter(s.charAt(i))) {
                i++;
            }
            String number = s.substring(start, unitStart);
            String unit = s.substring(unitStart, i);
            while (i < s.length() && s.charAt(i) == ' ') {
                i++;
            }
            double scale = switch (unit) {
                case "", "s", "sec" -> 1e9;
                case "ms" -> 1e6;
                case "m", "min" -> 60e9;
                case "h" -> 3600e9;
                case "d" -> 86400e9;
                default -> Double.NaN;
            };
            double v;
            try {
                v = Double.parseDouble(number);
            } catch (NumberFormatException e) {
                v = Double.NaN;
            }
            if (number.isEmpty() || Double.isNaN(scale) || Double.isNaN(v) || unit.isEmpty() && (any || i < s.length())) {
                throw new IllegalArgumentException("--max-duration: '" + text + "' is not a duration (e.g. 8h, 90min, 1h30m, 45s)");
            }
            total += v * scale;
            any = true;
        }
        if (!any) {
            throw new IllegalArgumentException("--max-duration: '" + text + "' is not a duration (e.g. 8h, 90min, 1h30m, 45s)");
        }
        if (!(total >= MIN_DURATION_NS)) {
            throw new IllegalArgumentException("--max-duration: '" + text + "' is shorter than 1 s (a chunk is written every second)");
        }
        if (total >= 0x1p63) {
            throw new IllegalArgumentException("--max-duration: '" + text + "' is too long");
        }
        return (long) total;
    }

    /** The cap as options would give it, e.g. {@code --max-size 2 GiB --max-duration 8 h}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        if (maxBytes > 0) {
            sb.append("max size ").append(Bytes.format(maxBytes));
        }
        if (maxDurationNs > 0) {
            sb.append(sb.isEmpty() ? "" : ", ").append("max duration ").append(Durations.format(maxDurationNs));
        }
        return sb.toString();
    }
}
