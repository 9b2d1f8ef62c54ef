package dev.arenascope.core.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.analysis.TraceAnalysis;
import dev.arenascope.core.format.Printable;
import dev.arenascope.core.trace.file.JsonlReader;
import dev.arenascope.core.trace.file.TraceFormats;
import dev.arenascope.core.trace.store.EventStore;

/**
 * Names in a trace come from whoever made the file: session, memory, frame and file names carrying
 * HTML, Markdown links, spreadsheet formulas and terminal escapes must come out of every writer as the
 * text they are.
 */
class InjectionPayloadsTest {
    static final String SCRIPT = "<script>alert(1)</script>";
    static final String IMG = "<img src=x onerror=alert(2)>";
    static final String LINK = "[x](javascript:alert(3))";
    static final String FORMULA = "=cmd|' /C calc'!A0";
    static final String PLUS = "+SUM(1,2)";
    static final String AT = "@SUM(A1:A9)";
    static final String ESCAPES = "\u001b]0;owned\u0007\u001b[2J\u202egnp.exe\n99.0 GiB 99.9%";

    @TempDir
    static Path dir;
    static Path trace;
    static EventStore store;

    @BeforeAll
    static void hostileTrace() throws Exception {
        ObjectMapper m = new ObjectMapper();
        StringBuilder sb = new StringBuilder();
        sb.append("{\"type\":\"session\",\"name\":").append(m.writeValueAsString(SCRIPT + LINK)).append(",\"host\":")
                .append(m.writeValueAsString(IMG)).append(",\"attributes\":{\"note\":").append(m.writeValueAsString(LINK + ESCAPES)).append("}}\n");
        sb.append("{\"type\":\"memory\",\"id\":0,\"name\":").append(m.writeValueAsString(FORMULA)).append(",\"kind\":\"POOL\",\"capacity\":0}\n");
        sb.append("{\"type\":\"string\",\"id\":0,\"value\":").append(m.writeValueAsString(AT)).append("}\n");
        sb.append("{\"type\":\"frame\",\"id\":0,\"function\":").append(m.writeValueAsString(PLUS + IMG)).append(",\"file\":")
                .append(m.writeValueAsString(LINK)).append(",\"line\":3}\n");
        sb.append("{\"type\":\"frame\",\"id\":1,\"function\":").append(m.writeValueAsString(ESCAPES)).append(",\"file\":")
                .append(m.writeValueAsString(SCRIPT)).append(",\"line\":4}\n");
        sb.append("{\"type\":\"stack\",\"id\":0,\"frame\":0,\"parent\":-1}\n");
        sb.append("{\"type\":\"stack\",\"id\":1,\"frame\":1,\"parent\":0}\n");
        for (int i = 0; i < 20; i++) {
            sb.append("{\"t\":").append(i * 10).append(",\"kind\":\"ALLOC\",\"mem\":0,\"a\":").append(i * 64).append(",\"b\":64,\"used\":")
                    .append((i + 1) * 64).append(",\"site\":").append(i % 2).append(",\"cat\":0}\n");
        }
        trace = dir.resolve("hostile.jsonl");
        Files.writeString(trace, sb.toString());
        store = new EventStore("hostile");
        assertFalse(JsonlReader.read(trace, store).damaged());
    }

    private static String report(ReportFormat f) throws Exception {
        return f.render(Report.of(TraceAnalysis.of(store), "test", "hostile`.jsonl"));
    }

    @Test
    void theHtmlReportEscapesEveryName() throws Exception {
        String html = report(ReportFormat.HTML);
        for (String raw : List.of("<script", "<img", "javascript:alert(3))\"", "\u001b", "\u202e")) {
            assertFalse(html.contains(raw), raw);
        }
        assertTrue(html.contains("&lt;script&gt;"), "the name is there, as text");
    }

    @Test
    void theMarkdownReportEscapesHtmlAndMarkdown() throws Exception {
        String md = report(ReportFormat.MARKDOWN);
        for (String raw : List.of("<script", "<img", "\u001b", "\u0007", "\u202e")) {
            assertFalse(md.contains(raw), "raw '" + raw + "' in:\n" + md);
        }
        assertFalse(Pattern.compile("(?<!\\\\)\\]\\(javascript:").matcher(md).find(), "a link: " + md);
        assertTrue(md.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), md);
        assertTrue(md.contains("\\[x\\](javascript:alert(3))"), md);
        assertFalse(md.lines().anyMatch(l -> l.startsWith("99.0 GiB")), "a newline in a name forges no line");
    }

    @Test
    void theJsonReportKeepsNamesExactlyAsJsonStrings() throws Exception {
        JsonNode j = new ObjectMapper().readTree(report(ReportFormat.JSON));
        assertEquals(SCRIPT + LINK, j.at("/trace/session/name").asText());
    }

    @Test
    void csvCellsThatASpreadsheetWouldRunAsFormulasAreNeutralised() throws Exception {
        Path csv = dir.resolve("hostile.csv");
        JsonlReader.read(trace, TraceFormats.output(csv).open(csv));
        List<String> rows = Files.readAllLines(csv, StandardCharsets.UTF_8);
        String all = String.join("\n", rows);
        // every cell: none starts with = + - @ unless quoted as text
        for (String row : rows.subList(1, rows.size())) {
            for (String cell : row.split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)")) {
                String c = cell.startsWith("\"") ? cell.substring(1) : cell;
                if (!c.isEmpty() && "=+@\t\r".indexOf(c.charAt(0)) >= 0) {
                    throw new AssertionError("formula cell " + cell + " in " + row);
                }
            }
        }
        assertTrue(all.contains("'" + FORMULA.substring(0, 6)), all);
        assertTrue(all.contains("'" + AT), all);
        assertTrue(all.contains("'" + PLUS.substring(0, 5)), all);
    }

    @Test
    void terminalTextHasNoControlOrBidiCharacterLeft() {
        String p = Printable.line(ESCAPES);
        assertFalse(p.chars().anyMatch(c -> Printable.unsafe((char) c)), p);
        assertEquals("\\x1b]0;owned\\x07\\x1b[2J\\u202egnp.exe\\x0a99.0 GiB 99.9%", p);
        assertEquals("plain names stay", Printable.line("plain names stay"));
        assertEquals("数组 (модуль.py:3)", Printable.line("数组 (модуль.py:3)"));
    }
}
