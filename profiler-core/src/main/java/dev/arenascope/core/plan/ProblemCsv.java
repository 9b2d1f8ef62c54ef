package dev.arenascope.core.plan;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * MiniMalloc's CSV format for static allocation problems: a header {@code id,lower,upper,size} and one
 * buffer a line, live over {@code [lower, upper)}. Solutions add a fifth column {@code offset}; a file
 * with it is read as a problem (the offsets are ignored, see {@link #readOffsets}).
 *
 * <p>Bad input raises {@link PlanInputException} naming the file and the 1-based line: a line without
 * 4 or 5 fields, a field that is not an integer, a negative size, {@code lower >= upper}, a negative
 * lower, a duplicate id (with the line that first used it), bytes that are not UTF-8 (with the byte
 * offset in the line), a step past {@link PlanProblem#MAX_STEP}, sizes adding up past
 * {@link PlanProblem#MAX_TOTAL_BYTES}, a number with a fraction or exponent ({@code 64.5} is refused,
 * never rounded). Blank lines and lines starting with {@code #} are skipped. Lines longer than 4,096
 * characters (bytes, read from a file) are rejected without being held.
 */
public final class ProblemCsv {
    private static final int MAX_LINE = 4096;

    private ProblemCsv() {}

    /** Reads a problem from {@code file}. */
    public static PlanProblem read(Path file, long alignment) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return read(in, file.toString(), alignment);
        }
    }

    /** Parses a problem from CSV text; {@code source} names it in messages. */
    public static PlanProblem parse(String text, String source, long alignment) {
        try {
            return read(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), source, alignment);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Reads a problem from UTF-8 bytes; {@code source} names the input in messages. */
    public static PlanProblem read(InputStream in, String source, long alignment) throws IOException {
        return problem(rows(new Utf8Lines(in, source), source, false).buffers, alignment, source);
    }

    /** Reads a problem from characters; {@code source} names the input in messages. */
    public static PlanProblem read(Reader in, String source, long alignment) throws IOException {
        BufferedReader br = in instanceof BufferedReader b ? b : new BufferedReader(in);
        return problem(rows((line, lineNo) -> readLine(br, line, source, lineNo), source, false).buffers, alignment, source);
    }

    private static PlanProblem problem(List<PlanBuffer> buffers, long alignment, String source) {
        long total = 0;
        for (int i = 0; i < buffers.size(); i++) {
            PlanBuffer b = buffers.get(i);
            long a = b.size() % alignment == 0 ? b.size() : b.size() + (alignment - b.size() % alignment);
            total += a;
            if (a < 0 || total < 0 || total > PlanProblem.MAX_TOTAL_BYTES) {
                throw new PlanInputException(source, 0, "field 'size' of buffer '" + b.id() + "': the sizes add up past 2^62 bytes"
                        + (alignment > 1 ? " (aligned to " + alignment + ")" : ""));
            }
        }
        return new PlanProblem(buffers, alignment);
    }

    /** The {@code offset} column of a solution file (id to offset), or an error when it has none. */
    public static Map<String, Long> readOffsets(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return rows(new Utf8Lines(in, file.toString()), file.toString(), true).offsets;
        }
    }

    /** Fills {@code line} with the next line's text (no line end); false at the end of the input. */
    @FunctionalInterface
    private interface Lines {
        boolean next(StringBuilder line, long lineNo) throws IOException;
    }

    /**
     * Lines of UTF-8 bytes, each decoded strictly: a byte sequence that is not UTF-8 is refused naming
     * the line and the byte offset in it (a replacement character is never substituted).
     */
    private static final class Utf8Lines implements Lines {
        private final InputStream in;
        private final String source;
        private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        private final byte[] buf = new byte[MAX_LINE];

        Utf8Lines(InputStream in, String source) {
            this.in = in instanceof BufferedInputStream ? in : new BufferedInputStream(in, 1 << 16);
            this.source = source;
        }

        @Override
        public boolean next(StringBuilder line, long lineNo) throws IOException {
            line.setLength(0);
            int c = in.read();
            if (c < 0) {
                return false;
            }
            int n = 0;
            while (c >= 0 && c != '\n') {
                if (c != '\r') {
                    if (n >= MAX_LINE) {
                        throw new PlanInputException(source, lineNo, "line longer than " + MAX_LINE + " bytes");
                    }
                    buf[n++] = (byte) c;
                }
                c = in.read();
            }
            boolean ascii = true;
            for (int i = 0; i < n && ascii; i++) {
                ascii = buf[i] >= 0;
            }
            if (ascii) {
                for (int i = 0; i < n; i++) {
                    line.append((char) buf[i]);
                }
                return true;
            }
            ByteBuffer bytes = ByteBuffer.wrap(buf, 0, n);
            CharBuffer chars = CharBuffer.allocate(n);
            CoderResult r = utf8.reset().decode(bytes, chars, true);
            if (r.isError()) {
                int at = bytes.position();
                int field = 0;
                for (int i = 0; i < at; i++) {
                    field += buf[i] == ',' ? 1 : 0;
                }
                throw new PlanInputException(source, lineNo, "field '" + FIELDS[Math.min(field, FIELDS.length - 1)]
                        + "' is not UTF-8 text: byte 0x" + String.format("%02x", buf[at] & 0xff) + " at byte " + (at + 1)
                        + " of the line");
            }
            line.append(chars.flip());
            return true;
        }
    }

    private static final String[] FIELDS = {"id", "lower", "upper", "size", "offset", "extra"};

    private record Rows(List<PlanBuffer> buffers, Map<String, Long> offsets, Map<String, List<String>> banks,
                        Map<String, Long> accesses) {}

    private static final List<String> EXTRAS = List.of("offset", "banks", "accesses");

    /**
     * A problem with the columns a banked plan reads beside it: {@code banks} (the names of the banks a
     * buffer may use, separated by {@code |}; empty: any) and {@code accesses} (how often each byte is
     * accessed; absent: 1), by buffer id.
     */
    public record Banked(PlanProblem problem, Map<String, List<String>> banks, Map<String, Long> accesses) {}

    /** Reads a problem and its {@code banks} and {@code accesses} columns, where the header names them. */
    public static Banked readBanked(Path file, long alignment) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            Rows rows = rows(new Utf8Lines(in, file.toString()), file.toString(), false);
            return new Banked(problem(rows.buffers, alignment, file.toString()), rows.banks, rows.accesses);
        }
    }

    private static Rows rows(Lines in, String source, boolean needOffsets) throws IOException {
        List<PlanBuffer> buffers = new ArrayList<>();
        Map<String, Long> offsets = new LinkedHashMap<>();
        Map<String, List<String>> bankNames = new HashMap<>();
        Map<String, Long> accesses = new HashMap<>();
        String[] extras = null;
        Map<String, Long> firstLine = new HashMap<>();
        long lineNo = 0;
        boolean sawContent = false;
        StringBuilder line = new StringBuilder();
        while (in.next(line, lineNo + 1)) {
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
                            || !f[3].strip().equalsIgnoreCase("size")) {
                        throw new PlanInputException(source, lineNo, "header must be 'id,lower,upper,size' (optionally ',offset', "
                                + "',banks', ',accesses'), got '" + clip(text) + "'");
                    }
                    extras = new String[f.length - 4];
                    for (int k = 4; k < f.length; k++) {
                        String name = f[k].strip().toLowerCase(java.util.Locale.ROOT);
                        if (name.equals("bank")) {
                            name = "banks";
                        }
                        if (!EXTRAS.contains(name) || java.util.Arrays.asList(extras).contains(name)) {
                            throw new PlanInputException(source, lineNo, "header column " + (k + 1) + " '" + clip(f[k].strip())
                                    + "' is not one of offset, banks, accesses (or is named twice)");
                        }
                        extras[k - 4] = name;
                    }
                    continue;
                }
            }
            boolean named = extras != null && extras.length > 0 && !(extras.length == 1 && extras[0].equals("offset"));
            if (named) {
                if (f.length != 4 + extras.length) {
                    throw new PlanInputException(source, lineNo, "expected " + (4 + extras.length) + " fields as the header names, got "
                            + f.length + " in '" + clip(text) + "'");
                }
                String id = f[0].strip();
                for (int k = 0; k < extras.length; k++) {
                    String v = f[4 + k].strip();
                    switch (extras[k]) {
                        case "offset" -> {
                            long off = number(v, "offset", source, lineNo);
                            if (off < 0) {
                                throw new PlanInputException(source, lineNo, "buffer '" + id + "' has a negative offset " + off);
                            }
                            offsets.put(id, off);
                        }
                        case "banks" -> {
                            List<String> names = new ArrayList<>();
                            for (String bank : v.split("\\|", -1)) {
                                if (!bank.isBlank()) {
                                    names.add(bank.strip());
                                }
                            }
                            bankNames.put(id, List.copyOf(names));
                        }
                        default -> {
                            long count = number(v, "accesses", source, lineNo);
                            if (count < 0) {
                                throw new PlanInputException(source, lineNo, "buffer '" + id + "' has negative accesses " + count);
                            }
                            accesses.put(id, count);
                        }
                    }
                }
                f = java.util.Arrays.copyOf(f, 4);
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
            if (upper > PlanProblem.MAX_STEP) {
                throw new PlanInputException(source, lineNo, "field 'upper' of buffer '" + id + "': step " + upper
                        + " is past the largest step 2^62");
            }
            if (size > PlanProblem.MAX_TOTAL_BYTES) {
                throw new PlanInputException(source, lineNo, "field 'size' of buffer '" + id + "': " + size
                        + " bytes is past the largest problem, 2^62 bytes in all");
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
            } else if (needOffsets && !offsets.containsKey(id)) {
                throw new PlanInputException(source, lineNo, "buffer '" + id + "' has no offset column");
            }
        }
        return new Rows(buffers, offsets, bankNames, accesses);
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
            boolean digits = !s.isEmpty() && s.chars().allMatch(ch -> ch >= '0' && ch <= '9' || ch == '-' || ch == '+');
            throw new PlanInputException(source, lineNo, what + (digits
                    ? " is past the largest integer 2^63-1: '" + clip(s) + "'"
                    : " is not an integer: '" + clip(s) + "'"));
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

    /** Writes a banked plan as {@code id,lower,upper,size,offset,bank}, one buffer a line in problem order. */
    public static void write(BankPlan plan, Path file) throws IOException {
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            out.write("id,lower,upper,size,offset,banks\n");
            List<PlanBuffer> bs = plan.problem().problem().buffers();
            for (int i = 0; i < bs.size(); i++) {
                PlanBuffer b = bs.get(i);
                out.write(b.id() + "," + b.lower() + "," + b.upper() + "," + b.size() + "," + plan.offsets()[i] + ","
                        + plan.problem().banks().get(plan.bankOf()[i]).name() + "\n");
            }
        }
    }
}
