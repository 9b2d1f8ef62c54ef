package dev.arenascope.core.trace.file;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.SiteTable;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.StackNode;

/**
 * Exports events as CSV (RFC 4180): a header row, then one row per event with the columns
 * {@value #HEADER}. {@code memory_name} is the registered name (empty for none); the other columns
 * are the event's fields as {@link dev.arenascope.core.trace.EventKind} documents them; {@code site} is
 * the allocation's stack id (-1 for none), {@code category} its category's text (empty for none) and
 * {@code stack} its frames outermost first, {@code function (file:line)} joined by {@code ;} (empty for
 * none). Export only: metadata other than memory names, categories and stacks is not kept. One writer thread ({@link EventSink} contract).
 */
public final class CsvWriter extends ClosingTextWriter {
    public static final String HEADER = "time_ns,kind,flags,memory,memory_name,thread,a,b,c,used,aux,ref,ref2,site,category,stack";

    private final Path path;
    private final Writer out;
    private final Map<Integer, String> names = new HashMap<>();
    private final StringBuilder row = new StringBuilder(160);
    private final Map<Integer, String> strings = new HashMap<>();
    private final SiteTable sites = new SiteTable();
    private final Map<Integer, String> stackText = new HashMap<>();

    public CsvWriter(Path path) throws IOException {
        this.path = path;
        this.out = new BufferedWriter(new OutputStreamWriter(Files.newOutputStream(path), StandardCharsets.UTF_8), 1 << 16);
        out.write(HEADER);
        out.write('\n');
    }

    @Override
    public void onMemory(MemoryInfo memory) {
        names.put(memory.id(), quote(memory.name()));
    }

    @Override
    public void onString(int id, String value) {
        strings.put(id, value);
    }

    @Override
    public void onFrame(StackFrame frame) {
        sites.add(frame);
    }

    @Override
    public void onStack(StackNode node) {
        sites.add(node);
    }

    private String stack(int site) {
        if (site < 0) {
            return "";
        }
        return stackText.computeIfAbsent(site, s -> {
            List<StackFrame> fs = sites.frames(s);
            // innermost frames first up to the bound, so a deep chain costs the cell MAX_STACK_TEXT, not its depth squared
            int length = 0;
            int k = 0;
            for (; k < fs.size() && length + fs.get(k).label().length() + 1 <= MAX_STACK_TEXT; k++) {
                length += fs.get(k).label().length() + 1;
            }
            StringBuilder sb = new StringBuilder(length + 24);
            if (k < fs.size()) {
                sb.append('[').append(fs.size() - k).append(" outer frames]");
            }
            for (int i = k - 1; i >= 0; i--) {
                if (sb.length() > 0) {
                    sb.append(';');
                }
                sb.append(fs.get(i).label().replace(';', ':'));
            }
            return quote(sb.toString());
        });
    }

    /** The longest stack cell written, in characters (the pickle importer's bound on a stack's text). */
    static final int MAX_STACK_TEXT = 1 << 16;

    /**
     * A text cell: quoted when it holds a comma, quote or line break; and, as OWASP advises against CSV
     * injection, a cell that starts with {@code = + - @}, a tab or a carriage return (a spreadsheet would
     * run it as a formula: {@code =cmd|...}, {@code +SUM(...)}) gets a leading {@code '}, so it opens as
     * the text it is. Names come from whoever made the trace.
     */
    public static String quote(String s) {
        if (!s.isEmpty()) {
            char c = s.charAt(0);
            if (c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r') {
                s = "'" + s;
            }
        }
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
            return s;
        }
        return '"' + s.replace("\"", "\"\"") + '"';
    }

    @Override
    void write(EventBatch b) {
        try {
            for (int i = 0; i < b.size(); i++) {
                row.setLength(0);
                int mem = b.memory(i);
                row.append(b.time(i)).append(',').append(b.kind(i).name()).append(',').append(b.flags(i)).append(',')
                        .append(mem).append(',').append(mem < 0 ? "" : names.getOrDefault(mem, "")).append(',')
                        .append(b.thread(i)).append(',').append(b.a(i)).append(',').append(b.b(i)).append(',')
                        .append(b.c(i)).append(',').append(b.used(i)).append(',').append(b.aux(i)).append(',')
                        .append(b.ref(i)).append(',').append(b.ref2(i)).append(',').append(b.site(i)).append(',');
                int cat = b.category(i);
                if (cat >= 0) {
                    row.append(quote(strings.getOrDefault(cat, "")));
                }
                row.append(',').append(stack(b.site(i))).append('\n');
                out.append(row);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + path + ": " + e.getMessage(), e);
        }
    }

    @Override
    void finish() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + path + ": " + e.getMessage(), e);
        }
    }
}
