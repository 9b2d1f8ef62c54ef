package dev.arenascope.core.trace.file;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;

/**
 * Exports events as CSV (RFC 4180): a header row, then one row per event with the columns
 * {@value #HEADER}. {@code memory_name} is the registered name (empty for none); the other columns
 * are the event's fields as {@link dev.arenascope.core.trace.EventKind} documents them. Export only:
 * metadata other than memory names is not kept. One writer thread ({@link EventSink} contract).
 */
public final class CsvWriter implements EventSink, AutoCloseable {
    public static final String HEADER = "time_ns,kind,flags,memory,memory_name,thread,a,b,c,used,aux,ref,ref2";

    private final Path path;
    private final Writer out;
    private final Map<Integer, String> names = new HashMap<>();
    private final StringBuilder row = new StringBuilder(160);
    private boolean closed;

    public CsvWriter(Path path) throws IOException {
        this.path = path;
        this.out = new BufferedWriter(new java.io.OutputStreamWriter(Files.newOutputStream(path), StandardCharsets.UTF_8), 1 << 16);
        out.write(HEADER);
        out.write('\n');
    }

    @Override
    public void onMemory(MemoryInfo memory) {
        names.put(memory.id(), quote(memory.name()));
    }

    static String quote(String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
            return s;
        }
        return '"' + s.replace("\"", "\"\"") + '"';
    }

    @Override
    public void onEvents(EventBatch b) {
        try {
            for (int i = 0; i < b.size(); i++) {
                row.setLength(0);
                int mem = b.memory(i);
                row.append(b.time(i)).append(',').append(b.kind(i).name()).append(',').append(b.flags(i)).append(',')
                        .append(mem).append(',').append(mem < 0 ? "" : names.getOrDefault(mem, "")).append(',')
                        .append(b.thread(i)).append(',').append(b.a(i)).append(',').append(b.b(i)).append(',')
                        .append(b.c(i)).append(',').append(b.used(i)).append(',').append(b.aux(i)).append(',')
                        .append(b.ref(i)).append(',').append(b.ref2(i)).append('\n');
                out.append(row);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + path + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void onClose() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + path + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        onClose();
    }
}
