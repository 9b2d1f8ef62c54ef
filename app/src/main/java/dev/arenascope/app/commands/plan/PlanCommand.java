package dev.arenascope.app.commands.plan;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import dev.arenascope.app.cli.Args;
import dev.arenascope.app.cli.Command;
import dev.arenascope.app.cli.FileArgs;
import dev.arenascope.app.cli.UsageException;
import dev.arenascope.app.info.ExitCodes;
import dev.arenascope.core.analysis.AllocationProblem;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Counts;
import dev.arenascope.core.plan.MemoryPlan;
import dev.arenascope.core.plan.Packing;
import dev.arenascope.core.plan.PlanBank;
import dev.arenascope.core.plan.PlanInputException;
import dev.arenascope.core.plan.PlanJson;
import dev.arenascope.core.plan.PlanLayouts;
import dev.arenascope.core.plan.PlanProblem;
import dev.arenascope.core.plan.PlanViolation;
import dev.arenascope.core.plan.Planner;
import dev.arenascope.core.plan.ProblemCsv;
import dev.arenascope.core.plan.SweepPlanner;
import dev.arenascope.core.plan.TensorRole;
import dev.arenascope.core.trace.file.OutputFiles;
import dev.arenascope.core.trace.file.TraceFormats;

/**
 * {@code arenascope plan}: packs a static allocation problem (MiniMalloc CSV) or re-lays out a memory
 * plan (JSON), prints lower bound, height, ratio and time, and writes the result.
 *
 * <p>Exit codes: 0 a plan within the capacity (or no capacity asked); 3 none found within the capacity
 * in time (the best one is still written); 2 bad usage or input (the message names the file and line).
 */
public final class PlanCommand implements Command {
    /** Exit code when no plan within the capacity was found in time. */
    public static final int EXIT_NO_FIT = ExitCodes.NO_FIT;

    @Override
    public String name() {
        return "plan";
    }

    @Override
    public String summary() {
        return "pack tensor lifetimes into an arena (auto, greedy, search or sweep; --from-trace for a recorded run's allocations) and report the gap to the lower bound";
    }

    @Override
    public String usage() {
        return """
                Usage: arenascope plan --input FILE [--capacity BYTES] [--strategy auto|greedy|search|sweep]
                                       [--time-limit SECONDS] [--output FILE] [--alignment BYTES]
                       arenascope plan --from-trace TRACE [--memory NAME] [--sizes allocated|requested]
                                       [--capacity BYTES] [--strategy ...] [--time-limit SECONDS] [--output FILE]
                       arenascope plan --input FILE --banks NAME=CAPACITY[:COST],... [--time-limit SECONDS]
                                       [--output FILE] [--alignment BYTES]

                Assigns an offset to every buffer so that buffers live at a common step never share bytes.

                  --input FILE        a problem in MiniMalloc's CSV format, header id,lower,upper,size, one
                                      buffer a line live over [lower, upper); or a memory plan as JSON
                                      (.json), whose scratch and persistent arenas are laid out again
                  --from-trace TRACE  a recorded trace ({formats}): its allocations become the problem,
                                      each live from its allocation to its free (to the trace's end
                                      when never freed); prints the smallest fixed-address arena
                                      found beside the trace's live peak (the lower bound)
                  --memory NAME       with --from-trace: the memory whose allocations to plan (needed
                                      when more than one memory of the trace allocates)
                  --sizes KIND        with --from-trace: allocated (default: the bytes each allocation
                                      held, rounding included) or requested (the bytes asked for)
                  --capacity BYTES    the bytes an arena may take (e.g. 1048576, 1MiB); search stops at the
                                      first packing within it. Default: none (search minimises the height)
                  --strategy NAME     auto (default: search up to {threshold} buffers or when the capacity
                                      leaves no slack, sweep above), greedy (TFLite's greedy by
                                      size), search (canonical search, proves optimality) or sweep
                                      (best fit over time, near-linear: for 10^4-10^6 buffers)
                  --time-limit SECS   how long the search may run (default 10)
                  --output FILE       write the result in the format its name ends in: .json (e.g.
                                      A.plan.json) a memory plan as JSON, .csv the CSV with an offset
                                      column; any other name gets the input's format (written
                                      under a temporary name, moved there once complete)
                  --force             replace --output when it exists (refused otherwise)
                  --alignment BYTES   CSV only: round sizes and offsets to this (default 1)
                  --banks LIST        CSV only: memory banks, e.g. sram=512KiB:1,psram=8MiB:10 (name, capacity,
                                      cost per byte accessed; without a cost, a bank costs its position).
                                      Each buffer goes into one bank (never across two), each bank is packed
                                      within its capacity, and the total cost (size x accesses x the bank's
                                      cost) is made least. The CSV may add a 'banks' column (the banks a
                                      buffer may use, e.g. sram|psram, or one name to pin it; empty: any)
                                      and an 'accesses' column (default 1). Prints each bank's buffers and
                                      arena, the cost, a proved lower bound on any assignment's cost and
                                      'proof: optimal' or 'proof: gap <= X%'

                Prints the lower bound (most bytes live at one step: no packing is lower), the height
                reached, their ratio and the time taken, then a line 'proof: optimal' when no lower
                packing exists (the height meets the lower bound, or the search proved every lower
                height impossible), else 'proof: gap <= X%', X the most the height can be above the
                best packing, in percent of the proved bound; then 'proved bound N B (why)': the load,
                a window of time the search proved cannot pack lower, or the whole problem's search.

                Exit codes: 0 packed within the capacity (with --banks: every bank within its own); 3 no
                packing within the capacity was found in time (the best one found is still written); 2 bad
                input or usage (with --banks: also a buffer that fits no bank it may use, named).
                """.replace("{threshold}", String.format(Locale.ROOT, "%,d", SweepPlanner.AUTO_THRESHOLD))
                .replace("{formats}", TraceFormats.inputExtensions());
    }

