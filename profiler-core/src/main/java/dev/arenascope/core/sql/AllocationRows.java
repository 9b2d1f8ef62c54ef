package dev.arenascope.core.sql;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.duckdb.DuckDBDataChunkWriter;

import dev.arenascope.core.analysis.Allocations;
import dev.arenascope.core.trace.TraceView;

/**
 * The {@code allocations} table of one rank, read straight from each memory's {@link Allocations} (the
 * site analysis's own columns) a chunk at a time: nothing is copied into Java columns first, so the
 * table costs the engine's copy only. Text columns (descriptor, category) go in as one batch of UTF-8
 * a chunk, each distinct string encoded once.
 */
final class AllocationRows implements TableSource {
    private record Part(int memory, Allocations table, long first) {}

    private final int rank;
    private final TraceView view;
    private final List<Part> parts = new ArrayList<>();
    private long rows;
    /** UTF-8 of the trace's strings by id, filled as met (descriptors). */
    private byte[][] stringBytes = new byte[64][];
    /** UTF-8 of the current part's category names by number, null for none. */
    private byte[][] categoryBytes;
    private int categoryPart = -1;
    private long[] scratch;
    private byte[][] texts;

    AllocationRows(int rank, TraceView view) {
        this.rank = rank;
        this.view = view;
    }

    /** Appends the allocations of {@code memory}. */
    void add(int memory, Allocations table) {
        parts.add(new Part(memory, table, rows));
        rows += table.size();
    }

    @Override
    public long rows() {
        return rows;
    }

    @Override
    public int write(long from, int max, DuckDBDataChunkWriter out) {
        if (from >= rows) {
            return 0;
        }
        if (scratch == null || scratch.length < max) {
            scratch = new long[max];
            texts = new byte[max][];
        }
        int p = partOf(from);
        Part part = parts.get(p);
        while (part.table().size() == 0) {
            part = parts.get(++p); // an empty part shares its first row with the next one
        }
        int start = (int) (from - part.first());
        int k = Math.min(max, part.table().size() - start);
        writePart(p, part, start, k, out);
        return k;
    }

    /** The last part whose first row is at or before {@code row}. */
    private int partOf(long row) {
        int lo = 0;
        int hi = parts.size() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (parts.get(mid).first() <= row) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /** Rows {@code start .. start+k-1} of one part into vector rows {@code 0 .. k-1}. */
    private void writePart(int p, Part part, int start, int k, DuckDBDataChunkWriter out) {
        Allocations a = part.table();
        long[] s = scratch;
        long nul = ColumnTable.NULL;
        Arrays.fill(s, 0, k, rank);
        VectorWrites.numbers(out.vector(0), false, s, 0, k, nul);
        Arrays.fill(s, 0, k, part.memory());
        VectorWrites.numbers(out.vector(1), false, s, 0, k, nul);
        for (int r = 0; r < k; r++) {
            s[r] = start + r;
        }
        VectorWrites.numbers(out.vector(2), false, s, 0, k, nul);
        for (int r = 0; r < k; r++) {
            s[r] = a.startEvent(start + r);
        }
        VectorWrites.numbers(out.vector(3), true, s, 0, k, nul);
        for (int r = 0; r < k; r++) {
            long e = a.endEvent(start + r);
            s[r] = e < 0 ? nul : e;
        }
        VectorWrites.numbers(out.vector(4), true, s, 0, k, nul);
        for (int r = 0; r < k; r++) {
            s[r] = a.startNs(start + r);
        }
        VectorWrites.numbers(out.vector(5), true, s, 0, k, nul);
        for (int r = 0; r < k; r++) {
            long end = a.endNs(start + r);
            s[r] = end == Allocations.NEVER ? nul : end;
        }
        VectorWrites.numbers(out.vector(6), true, s, 0, k, nul);
        for (int r = 0; r < k; r++) {
            long end = a.endNs(start + r);
            s[r] = end == Allocations.NEVER ? nul : end - a.startNs(start + r);
        }
        VectorWrites.numbers(out.vector(7), true, s, 0, k, nul);
        for (int r = 0; r < k; r++) {
            s[r] = a.bytes(start + r);
        }
        VectorWrites.numbers(out.vector(8), true, s, 0, k, nul);
        for (int r = 0; r < k; r++) {
            s[r] = a.requestedBytes(start + r);
        }
        VectorWrites.numbers(out.vector(9), true, s, 0, k, nul);
        for (int r = 0; r < k; r++) {
            s[r] = a.address(start + r);
        }
        VectorWrites.numbers(out.vector(10), true, s, 0, k, nul);
        for (int r = 0; r < k; r++) {
            texts[r] = descriptor(a.descriptor(start + r));
        }
        VectorWrites.texts(out.vector(11), texts, k);
        for (int r = 0; r < k; r++) {
            int v = a.path(start + r);
            s[r] = v < 0 ? nul : v;
        }
        VectorWrites.numbers(out.vector(12), false, s, 0, k, nul);
        for (int r = 0; r < k; r++) {
            int v = a.site(start + r);
            s[r] = v < 0 ? nul : v;
        }
        VectorWrites.numbers(out.vector(13), false, s, 0, k, nul);
        byte[][] cats = categories(p, a);
        for (int r = 0; r < k; r++) {
            texts[r] = cats[a.category(start + r)];
        }
        VectorWrites.texts(out.vector(14), texts, k);
        for (int r = 0; r < k; r++) {
            int v = a.scope(start + r);
            s[r] = v < 0 ? nul : v;
        }
        VectorWrites.numbers(out.vector(15), false, s, 0, k, nul);
        for (int r = 0; r < k; r++) {
            s[r] = a.endNs(start + r) != Allocations.NEVER ? 1 : 0;
        }
        VectorWrites.booleans(out.vector(16), s, 0, k);
    }

    private byte[] descriptor(int id) {
        if (id < 0) {
            return null;
        }
        if (id >= stringBytes.length) {
            stringBytes = Arrays.copyOf(stringBytes, Math.max(id + 1, stringBytes.length * 2));
        }
        byte[] b = stringBytes[id];
        if (b == null) {
            String s = view.string(id);
            b = stringBytes[id] = s == null ? NO_STRING : s.getBytes(StandardCharsets.UTF_8);
        }
        return b == NO_STRING ? null : b;
    }

    private static final byte[] NO_STRING = new byte[0];

    /** The category names of part {@code p}'s analysis as UTF-8; {@code (none)} is NULL. */
    private byte[][] categories(int p, Allocations a) {
        if (categoryPart != p) {
            categoryBytes = new byte[a.categoryCount()][];
            for (int c = 0; c < categoryBytes.length; c++) {
                String name = a.categoryName(c);
                categoryBytes[c] = name == null || "(none)".equals(name) ? null : name.getBytes(StandardCharsets.UTF_8);
            }
            categoryPart = p;
        }
        return categoryBytes;
    }
}
