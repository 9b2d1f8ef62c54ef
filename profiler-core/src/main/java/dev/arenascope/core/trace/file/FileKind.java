package dev.arenascope.core.trace.file;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * What a file is, decided by its content and not only its name, so that a file opens whatever it is
 * called: an exported Perfetto {@code .json} is told apart from a memory plan's, a trace saved without
 * its extension still opens, and a text file renamed {@code .pickle} is said to be text. Looks at the
 * first {@value #SNIFF_BYTES} bytes only.
 */
public enum FileKind {
    /** ArenaScope's binary trace ({@code ASTRACE\0} magic). */
    ASTRACE("ArenaScope trace (.astrace)", ".astrace"),
    /** ArenaScope's JSON Lines trace (a first line {@code {"type":"session",…}}). */
    JSONL("JSON Lines trace (.jsonl)", ".jsonl"),
    /** A pickle (protocol 2 or later: {@code 0x80} then the protocol), as a PyTorch memory snapshot is. */
    PICKLE("PyTorch memory snapshot (.pickle)", ".pickle"),
    /** A memory plan as {@code arenascope plan} or the python client writes it (tensorAllocs, memoryBanks…). */
    PLAN_JSON("memory plan (.plan.json)", ".plan.json"),
    /** A Perfetto / Chrome trace (a JSON object with traceEvents), as Export writes it. */
    PERFETTO_JSON("Perfetto / Chrome trace JSON (export only)", ".json"),
    /** A MiniMalloc-style allocation problem or solution: header {@code id,lower,upper,size[,offset]}. */
    PROBLEM_CSV("allocation problem CSV (id,lower,upper,size[,offset])", ".csv"),
    /** Empty. */
    EMPTY("an empty file", ""),
    /** Text, but none of the above. */
    OTHER_TEXT("text of no format ArenaScope reads", ""),
    /** Binary, but none of the above. */
    OTHER_BINARY("binary data of no format ArenaScope reads", "");

    /** Bytes read to decide. */
    public static final int SNIFF_BYTES = 8192;

    private static final byte[] ASTRACE_MAGIC = {'A', 'S', 'T', 'R', 'A', 'C', 'E', 0};

    private final String description;
    private final String extension;

    FileKind(String description, String extension) {
        this.description = description;
        this.extension = extension;
    }

    public String description() {
        return description;
    }

    /** The extension this kind is saved under ({@code .plan.json}); empty for the kinds that are not formats. */
    public String extension() {
        return extension;
    }

    /** Whether the window opens this kind (as a trace, or a plan in the slot map). */
    public boolean opens() {
        return this == ASTRACE || this == JSONL || this == PICKLE || this == PLAN_JSON || this == PROBLEM_CSV;
    }

    /** Every kind the window opens, for messages: "ArenaScope trace (.astrace), …". */
    public static String accepted() {
        StringBuilder sb = new StringBuilder();
        for (FileKind k : values()) {
            if (k.opens()) {
                sb.append(sb.isEmpty() ? "" : ", ").append(k.description);
            }
        }
        return sb.toString();
    }

    /** What {@code file} holds, from its first bytes. */
    public static FileKind of(Path file) throws IOException {
        byte[] head;
        try (InputStream in = Files.newInputStream(file)) {
            head = in.readNBytes(SNIFF_BYTES);
        }
        return of(head);
    }

    /** What a file starting with {@code head} holds. */
    public static FileKind of(byte[] head) {
        if (head.length == 0) {
            return EMPTY;
        }
        if (startsWith(head, ASTRACE_MAGIC)) {
            return ASTRACE;
        }
        if ((head[0] & 0xff) == 0x80 && head.length > 1 && head[1] >= 2 && head[1] <= 5) {
            return PICKLE;
        }
        if (!looksLikeText(head)) {
            return OTHER_BINARY;
        }
        String text = new String(head, StandardCharsets.UTF_8);
        if (text.startsWith("\uFEFF")) {
            text = text.substring(1);
        }
        String first = firstLine(text);
        String compact = first.replaceAll("\\s+", "");
        if (compact.startsWith("{\"type\":\"") && compact.endsWith("}")) {
            return JSONL;
        }
        String lower = first.strip().toLowerCase(Locale.ROOT).replace(" ", "");
        if (lower.equals("id,lower,upper,size") || lower.equals("id,lower,upper,size,offset")) {
            return PROBLEM_CSV;
        }
        String t = text.stripLeading();
        if (t.startsWith("{") || t.startsWith("[")) {
            if (t.contains("\"traceEvents\"") || t.startsWith("[{\"") && t.contains("\"ph\"")) {
                return PERFETTO_JSON;
            }
            for (String key : new String[] {"tensorAllocs", "tensor_allocs", "memoryBanks", "memory_banks", "arenaUsages",
                    "arena_usages", "tensorLifetimes", "tensor_lifetimes"}) {
                if (t.contains("\"" + key + "\"")) {
                    return PLAN_JSON;
                }
            }
        }
        return OTHER_TEXT;
    }

    /** One line for a file the window does not open: what it is, and every kind it does open. */
    public static String refusal(Path file, FileKind kind) {
        return file + ": " + what(file, kind) + " (opens: " + accepted() + ")";
    }

    /** What a file of {@code kind} named {@code file} is, in the words of a refusal ("not a pickle (it is text)"). */
    public static String what(Path file, FileKind kind) {
        return switch (kind) {
            case PERFETTO_JSON -> "a Perfetto / Chrome trace, which ArenaScope exports but does not read back; open the "
                    + ".astrace or .jsonl it was exported from";
            case EMPTY -> "empty";
            case OTHER_TEXT -> named(file) == PICKLE ? "not a pickle (it is text)" : "text of no format ArenaScope reads";
            case OTHER_BINARY -> named(file) == PICKLE ? "not a pickle (a pickle starts with byte 0x80)"
                    : "binary data of no format ArenaScope reads";
            default -> kind.description;
        };
    }

    /**
     * Why a trace reader refused {@code file}, where the reader's own words would not say it: a file named
     * {@code .pickle} that is no pickle ("not a pickle (it is text)": the pickle reader can only name the
     * opcode it stopped at), or a trace of another format under the name ("not a JSON Lines trace (.jsonl)
     * but an ArenaScope trace (.astrace)"). Null otherwise (the reader's message is then the whole story),
     * or when the file cannot be read.
     */
    public static String mismatch(Path file) {
        FileKind expected = named(file);
        FileKind actual;
        try {
            actual = of(file);
        } catch (IOException e) {
            return null;
        }
        if (expected == null || actual == expected) {
            return null;
        }
        if (expected == PICKLE) {
            return what(file, actual);
        }
        if (actual == ASTRACE || actual == JSONL || actual == PICKLE) {
            return "not a " + expected.description + " but a" + (actual == ASTRACE ? "n " : " ") + actual.description;
        }
        return null;
    }

    /** What joins a job member's refusal in one line ({@link MemberRefusal#line()}): its reason, this, the reader's exact words. */
    public static final String READER_STOPPED = "; the reader stopped ";

    /**
     * Why a job's member {@code file} could not be read: the reason in words ({@code FILE: not a PyTorch snapshot or
     * ArenaScope trace: it is text}) and, apart, the reader's exact detail ({@code at byte 0: unknown opcode 0x6e}).
     * A member is expected to be a trace; what the file holds is sniffed from its content ({@link #of(Path)}), so a
     * text or binary file is said to be one, a trace of another format under the name is named, and a real snapshot
     * or trace the reader refused is a damaged one.
     *
     * @param detail the reader's message (it may start with the file's name, which is then not repeated)
     */
    public static MemberRefusal memberRefusal(Path file, String detail) {
        String name = file.toString();
        String rest = detail.startsWith(name) ? detail.substring(name.length()).replaceFirst("^:? ", "") : detail;
        FileKind actual;
        try {
            actual = of(file);
        } catch (IOException e) {
            return new MemberRefusal(name + ": " + rest, null);
        }
        String words = switch (actual) {
            case ASTRACE, JSONL, PICKLE -> actual == named(file) || named(file) == null
                    ? "a damaged " + actual.description : "a" + (actual == ASTRACE ? "n " : " ") + actual.description + " named as another format";
            case EMPTY -> "an empty file, not a PyTorch snapshot or ArenaScope trace";
            case OTHER_TEXT -> "not a PyTorch snapshot or ArenaScope trace: it is text";
            case OTHER_BINARY -> "not a PyTorch snapshot or ArenaScope trace: binary data of no format ArenaScope reads";
            default -> "not a PyTorch snapshot or ArenaScope trace: it is a " + actual.description;
        };
        return new MemberRefusal(name + ": " + words, rest);
    }

    private static boolean startsWith(byte[] a, byte[] prefix) {
        if (a.length < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (a[i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    private static boolean looksLikeText(byte[] head) {
        int control = 0;
        for (byte b : head) {
            int c = b & 0xff;
            if (c == 0) {
                return false;
            }
            if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') {
                control++;
            }
        }
        return control * 20 < head.length;
    }

    private static String firstLine(String text) {
        for (String line : text.split("\n", -1)) {
            String s = line.strip();
            if (!s.isEmpty() && !s.startsWith("#")) {
                return s;
            }
        }
        return "";
    }

    /**
     * The trace kind {@code file}'s name says ({@code .astrace}, {@code .jsonl}, {@code .pickle} or {@code .pkl}, in
     * any case), or null: the one place a name is read as a kind, for the refusals above.
     */
    public static FileKind named(Path file) {
        return switch (TraceFormats.extension(file)) {
            case ".astrace" -> ASTRACE;
            case ".jsonl" -> JSONL;
            case ".pickle", ".pkl" -> PICKLE;
            default -> null;
        };
    }
}