    @Override
    public int run(List<String> argv, PrintStream out, PrintStream err) throws Exception {
        Args a = new Args("plan", argv, Set.of("force"));
        if (!a.positionals().isEmpty()) {
            throw new UsageException("plan: unexpected argument '" + a.positionals().get(0) + "' (the file goes after --input)");
        }
        String inputArg = a.string("input", null);
        String traceArg = a.string("from-trace", null);
        String memoryName = a.string("memory", null);
        String sizesArg = a.string("sizes", "allocated");
        if ((inputArg == null) == (traceArg == null)) {
            throw new UsageException("plan: give one of --input FILE (a problem or a plan) or --from-trace TRACE"
                    + (inputArg != null ? ", not both" : ""));
        }
        if (traceArg == null && (memoryName != null || a.has("sizes"))) {
            throw new UsageException("plan: --memory and --sizes go with --from-trace");
        }
        AllocationProblem.Sizes sizes = switch (sizesArg) {
            case "allocated" -> AllocationProblem.Sizes.ALLOCATED;
            case "requested" -> AllocationProblem.Sizes.REQUESTED;
            default -> throw new UsageException("plan: --sizes must be requested or allocated, got '" + sizesArg + "'");
        };
        Path input = traceArg != null ? Path.of(traceArg) : FileArgs.readable("plan", inputArg);
        long capacity = a.bytes("capacity", Long.MAX_VALUE);
        String strategy = a.string("strategy", Planner.DEFAULT_STRATEGY);
        double seconds = a.doubleValue("time-limit", Planner.DEFAULT_TIME_LIMIT_NANOS / 1e9);
        String output = a.string("output", null);
        long alignment = a.bytes("alignment", 1);
        boolean force = a.flag("force");
        String banksArg = a.string("banks", null);
        a.finish();
        if (banksArg != null && (traceArg != null || a.has("capacity") || a.has("strategy"))) {
            throw new UsageException("plan: --banks goes with --input CSV; each bank has its own capacity (no --capacity"
                    + " or --strategy with it)");
        }
        if (output != null) {
            if (OutputFiles.sameFile(Path.of(output), input)) {
                throw new UsageException("plan: --output " + output + " is the input being planned; name another file");
            }
            FileArgs.output("plan", "--output", output, force);    // before a search of up to --time-limit seconds
        }
        if (capacity <= 0) {
            throw new UsageException("plan: --capacity must be positive, got " + capacity);
        }
        if (seconds < 0 || seconds > 1e6) {
            throw new UsageException("plan: --time-limit must be between 0 and 1000000 seconds, got " + seconds);
        }
        if (alignment < 1 || alignment > (1L << 30)) {
            throw new UsageException("plan: --alignment must be between 1 and 1GiB, got " + alignment);
        }
        Planner planner;
        try {
            planner = Planner.named(strategy);
        } catch (IllegalArgumentException e) {
            throw new UsageException("plan: --strategy: " + e.getMessage());
        }
        long limitNanos = (long) (seconds * 1e9);
        long deadline = System.nanoTime() + limitNanos;   // the limit covers reading the input too
        if (traceArg != null) {
            Format format = output == null ? null : Format.of(output, Format.CSV);
            return new TracePlan(planner, capacity, deadline, output, format == Format.JSON, force).run(input, memoryName, sizes, out, err);
        }
        boolean json = isJson(input);
        Format format = output == null ? null : Format.of(output, json ? Format.JSON : Format.CSV);
        List<PlanBank> banks = null;
        if (banksArg != null) {
            if (json) {
                throw new UsageException("plan: --banks reads a problem as CSV; " + input + " is a memory plan (JSON)");
            }
            try {
                banks = PlanBank.parseList(banksArg);
            } catch (IllegalArgumentException e) {
                throw new UsageException("plan: --banks: " + e.getMessage());
            }
        }
        try {
            if (banks != null) {
                return BankedPlan.run(input, alignment, banks, deadline, output, force, format == Format.JSON, out);
            }
            return json ? planJson(input, planner, capacity, deadline, output, force, format, out)
                    : planCsv(input, alignment, planner, capacity, deadline, output, force, format, out);
        } catch (PlanInputException e) {
            throw new UsageException("plan: " + e.getMessage());
        } catch (NoSuchFileException e) {
            throw new UsageException("plan: no such file: " + e.getFile());
        } catch (IllegalArgumentException | ArithmeticException e) {
            // a value the readers let through that a plan cannot hold (an alignment past 2^62, ...)
            throw new UsageException("plan: " + input + ": " + e.getMessage());
        }
    }

