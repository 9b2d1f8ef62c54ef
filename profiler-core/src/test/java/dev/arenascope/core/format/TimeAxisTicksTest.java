package dev.arenascope.core.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * The time axis's ticks (issue 28): on round values of one unit (1, 2, 5, 10, 15, 30 s, 1 min …, and the ms, µs and
 * ns analogues), every label in the axis's one unit and reading back as its tick's instant; an untimed trace's axis
 * in whole entries.
 */
class TimeAxisTicksTest {
    private static final long S = 1_000_000_000L;
    private static final long MIN = 60 * S;
    private static final long H = 60 * MIN;

    /** Every round step in order, written out independently of the code under test. */
    private static final List<Long> LADDER = new ArrayList<>();

    static {
        for (long p = 1; p < S; p *= 10) {
            LADDER.addAll(List.of(p, 2 * p, 5 * p));
        }
        for (long u : new long[] {S, MIN}) {
            for (long m : new long[] {1, 2, 5, 10, 15, 30}) {
                LADDER.add(m * u);
            }
        }
        for (long m : new long[] {1, 2, 3, 6, 12, 24}) {
            LADDER.add(m * H);
        }
        for (long p = 10; p < 1_000_000; p *= 10) {
            LADDER.addAll(List.of(2 * 24 * H * p / 10, 5 * 24 * H * p / 10, 24 * H * p));
        }
    }

    /** Whether {@code step} is a round value of one unit. */
    private static boolean round(long step) {
        if (step < S) {
            long m = step;
            while (m % 10 == 0) {
                m /= 10;
            }
            return m == 1 || m == 2 || m == 5;
        }
        if (step < MIN) {
            return List.of(1L, 2L, 5L, 10L, 15L, 30L).contains(step / S) && step % S == 0;
        }
        if (step < H) {
            return List.of(1L, 2L, 5L, 10L, 15L, 30L).contains(step / MIN) && step % MIN == 0;
        }
        if (step <= 24 * H) {
            return List.of(1L, 2L, 3L, 6L, 12L, 24L).contains(step / H) && step % H == 0;
        }
        long days = step / (24 * H);
        while (days % 10 == 0) {
            days /= 10;
        }
        return step % (24 * H) == 0 && (days == 1 || days == 2 || days == 5);
    }

    /** A label read back in nanoseconds: {@code 1,200 ms}, {@code 1.5 s}, {@code 90 s}, {@code 15 min}, {@code 2 h}. */
    private static double read(String label) {
        String s = label.replace(",", "");
        if (s.endsWith(" h")) {
            return Double.parseDouble(s.substring(0, s.length() - 2)) * H;
        }
        return Durations.parse(s, Double.NaN);
    }

    @Test
    void ticksFallOnRoundValuesOfOneUnitAndTheirLabelsSayExactlyWhere() {
        List<String> failures = new ArrayList<>();
        int axes = 0;
        // spans from a few ns to 40 days, starting at 0 and deep into a session, at widths from 2 to 40 ticks
        for (double span = 3; span < 40 * 24 * H; span *= 1.37) {
            for (long from : new long[] {0, (long) (span * 2.3), 7 * H + 123_456_789L}) {
                for (int maxTicks : new int[] {2, 5, 9, 17, 40}) {
                    long to = from + (long) span;
                    TimeAxis.Ticks t = TimeAxis.TIME.ticks(from, to, maxTicks);
                    axes++;
                    String where = from + "–" + to + " ns, " + maxTicks + " ticks: step " + t.stepNs();
                    long step = t.stepNs();
                    if (!round(step)) {
                        failures.add(where + " is not a round value of one unit");
                    }
                    if ((double) (to - from) / step > maxTicks) {
                        failures.add(where + " makes more ticks than there is room for");
                    }
                    // the least round step that fits: a smaller one would not
                    long least = LADDER.stream().filter(x -> (double) (to - from) / x <= maxTicks).findFirst().orElseThrow();
                    if (least != step) {
                        failures.add(where + ": " + least + " fits and is the least round step");
                    }
                    if (t.count() < 1 && to - from >= step) {
                        failures.add(where + " has no tick");
                    }
                    Set<String> units = new HashSet<>();
                    Set<String> labels = new HashSet<>();
                    for (int i = 0; i < t.count(); i++) {
                        long at = t.at(i);
                        if (at % step != 0 || at < from || at > to) {
                            failures.add(where + ": a tick at " + at);
                        }
                        String label = t.label(at);
                        units.add(label.substring(label.lastIndexOf(' ') + 1));
                        labels.add(label);
                        double back = read(label);
                        if (Math.abs(back - at) > Math.max(0.5, at * 1e-12)) {
                            failures.add(where + ": '" + label + "' reads " + back + " for " + at);
                        }
                    }
                    if (units.size() > 1) {
                        failures.add(where + ": labels in " + units);
                    }
                    if (labels.size() != t.count()) {
                        failures.add(where + ": two ticks with one label");
                    }
                    if (failures.size() > 20) {
                        break;
                    }
                }
            }
        }
        assertTrue(axes > 500, "axes tried: " + axes);
        assertEquals(List.of(), failures);
    }

