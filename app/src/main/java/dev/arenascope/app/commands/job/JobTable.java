package dev.arenascope.app.commands.job;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import dev.arenascope.app.cli.UsageException;
import dev.arenascope.core.analysis.JobSummary;
import dev.arenascope.core.analysis.RankPass;
import dev.arenascope.core.analysis.RankSummary;
import dev.arenascope.core.trace.file.JobLoad;
import dev.arenascope.core.trace.file.JobMember;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.file.RankNames;
import dev.arenascope.core.util.Progress;

/**
 * A job loaded for a command: its files named as ranks ({@link RankNames}), imported in parallel, each
 * rank summarised as it is imported ({@link RankPass}, the {@link RankSummary} made on the thread that
 * imported it), the stores dropped unless asked
 * to keep them (for {@code sites}), and the job's {@link JobSummary}. What went wrong is kept as lines
 * the command prints to stderr at the end: a rank that could not be read, a damaged one, two files with
 * the same rank name.
 *
 * @param summary  the rank table and the job's figures
 * @param stores   the loaded stores by rank name (only when kept; else empty)
 * @param notes    lines for stderr, without the {@code arenascope COMMAND: } prefix
 * @param bad      whether a member failed or was damaged (the command exits 2 at the end)
 */
public record JobTable(JobSummary summary, Map<String, LoadedTrace> stores, List<String> notes, boolean bad) {

    /** Reads {@code --rank-pattern} as a pattern (null when not given). */
    public static Pattern rankPattern(String command, String arg) {
        if (arg == null) {
            return null;
        }
        try {
            return RankNames.pattern(arg);
        } catch (IllegalArgumentException e) {
            throw new UsageException(command + ": --rank-pattern: " + e.getMessage());
        }
    }

    /** Loads the job of {@code files}; {@code keep} keeps every rank's store. */
    public static JobTable load(List<Path> files, Pattern rankPattern, boolean keep) {
        return load(files, rankPattern, keep, Progress.NONE);
    }

    /**
     * Loads the job of {@code files} as {@link #load(List, Pattern, boolean)} does, telling {@code progress}
     * how many ranks are done and stopping when it is cancelled (the window's open).
     *
     * @throws java.util.concurrent.CancellationException when {@code progress} was cancelled
     */
    public static JobTable load(List<Path> files, Pattern rankPattern, boolean keep, Progress progress) {
        List<JobMember> members = RankNames.members(files, rankPattern);
        record Ranked(RankSummary row, LoadedTrace kept) {}
        // each rank's row taken as its file is parsed (RankPass beside the store), not by reading the store back
        List<JobLoad.Loaded<Ranked>> loaded = JobLoad.load(members, JobLoad.defaultThreads(), progress, m -> new RankPass(), (m, lt, pass) -> {
            String problem = lt.report().damaged() ? lt.report().summary() : null;
            RankSummary row = pass.summary(m.rank(), m.number(), m.file().toString(), m.duplicate(), problem, lt.store());
            return new Ranked(row, keep ? lt : null);
        });
        List<RankSummary> rows = new ArrayList<>();
        Map<String, LoadedTrace> stores = new LinkedHashMap<>();
        List<String> notes = new ArrayList<>();
        boolean bad = false;
        for (JobLoad.Loaded<Ranked> l : loaded) {
            JobMember m = l.member();
            if (m.duplicate()) {
                String first = members.stream().filter(o -> !o.duplicate() && RankNames.name(o.file(), rankPattern)
                        .equals(RankNames.name(m.file(), rankPattern))).map(o -> o.file().toString()).findFirst().orElse("another file");
                notes.add(m.file() + " names the same rank as " + first + "; both are kept, this one as " + m.rank());
            }
            if (!l.ok()) {
                rows.add(RankSummary.failed(m.rank(), m.number(), m.file().toString(), m.duplicate(), l.failure(), l.failureDetail()));
                notes.add("rank " + m.rank() + ": " + l.failureLine() + "; the other ranks are reported");
                bad = true;
                continue;
            }
            rows.add(l.result().row());
            if (l.result().kept() != null) {
                stores.put(m.rank(), l.result().kept());
            }
            if (l.damaged()) {
                notes.add("rank " + m.rank() + ": " + l.report().summary() + "; its row covers what was recovered");
                bad = true;
            }
        }
        return new JobTable(JobSummary.of(rows), stores, notes, bad);
    }

    /** Prints the notes, each prefixed {@code arenascope COMMAND: }. */
    public void printNotes(String command, PrintStream err) {
        for (String n : notes) {
            err.println("arenascope " + command + ": " + n);
        }
    }
}
