package dev.arenascope.app.commands.query;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.arenascope.core.format.Printable;
import dev.arenascope.core.report.JsonOutput;
import dev.arenascope.core.sql.RowSink;
import dev.arenascope.core.trace.file.CsvWriter;

/**
 * How {@code query} prints an answer: a text table (columns aligned, numbers to the right, NULL as
 * empty), CSV (RFC 4180: a header line, fields with commas, quotes or line breaks quoted) or JSON (an
 * array of objects, one per row, keys the column names, numbers as numbers, NULL as null). CSV and JSON
 * stream; the table holds the rows it prints to size its columns.
 */
final class ResultWriters {
    private ResultWriters() {}

    /** A sink that prints, finished by {@link #finish()}. */
    interface Writer extends RowSink {
        void finish();
    }

    static Writer of(String format, PrintStream out, int maxRows) {
        return switch (format) {
            case "csv" -> new Csv(out, maxRows);
            case "json" -> new Json(out, maxRows);
            default -> new Table(out, maxRows);
        };
    }

    private abstract static class Limited implements Writer {
        final int maxRows;
        int rows;
        boolean more;

        Limited(int maxRows) {
            this.maxRows = maxRows;
        }

        @Override
        public final boolean row(Object[] values) {
            if (rows == maxRows) {
                more = true;
                return false;
            }
            rows++;
            write(values);
            return true;
        }

        abstract void write(Object[] values);
    }

    static String text(Object v) {
        return v == null ? "" : v.toString();
    }

    private static final class Table extends Limited {
        private final PrintStream out;
        private List<String> names = List.of();
        private boolean[] right;
        private final List<String[]> cells = new ArrayList<>();

        Table(PrintStream out, int maxRows) {
            super(maxRows);
            this.out = out;
        }

        @Override
        public void columns(List<String> n, List<String> types) {
            names = n.stream().map(Printable::line).toList();
            right = new boolean[n.size()];
            for (int c = 0; c < n.size(); c++) {
                String t = types.get(c).toUpperCase(Locale.ROOT);
                right[c] = t.contains("INT") || t.startsWith("DECIMAL") || t.equals("DOUBLE") || t.equals("FLOAT");
            }
        }

        @Override
        void write(Object[] values) {
            String[] row = new String[values.length];
            for (int c = 0; c < values.length; c++) {
                row[c] = Printable.line(text(values[c])); // names shown as text, never as terminal commands or rows
            }
            cells.add(row);
        }

        @Override
        public void finish() {
            int[] w = new int[names.size()];
            for (int c = 0; c < w.length; c++) {
                w[c] = names.get(c).length();
            }
            for (String[] r : cells) {
                for (int c = 0; c < w.length; c++) {
                    w[c] = Math.max(w[c], r[c].length());
                }
            }
            line(names.toArray(String[]::new), w);
            StringBuilder rule = new StringBuilder();
            for (int c = 0; c < w.length; c++) {
                rule.append(c == 0 ? "" : "  ").append("-".repeat(w[c]));
            }
            out.println(rule);
            for (String[] r : cells) {
                line(r, w);
            }
            out.println("(" + rows + (rows == 1 ? " row" : " rows") + (more ? "; more not shown, see --max-rows" : "") + ")");
        }

        private void line(String[] r, int[] w) {
            StringBuilder sb = new StringBuilder();
            for (int c = 0; c < w.length; c++) {
                if (c > 0) {
                    sb.append("  ");
                }
                String pad = " ".repeat(w[c] - r[c].length());
                sb.append(right[c] ? pad + r[c] : c == w.length - 1 ? r[c] : r[c] + pad);
            }
            out.println(sb);
        }
    }

    private static final class Csv extends Limited {
        private final PrintStream out;

        Csv(PrintStream out, int maxRows) {
            super(maxRows);
            this.out = out;
        }

        @Override
        public void columns(List<String> names, List<String> types) {
            write(names.toArray());
            rows = 0;
        }

        @Override
        void write(Object[] values) {
            StringBuilder sb = new StringBuilder();
            for (int c = 0; c < values.length; c++) {
                if (c > 0) {
                    sb.append(',');
                }
                // text from the trace (names) is neutralised as the trace CSV's cells are (OWASP's rule: a
                // leading = + - @ gets a '); numbers are written as they are, a negative one included
                Object v = values[c];
                sb.append(v instanceof Number ? text(v) : CsvWriter.quote(text(v)));
            }
            out.print(sb.append("\r\n"));
        }

        @Override
        public void finish() {
            out.flush();
        }
    }

    private static final class Json extends Limited {
        private final JsonGenerator g;
        private List<String> names = List.of();

        Json(PrintStream out, int maxRows) {
            super(maxRows);
            try {
                g = JsonOutput.openCompact(out); // the commands' one JSON set-up: UTF-8, terminal-safe escapes, never closes out
                g.writeStartArray();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void columns(List<String> n, List<String> types) {
            names = n.stream().map(Printable::line).toList();
        }

        @Override
        void write(Object[] values) {
            try {
                g.writeRaw('\n');
                g.writeStartObject();
                for (int c = 0; c < values.length; c++) {
                    g.writeFieldName(names.get(c));
                    switch (values[c]) {
                        case null -> g.writeNull();
                        case Long l -> g.writeNumber(l);
                        case Integer i -> g.writeNumber(i);
                        case Double d when d.isNaN() || d.isInfinite() -> g.writeString(d.toString());
                        case Double d -> g.writeNumber(d);
                        case BigDecimal d -> g.writeNumber(d);
                        case BigInteger b -> g.writeNumber(b);
                        case Boolean b -> g.writeBoolean(b);
                        default -> g.writeString(values[c].toString());
                    }
                }
                g.writeEndObject();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void finish() {
            try {
                g.writeRaw('\n');
                g.writeEndArray();
                g.writeRaw('\n');
                g.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
