package dev.arenascope.core.report;

import java.util.List;

import dev.arenascope.core.analysis.TraceDiff;

/**
 * One table of a report as both the HTML and the Markdown writer print it: the same columns and cells.
 *
 * @param id      stable anchor name ({@code memories}, {@code scopes}, ...)
 * @param title   heading
 * @param note    one sentence on what the figures mean, or empty
 * @param columns column headings
 * @param numeric per column, whether it holds numbers (right-aligned)
 * @param rows    the rows
 * @param omitted rows left out (e.g. scopes beyond the top N), 0 when none
 */
record ReportTable(String id, String title, String note, List<String> columns, List<Boolean> numeric,
                   List<List<Cell>> rows, int omitted) {

    ReportTable {
        columns = List.copyOf(columns);
        numeric = List.copyOf(numeric);
        rows = List.copyOf(rows);
    }

    /**
     * A cell: its text, and where a baseline is attached, the figure's change.
     *
     * @param text     the value as printed
     * @param sub      a second, smaller line (e.g. when a peak happened), or null
     * @param change   the figure's change against the baseline, or null
     * @param emphasis whether the cell names the row (first column)
     */
    record Cell(String text, String sub, TraceDiff.Change change, boolean emphasis) {
        static Cell of(String text) {
            return new Cell(text, null, null, false);
        }

        Cell withSub(String line) {
            return new Cell(text, line, change, emphasis);
        }
    }
}
