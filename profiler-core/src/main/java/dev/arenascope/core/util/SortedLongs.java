package dev.arenascope.core.util;

/** Binary search over ascending {@code long} arrays that may repeat values (times, offsets). */
public final class SortedLongs {
    private SortedLongs() {
    }

    /** The first index of ascending {@code a} whose value is at or after {@code key}; {@code a.length} if none. */
    public static int firstAtOrAfter(long[] a, long key) {
        return firstAtOrAfter(a, 0, a.length, key);
    }

    /**
     * The first index in {@code [lo, hi)} of ascending {@code a} whose value is at or after {@code key}, else
     * {@code hi}. Unlike {@link java.util.Arrays#binarySearch(long[], long)} it finds the first of equal values.
     */
    public static int firstAtOrAfter(long[] a, int lo, int hi, long key) {
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (a[mid] < key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
