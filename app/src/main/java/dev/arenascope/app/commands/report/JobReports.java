package dev.arenascope.app.commands.report;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;

import dev.arenascope.app.info.AppInfo;
import dev.arenascope.app.info.ExitCodes;
import dev.arenascope.app.commands.job.JobCommands;
import dev.arenascope.app.commands.job.JobTable;
import dev.arenascope.core.report.JobReport;
import dev.arenascope.core.report.ReportFormat;

/**
 * {@code report} of a job: the job report ({@link JobReport}) written like any report, then one line per
 * failed gate naming the rank, then the notes (ranks not read or damaged, duplicate names). Exit 2 when
 * a rank could not be read or was damaged (it comes first, as for one trace), else 4 when a gate failed.
 */
final class JobReports {
    private JobReports() {}

    static int run(List<String> args, String rankPattern, Double imbalancePct, Long peakLimit, ReportFormat format, String outArg,
                   boolean force, PrintStream out, PrintStream err) throws IOException {
        JobTable t = JobCommands.load("report", args, rankPattern, false);
        JobReport r = JobReport.of(t.summary(), imbalancePct, peakLimit, AppInfo.tool(), String.join(" ", args));
        ReportCommand.emit(w -> r.write(format, w), format, outArg, force, out, err);
        List<JobReport.GateFailure> failed = r.gateFailures();
        for (JobReport.GateFailure f : failed) {
            err.println("report: " + f.line());
        }
        t.printNotes("report", err);
        if (t.bad()) {
            return ExitCodes.USAGE;
        }
        return failed.isEmpty() ? ExitCodes.OK : ExitCodes.REGRESSION;
    }
}