    /** What {@code --output} writes, from the end of its name. */
    enum Format {
        CSV, JSON;

        static Format of(String file, Format otherwise) {
            String n = Path.of(file).getFileName().toString().toLowerCase(Locale.ROOT);
            return n.endsWith(".json") ? JSON : n.endsWith(".csv") ? CSV : otherwise;
        }
    }

    static long left(long deadline) {
        return Math.max(0, deadline - System.nanoTime());
    }

    private static boolean isJson(Path input) throws IOException {
        if (input.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".json")) {
            return true;
        }
        try (var in = Files.newInputStream(input)) {
            int c;
            do {
                c = in.read();
            } while (c == ' ' || c == '\n' || c == '\r' || c == '\t');
            return c == '{';
        }
    }

    /** Writes {@code p} to {@code output}: a one-arena scratch plan (JSON) or the CSV with offsets. */
    static void write(Packing p, String name, String output, boolean force, boolean json, PrintStream out) throws IOException {
        if (json) {
            OutputFiles.write(Path.of(output), force, f -> PlanJson.write(PlanLayouts.scratchPlan(name, "arena", p), f));
        } else {
            OutputFiles.write(Path.of(output), force, f -> ProblemCsv.write(p, f));
        }
        out.println("wrote " + output + (json ? " (memory plan JSON)" : " (CSV)"));
    }

    private int planCsv(Path input, long alignment, Planner planner, long capacity, long deadline, String output, boolean force,
                        Format format, PrintStream out) throws IOException {
        PlanProblem problem = ProblemCsv.read(input, alignment);
        checkCapacity(problem, capacity, input.toString());
        Packing p = planner.plan(problem, capacity, left(deadline));
        out.println(input.getFileName() + ": " + problem.size() + " buffers");
        printPacking(out, "", p);
        if (output != null) {
            write(p, input.getFileName().toString().replaceFirst("\\.[^.]*$", ""), output, force, format == Format.JSON, out);
        }
        return verdict(out, p.fits(), p.timedOut(), capacity, p.lowerBound(), output);
    }

    private int planJson(Path input, Planner planner, long capacity, long deadline, String output, boolean force, Format format,
                         PrintStream out) throws IOException {
        MemoryPlan plan = PlanJson.read(input);
        int planned = 0;
        for (var arena : plan.arenas()) {
            if (arena.role() != TensorRole.CONSTANT) {
                checkCapacity(PlanLayouts.problemOf(plan, arena), capacity, input + " (arena " + arena.label() + ")");
                planned++;
            }
        }
        if (format == Format.CSV && planned != 1) {
            throw new UsageException("plan: --output " + output + ": a CSV holds one arena's packing, but " + input + " has "
                    + planned + " arenas to lay out; name a .json output for the whole plan");
        }
        PlanLayouts.Replanned r = PlanLayouts.replan(plan, planner, capacity, left(deadline) / Math.max(1, planned));
        out.println(input.getFileName() + ": plan '" + plan.name() + "', " + Counts.of(plan.tensorAllocs().size(), "tensor") + ", "
                + Counts.of(r.arenas().size(), "arena") + " laid out");
        for (PlanLayouts.ArenaLayout l : r.arenas()) {
            printPacking(out, l.arena().label() + ": ", l.packing());
        }
        List<PlanViolation> v = r.plan().validate();
        if (!v.isEmpty()) {
            throw new UsageException("plan: " + input + ": the plan has " + v.size() + " violation(s) planning cannot fix, first: "
                    + v.get(0).message());
        }
        if (output != null) {
            if (format == Format.CSV) {
                OutputFiles.write(Path.of(output), force, f -> ProblemCsv.write(r.arenas().get(0).packing(), f));
            } else {
                OutputFiles.write(Path.of(output), force, f -> PlanJson.write(r.plan(), f));
            }
            out.println("wrote " + output + (format == Format.JSON ? " (memory plan JSON)" : " (CSV)"));
        }
        long lowerBound = r.arenas().stream().mapToLong(l -> l.packing().lowerBound()).max().orElse(0);
        return verdict(out, r.fits(), r.timedOut(), capacity, lowerBound, output);
    }

    static void checkCapacity(PlanProblem problem, long capacity, String where) {
        long largest = problem.largest();
        if (capacity != Long.MAX_VALUE && largest > capacity) {
            int i = 0;
            while (problem.alignedSize(i) != largest) {
                i++;
            }
            throw new UsageException("plan: " + where + ": capacity " + capacity + " is below the largest buffer '"
                    + problem.buffers().get(i).id() + "' of " + largest + " bytes");
        }
    }

    static void printPacking(PrintStream out, String prefix, Packing p) {
        out.printf(Locale.ROOT, "%slower bound %,d B (%s), height %,d B (%s), ratio %.4f, %s %.3f s%s%n", prefix,
                p.lowerBound(), Bytes.format(p.lowerBound()), p.height(), Bytes.format(p.height()), p.ratio(),
                p.strategy(), p.elapsedNanos() / 1e9, p.timedOut() ? " (time limit reached)" : "");
        // how far from the best possible: optimal when the height meets a proved bound
        out.println(prefix + "proof: " + p.proof());
        out.printf(Locale.ROOT, "%sproved bound %,d B (%s)%n", prefix, p.bound(), basisText(p));
    }

    /** What the proved bound rests on, in words. */
    static String basisText(Packing p) {
        return switch (p.basis()) {
            case LOAD -> "the most bytes live at one step";
            case WINDOW -> "a window of time that packs in nothing lower";
            case SEARCH -> "the search proved every lower height impossible";
        };
    }

    static int verdict(PrintStream out, boolean fits, boolean timedOut, long capacity, long lowerBound,
                               String output) {
        if (capacity == Long.MAX_VALUE) {
            return 0;
        }
        if (fits) {
            out.printf(Locale.ROOT, "fits the capacity of %,d B%n", capacity);
            return 0;
        }
        String kept = output != null ? "the best one found was written to " + output
                : "give --output FILE to keep the best one found";
        if (lowerBound > capacity) {
            out.printf(Locale.ROOT, "no packing can fit %,d B: %,d B are live at once (the lower bound); %s%n",
                    capacity, lowerBound, kept);
        } else {
            out.printf(Locale.ROOT, "no packing within %,d B found%s; %s%n", capacity, timedOut ? " in time" : "", kept);
        }
        return EXIT_NO_FIT;
    }
}
