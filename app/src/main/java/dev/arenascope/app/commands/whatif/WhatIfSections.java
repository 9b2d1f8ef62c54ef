package dev.arenascope.app.commands.whatif;

import java.util.List;

import dev.arenascope.core.pool.torch.AllocatorSettings;
import dev.arenascope.core.pool.torch.CachingAllocatorModel;
import dev.arenascope.core.pool.torch.SnapshotCheck;
import dev.arenascope.core.pool.torch.WhatIfReplay;
import dev.arenascope.core.report.WhatIfSection;
import dev.arenascope.core.trace.torch.TorchAllocatorTrace;

/**
 * The what-if section of a report ({@code report --whatif}): what {@code whatif --grid} computes, for the
 * report's writers. Its cost is a check, the grid's replays (on the cores) and the floor's planner, which
 * gets at most {@code floorSeconds}.
 */
public final class WhatIfSections {
    private WhatIfSections() {}

    /** The section for the first device with trace entries of {@code t}; {@code capacity} 0 for none. */
    public static WhatIfSection of(TorchAllocatorTrace t, long capacity, double floorSeconds) {
        TorchAllocatorTrace.Device d = t.devices().stream().filter(x -> x.entries() > 0).findFirst().orElse(t.devices().getFirst());
        AllocatorSettings file = AllocatorSettings.fromSnapshot(t.settings());
        AllocatorSettings base = capacity > 0 ? file.with("capacity", Long.toString(capacity)) : file;
        SnapshotCheck.Result check = SnapshotCheck.check(t);
        CachingAllocatorModel replayed = check.exact() ? SnapshotCheck.replayed(t, d) : null;
        WhatIfReplay.Outcome recorded = WhatIfReplay.recorded(t, d, replayed);
        List<AllocatorSettings> grid = WhatIfReplay.grid(base);
        List<AllocatorSettings> runs = new java.util.ArrayList<>();
        runs.add(base);
        runs.addAll(grid);
        List<WhatIfReplay.Outcome> done = WhatIfReplay.runAll(WhatIfReplay.prepare(d), runs, WhatIfReplay.defaultThreads());
        Floor floor = Floor.of(d, (long) (floorSeconds * 1e9));
        return new WhatIfSection(d.index(), WhatIfReport.checkLine(check), check.exact(), recorded, done.getFirst(), done.subList(1, done.size()),
                floor.livePeak(), floor.packed(), floor.note());
    }
}
