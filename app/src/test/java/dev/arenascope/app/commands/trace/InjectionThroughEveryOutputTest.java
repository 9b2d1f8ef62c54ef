package dev.arenascope.app.commands.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.cli.CliRun;
import dev.arenascope.core.format.Printable;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.file.TraceFormats;

/**
 * Issue 29 #8, through the command line: one trace whose every name an attacker wrote (HTML, a Markdown
 * link, spreadsheet formulas, terminal escapes, a forged row, the right-to-left override) goes through
 * every output a user reads: the three report formats, every {@code convert} format, {@code sites} as
 * text and folded, {@code stats}, {@code calibrate}, {@code query} as a table and as CSV. Text meant for
 * a terminal holds no control or bidirectional character; CSV cells never start a formula; HTML and
 * Markdown hold no live markup; the trace formats and JSON keep every name exactly.
 */
class InjectionThroughEveryOutputTest {
    static final String SCRIPT = "<script>alert(1)</script>";
    static final String IMG = "<img src=x onerror=alert(2)>";
    static final String LINK = "[x](javascript:alert(3))";
    static final String FORMULA = "=cmd|' /C calc'!A0";
    static final String PLUS = "+SUM(1,2)";
    static final String AT = "@SUM(A1:A9)";
    static final String ESCAPES = "\u001b]0;owned\u0007\u001b[2J\u202egnp.exe\n99.0 GiB 99.9%";
    static final List<String> ALL = List.of(SCRIPT, IMG, LINK, FORMULA, PLUS, AT, ESCAPES);

    @TempDir
    static Path dir;
    static Path trace;

    @BeforeAll
    static void hostileTrace() throws Exception {
        ObjectMapper m = new ObjectMapper();
        StringBuilder sb = new StringBuilder();
        sb.append("{\"type\":\"session\",\"name\":").append(m.writeValueAsString(SCRIPT + LINK)).append(",\"host\":")
                .append(m.writeValueAsString(IMG)).append(",\"attributes\":{\"note\":").append(m.writeValueAsString(LINK + ESCAPES)).append("}}\n");
        sb.append("{\"type\":\"memory\",\"id\":0,\"name\":").append(m.writeValueAsString(FORMULA)).append(",\"kind\":\"POOL\",\"capacity\":0}\n");
        sb.append("{\"type\":\"memory\",\"id\":1,\"name\":").append(m.writeValueAsString(ESCAPES)).append(",\"kind\":\"ARENA\",\"capacity\":1048576}\n");
        sb.append("{\"type\":\"string\",\"id\":0,\"value\":").append(m.writeValueAsString(AT)).append("}\n");
        sb.append("{\"type\":\"string\",\"id\":1,\"value\":").append(m.writeValueAsString(ESCAPES + PLUS)).append("}\n");
        sb.append("{\"type\":\"string\",\"id\":2,\"value\":").append(m.writeValueAsString(FORMULA)).append("}\n");
        sb.append("{\"type\":\"frame\",\"id\":0,\"function\":").append(m.writeValueAsString(PLUS + IMG)).append(",\"file\":")
                .append(m.writeValueAsString(LINK)).append(",\"line\":3}\n");
        sb.append("{\"type\":\"frame\",\"id\":1,\"function\":").append(m.writeValueAsString(ESCAPES)).append(",\"file\":")
                .append(m.writeValueAsString(SCRIPT)).append(",\"line\":4}\n");
        sb.append("{\"type\":\"stack\",\"id\":0,\"frame\":0,\"parent\":-1}\n");
        sb.append("{\"type\":\"stack\",\"id\":1,\"frame\":1,\"parent\":0}\n");
        long t = 0;
        for (int i = 0; i < 20; i++) {
            sb.append("{\"t\":").append(t++).append(",\"kind\":\"ALLOC\",\"mem\":0,\"a\":").append(i * 64).append(",\"b\":64,\"used\":")
                    .append((i + 1) * 64).append(",\"site\":").append(i % 2).append(",\"cat\":0}\n");
        }
        // an arena scope named by the attacker, with a param, executed twice: calibrate fits and prints it
        for (int n = 1; n <= 2; n++) {
            sb.append("{\"t\":").append(t++).append(",\"kind\":\"SCOPE_ENTER\",\"mem\":1,\"c\":-1,\"ref\":1,\"ref2\":").append(n).append("}\n");
            sb.append("{\"t\":").append(t++).append(",\"kind\":\"SCOPE_PARAM\",\"mem\":1,\"a\":").append(n).append(",\"ref\":2,\"ref2\":").append(n).append("}\n");
            sb.append("{\"t\":").append(t++).append(",\"kind\":\"ALLOC\",\"mem\":1,\"b\":").append(64 * n).append(",\"c\":").append(64 * n)
                    .append(",\"used\":").append(64 * n).append(",\"ref2\":").append(n).append("}\n");
            sb.append("{\"t\":").append(t++).append(",\"kind\":\"SCOPE_EXIT\",\"mem\":1,\"ref\":1,\"ref2\":").append(n).append("}\n");
        }
        trace = Files.writeString(dir.resolve("hostile.jsonl"), sb.toString());
    }

