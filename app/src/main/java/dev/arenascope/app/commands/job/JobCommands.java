package dev.arenascope.app.commands.job;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.arenascope.app.cli.UsageException;
import dev.arenascope.app.info.ExitCodes;
import dev.arenascope.core.report.JobJson;
import dev.arenascope.core.report.JsonOutput;

/**
 * What {@code stats} does with a job, and the argument checks {@code report} and {@code sites} share
 * for one. Stateless.
 */
public final class JobCommands {
    private JobCommands() {}

    /** Loads the job named by {@code args} ({@link JobInputs}); {@code keep} keeps every rank's store. */
    public static JobTable load(String command, List<String> args, String rankPattern, boolean keep) {
        List<Path> files = JobInputs.files(command, args);
        return JobTable.load(files, JobTable.rankPattern(command, rankPattern), keep);
    }

    /**
     * {@code stats} of a job: {@code {"ranks": [...], "job": {...}}} on {@code out}, then the notes on
     * {@code err}; exit 2 when a rank could not be read or was damaged.
     */
    public static int stats(List<String> args, String rankPattern, PrintStream out, PrintStream err) throws IOException {
        JobTable t = load("stats", args, rankPattern, false);
        JsonGenerator g = JsonOutput.open(out);
        g.writeStartObject();
        JobJson.fields(g, t.summary(), false);
        g.writeEndObject();
        JsonOutput.end(g);
        t.printNotes("stats", err);
        return t.bad() ? ExitCodes.USAGE : ExitCodes.OK;
    }

    /** Refuses an option that compares one trace with another when the input is a job. */
    public static void refuse(String command, String option, boolean given, String instead) {
        if (given) {
            throw new UsageException(command + ": " + option + " compares one trace; for a job " + instead);
        }
    }
}