    private static List<String> labels(TimeAxis axis, long from, long to, double maxTicks) {
        TimeAxis.Ticks t = axis.ticks(from, to, maxTicks);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < t.count(); i++) {
            out.add(t.label(t.at(i)));
        }
        return out;
    }

    @Test
    void theLabelsAUserReadsOnCommonSpans() {
        // a 10 s run across 6 ticks' room: whole even seconds
        assertEquals(List.of("0 s", "2 s", "4 s", "6 s", "8 s", "10 s"), labels(TimeAxis.TIME, 0, 10 * S, 6));
        // the bcrafton snapshot's 50.65 ms at 1,900 px (a tick per 110 px): 5 ms steps in ms, never "0 ns" then "5.00 ms"
        assertEquals("0 ms", labels(TimeAxis.TIME, 0, 50_650_000, 1900 / 110.0).getFirst());
        assertEquals("50 ms", labels(TimeAxis.TIME, 0, 50_650_000, 1900 / 110.0).getLast());
        // past a second with sub-second steps: seconds, one decimal on every label
        assertEquals(List.of("1.2 s", "1.4 s", "1.6 s", "1.8 s", "2.0 s"), labels(TimeAxis.TIME, 1_150_000_000, 2_000_000_000, 5));
        // minutes: 30 s steps stay in seconds; whole-minute steps in minutes
        assertEquals(List.of("0 s", "30 s", "60 s", "90 s", "120 s", "150 s", "180 s"), labels(TimeAxis.TIME, 0, 3 * MIN, 8));
        assertEquals(List.of("0 min", "15 min", "30 min", "45 min", "60 min", "75 min", "90 min", "105 min", "120 min"),
                labels(TimeAxis.TIME, 0, 2 * H, 8));
        assertEquals(List.of("0 h", "6 h", "12 h", "18 h", "24 h"), labels(TimeAxis.TIME, 0, 24 * H, 5));
        // deep into a second at a fine zoom: milliseconds, not a seconds label with six decimals
        assertEquals(List.of("12,000.40 ms", "12,000.45 ms", "12,000.50 ms"), labels(TimeAxis.TIME, 12_000_400_000L, 12_000_500_000L, 2));
        assertEquals(List.of("400 ns", "600 ns"), labels(TimeAxis.TIME, 250, 750, 3));
    }

    @Test
    void anUntimedTracesAxisCountsWholeEntries() {
        // entry n sits at n µs: ticks on 1, 2 or 5 times a power of ten entries, bare entry numbers, no unit of time
        assertEquals(List.of("0", "1,000", "2,000", "3,000", "4,000", "5,000", "6,000"), labels(TimeAxis.ENTRIES, 0, 6_486 * TimeAxis.NS_PER_ENTRY, 7));
        // zoomed in to a few entries: never a step under one entry
        TimeAxis.Ticks few = TimeAxis.ENTRIES.ticks(3_697 * TimeAxis.NS_PER_ENTRY, 3_700 * TimeAxis.NS_PER_ENTRY, 50);
        assertEquals(TimeAxis.NS_PER_ENTRY, few.stepNs());
        assertEquals("3,697", few.label(few.at(0)));
        for (double span = 1; span < 1e13; span *= 3.1) {
            long step = TimeAxis.ENTRIES.tickStep((long) span, 11);
            assertEquals(0, step % TimeAxis.NS_PER_ENTRY, "whole entries for a span of " + span + " ns");
            assertTrue(round(step / TimeAxis.NS_PER_ENTRY), step + " ns is 1, 2 or 5 times a power of ten entries");
        }
    }

    @Test
    void anAxisWithNoRoomOrRunningBackwardsIsRefusedInWords() {
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> TimeAxis.TIME.ticks(0, 10, 0));
        assertTrue(none.getMessage().contains("room for a tick"), none.getMessage());
        IllegalArgumentException back = assertThrows(IllegalArgumentException.class, () -> TimeAxis.TIME.ticks(10, 0, 5));
        assertTrue(back.getMessage().contains("ends at or after its start"), back.getMessage());
        // a span of one instant: one tick there at most, never a division by zero
        assertTrue(TimeAxis.TIME.ticks(5 * S, 5 * S, 4).count() <= 1);
    }
}
