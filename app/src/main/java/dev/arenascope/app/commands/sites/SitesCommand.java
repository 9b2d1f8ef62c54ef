package dev.arenascope.app.commands.sites;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

import dev.arenascope.app.cli.Args;
import dev.arenascope.app.cli.Command;
import dev.arenascope.app.cli.FileArgs;
import dev.arenascope.app.cli.TraceLoader;
import dev.arenascope.app.cli.UsageException;
import dev.arenascope.app.commands.job.JobCommands;
import dev.arenascope.app.commands.job.JobInputs;
import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.analysis.SiteBreakdown;
import dev.arenascope.core.analysis.SiteDiff;
import dev.arenascope.core.analysis.SiteQuestion;
import dev.arenascope.core.analysis.SiteTree;
import dev.arenascope.core.format.Durations;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.file.TraceFormats;
import dev.arenascope.core.trace.store.TraceStore;

/**
 * {@code arenascope sites TRACE}: who holds the memory. Bytes and counts per allocation site (call stack,
 * or open scopes where no stack was recorded) of one memory, at an instant, over a range, of what
 * leaked or of temporaries; as a table, a top-down or bottom-up tree, by category, against a baseline;
 * printed as text, JSON or collapsed stacks for flame-graph tools. Answers come from
 * {@link SiteAnalysis}; the formats from {@link SitesOutput}.
 */
public final class SitesCommand implements Command {
    private static final Set<String> FLAGS = Set.of("leaks", "temporary", "bottom-up", "top-down", "internal");

    @Override
    public String name() {
        return "sites";
    }

    @Override
    public String summary() {
        return "who holds the memory: bytes per allocation site at the peak, an instant, a range; leaks, temporaries";
    }

