package dev.arenascope.core.trace.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.GaugeSeries;
import dev.arenascope.core.trace.MemoryInfo;

/**
 * Checks that a store answers as a reference store of the same events does (an out-of-core or a spilled
 * store against the in-memory one): the same questions, the same answers, whatever the store keeps where.
 */
final class StoreAgreement {
    private StoreAgreement() {
    }

    /** Counts, times, tables, and each memory's events and peaks. */
    static void metadata(TraceStore expected, TraceStore actual) {
        assertEquals(expected.eventCount(), actual.eventCount(), "events");
        assertEquals(expected.startNs(), actual.startNs(), "start");
        assertEquals(expected.endNs(), actual.endNs(), "end");
        assertEquals(expected.memories(), actual.memories());
        assertEquals(expected.strings(), actual.strings());
        assertEquals(expected.threads(), actual.threads());
        assertEquals(expected.hasSites(), actual.hasSites(), "has sites");
        assertEquals(expected.stackNodeCount(), actual.stackNodeCount(), "stack nodes");
        for (MemoryInfo m : expected.memories()) {
            assertEquals(expected.eventCount(m.id()), actual.eventCount(m.id()), m.name());
            assertEquals(expected.peakUsed(m.id()), actual.peakUsed(m.id()), m.name());
            assertEquals(expected.peakAux(m.id()), actual.peakAux(m.id()), m.name());
        }
    }

    /**
     * {@code samples} events picked at random (seed 3), the events around each of {@code edges} copied as
     * columns, and 300 times looked up.
     */
    static void events(TraceStore expected, TraceStore actual, int samples, long... edges) {
        SplittableRandom r = new SplittableRandom(3);
        long n = expected.eventCount();
        for (int k = 0; k < samples; k++) {
            long i = r.nextLong(n);
            assertEquals(expected.event(i), actual.event(i), "event " + i);
        }
        for (long edge : edges) {
            long from = Math.max(0, edge - 300);
            long to = Math.min(n, edge + 300);
            EventBatch a = new EventBatch(16);
            EventBatch b = new EventBatch(16);
            expected.copyEvents(from, to, a);
            actual.copyEvents(from, to, b);
            assertEquals(a.size(), b.size(), "events copied around " + edge);
            for (int i = 0; i < a.size(); i++) {
                assertEquals(a.get(i), b.get(i), "event " + (from + i));
            }
        }
        for (int k = 0; k < 300; k++) {
            long t = expected.startNs() + r.nextLong(expected.endNs() - expected.startNs() + 2);
            assertEquals(expected.firstIndexAtOrAfter(t), actual.firstIndexAtOrAfter(t), "time " + t);
        }
        assertEquals(expected.firstIndexAtOrAfter(expected.endNs() + 1), actual.firstIndexAtOrAfter(expected.endNs() + 1));
    }

    /** Every memory's scopes over the whole session, and the deep ones of a short range a third of the way in. */
    static void scopes(TraceStore expected, TraceStore actual) {
        long s = expected.startNs();
        long e = expected.endNs() + 1;
        for (MemoryInfo m : expected.memories()) {
            assertEquals(expected.scopes(m.id(), s, e, 0), actual.scopes(m.id(), s, e, 0), m.name());
            long mid = s + (e - s) / 3;
            assertEquals(expected.scopes(m.id(), mid, mid + 50_000, 1000), actual.scopes(m.id(), mid, mid + 50_000, 1000), m.name());
        }
    }

    /**
     * Every memory's gauges, bucket for bucket, over frames from the whole session (and past its ends) down to
     * a microsecond; {@code actual} must answer exactly (its exact-gauges switch on).
     */
    static void gaugesAtEveryZoom(TraceStore expected, TraceStore actual) {
        long s = expected.startNs();
        long span = expected.endNs() - s + 1;
        for (MemoryInfo m : expected.memories()) {
            for (long[] q : new long[][] {{s, span, 1000}, {s - 500, span + 1000, 37}, {s + span / 3, span / 50, 800},
                    {s + span / 2, 20_000, 400}, {s + span / 7, 999, 1000}, {expected.endNs() - 5_000, 10_000, 300}}) {
                GaugeSeries a = expected.gauges(m.id(), q[0], q[0] + q[1], (int) q[2]);
                GaugeSeries b = actual.gauges(m.id(), q[0], q[0] + q[1], (int) q[2]);
                same(a, b, m.name() + " over " + q[1] + " ns in " + q[2]);
            }
        }
    }

    /**
     * A frame of the whole session as the window asks for one: every event counted once, the peak and the
     * last value in it.
     */
    static void wholeSessionFrame(TraceStore expected, TraceStore actual, MemoryInfo m, int buckets) {
        long s = expected.startNs();
        long e = expected.endNs() + 1;
        GaugeSeries a = expected.gauges(m.id(), s, e, buckets);
        GaugeSeries b = actual.gauges(m.id(), s, e, buckets);
        long ca = 0;
        long cb = 0;
        long maxA = Long.MIN_VALUE;
        long maxB = Long.MIN_VALUE;
        for (int i = 0; i < a.buckets(); i++) {
            ca += a.count()[i];
            cb += b.count()[i];
            maxA = Math.max(maxA, a.usedMax()[i]);
            maxB = Math.max(maxB, b.usedMax()[i]);
        }
        assertEquals(ca, cb, m.name() + ": every event counted once");
        assertEquals(maxA, maxB, m.name() + ": the peak is in the frame");
        assertEquals(a.usedLast()[a.buckets() - 1], b.usedLast()[b.buckets() - 1], m.name() + ": the last value");
    }

    /** Two gauge series equal bucket for bucket. */
    static void same(GaugeSeries a, GaugeSeries b, String what) {
        assertEquals(a.fromNs(), b.fromNs(), what);
        assertEquals(a.bucketNs(), b.bucketNs(), what);
        assertArrayEquals(a.count(), b.count(), what + ": counts");
        assertArrayEquals(a.usedMin(), b.usedMin(), what + ": used min");
        assertArrayEquals(a.usedMax(), b.usedMax(), what + ": used max");
        assertArrayEquals(a.usedLast(), b.usedLast(), what + ": used last");
        assertArrayEquals(a.auxMin(), b.auxMin(), what + ": aux min");
        assertArrayEquals(a.auxMax(), b.auxMax(), what + ": aux max");
        assertArrayEquals(a.auxLast(), b.auxLast(), what + ": aux last");
    }
}
