package dev.arenascope.core.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import dev.arenascope.core.pool.torch.CachingAllocatorModel;
import dev.arenascope.core.pool.torch.WhatIfReplay;

/**
 * A report's what-if section for a PyTorch snapshot ({@code report --whatif}): whether the caching
 * allocator model reproduces the file, the recorded reserved peak taken apart (live, rounding, split
 * remainders, cached), the grid's settings best first, and the floor no allocator beats.
 *
 * @param device      the device replayed
 * @param checkLine   {@code model: exact …} or the first divergence
 * @param exact       whether the model reproduces the file
 * @param recorded    the file's own figures (its peak's make-up null where the model diverges)
 * @param baseline    the replay from no segments under the file's settings, the fair baseline for the grid
 * @param grid        the grid's replays, in the grid's order
 * @param livePeak    the most bytes requested and in use at once
 * @param packedFloor the planner's height for the trace's buffers at fixed addresses, -1 when it did not pack in time
 * @param floorNote   how the floor was found, or why it is the live peak alone
 */
public record WhatIfSection(int device, String checkLine, boolean exact, WhatIfReplay.Outcome recorded, WhatIfReplay.Outcome baseline,
                            List<WhatIfReplay.Outcome> grid, long livePeak, long packedFloor, String floorNote) {
    /** Rows of the grid the HTML and Markdown tables show (JSON lists them all). */
    public static final int SHOWN = 5;

    public WhatIfSection {
        grid = List.copyOf(grid);
    }

    /** The grid best first: those that never run out of memory, by reserved peak, then the rest by how far they got. */
    public List<WhatIfReplay.Outcome> best() {
        List<WhatIfReplay.Outcome> b = new ArrayList<>(grid);
        b.sort(Comparator.comparing(WhatIfReplay.Outcome::outOfMemory).thenComparingLong(WhatIfReplay.Outcome::reservedPeak));
        return b;
    }

    /** The floor: the packed height where the planner found one, else the live peak. */
    public long floor() {
        return packedFloor >= 0 ? packedFloor : livePeak;
    }

    /** The peak's make-up of the recorded run, or of the baseline replay where the model cannot reproduce the file. */
    public CachingAllocatorModel.Peak peak() {
        return recorded.peak() != null ? recorded.peak() : baseline.peak();
    }
}