    @Override
    public String usage() {
        return """
                Usage: arenascope sites TRACE [--memory NAME] [--at peak|TIME] [--range FROM..TO] [--leaks]
                                        [--temporary [--shorter-than DURATION]] [--top-down | --bottom-up]
                                        [--by site|category] [--top N] [--internal] [--format text|json|folded]
                                        [--baseline TRACE]
                       arenascope sites TRACE TRACE... | FOLDER | 'GLOB' [--rank NAME] [--baseline-rank NAME]
                                        [--rank-pattern REGEX] [the same question and shape options]

                Bytes and allocation counts per allocation site of one memory of TRACE (%s).
                A site is the call stack an allocation was made from (recorded with stack capture, or
                imported from a PyTorch snapshot); where none was recorded, the scopes open at the time.

                Question (one of; default --at peak):
                  --at peak|TIME       what is live at the memory's peak, or at TIME (e.g. 41.2s, 350ms, 12000us, 5ns)
                  --range FROM..TO     what was allocated in the range, with the bytes of it still live at TO
                  --leaks              what is live at the end of the trace (never freed)
                  --temporary          allocations freed within the range (--range, else the whole trace)
                    --shorter-than D   ... and alive for less than D (default 1ms)
                Shape:
                  --memory NAME        the memory (default: the one with the largest peak)
                  --by site|category   group by allocation site (default) or category
                  --top-down           the answer as a call tree, outermost frames first
                  --bottom-up          as a tree from the allocating frames out to their callers
                  --top N              the N largest sites, the rest as one line (default 20 in text, all otherwise)
                  --internal           keep frames marked internal (PyTorch's C++ allocator and unwinder, ...)
                  --baseline TRACE     also compare with the same question on TRACE, site by site
                  --format F           text (default), json (schema in docs/guide/sites.md) or folded
                                       ("outer;...;inner BYTES" lines for flamegraph.pl, inferno, speedscope)
                A job (several traces, a folder or a glob; one rank per file, named as for stats):
                  --rank NAME          the rank to answer for: a name (rank3), a number (3), WORST (the
                                       largest peak live) or MEDIAN (default WORST)
                  --baseline-rank NAME compare with the same question on that rank, site by site; at the
                                       peak each rank is asked at its own peak ("why does rank0 use more")
                  --rank-pattern REGEX name ranks by REGEX's first group in the file name
                Bad input (a time outside the trace, an unknown memory, a reversed range): one line, exit 2.
                """.formatted(TraceFormats.inputExtensions());
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        Args a = new Args(name(), args, FLAGS);
        String memoryName = a.string("memory", null);
        String at = a.string("at", null);
        String range = a.string("range", null);
        boolean leaks = a.flag("leaks");
        boolean temporary = a.flag("temporary");
        String shorter = a.string("shorter-than", null);
        boolean bottomUp = a.flag("bottom-up");
        boolean topDown = a.flag("top-down");
        String by = a.string("by", "site");
        boolean topGiven = a.has("top");
        int top = a.intValue("top", -1);
        boolean internal = a.flag("internal");
        String format = a.string("format", "text");
        String baseline = a.string("baseline", null);
        String rankArg = a.string("rank", null);
        String baselineRank = a.string("baseline-rank", null);
        String rankPattern = a.string("rank-pattern", null);
        a.finish();
        boolean job = JobInputs.isJob(a.positionals());
        if (!job && (rankArg != null || baselineRank != null)) {
            throw new UsageException(name() + ": --rank and --baseline-rank choose ranks of a job: give several traces, a folder or a glob");
        }
        if (job) {
            JobCommands.refuse(name(), "--baseline", baseline != null, "name the other rank with --baseline-rank");
        } else if (a.positionals().size() != 1) {
            throw new UsageException(name() + ": expects one TRACE, got " + a.positionals().size() + " (see arenascope sites --help)");
        }
        if (!List.of("text", "json", "folded").contains(format)) {
            throw new UsageException(name() + ": --format must be text, json or folded, got '" + format + "'");
        }
        if (!by.equals("site") && !by.equals("category")) {
            throw new UsageException(name() + ": --by must be site or category, got '" + by + "'");
        }
        boolean byCategory = by.equals("category");
        int questions = (at != null ? 1 : 0) + (leaks ? 1 : 0) + (temporary ? 1 : 0) + (range != null && !temporary ? 1 : 0);
        if (questions > 1) {
            throw new UsageException(name() + ": give one of --at, --range, --leaks, --temporary (--range may narrow --temporary)");
        }
        if (shorter != null && !temporary) {
            throw new UsageException(name() + ": --shorter-than goes with --temporary");
        }
        if (bottomUp && topDown) {
            throw new UsageException(name() + ": give --top-down or --bottom-up, not both");
        }
        if ((bottomUp || topDown) && byCategory) {
            throw new UsageException(name() + ": a call tree is by site; --by category has no tree");
        }
        if (topGiven && top < 1) { // -1 is "not given" inside, never a value the user may type
            throw new UsageException(name() + ": --top must be a positive number, got " + top);
        }
        long shorterThanNs = shorter == null ? SiteQuestion.DEFAULT_TEMPORARY_NS : TimeArg.duration(name(), "--shorter-than", shorter);
        SiteAnalysis.By grouping = byCategory ? SiteAnalysis.By.CATEGORY : SiteAnalysis.By.SITE;

        String label;
        String baselineLabel = null;
        SiteBreakdown sb;
        SiteDiff diff = null;
        JobSites.Pair ranks = null;
        LoadedTrace t = null;
        // the one question asked, as the replay keeps allocations for it (times checked when asked): a
        // site analysis bounded by the trace's live set, not by its allocations (a trace bigger than memory)
        List<SiteQuestion> only = List.of(question(Long.MAX_VALUE, at, range, leaks, temporary, shorterThanNs));
        if (job) {
            ranks = JobSites.pick(name(), a.positionals(), rankPattern, rankArg == null ? "WORST" : rankArg, baselineRank);
            SiteAnalysis sa = analysis(ranks.current().store(), memoryName, internal, Path.of(ranks.currentFile()), only);
            sb = ask(sa, question(sa.endNs(), at, range, leaks, temporary, shorterThanNs), grouping);
            label = ranks.currentLabel();
            if (ranks.baseline() != null) {
                // each rank's own main memory unless one was named: ranks' devices differ (cuda:0, cuda:3, ...)
                SiteAnalysis bsa = analysis(ranks.baseline().store(), memoryName, internal, Path.of(ranks.baselineFile()), only);
                diff = SiteDiff.between(ask(bsa, question(bsa.endNs(), at, range, leaks, temporary, shorterThanNs), grouping), sb);
                baselineLabel = ranks.baselineLabel();
            }
        } else {
            Path file = FileArgs.trace(name(), a.positionals().getFirst());
            t = TraceLoader.load(name(), file);
            SiteAnalysis sa = analysis(t.store(), memoryName, internal, file, only);
            sb = ask(sa, question(sa.endNs(), at, range, leaks, temporary, shorterThanNs), grouping);
            label = file.getFileName().toString();
            if (baseline != null) {
                Path bf = FileArgs.trace(name(), baseline);
                LoadedTrace bt = TraceLoader.load(name(), bf);
                SiteAnalysis bsa = analysis(bt.store(), sa.memory().name(), internal, bf, only);
                diff = SiteDiff.between(ask(bsa, question(bsa.endNs(), at, range, leaks, temporary, shorterThanNs), grouping), sb);
                baselineLabel = Path.of(baseline).getFileName().toString();
            }
        }
        int limit = top > 0 ? top : format.equals("text") ? 20 : Integer.MAX_VALUE;
        SiteTree tree = bottomUp ? SiteTree.bottomUp(sb) : topDown ? SiteTree.topDown(sb) : null;
        SiteBreakdown shown = limit < Integer.MAX_VALUE ? sb.top(limit) : sb;
        SitesOutput.Answer answer = new SitesOutput.Answer(label, shown, byCategory, tree, baselineLabel, diff);
        switch (format) {
            case "json" -> SitesOutput.json(answer, out);
            case "folded" -> {
                SitesOutput.folded(shown, out);
                if (SitesOutput.noteworthy(sb)) {
                    err.println("arenascope sites: " + SitesOutput.sourceLine(sb));
                }
            }
            default -> SitesOutput.text(answer, out);
        }
        out.flush();
        if (ranks != null) {
            ranks.table().printNotes(name(), err);
            return ranks.table().bad() ? 2 : 0;
        }
        return TraceLoader.finish(name(), t.report(), "", err);
    }

