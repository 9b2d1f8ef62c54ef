package dev.arenascope.core.analysis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * The size levels behind the stripes' query against a scan of the whole table: the same allocations
 * (the largest, ties to the earlier, in allocation order) with the same sizes, times and first instants,
 * the same count and bytes of those that qualified, whatever level the query reads; and the levels hold
 * exactly the allocations of at least their floor, within their memory bound.
 */
class SizeLevelsTest {

    /** A table: starts ascending, sizes from {@code sizes}, ends after the start or never. */
    private record Table(int size, long[] bytes, long[] startNs, long[] endNs) {}

    private interface Sizes {
        long next(Random r, int i);
    }

    private static Table table(long seed, int size, Sizes sizes) {
        Random r = new Random(seed);
        long[] bytes = new long[size];
        long[] start = new long[size];
        long[] end = new long[size];
        long t = 0;
        for (int i = 0; i < size; i++) {
            t += r.nextInt(4) == 0 ? 0 : r.nextInt(50); // equal starts too
            start[i] = t;
            bytes[i] = sizes.next(r, i);
            end[i] = r.nextInt(20) == 0 ? Allocations.NEVER : t + 1 + (r.nextBoolean() ? r.nextInt(100) : r.nextInt(200_000));
        }
        return new Table(size, bytes, start, end);
    }

    /** What {@link SizeLevels#largest} must answer, by a scan of every allocation. */
    private static Allocations.Largest expected(Table x, long[] instants, long minBytes, int limit) {
        List<Integer> seen = new ArrayList<>();
        long bytes = 0;
        for (int i = 0; i < x.size; i++) {
            if (x.bytes[i] < minBytes) {
                continue;
            }
            int k = firstAtOrAfter(instants, x.startNs[i]);
            if (k < instants.length && instants[k] < x.endNs[i]) {
                seen.add(i);
                bytes += x.bytes[i];
            }
        }
        List<Integer> keep = new ArrayList<>(seen);
        keep.sort((p, q) -> x.bytes[p] != x.bytes[q] ? Long.compare(x.bytes[q], x.bytes[p]) : Integer.compare(p, q));
        keep = new ArrayList<>(keep.subList(0, Math.min(limit, keep.size())));
        keep.sort(Integer::compare);
        int n = keep.size();
        int[] ids = new int[n];
        long[] b = new long[n];
        long[] s = new long[n];
        long[] e = new long[n];
        int[] f = new int[n];
        for (int j = 0; j < n; j++) {
            int i = keep.get(j);
            ids[j] = i;
            b[j] = x.bytes[i];
            s[j] = x.startNs[i];
            e[j] = x.endNs[i];
            f[j] = firstAtOrAfter(instants, x.startNs[i]);
        }
        return new Allocations.Largest(ids, b, s, e, f, seen.size(), bytes);
    }

    private static int firstAtOrAfter(long[] instants, long ns) {
        int k = Arrays.binarySearch(instants, ns);
        if (k < 0) {
            return -k - 1;
        }
        while (k > 0 && instants[k - 1] == ns) {
            k--; // equal instants: the first of them
        }
        return k;
    }

    private static void assertSame(Allocations.Largest want, Allocations.Largest got, String what) {
        assertEquals(want.qualified(), got.qualified(), "qualified, " + what);
        assertEquals(want.qualifiedBytes(), got.qualifiedBytes(), "their bytes, " + what);
        assertArrayEquals(want.ids(), got.ids(), "allocations, " + what);
        assertArrayEquals(want.bytes(), got.bytes(), "sizes, " + what);
        assertArrayEquals(want.startNs(), got.startNs(), "starts, " + what);
        assertArrayEquals(want.endNs(), got.endNs(), "ends, " + what);
        assertArrayEquals(want.firstInstant(), got.firstInstant(), "first instants, " + what);
    }

    private static long[] instants(Random r, Table x, boolean whole) {
        long last = x.startNs[x.size - 1] + 1000;
        int cols = 1 + r.nextInt(whole ? 1600 : 300);
        long from = whole ? 0 : r.nextLong(last);
        long to = whole ? last : from + 1 + r.nextLong(Math.max(1, (last - from) / (1 + r.nextInt(50))));
        long[] at = new long[cols];
        for (int c = 0; c < cols; c++) {
            at[c] = from + (to - from) * (c + 1) / cols - 1;
            if (c > 0) {
                at[c] = Math.max(at[c], at[c - 1]);
            }
        }
        return at;
    }

