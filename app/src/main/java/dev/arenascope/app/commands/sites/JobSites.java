package dev.arenascope.app.commands.sites;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import dev.arenascope.app.cli.UsageException;
import dev.arenascope.app.commands.job.JobCommands;
import dev.arenascope.app.commands.job.JobTable;
import dev.arenascope.core.analysis.RankSummary;
import dev.arenascope.core.trace.file.LoadedTrace;

/**
 * The two ranks {@code sites} answers for in a job: the job loaded (every store kept, so the question
 * can be asked of any rank), {@code --rank} and {@code --baseline-rank} resolved by name, number,
 * {@code WORST} or {@code MEDIAN}. Stateless.
 */
final class JobSites {
    private JobSites() {}

    /** The chosen ranks' stores and labels; {@code baseline} null without {@code --baseline-rank}. */
    record Pair(JobTable table, LoadedTrace current, String currentLabel, String currentFile,
                LoadedTrace baseline, String baselineLabel, String baselineFile) {}

    static Pair pick(String command, List<String> args, String rankPattern, String rank, String baselineRank) {
        JobTable t = JobCommands.load(command, args, rankPattern, true);
        RankSummary c = resolve(command, t, "--rank", rank);
        RankSummary b = baselineRank == null ? null : resolve(command, t, "--baseline-rank", baselineRank);
        return new Pair(t, t.stores().get(c.rank()), label(c, rank), c.file(),
                b == null ? null : t.stores().get(b.rank()), b == null ? null : label(b, baselineRank), b == null ? null : b.file());
    }

    private static RankSummary resolve(String command, JobTable t, String option, String name) {
        try {
            return t.summary().rank(name);
        } catch (IllegalArgumentException e) {
            throw new UsageException(command + ": " + option + ": " + e.getMessage());
        }
    }

    private static String label(RankSummary r, String asked) {
        String file = Path.of(r.file()).getFileName().toString();
        boolean alias = asked.equalsIgnoreCase("WORST") || asked.equalsIgnoreCase("MEDIAN");
        return r.rank() + (alias ? " (" + asked.toLowerCase(Locale.ROOT) + ")" : "") + ", " + file;
    }
}
