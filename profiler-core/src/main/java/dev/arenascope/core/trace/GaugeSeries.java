package dev.arenascope.core.trace;

/**
 * A memory's gauges over a time range folded into equal buckets, as the timeline draws them: per
 * bucket the minimum, maximum and last value of {@code used} and of {@code aux} (see
 * {@link MemoryKind}). Each gauge is a step function: a bucket's minimum and maximum cover the value in
 * force when the bucket opens and every event in it, so a bucket with no event carries the last value
 * before it ({@code count == 0}); before a memory's first event its gauges are 0. Bucket {@code i}
 * covers {@code [fromNs + i·bucketNs, fromNs + (i+1)·bucketNs)}, so the last one may reach a little
 * past the range asked for.
 *
 * @param fromNs   start of the first bucket
 * @param bucketNs width of each bucket in ns (at least 1)
 * @param usedMin  per bucket, least bytes in use
 * @param usedMax  per bucket, most bytes in use
 * @param usedLast per bucket, bytes in use at the bucket's end
 * @param auxMin   per bucket, least of the second gauge
 * @param auxMax   per bucket, most of the second gauge
 * @param auxLast  per bucket, the second gauge at the bucket's end
 * @param count    per bucket, events of this memory that fell in it
 */
public record GaugeSeries(long fromNs, long bucketNs, long[] usedMin, long[] usedMax, long[] usedLast,
                          long[] auxMin, long[] auxMax, long[] auxLast, long[] count) {

    public int buckets() {
        return usedMax.length;
    }
}