    /** Text for a terminal: no control character but the line breaks between lines, no bidirectional one. */
    private static void terminalSafe(String what, String text) {
        for (String line : text.split("\n", -1)) {
            assertFalse(line.chars().anyMatch(c -> c != '\r' && Printable.unsafe((char) c)), what + ": " + Printable.line(line));
        }
        assertFalse(text.lines().anyMatch(l -> l.strip().startsWith("99.0 GiB")), what + ": a forged row: " + text);
    }

    private static CliRun ok(String... args) {
        CliRun r = CliRun.of(args);
        assertEquals(0, r.code(), String.join(" ", args) + ": " + r.err());
        return r;
    }

    @Test
    void reportsHoldNoLiveMarkup() throws Exception {
        String html = ok("report", trace.toString(), "--format", "html").out();
        for (String p : List.of(SCRIPT, IMG)) {
            assertFalse(html.contains(p), "HTML: " + p);
        }
        assertFalse(html.contains("href=\"javascript:"), "HTML: a javascript link");
        String md = ok("report", trace.toString(), "--format", "md").out();
        for (String p : List.of(SCRIPT, IMG, LINK)) {
            assertFalse(md.contains(p), "Markdown: " + p);
        }
        JsonNode json = new ObjectMapper().readTree(ok("report", trace.toString(), "--format", "json").out());
        assertEquals(SCRIPT + LINK, json.get("trace").get("session").get("name").asText(), "JSON keeps names exactly");
    }

    @Test
    void theTraceFormatsKeepEveryNameExactly() throws Exception {
        for (String ext : List.of(".astrace", ".jsonl")) {
            Path out = dir.resolve("copy" + ext);
            ok("convert", trace.toString(), out.toString(), "--force");
            LoadedTrace back = TraceFormats.load(out);
            List<String> names = new ArrayList<>(back.store().memories().stream().map(MemoryInfo::name).toList());
            for (int f = 0; f < back.store().frameCount(); f++) {
                StackFrame fr = back.store().frame(f);
                names.add(fr.function());
                names.add(fr.file());
            }
            assertTrue(names.containsAll(List.of(FORMULA, ESCAPES, PLUS + IMG, LINK, SCRIPT)), ext + ": " + names);
        }
        Path perfetto = dir.resolve("copy.json");
        ok("convert", trace.toString(), perfetto.toString(), "--force");
        String perfettoText = Files.readString(perfetto);
        new ObjectMapper().readTree(perfettoText); // valid JSON whatever the names
        assertFalse(perfettoText.chars().anyMatch(c -> c < 0x20 && c != '\n'), "control characters are escaped in JSON");
    }

    @Test
    void csvCellsNeverStartAFormula() throws Exception {
        Path csv = dir.resolve("events.csv");
        ok("convert", trace.toString(), csv.toString(), "--force");
        assertCsvSafe("convert", Files.readString(csv));
        String query = ok("query", trace.toString(), "--sql", "SELECT name, -1 AS minus FROM memories UNION ALL SELECT function, 0 FROM frames",
                "--format", "csv").out();
        assertCsvSafe("query", query);
        assertTrue(query.contains("'" + FORMULA) && query.contains("'" + PLUS + IMG), query);
        assertTrue(query.contains(",-1\r\n"), "numbers are numbers, a negative one included: " + query);
    }

    private static void assertCsvSafe(String what, String csv) {
        for (String line : csv.split("\r?\n")) {
            for (String cell : line.split(",")) {
                String c = cell.startsWith("\"") ? cell.substring(1) : cell;
                assertFalse(c.startsWith("=") || c.startsWith("+") || c.startsWith("@"), what + ": a formula cell: " + cell);
            }
        }
    }

    @Test
    void terminalOutputsShowNamesAsText() throws Exception {
        terminalSafe("sites", ok("sites", trace.toString()).out());
        terminalSafe("sites folded", ok("sites", trace.toString(), "--format", "folded").out());
        terminalSafe("calibrate", ok("calibrate", trace.toString()).out());
        terminalSafe("query table", ok("query", trace.toString(), "--sql", "SELECT name FROM memories UNION ALL SELECT function FROM frames").out());
        CliRun stats = ok("stats", trace.toString());
        JsonNode s = new ObjectMapper().readTree(stats.out());
        assertEquals(ESCAPES, s.get("memories").get(1).get("name").asText(), "stats' JSON keeps names exactly, escaped");
        terminalSafe("stats", stats.out());
    }
}
