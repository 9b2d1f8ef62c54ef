package dev.arenascope.app.commands.trace;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import dev.arenascope.app.cli.Args;
import dev.arenascope.app.cli.Command;
import dev.arenascope.app.cli.UsageException;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.trace.file.AstraceFormat;
import dev.arenascope.core.trace.file.GeneratedTrace;
import dev.arenascope.core.trace.file.OutputFiles;

/**
 * {@code arenascope generate --events N OUT.astrace}: writes a synthetic trace of N events of a
 * realistic shape ({@link GeneratedTrace}: a frame arena with scopes, a pool, a plan arena, two
 * PyTorch-like memories with allocation sites, markers), for trying the window and the commands on a
 * trace of any size (a billion events is about 6 GB). Written to a temporary file and moved into place.
 */
public final class GenerateCommand implements Command {
    /** The most events one file is written with. */
    public static final long MAX_EVENTS = 10_000_000_000L;

    @Override
    public String name() {
        return "generate";
    }

    @Override
    public String summary() {
        return "write a synthetic .astrace trace of N events (up to billions) for trying large sessions";
    }

    @Override
    public String usage() {
        return """
                Usage: arenascope generate --events N [--seed S] OUT.astrace

                Writes N events (1 to 10,000,000,000; 1e9 is about 6 GB) of a realistic shape to
                OUT.astrace: a frame arena with nested scopes (frame), a binned pool (pool), a plan
                arena (plan.scratch), two PyTorch-like caching-allocator memories with allocation
                sites (cuda:0 busy, cuda:1 sparse) and a marker every 50,000 events. The same N and
                seed (default 1) give the same file. Prints the file's size and bytes per event.
                N accepts 1e9, 100M, 2.5G style shorthands.
                """;
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        Args a = new Args(name(), args, Set.of());
        long events = count(a.required("events"));
        long seed = a.longValue("seed", 1);
        a.finish();
        if (a.positionals().size() != 1) {
            throw new UsageException(name() + ": expects one OUT.astrace, got " + a.positionals().size() + " (see arenascope generate --help)");
        }
        Path target = Path.of(a.positionals().getFirst());
        if (!target.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(AstraceFormat.EXTENSION)) {
            throw new UsageException(name() + ": " + target + ": the output must end in " + AstraceFormat.EXTENSION);
        }
        if (Files.isDirectory(target)) {
            throw new UsageException(name() + ": " + target + " is a directory");
        }
        Path tmp = OutputFiles.temporaryFor(target);
        long t0 = System.nanoTime();
        boolean ok = false;
        try {
            long[] nextReport = {100_000_000};
            GeneratedTrace.write(tmp, events, seed, (done, total, stage) -> {
                if (done >= nextReport[0]) {
                    err.printf(Locale.ROOT, "generate: %,d of %,d events%n", done, events);
                    nextReport[0] += 100_000_000;
                }
            });
            OutputFiles.commit(tmp, target);
            ok = true;
        } finally {
            if (!ok) {
                Files.deleteIfExists(tmp);
            }
        }
        long size = Files.size(target);
        double s = (System.nanoTime() - t0) / 1e9;
        out.printf(Locale.ROOT, "%s: %,d events, %s (%.2f bytes an event), written in %.1f s%n", target, events, Bytes.format(size),
                size / (double) events, s);
        return 0;
    }

    /** An event count: digits, or a number with e notation or a K/M/G suffix (1e9, 100M, 2.5G). */
    static long count(String v) {
        String t = v.trim().replace("_", "").replace(",", "");
        double mult = 1;
        char last = t.isEmpty() ? ' ' : Character.toUpperCase(t.charAt(t.length() - 1));
        if (last == 'K' || last == 'M' || last == 'G') {
            mult = last == 'K' ? 1e3 : last == 'M' ? 1e6 : 1e9;
            t = t.substring(0, t.length() - 1);
        }
        double d;
        try {
            d = Double.parseDouble(t) * mult;
        } catch (NumberFormatException e) {
            throw new UsageException("generate: --events expects a count (1000000, 1e9, 100M), got '" + v + "'");
        }
        if (!(d >= 1 && d <= MAX_EVENTS) || d != Math.rint(d)) {
            throw new UsageException("generate: --events must be a whole number from 1 to " + MAX_EVENTS + ", got '" + v + "'");
        }
        return (long) d;
    }
}
