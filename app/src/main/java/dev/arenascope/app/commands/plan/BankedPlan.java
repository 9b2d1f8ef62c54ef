package dev.arenascope.app.commands.plan;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.plan.BankPlan;
import dev.arenascope.core.plan.BankPlanner;
import dev.arenascope.core.plan.BankProblem;
import dev.arenascope.core.plan.PlanBank;
import dev.arenascope.core.plan.PlanJson;
import dev.arenascope.core.plan.PlanLayouts;
import dev.arenascope.core.plan.ProblemCsv;
import dev.arenascope.core.trace.file.OutputFiles;

/** {@code plan --input CSV --banks ...}: which bank each buffer goes into, and where in it. */
final class BankedPlan {
    private BankedPlan() {}

    static int run(Path input, long alignment, List<PlanBank> banks, long deadline, String output, boolean force, boolean json, PrintStream out)
            throws IOException {
        ProblemCsv.Banked read = ProblemCsv.readBanked(input, alignment);
        BankProblem bp = BankProblem.of(read.problem(), banks, read.banks(), read.accesses());
        BankPlan plan = new BankPlanner().plan(bp, PlanCommand.left(deadline));
        out.println(input.getFileName() + ": " + bp.size() + " buffers, " + banks.size() + " bank(s), banked plan "
                + String.format(Locale.ROOT, "%.3f s", plan.elapsedNanos() / 1e9) + (plan.timedOut() ? " (time limit reached)" : ""));
        for (int b = 0; b < banks.size(); b++) {
            PlanBank bank = banks.get(b);
            out.printf(Locale.ROOT, "  %s: %,d buffers, %s of buffers, arena %,d B (%s) of %,d B (%s), cost %s a byte%s%n",
                    bank.name(), plan.buffersIn(b), Bytes.format(plan.bytesIn(b)), plan.height(b), Bytes.format(plan.height(b)),
                    bank.capacity(), Bytes.format(bank.capacity()), number(bank.cost()),
                    plan.height(b) > bank.capacity() ? "  OVER CAPACITY" : "");
        }
        out.printf(Locale.ROOT, "cost %s, proved bound %s%n", number(plan.cost()), number(plan.bound()));
        out.println("proof: " + plan.proof() + (plan.exhaustive() ? " (every assignment searched)" : ""));
        if (output != null) {
            if (json) {
                String name = input.getFileName().toString().replaceFirst("\\.[^.]*$", "");
                OutputFiles.write(Path.of(output), force, f -> PlanJson.write(PlanLayouts.bankedPlan(name, plan), f));
            } else {
                OutputFiles.write(Path.of(output), force, f -> ProblemCsv.write(plan, f));
            }
            out.println("wrote " + output + (json ? " (memory plan JSON, one arena per bank)" : " (CSV with offset and bank)"));
        }
        if (plan.fits()) {
            out.println("fits every bank");
            return 0;
        }
        out.println("no assignment within every bank's capacity found" + (plan.timedOut() ? " in time" : "") + "; "
                + (output != null ? "the best one found was written to " + output : "give --output FILE to keep the best one found"));
        return PlanCommand.EXIT_NO_FIT;
    }

    private static String number(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? String.format(Locale.ROOT, "%,d", (long) v) : String.format(Locale.ROOT, "%,.2f", v);
    }
}
