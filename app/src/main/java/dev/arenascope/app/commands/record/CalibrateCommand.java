package dev.arenascope.app.commands.record;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.arenascope.app.cli.Args;
import dev.arenascope.app.cli.Command;
import dev.arenascope.app.cli.FileArgs;
import dev.arenascope.app.cli.TraceLoader;
import dev.arenascope.app.cli.UsageException;
import dev.arenascope.core.analysis.MemoryModel;
import dev.arenascope.core.analysis.ScopeModel;
import dev.arenascope.core.analysis.ScopeSample;
import dev.arenascope.core.analysis.ScopeSampler;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Printable;
import dev.arenascope.core.report.JsonOutput;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.file.ReadReport;

/**
 * {@code arenascope calibrate TRACE [--json]}: fits every arena scope's memory model
 * {@code bytes = a + Σ bᵢ·paramᵢ} from an ordinary recording and prints each with its worst error
 * over the recorded executions.
 */
public final class CalibrateCommand implements Command {

    @Override
    public String name() {
        return "calibrate";
    }

    @Override
    public String summary() {
        return "fit each scope's memory model (bytes = a + sum b_i*param_i) from a recorded trace";
    }

    @Override
    public String usage() {
        return """
                Usage: arenascope calibrate TRACE [--json]

                Fits, for every scope name of the trace's arenas, bytes = a + sum of b_i * param_i over the
                parameters annotated on it (scope params and noteScopeParams), where bytes are those
                requested by the allocations made directly inside the scope. The fit is exact (integer
                coefficients, zero residual) when the recorded executions allow it, least squares
                otherwise. Prints each model with its samples, its worst error over the recorded
                executions and the alignment slack (padding bound) that batch sizing adds.

                  --json   one JSON object on stdout instead of the table

                A damaged TRACE is fitted from what it recovers, with one line on stderr naming the
                first problem, and exit code 2.

                A scope whose sizes do not fit in 64 bits (an execution requesting 2^63 - 1 bytes or more, or a
                fitted constant or coefficient past what 64-bit bytes hold exactly) gets no model: its row
                says "overflow", one line on stderr names it, and the exit code is 2.

                Exit codes: 0 ok; 2 unreadable or damaged trace, a trace without arena scopes, or a scope
                that overflowed.
                """;
    }

    @Override
    public int run(List<String> argv, PrintStream out, PrintStream err) throws Exception {
        Args a = new Args("calibrate", argv, Set.of("json"));
        boolean json = a.flag("json");
        a.finish();
        if (a.positionals().size() != 1) {
            throw new UsageException("calibrate: expected one TRACE file, got " + a.positionals().size() + " arguments");
        }
        Path file = FileArgs.trace("calibrate", a.positionals().getFirst());
        LoadedTrace loaded = TraceLoader.load("calibrate", file);
        ReadReport damage = loaded.report();
        TraceView trace = loaded.store();
        List<ScopeSample> samples = ScopeSampler.of(trace);
        if (samples.isEmpty()) {
            throw new UsageException("calibrate: " + file + " has no closed arena scopes to fit (record with scopes, e.g. arenascope record render)");
        }
        MemoryModel model = MemoryModel.fit(samples);
        if (json) {
            json(file, samples.size(), model, out);
        } else {
            out.print(table(file, samples.size(), model));
        }
        // fitted from what was recovered, as every command does; the exit code says the file was not whole
        int code = TraceLoader.finish("calibrate", damage, "", err);
        for (ScopeModel m : model.scopes().values()) {
            if (m.overflow() != null) {
                // a model is not given for sizes past 64 bits: said once, and the exit code says the input is bad
                err.println("arenascope calibrate: " + file + ": scope '" + Printable.line(m.name()) + "': no model: " + m.overflow());
                return 2;
            }
        }
        return code;
    }

    static String table(Path file, int samples, MemoryModel model) {
        StringBuilder sb = new StringBuilder();
        sb.append(Printable.line(file.toString())).append(": ").append(model.scopes().size()).append(" scopes from ").append(samples).append(" executions\n");
        // names come from whoever made the file: shown as text, never as terminal commands or extra rows
        int w = Math.max(5, model.scopes().keySet().stream().mapToInt(n -> Printable.line(n).length()).max().orElse(5));
        sb.append(String.format(Locale.ROOT, "%-" + w + "s %7s  %-13s %12s %9s %10s  %s%n", "scope", "samples", "fit",
                "worst error", "", "slack", "model (bytes)"));
        for (ScopeModel m : model.scopes().values()) {
            String fit = m.overflow() != null ? "overflow" : m.integral() ? "exact" : m.exact() ? "exact (ratio)" : "least squares";
            sb.append(String.format(Locale.ROOT, "%-" + w + "s %7d  %-13s %12s %8.3f%% %10s  %s%s%n", Printable.line(m.name()), m.samples(), fit,
                    Bytes.format(Math.round(m.worstResidual())), 100 * m.worstRelative(), Bytes.format(m.slackBytes()), Printable.line(m.formula()),
                    m.unidentified().isEmpty() ? "" : "   (not varied: " + Printable.line(String.join(", ", m.unidentified())) + ")"));
        }
        return sb.toString();
    }

    /** The fitted models as JSON (through {@link JsonOutput}, as every command's JSON). */
    static void json(Path file, int samples, MemoryModel model, PrintStream out) throws IOException {
        JsonGenerator g = JsonOutput.open(out);
        g.writeStartObject();
        g.writeStringField("trace", file.toString());
        g.writeNumberField("executions", samples);
        g.writeArrayFieldStart("scopes");
        for (ScopeModel m : model.scopes().values()) {
            g.writeStartObject();
            g.writeStringField("name", m.name());
            g.writeNumberField("samples", m.samples());
            g.writeArrayFieldStart("params");
            for (String p : m.params()) {
                g.writeString(p);
            }
            g.writeEndArray();
            JsonOutput.number(g, "intercept", m.intercept());
            g.writeObjectFieldStart("coefficients");
            for (int i = 0; i < m.params().size(); i++) {
                JsonOutput.number(g, m.params().get(i), m.coefficients()[i]);
            }
            g.writeEndObject();
            g.writeBooleanField("exact", m.exact());
            g.writeBooleanField("integral", m.integral());
            if (m.overflow() != null) {
                g.writeStringField("overflow", m.overflow());
            }
            g.writeArrayFieldStart("unidentified");
            for (String p : m.unidentified()) {
                g.writeString(p);
            }
            g.writeEndArray();
            JsonOutput.number(g, "worst_error_bytes", m.worstResidual());
            JsonOutput.number(g, "worst_error_relative", m.worstRelative());
            g.writeNumberField("slack_bytes", m.slackBytes());
            g.writeNumberField("max_padding_bytes", m.maxPadding());
            g.writeStringField("formula", m.formula());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
        JsonOutput.end(g);
    }
}
