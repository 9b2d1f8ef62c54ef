package dev.arenascope.core.report;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.Locale;

/** The formats a report is written in, each with its writer. */
public enum ReportFormat {
    /** One self-contained HTML file: inline CSS and SVG charts, no scripts, no network. */
    HTML("html"),
    /** GitHub-flavoured Markdown tables, for pasting into a review. */
    MARKDOWN("md"),
    /** The same figures as JSON with stable field names (docs/report-schema.md). */
    JSON("json");

    private final String extension;

    ReportFormat(String extension) {
        this.extension = extension;
    }

    /** The file name extension and {@code --format} value: {@code html}, {@code md}, {@code json}. */
    public String extension() {
        return extension;
    }

    /**
     * The format named {@code name} ({@code html}, {@code md} or {@code markdown}, {@code json}), case-insensitive.
     *
     * @throws IllegalArgumentException naming the value and the accepted ones
     */
    public static ReportFormat parse(String name) {
        return switch (name.trim().toLowerCase(Locale.ROOT)) {
            case "html", "htm" -> HTML;
            case "md", "markdown" -> MARKDOWN;
            case "json" -> JSON;
            default -> throw new IllegalArgumentException("unknown report format '" + name + "' (formats: html, md, json)");
        };
    }

    /** Writes {@code report} in this format. The writer is not closed. */
    public void write(Report report, Writer out) throws IOException {
        switch (this) {
            case HTML -> HtmlReportWriter.write(report, out);
            case MARKDOWN -> MarkdownReportWriter.write(report, out);
            case JSON -> JsonReportWriter.write(report, out);
        }
    }

    /** The report as a string in this format. */
    public String render(Report report) {
        var sw = new StringWriter();
        try {
            write(report, sw);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return sw.toString();
    }
}
