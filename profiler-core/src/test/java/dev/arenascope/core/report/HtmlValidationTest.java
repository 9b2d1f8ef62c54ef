package dev.arenascope.core.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.xml.sax.ErrorHandler;
import org.xml.sax.InputSource;
import org.xml.sax.SAXParseException;

import nu.validator.validation.SimpleDocumentValidator;

import dev.arenascope.core.analysis.TestTraces;
import dev.arenascope.core.analysis.TraceAnalysis;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.trace.torch.TorchSnapshotToTrace;
import dev.arenascope.testsupport.Fixtures;

/**
 * The HTML report passes the Nu HTML checker (the W3C's validator, run in-process with its bundled
 * schemas: no network): no errors, single trace and baseline comparison alike.
 */
class HtmlValidationTest {

    /** Validates {@code html}; returns the errors as {@code line:column message}. */
    static List<String> validate(String html) throws Exception {
        List<String> errors = new ArrayList<>();
        ErrorHandler handler = new ErrorHandler() {
            @Override
            public void warning(SAXParseException e) {
                // warnings (e.g. advice on heading structure) do not make markup invalid
            }

            @Override
            public void error(SAXParseException e) {
                errors.add(e.getLineNumber() + ":" + e.getColumnNumber() + " " + e.getMessage());
            }

            @Override
            public void fatalError(SAXParseException e) {
                error(e);
            }
        };
        SimpleDocumentValidator v = new SimpleDocumentValidator(true, false, false);
        v.setUpMainSchema("http://s.validator.nu/html5-all.rnc", handler);
        v.setUpValidatorAndParsers(handler, false, false);
        InputSource in = new InputSource(new StringReader(html));
        in.setSystemId("report.html");
        in.setEncoding("UTF-8");
        v.checkHtmlInputSource(in);
        return errors;
    }

    @Test
    void singleTraceReportIsValidHtml() throws Exception {
        Report r = Report.of(TraceAnalysis.of(TestTraces.render(6, 8, 4)), "arenascope test", "render.astrace");
        assertEquals(List.of(), validate(ReportFormat.HTML.render(r)));
    }

    @Test
    void comparisonReportIsValidHtml() throws Exception {
        TraceAnalysis a = TraceAnalysis.of(TestTraces.render(6, 8, 4));
        TraceAnalysis b = TraceAnalysis.of(TestTraces.render(6, 10, 6));
        Report r = Report.compare(b, a, 5.0, "arenascope test", "b", "a");
        assertEquals(List.of(), validate(ReportFormat.HTML.render(r)));
        Report plan = Report.of(TraceAnalysis.of(TestTraces.plan()), "arenascope test", "");
        assertEquals(List.of(), validate(ReportFormat.HTML.render(plan)));
    }

    @Test
    void realAndSyntheticTracesGiveValidHtml() throws Exception {
        Path fixtures = Fixtures.torchDir();
        var magma = new EventStore("magma");
        TorchSnapshotToTrace.convert(fixtures.resolve("cs336-a2-magma27.pickle"), magma);
        var bcrafton = new EventStore("bcrafton");
        TorchSnapshotToTrace.convert(fixtures.resolve("cs336-a2-bcrafton.pickle"), bcrafton);
        Report torch = Report.compare(TraceAnalysis.of(magma), TraceAnalysis.of(bcrafton), 5.0, "arenascope test",
                "cs336-a2-magma27.pickle", "cs336-a2-bcrafton.pickle");
        assertEquals(List.of(), validate(ReportFormat.HTML.render(torch)));
        var synthetic = new EventStore("synthetic");
        SyntheticTrace.write(3, 50_000, synthetic);
        Report all = Report.of(TraceAnalysis.of(synthetic), "arenascope test", "synthetic");
        assertEquals(List.of(), validate(ReportFormat.HTML.render(all)));
    }

    @Test
    void theValidatorCatchesBrokenMarkup() throws Exception {
        String broken = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>x</title></head>"
                + "<body><table><tr><td>a</td></tr></table><p><div>nested</div></p></body></html>";
        assertEquals(true, !validate(broken).isEmpty());
    }
}
