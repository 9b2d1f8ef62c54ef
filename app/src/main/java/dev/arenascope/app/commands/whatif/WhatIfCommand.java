package dev.arenascope.app.commands.whatif;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import dev.arenascope.app.cli.Args;
import dev.arenascope.app.cli.Command;
import dev.arenascope.app.cli.FileArgs;
import dev.arenascope.app.cli.TraceLoader;
import dev.arenascope.app.cli.UsageException;
import dev.arenascope.app.info.ExitCodes;
import dev.arenascope.core.pool.torch.AllocatorSettings;
import dev.arenascope.core.pool.torch.CachingAllocatorModel;
import dev.arenascope.core.pool.torch.SnapshotCheck;
import dev.arenascope.core.pool.torch.WhatIfReplay;
import dev.arenascope.core.trace.TraceFormatException;
import dev.arenascope.core.trace.torch.TorchAllocatorTrace;

/**
 * {@code arenascope whatif SNAPSHOT}: replays a PyTorch snapshot's requests through the caching
 * allocator model, first under the file's own settings to prove the model on it ({@code --check}), then
 * under other settings ({@code --set}, {@code --grid}, {@code --capacity}), and says what each would have
 * reserved at the peak, where the bytes above the live ones go, and the floor no allocator beats.
 */
public final class WhatIfCommand implements Command {

    @Override
    public String name() {
        return "whatif";
    }

    @Override
    public String summary() {
        return "replay a PyTorch snapshot through a model of the caching allocator: check it, try other settings";
    }

    @Override
    public String usage() {
        return """
                Usage: arenascope whatif SNAPSHOT.pickle [--check] [--set KEY=VALUE]... [--grid]
                                         [--capacity SIZE] [--device N] [--floor-time SECONDS]
                                         [--format text|json]

                Replays the snapshot's allocations and frees through a model of PyTorch's CUDA caching
                allocator (c10/cuda/CUDACachingAllocator.cpp: 512-byte rounding, the small pool's 2 MiB
                segments, 20 MiB segments below 10 MiB, best fit per stream and pool, the split rules,
                max_split_size, roundup_power2_divisions, garbage collection, expandable segments, the
                release-and-retry when cudaMalloc fails, private pools apart).

                The first line is always the check: the file replayed under its own allocator_settings
                from the state when its trace began, compared with every segment entry, every request's
                address and the final segments and blocks: "model: exact" or the first divergence (the
                entry, what the model did, what the file says). A what-if on a file the model does not
                reproduce is a model's guess, and that line says so.

                  --check              only the check (exit 6 when the model diverges)
                  --set KEY=VALUE      a what-if with these settings (repeatable, combined into one):
                                       expandable_segments=true, max_split_size_mb=128,
                                       roundup_power2_divisions=4 (or [256:1,512:2,>:8]),
                                       garbage_collection_threshold=0.8, max_non_split_rounding_mb=N;
                                       or as PYTORCH_CUDA_ALLOC_CONF writes them, in one:
                                       --set expandable_segments:True,max_split_size_mb:128
                  --grid               a table over about 12 common settings
                  --capacity SIZE      the device's (or the memory fraction's) bytes, e.g. 80GiB: each
                                       what-if reports its first out-of-memory; garbage collection acts
                                       only with a capacity
                  --device N           the device to replay (default: the first with trace entries)
                  --floor-time S       seconds the planner may take to pack the trace's buffers at fixed
                                       addresses for the floor (default 5; 0: the live peak alone)
                  --format text|json   (default text)

                Each what-if starts from no segments: the blocks in use when the trace began are requested
                first, then the trace follows; the row "replayed, file settings" is that same replay under
                the file's own settings, the fair baseline for the others. "recorded" is the file itself.
                Reserved bytes at the peak are split into live (requested), rounding (blocks beyond their
                request), split remainders (free bytes in segments that also hold live blocks) and cached
                (free bytes of segments holding nothing live).

                Exit 0; 2 on bad input (the file, an option, a setting); 6 with --check when the model
                does not reproduce the file.
                """;
    }