    /** The one question the options ask, as core's {@link SiteQuestion}; times are checked against {@code sa}'s trace when asked. */
    private SiteQuestion question(long endNs, String at, String range, boolean leaks, boolean temporary, long shorterThanNs) {
        if (leaks) {
            return new SiteQuestion.Leaks();
        }
        if (temporary) {
            long[] r = range == null ? new long[] {0, endNs} : TimeArg.range(name(), range);
            return new SiteQuestion.Temporaries(r[0], r[1], shorterThanNs);
        }
        if (range != null) {
            long[] r = TimeArg.range(name(), range);
            return new SiteQuestion.AllocatedIn(r[0], r[1]);
        }
        if (at == null || at.equals("peak")) {
            return new SiteQuestion.AtPeak();
        }
        return new SiteQuestion.LiveAt(TimeArg.instant(name(), "--at", at));
    }

    private SiteBreakdown ask(SiteAnalysis sa, SiteQuestion q, SiteAnalysis.By by) {
        try {
            return sa.ask(q, by);
        } catch (IllegalArgumentException e) {
            throw new UsageException(name() + ": " + e.getMessage(), e);
        }
    }

    private SiteAnalysis analysis(TraceStore store, String memoryName, boolean internal, Path file, List<SiteQuestion> only) {
        List<MemoryInfo> memories = store.memories();
        if (memories.isEmpty()) {
            throw new UsageException(name() + ": " + file + " has no memories");
        }
        if (memoryName != null) {
            try {
                return SiteAnalysis.of(store, memoryName, internal, only);
            } catch (IllegalArgumentException e) {
                throw new UsageException(name() + ": " + file.getFileName() + ": " + e.getMessage(), e);
            }
        }
        MemoryInfo largest = memories.stream().max(Comparator.comparingLong((MemoryInfo m) -> store.peakUsed(m.id()))
                .thenComparing(m -> -m.id())).orElseThrow();
        return SiteAnalysis.of(store, largest, internal, only);
    }

    /** Times and durations on the command line: a number with a unit (ns, us, ms, s, min), seconds without one. */
    static final class TimeArg {
        private TimeArg() {}

        static long duration(String command, String option, String text) {
            double ns;
            try {
                ns = Durations.parse(text, 1e9);
            } catch (NumberFormatException e) {
                throw new UsageException(command + ": " + option + " must be a time like 41.2s, 350ms, 12000us or 5ns, got '" + text + "'");
            }
            if (!(ns >= 0) || ns > Long.MAX_VALUE / 2.0) {
                throw new UsageException(command + ": " + option + " must be a time of 0 or more, got '" + text + "'");
            }
            return Math.round(ns);
        }

        static long instant(String command, String option, String text) {
            return duration(command, option, text);
        }

        static long[] range(String command, String text) {
            int dots = text.indexOf("..");
            if (dots < 0) {
                throw new UsageException(command + ": --range must be FROM..TO (e.g. 10s..12.5s), got '" + text + "'");
            }
            long from = duration(command, "--range", text.substring(0, dots));
            long to = duration(command, "--range", text.substring(dots + 2));
            if (from > to) {
                throw new UsageException(command + ": --range " + text + " is reversed (FROM must not be after TO)");
            }
            return new long[] {from, to};
        }
    }
}
