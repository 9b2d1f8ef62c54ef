package dev.arenascope.core.plan;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * MiniMalloc's CSV format for static allocation problems: a header {@code id,lower,upper,size} and one
 * buffer a line, live over {@code [lower, upper)}. Solutions add a fifth column {@code offset}; a file
 * with it is read as a problem (the offsets are ignored, see {@link #readOffsets}).
 *
 * <p>Bad input raises {@link PlanInputException} naming the file and the 1-based line: a line without
 * 4 or 5 fields, a field that is not an integer, a negative size, {@code lower >= upper}, a negative
 * lower, a duplicate id (with the line that first used it). Blank lines and lines starting with
 * {@code #} are skipped. Lines longer than 4,096 characters are rejected without being held.
 */
public final class ProblemCsv {
    private static final int MAX_LINE = 4096;

    private ProblemCsv() {}

    /** Reads a problem from {@code file}. */
    public static PlanProblem read(Path file, long alignment) throws IOException {
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(r, file.toString(), alignment);
        }
    }

    /** Parses a problem from CSV text; {@code source} names it in messages. */
    public static PlanProblem parse(String text, String source, long alignment) {
        try {
            return read(new StringReader(text), source, alignment);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Reads a problem; {@code source} names the input in messages. */
    public static PlanProblem read(Reader in, String source, long alignment) throws IOException {
        return new PlanProblem(rows(in, source, false).buffers, alignment);
    }

    /** The {@code offset} column of a solution file (id to offset), or an error when it has none. */
    public static Map<String, Long> readOffsets(Path file) throws IOException {
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return rows(r, file.toString(), true).offsets;
        }
    }

    private record Rows(List<PlanBuffer> buffers, Map<String, Long> offsets) {}

    private static Rows rows(Reader reader, String source, boolean needOffsets) throws IOException {
        BufferedReader in = reader instanceof BufferedReader b ? b : new BufferedReader(reader);
        List<PlanBuffer> buffers = new ArrayList<>();
        Map<String, Long> offsets = new java.util.LinkedHashMap<>();
        Map<String, Long> firstLine = new HashMap<>();
        long lineNo = 0;
        boolean sawContent = false;
        StringBuilder line = new StringBuilder();
        while (readLine(in, line, source, lineNo + 1)) {
            lineNo++;
            String text = line.toString().strip();
            if (text.isEmpty() || text.startsWith("#")) {
                continue;
            }
            String[] f = text.split(",", -1);
            if (!sawContent) {
                sawContent = true;
                if (f.length > 0 && f[0].strip().equalsIgnoreCase("id")) {
                    if (f.length < 4 || !f[1].strip().equalsIgnoreCase("lower") || !f[2].strip().equalsIgnoreCase("upper")
                            || !f[3].strip().equalsIgnoreCase("size") || (f.length == 5 && !f[4].strip().equalsIgnoreCase("offset"))
                            || f.length > 5) {
                        throw new PlanInputException(source, lineNo, "header must be 'id,lower,upper,size' (optionally ',offset'), got '" + clip(text) + "'");
                    }
                    continue;
                }
            }
            if (f.length != 4 && f.length != 5) {
                throw new PlanInputException(source, lineNo, "expected 4 fields 'id,lower,upper,size' (or 5 with offset), got "
                        + f.length + " in '" + clip(text) + "'");
            }
            String id = f[0].strip();
            if (id.isEmpty()) {
                throw new PlanInputException(source, lineNo, "empty id");
            }
            long lower = number(f[1], "lower", source, lineNo);
            long upper = number(f[2], "upper", source, lineNo);
            long size = number(f[3], "size", source, lineNo);
            if (size < 0) {
                throw new PlanInputException(source, lineNo, "buffer '" + id + "' has a negative size " + size);
            }
            if (lower < 0) {
                throw new PlanInputException(source, lineNo, "buffer '" + id + "' has a negative lower " + lower);
            }
            if (lower >= upper) {
                throw new PlanInputException(source, lineNo, "buffer '" + id + "' has lower " + lower + " >= upper " + upper
                        + " (lifetimes are [lower, upper))");
            }
            Long prev = firstLine.putIfAbsent(id, lineNo);
            if (prev != null) {
                throw new PlanInputException(source, lineNo, "duplicate id '" + id + "' (first on line " + prev + ")");
            }
            buffers.add(new PlanBuffer(id, lower, upper, size));
            if (f.length == 5) {
                long off = number(f[4], "offset", source, lineNo);
                if (off < 0) {
                    throw new PlanInputException(source, lineNo, "buffer '" + id + "' has a negative offset " + off);
                }
                offsets.put(id, off);
            } else if (needOffsets) {
                throw new PlanInputException(source, lineNo, "buffer '" + id + "' has no offset column");
            }
        }
        return new Rows(buffers, offsets);
    }

    private static boolean readLine(BufferedReader in, StringBuilder line, String source, long lineNo) throws IOException {
        line.setLength(0);
        int c = in.read();
        if (c < 0) {
            return false;
        }
        while (c >= 0 && c != '\n') {
            if (c != '\r') {
                if (line.length() >= MAX_LINE) {
                    throw new PlanInputException(source, lineNo, "line longer than " + MAX_LINE + " characters");
                }
                line.append((char) c);
            }
            c = in.read();
        }
        return true;
    }

    private static long number(String field, String what, String source, long lineNo) {
        String s = field.strip();
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new PlanInputException(source, lineNo, what + " is not an integer: '" + clip(s) + "'");
        }
    }

    private static String clip(String s) {
        return s.length() <= 80 ? s : s.substring(0, 77) + "...";
    }

    /** Writes the packing as {@code id,lower,upper,size,offset}, one buffer a line in problem order. */
    public static void write(Packing packing, Writer out) throws IOException {
        out.write("id,lower,upper,size,offset\n");
        List<PlanBuffer> bs = packing.problem().buffers();
        for (int i = 0; i < bs.size(); i++) {
            PlanBuffer b = bs.get(i);
            out.write(b.id() + "," + b.lower() + "," + b.upper() + "," + b.size() + "," + packing.offset(i) + "\n");
        }
    }

    /** Writes the packing to {@code file}. */
    public static void write(Packing packing, Path file) throws IOException {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            write(packing, w);
        }
    }
}