    @Override
    public int run(List<String> raw, PrintStream out, PrintStream err) throws Exception {
        // --set repeats: take them out before the common parser, which refuses an option given twice
        List<String> sets = new ArrayList<>();
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            String w = raw.get(i);
            if (w.equals("--set")) {
                if (i + 1 >= raw.size()) {
                    throw new UsageException(name() + ": --set needs KEY=VALUE");
                }
                sets.add(raw.get(++i));
            } else if (w.startsWith("--set=")) {
                sets.add(w.substring("--set=".length()));
            } else {
                rest.add(w);
            }
        }
        Args a = new Args(name(), rest, Set.of("check", "grid"));
        boolean checkOnly = a.flag("check");
        boolean grid = a.flag("grid");
        String format = a.string("format", "text");
        long capacity = a.has("capacity") ? a.bytes("capacity", 0) : 0;
        int deviceArg = a.intValue("device", -1);
        double floorTime = a.doubleValue("floor-time", 5);
        a.finish();
        if (!format.equals("text") && !format.equals("json")) {
            throw new UsageException(name() + ": --format must be text or json, got '" + format + "'");
        }
        if (a.has("capacity") && capacity <= 0) {
            throw new UsageException(name() + ": --capacity must be above 0");
        }
        if (floorTime < 0) {
            throw new UsageException(name() + ": --floor-time must be 0 or more seconds");
        }
        if (a.positionals().size() != 1) {
            throw new UsageException(name() + ": expects one SNAPSHOT, got " + a.positionals().size() + " (see arenascope whatif --help)");
        }
        Path file = FileArgs.readable(name(), a.positionals().getFirst());
        TorchAllocatorTrace t;
        try {
            t = TorchAllocatorTrace.read(file);
        } catch (TraceFormatException e) {
            throw TraceLoader.unreadable(name(), file, e); // as every command says a file it cannot read
        }
        TorchAllocatorTrace.Device d = device(t, deviceArg);
        AllocatorSettings fileSettings = AllocatorSettings.fromSnapshot(t.settings());
        AllocatorSettings base = capacity > 0 ? fileSettings.with("capacity", Long.toString(capacity)) : fileSettings;
        List<AllocatorSettings> tries = new ArrayList<>();
        if (!sets.isEmpty()) {
            AllocatorSettings s = base;
            for (String kv : sets) {
                try {
                    s = s.withConf(kv);
                } catch (IllegalArgumentException e) {
                    throw new UsageException(name() + ": --set " + kv + ": " + e.getMessage());
                }
            }
            tries.add(s);
        }
        if (grid) {
            for (AllocatorSettings g : WhatIfReplay.grid(base)) {
                if (!tries.contains(g)) {
                    tries.add(g);
                }
            }
        }
        SnapshotCheck.Result check = SnapshotCheck.check(t);
        if (checkOnly) {
            WhatIfReport.check(file, t, check, format, out);
            return check.exact() ? ExitCodes.OK : ExitCodes.DIVERGED;
        }
        CachingAllocatorModel replayed = check.exact() ? SnapshotCheck.replayed(t, d) : null;
        WhatIfReplay.Outcome recorded = WhatIfReplay.recorded(t, d, replayed);
        // one prepared trace for every replay; the baseline and the what-ifs side by side on the cores
        List<AllocatorSettings> runs = new ArrayList<>();
        runs.add(base);
        for (AllocatorSettings s : tries) {
            if (!s.equals(base)) {
                runs.add(s);
            }
        }
        List<WhatIfReplay.Outcome> done = WhatIfReplay.runAll(WhatIfReplay.prepare(d), runs, WhatIfReplay.defaultThreads());
        WhatIfReplay.Outcome baseline = done.getFirst();
        List<WhatIfReplay.Outcome> outcomes = new ArrayList<>();
        for (AllocatorSettings s : tries) {
            outcomes.add(s.equals(base) ? baseline : done.get(runs.indexOf(s)));
        }
        Floor floor = Floor.of(d, (long) (floorTime * 1e9));
        new WhatIfReport(file, t, d, check, recorded, baseline, outcomes, floor, capacity).write(format, out);
        return ExitCodes.OK;
    }

    private TorchAllocatorTrace.Device device(TorchAllocatorTrace t, int wanted) {
        if (t.devices().isEmpty()) {
            throw new UsageException(name() + ": " + t.source() + ": the snapshot has no device");
        }
        if (wanted >= 0) {
            for (TorchAllocatorTrace.Device d : t.devices()) {
                if (d.index() == wanted) {
                    return d;
                }
            }
            List<String> have = new ArrayList<>();
            t.devices().forEach(x -> have.add(Integer.toString(x.index())));
            throw new UsageException(name() + ": --device " + wanted + ": the snapshot has devices " + String.join(", ", have));
        }
        for (TorchAllocatorTrace.Device d : t.devices()) {
            if (d.entries() > 0) {
                return d;
            }
        }
        return t.devices().getFirst();
    }

    static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }
}