    @Test
    void everyLevelAndEveryQueryMatchAScanOfTheWholeTable() {
        // sizes spread over many powers of two, quantised (many ties)
        Table x = table(1, 60_000, (r, i) -> 64L << r.nextInt(r.nextInt(5) == 0 ? 20 : 8));
        SizeLevels lv = new SizeLevels(x.size, x.bytes, x.startNs, x.endNs);
        assertTrue(lv.count() >= 4, lv.count() + " levels");
        assertTrue(lv.extraEntries() <= x.size / 2, lv.extraEntries() + " entries beyond the table");
        Random r = new Random(2);
        List<Long> floors = new ArrayList<>();
        for (long m = 1; m > 0 && m < (1L << 40); m <<= 1) {
            SizeLevels.Level l = lv.forMinBytes(m);
            assertTrue(l.floor <= m, "a level's floor is at most what is asked");
            int expect = 0;
            for (int i = 0; i < x.size; i++) {
                if (x.bytes[i] >= l.floor) {
                    assertEquals(i, l.allocation(expect), "entry " + expect + " of the level of " + l.floor);
                    assertEquals(x.bytes[i], l.bytes[expect]);
                    assertEquals(x.startNs[i], l.startNs[expect]);
                    assertEquals(x.endNs[i], l.endNs[expect]);
                    expect++;
                }
            }
            assertEquals(expect, l.size, "the level of " + l.floor + " holds every allocation of at least that");
            floors.add(l.floor);
        }
        for (int round = 0; round < 160; round++) {
            long[] at = instants(r, x, round % 2 == 0);
            long f = floors.get(r.nextInt(floors.size()));
            long min = switch (r.nextInt(4)) {
                case 0 -> f;
                case 1 -> f + 1;
                case 2 -> Math.max(0, f - 1);
                default -> r.nextInt(3) == 0 ? 0 : 1L + r.nextInt(1 << 22);
            };
            int limit = switch (r.nextInt(4)) {
                case 0 -> 0;
                case 1 -> 1 + r.nextInt(8);
                case 2 -> 8192;
                default -> 1 + r.nextInt(3000);
            };
            String what = "round " + round + ": " + at.length + " instants, at least " + min + " B, at most " + limit;
            assertSame(expected(x, at, min, limit), lv.largest(at, min, limit), what);
        }
    }

    @Test
    void sizesThatGrowWithTimeOrAreAllEqualAnswerTheSame() {
        Random r = new Random(3);
        Sizes[] kinds = {
                (q, i) -> 1000L + i,                 // every offer beats the weakest kept
                (q, i) -> 4096,                      // all ties: the earliest win
                (q, i) -> 1_000_000L - i,            // every offer after the first ones is refused
                (q, i) -> q.nextInt(3) == 0 ? 1L << 30 : 1 + q.nextInt(1000)};
        for (int kind = 0; kind < kinds.length; kind++) {
            Table x = table(10 + kind, 30_000, kinds[kind]);
            SizeLevels lv = new SizeLevels(x.size, x.bytes, x.startNs, x.endNs);
            for (int round = 0; round < 12; round++) {
                long[] at = instants(r, x, round % 3 == 0);
                long min = round % 4 == 0 ? 0 : x.bytes[r.nextInt(x.size)];
                int limit = round % 2 == 0 ? 8192 : 1 + r.nextInt(500);
                assertSame(expected(x, at, min, limit), lv.largest(at, min, limit), "sizes " + kind + ", round " + round);
            }
        }
    }

    @Test
    void anEmptyTableOrNoInstantsAnswerNothing() {
        SizeLevels none = new SizeLevels(0, new long[0], new long[0], new long[0]);
        assertEquals(1, none.count());
        assertEquals(0, none.largest(new long[] {5}, 0, 10).size());
        Table x = table(4, 100, (r, i) -> 1 + r.nextInt(100));
        SizeLevels lv = new SizeLevels(x.size, x.bytes, x.startNs, x.endNs);
        assertEquals(0, lv.largest(new long[0], 0, 10).size());
        assertEquals(0, lv.largest(new long[0], 0, 10).qualified());
        assertTrue(Arrays.stream(lv.largest(new long[] {x.startNs[50]}, 0, 0).ids()).count() == 0, "limit 0 keeps none");
    }
}
