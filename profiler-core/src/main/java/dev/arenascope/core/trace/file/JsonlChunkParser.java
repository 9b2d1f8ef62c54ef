package dev.arenascope.core.trace.file;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.base.ParserBase;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.core.io.IOContext;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.json.UTF8StreamJsonParser;

import dev.arenascope.core.device.DeviceInfo;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.StackBounds;

/**
 * Parses one chunk of whole JSON Lines (a byte range that starts at a line start and ends just past a
 * newline, or at the end of the file) into {@link Parsed}: runs of events in primitive columns,
 * metadata records and problems, in line order, with line numbers relative to the chunk (1 = its
 * first line). {@link JsonlReader} cuts the file into chunks, parses them on worker threads and
 * delivers the results in file order; everything that depends on earlier lines (a second session,
 * undeclared memories and strings) is checked there, not here.
 *
 * <p>One Jackson streaming parser reads the whole chunk (root values separated by whitespace); field
 * names are matched against the name that followed the previous field last time, as pre-encoded bytes
 * ({@link JsonParser#nextFieldName(com.fasterxml.jackson.core.SerializableString)}), and otherwise by
 * the identity of Jackson's interned name; event kinds are looked up from the parser's character
 * buffer. An event line allocates nothing but its share of the columns.
 *
 * <p>A line ends at {@code \n}, {@code \r\n} or a lone {@code \r} (as Jackson counts lines). What a
 * line yields depends only on the line itself: whenever anything is irregular (a syntax error, a value
 * that goes on past its line), what the fast pass kept from that line is dropped, the line is parsed
 * again on its own (so a value cut at its end is "Unexpected end-of-input", wherever the file was cut
 * into chunks), and the fast pass resumes at the next line. So a broken line never hides the next one,
 * and the result never depends on the chunk size. Not thread-safe: one instance per chunk.
 */
final class JsonlChunkParser {
    static final JsonFactory FACTORY = new Utf8Only();

    /**
     * Jackson's factory, except that bytes are always UTF-8 (as JSON Lines are): the stock factory sniffs
     * the first four bytes of its input for UTF-16/32, so a line <code>&#123;\0\0\0</code> read first made the
     * whole chunk "UTF-32" and failed it with an I/O error instead of one bad line. A UTF-8 byte order
     * mark is skipped as the stock factory does.
     */
    private static final class Utf8Only extends JsonFactory {
        private static final long serialVersionUID = 1L;

        Utf8Only() {
            super((JsonFactoryBuilder) new JsonFactoryBuilder()
                    .disable(StreamReadFeature.AUTO_CLOSE_SOURCE));
        }

        @Override
        protected JsonParser _createParser(byte[] data, int offset, int len, IOContext ctxt) {
            int skip = len >= 3 && (data[offset] & 0xff) == 0xEF && (data[offset + 1] & 0xff) == 0xBB && (data[offset + 2] & 0xff) == 0xBF ? 3 : 0;
            return new UTF8StreamJsonParser(ctxt, _parserFeatures, null, _objectCodec,
                    _byteSymbolCanonicalizer.makeChild(_factoryFeatures), data, offset + skip, offset + len, skip, false);
        }
    }

    /** A run of consecutive events and, per event, its line in the chunk. */
    static final class Run {
        private final EventBatch batch;
        private int[] lines;

        Run(int capacity) {
            batch = new EventBatch(capacity);
            lines = new int[Math.max(16, capacity)];
        }

        EventBatch batch() {
            return batch;
        }

        int[] lines() {
            return lines;
        }
    }

    /** A line that is not a sound record, and why. */
    record Bad(int line, String what) {}

    /** A metadata line ({@code "type"} present), checked for what does not depend on other lines. */
    record Meta(int line, String type, long id, String name, String kind, String device, long capacity, long count,
                String host, long startNs, String value, Map<String, String> attributes, List<DeviceInfo> devices,
                String function, String file, long codeLine, long frame, long parent, long flags) {}

    /** The longest function or file name of a frame, in characters (as the PyTorch importer's bound). */
    static final int MAX_FRAME_TEXT = StackBounds.MAX_FRAME_TEXT;

    /** What a chunk parsed into. */
    static final class Parsed {
        /** {@link Run}, {@link Bad} and {@link Meta} items in line order. */
        final List<Object> items = new ArrayList<>();
        /** Lines the chunk spans (its newlines; the final line without one counts). */
        int lines;
        /** Sound records (usually one a line). */
        int soundLines;
        /** Events in the runs. */
        int events;
    }

    // field codes: numeric fields first
    private static final int F_T = 0, F_MEM = 1, F_THREAD = 2, F_FLAGS = 3, F_A = 4, F_B = 5, F_C = 6, F_USED = 7,
            F_AUX = 8, F_REF = 9, F_REF2 = 10, F_SITE = 11, F_CAT = 12, F_ID = 13, F_CAPACITY = 14, F_COUNT = 15, F_START = 16,
            F_LINE = 17, F_FRAME = 18, F_PARENT = 19,
            F_FIRST_TEXT = 20, F_KIND = 20, F_TYPE = 21, F_NAME = 22, F_VALUE = 23, F_HOST = 24, F_DEVICE = 25,
            F_FUNCTION = 26, F_FILE = 27, F_ATTRIBUTES = 28, F_DEVICES = 29, F_OTHER = 30, F_OBJECT_START = 31;
    private static final String[] FIELD_NAMES = {"t", "mem", "thread", "flags", "a", "b", "c", "used", "aux", "ref",
            "ref2", "site", "cat", "id", "capacity", "count", "start_epoch_ns", "line", "frame", "parent", "kind", "type",
            "name", "value", "host", "device", "function", "file", "attributes", "devices"};
    /** One row of {@link #predicted} per event kind (row 0: before the kind is read): which fields are left out depends on it. */
    private static final int PREDICTED_ROW = F_OBJECT_START + 1;
    private static final SerializedString[] ENCODED = new SerializedString[F_OTHER];
    private static final String[] KIND_NAMES = new String[256];
    private static final char[][] KIND_TABLE_NAMES = new char[64][];
    private static final int[] KIND_TABLE_CODES = new int[64];

    static {
        for (int i = 0; i < F_OTHER; i++) {
            ENCODED[i] = new SerializedString(FIELD_NAMES[i]);
            ENCODED[i].asQuotedUTF8(); // encode once, here
        }
        for (EventKind k : EventKind.values()) {
            KIND_NAMES[k.code()] = k.name();
            char[] n = k.name().toCharArray();
            int slot = kindHash(n, 0, n.length);
            while (KIND_TABLE_NAMES[slot] != null) {
                slot = (slot + 1) & 63;
            }
            KIND_TABLE_NAMES[slot] = n;
            KIND_TABLE_CODES[slot] = k.code();
        }
    }

    /** The field that followed each field last time, per kind (the writer's order, learnt): tried first as raw bytes. */
    private final int[] predicted = new int[(EventKind.maxCode() + 2) * PREDICTED_ROW];
    private final byte[] buf;
    private final int from;
    private final int end;
    private final Parsed out = new Parsed();
    private Run run;        // the run events go to, already in out.items; null after any other item
    private final Queue<Run> spareRuns;

    /**
     * @param buf       the bytes; the chunk is {@code buf[from, end)}
     * @param spareRuns empty runs to fill before making new ones (shared with other threads)
     */
    JsonlChunkParser(byte[] buf, int from, int end, Queue<Run> spareRuns) {
        this.buf = buf;
        this.spareRuns = spareRuns;
        this.from = from;
        this.end = end;
        for (int row = 0; row < predicted.length; row += PREDICTED_ROW) {
            for (int i = 0; i < F_OBJECT_START; i++) {
                predicted[row + i] = i + 1 < F_FIRST_TEXT ? i + 1 : F_T;
            }
            predicted[row + F_OBJECT_START] = F_T;
            predicted[row + F_T] = F_KIND;
            predicted[row + F_KIND] = F_MEM;
        }
    }

    Parsed parse() {
        int start = from;   // where the fast pass starts
        int lineBase = 0;   // lines before it
        while (true) {
            int line = fastPass(start, lineBase);
            if (line < 0) {
                return out;
            }
            // line `line` was irregular: drop what the fast pass kept of it, read it alone, go on after it
            int lineFrom = lineStart(start, line - lineBase - 1);
            int lineTo = lineStart(lineFrom, 1);
            if (lineFrom < 0) {
                // cannot be: Jackson counts lines as lineStart does; keep what was read and stop
                bad(line, "not valid JSON");
                out.lines = line;
                return out;
            }
            if (lineTo < 0) {
                lineTo = end;
            }
            dropLine(line);
            lineAlone(lineFrom, lineTo, line);
            if (lineTo == end) {
                out.lines = line;
                return out;
            }
            start = lineTo;
            lineBase = line;
        }
    }

    /**
     * Parses from {@code start} to the chunk's end, keeping what is sound; returns -1 at the end (with
     * {@code out.lines} set), or the line where something was irregular.
     */
    private int fastPass(int start, int lineBase) {
        try (JsonParser p = FACTORY.createParser(buf, start, end - start)) {
            ParserBase pb = (ParserBase) p;
            int objLine = lineBase + 1;
            boolean inValue = false;    // false: between values
            try {
                while (true) {
                    JsonToken tok = p.nextToken();
                    if (tok == null) {
                        byte lastByte = end > start ? buf[end - 1] : (byte) '\n';
                        out.lines = lineBase + p.currentLocation().getLineNr() - 1 + (lastByte != '\n' && lastByte != '\r' ? 1 : 0);
                        return -1;
                    }
                    objLine = lineBase + pb.getTokenLineNr();
                    inValue = true;
                    String err = value(p, tok);
                    inValue = false;
                    if (lineBase + p.currentLocation().getLineNr() != objLine) {
                        return objLine; // the value went on past its line
                    }
                    keep(objLine, err);
                }
            } catch (StreamReadException e) {
                if (!inValue && e.getLocation() != null && e.getLocation().getLineNr() > 0) {
                    return lineBase + e.getLocation().getLineNr(); // the bad token is on a later line (or after a value on its own)
                }
                return objLine;
            } catch (StreamConstraintsException e) {
                return objLine; // nested too deep, a number or string too long: that line alone says which
            } catch (IOException e) {
                return objLine; // bytes that do not decode: that line alone is bad
            }
        } catch (IOException e) {
            throw new IllegalStateException("reading bytes in memory failed", e); // a byte array cannot fail to read
        }
    }

    /** Parses line {@code line}, {@code buf[lineFrom, lineTo)}, on its own: every root value on it, then its problem if any. */
    private void lineAlone(int lineFrom, int lineTo, int line) {
        try (JsonParser p = FACTORY.createParser(buf, lineFrom, lineTo - lineFrom)) {
            try {
                for (JsonToken tok = p.nextToken(); tok != null; tok = p.nextToken()) {
                    keep(line, value(p, tok));
                }
            } catch (StreamReadException | StreamConstraintsException e) {
                bad(line, JsonlProblems.plain(e));
            } catch (IOException e) {
                bad(line, "not valid JSON (" + e.getMessage() + ")"); // a decoding problem: the line, not the file
            }
        } catch (IOException e) {
            throw new IllegalStateException("reading bytes in memory failed", e);
        }
    }

    /** Reads one root value (the parser is on its first token); returns why it is not a sound record, or null. */
    private String value(JsonParser p, JsonToken tok) throws IOException {
        if (tok == JsonToken.START_OBJECT) {
            return record(p);
        }
        p.skipChildren();
        return "not a JSON object (" + switch (tok) {
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            default -> tok.asString();
        } + ")";
    }

    private void keep(int line, String err) {
        if (err != null) {
            bad(line, err);
        } else {
            commit(line);
        }
    }

    /**
     * The offset just past the {@code lines}-th line end at or after {@code from} ({@code from} itself for
     * 0), or -1 when the chunk has fewer. A line ends at \n, \r\n or a lone \r.
     */
    private int lineStart(int from, int lines) {
        int left = lines;
        if (left == 0) {
            return from;
        }
        for (int i = from; i < end; i++) {
            byte c = buf[i];
            if (c == '\n' || c == '\r' && (i + 1 == end || buf[i + 1] != '\n')) {
                if (--left == 0) {
                    return i + 1;
                }
            }
        }
        return -1;
    }

    /** Drops everything kept from line {@code line} on (it is the last line anything was kept from). */
    private void dropLine(int line) {
        List<Object> items = out.items;
        while (!items.isEmpty()) {
            Object last = items.getLast();
            if (last instanceof Run r) {
                EventBatch b = r.batch;
                int n = b.size();
                int keep = n;
                while (keep > 0 && r.lines[keep - 1] >= line) {
                    keep--;
                }
                b.truncate(keep);
                out.events -= n - keep;
                out.soundLines -= n - keep;
                if (keep > 0) {
                    return;
                }
                items.removeLast();
                run = null;
            } else if (last instanceof Meta m && m.line() >= line) {
                items.removeLast();
                out.soundLines--;
            } else if (last instanceof Bad bad && bad.line() >= line) {
                items.removeLast();
            } else {
                return;
            }
        }
    }

    // ---- one record: parsed into these fields, then committed once its line is known to be whole

    private boolean hasT;
    private int kindCode;
    private String kindName;
    private long t, mem, thread, flags, a, b, c, used, aux, ref, ref2, site, cat, id, capacity, count, startNs, codeLine, frame, parent;
    private String type, name, value, host, device, function, file;
    private Map<String, String> attrs;
    private List<DeviceInfo> devices;
    private boolean lastWasEvent;

    /** Reads one object (the parser is on its START_OBJECT) into the fields; returns why it is bad, or null. */
    private String record(JsonParser p) throws IOException {
        hasT = false;
        kindCode = -1;
        kindName = null;
        t = 0;
        mem = -1;
        thread = 0;
        flags = 0;
        a = 0;
        b = 0;
        c = 0;
        used = 0;
        aux = 0;
        ref = -1;
        ref2 = -1;
        site = -1;
        cat = -1;
        codeLine = 0;
        frame = -1;
        parent = -1;
        function = null;
        file = null;
        type = null;
        id = 0;
        capacity = 0;
        count = 0;
        startNs = 0;
        name = null;
        value = null;
        host = null;
        device = null;
        attrs = Map.of();
        devices = List.of();
        String bad = null;
        long seen = 0;   // field codes met in this object: a key given twice is refused, not "the last one wins"
        int prev = F_OBJECT_START;
        while (true) {
            int code;
            int at = (kindCode + 1) * PREDICTED_ROW + prev;
            int guess = predicted[at];
            if (p.nextFieldName(ENCODED[guess])) {
                code = guess;
            } else if (p.currentToken() == JsonToken.FIELD_NAME) {
                code = fieldCode(p.currentName());
                if (code != F_OTHER) {
                    predicted[at] = code;
                }
            } else {
                break; // END_OBJECT
            }
            prev = code == F_OTHER ? prev : code;
            if (code != F_OTHER) {
                if ((seen & 1L << code) != 0 && bad == null) {
                    bad = "the key '" + FIELD_NAMES[code] + "' appears twice";
                }
                seen |= 1L << code;
            }
            if (code < F_FIRST_TEXT) {
                long x;
                try {
                    x = p.nextLongValue(0); // after a name Jackson has the value's token already: no nextToken() call
                } catch (InputCoercionException e) {
                    bad = "'" + FIELD_NAMES[code] + "' is out of range";
                    continue;
                }
                if (p.currentToken() != JsonToken.VALUE_NUMBER_INT) {
                    bad = "'" + FIELD_NAMES[code] + "' is not an integer";
                    p.skipChildren();
                    continue;
                }
                switch (code) {
                    case F_T -> {
                        t = x;
                        hasT = true;
                    }
                    case F_MEM -> mem = x;
                    case F_THREAD -> thread = x;
                    case F_FLAGS -> flags = x;
                    case F_A -> a = x;
                    case F_B -> b = x;
                    case F_C -> c = x;
                    case F_USED -> used = x;
                    case F_AUX -> aux = x;
                    case F_REF -> ref = x;
                    case F_REF2 -> ref2 = x;
                    case F_SITE -> site = x;
                    case F_CAT -> cat = x;
                    case F_LINE -> codeLine = x;
                    case F_FRAME -> frame = x;
                    case F_PARENT -> parent = x;
                    case F_ID -> id = x;
                    case F_CAPACITY -> capacity = x;
                    case F_COUNT -> count = x;
                    default -> startNs = x;
                }
                continue;
            }
            JsonToken v = p.nextToken();
            if (code == F_KIND && v == JsonToken.VALUE_STRING) {
                kindCode = kindCode(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
                kindName = kindCode >= 0 ? KIND_NAMES[kindCode] : p.getText();
                continue;
            }
            try {
                switch (code) {
                    case F_KIND -> kindName = p.getValueAsString();
                    case F_TYPE -> type = p.getValueAsString();
                    case F_NAME -> name = p.getValueAsString();
                    case F_VALUE -> value = p.getValueAsString();
                    case F_HOST -> host = p.getValueAsString();
                    case F_DEVICE -> device = p.getValueAsString();
                    case F_FUNCTION -> function = p.getValueAsString();
                    case F_FILE -> file = p.getValueAsString();
                    case F_ATTRIBUTES -> attrs = JsonlValues.readMap(p);
                    case F_DEVICES -> devices = JsonlValues.readDevices(p);
                    default -> { }
                }
            } catch (JsonlValues.BadValue e) {
                bad = e.getMessage();
            }
            if (v.isStructStart() && p.currentToken() == v) {
                p.skipChildren();
            }
        }
        if (bad != null) {
            return bad;
        }
        return type == null ? checkEvent() : checkMeta();
    }

    private String checkEvent() {
        lastWasEvent = true;
        if (!hasT) {
            return "not an event: no 't' (and no 'type')";
        }
        if (kindCode < 0) {
            return kindName == null ? "event without 'kind'" : "unknown event kind '" + kindName + "'";
        }
        if (mem < -1 || mem > EventBatch.MAX_MEMORY_ID) {
            return "memory id " + mem + " out of range";
        }
        if (flags < 0 || flags > 0xff) {
            return "flags " + flags + " out of range";
        }
        if (thread != (int) thread || ref != (int) ref || ref2 != (int) ref2) {
            return "thread, ref or ref2 out of 32-bit range";
        }
        if (site < -1 || site > Integer.MAX_VALUE || cat < -1 || cat > Integer.MAX_VALUE) {
            return "site or cat out of range (-1 for none, else an id)";
        }
        if (t < MIN_TIME || t > MAX_TIME) {
            return "'t' " + t + " is out of range (" + MIN_TIME + " to " + MAX_TIME + " ns from the session's start)";
        }
        if (used < 0 || aux < 0) {
            return "gauge '" + (used < 0 ? "used" : "aux") + "' is negative (" + (used < 0 ? used : aux) + "): a gauge counts bytes";
        }
        if (b < 0 && SIZE_IN_B[kindCode]) {
            return "'b' is negative (" + b + "): a " + KIND_NAMES[kindCode] + "'s 'b' is a size in bytes";
        }
        return null;
    }

    /**
     * An event's time bounds, in ns from the session's start (about ±73 and 146 years): any two times
     * differ by less than 2^63, so a duration, a peak's time or a span never overflows.
     */
    static final long MIN_TIME = -(1L << 61), MAX_TIME = 1L << 62;

    /** The kinds whose {@code b} is a number of bytes (never negative). */
    private static final boolean[] SIZE_IN_B = new boolean[256];

    static {
        for (EventKind k : new EventKind[] {EventKind.MEMORY_CREATED, EventKind.MEMORY_CLOSED, EventKind.ALLOC, EventKind.FREE,
                EventKind.POOL_REQUEST, EventKind.POOL_HOLD, EventKind.POOL_RELEASE, EventKind.RESERVE, EventKind.UNRESERVE}) {
            SIZE_IN_B[k.code()] = true;
        }
    }

    private String checkMeta() {
        lastWasEvent = false;
        return switch (type) {
            case "session" -> null;
            case "memory" -> {
                if (kindName == null || JsonlValues.memoryKind(kindName) == null) {
                    yield "memory line without a known kind (" + kindName + ")";
                }
                yield id < 0 || id > EventBatch.MAX_MEMORY_ID ? "memory id " + id + " out of range" : null;
            }
            case "string" -> id != (int) id || value == null ? "string line needs an int 'id' and a 'value'" : null;
            case "thread" -> id != (int) id ? "thread id " + id + " out of range" : null;
            case "loss" -> count < 0 ? "negative loss count" : null;
            case "frame" -> id < 0 || id > Integer.MAX_VALUE ? "frame id " + id + " out of range"
                    : function == null ? "frame line needs a 'function'"
                    : function.length() > MAX_FRAME_TEXT || file != null && file.length() > MAX_FRAME_TEXT
                            ? "frame " + id + ": a function or file name longer than the " + MAX_FRAME_TEXT + " characters a frame may have"
                    : codeLine < 0 || codeLine > Integer.MAX_VALUE ? "frame line number " + codeLine + " out of range"
                    : flags < 0 || flags > 0xff ? "frame flags " + flags + " out of range" : null;
            case "stack" -> id < 0 || id > Integer.MAX_VALUE ? "stack id " + id + " out of range"
                    : frame < 0 || frame > Integer.MAX_VALUE ? "stack line needs a 'frame' id"
                    : parent < -1 || parent >= id ? "stack " + id + " has parent " + parent + " (-1, or a stack declared before it)" : null;
            default -> "unknown record type '" + type + "'";
        };
    }

    /** Keeps the record just read. */
    private void commit(int line) {
        out.soundLines++;
        if (lastWasEvent) {
            if (run == null) {
                run = spareRuns.poll();
                if (run == null) {
                    run = new Run(out.items.isEmpty() ? Math.max(256, Math.min(1 << 16, (end - from) / 100)) : 256);
                }
                out.items.add(run);
            }
            EventBatch events = run.batch;
            int i = events.size();
            if (i == run.lines.length) {
                run.lines = Arrays.copyOf(run.lines, i * 2);
            }
            run.lines[i] = line;
            events.add(t, EventBatch.pack(kindCode, (int) flags, (int) mem), (int) thread, a, b, c, used, aux, (int) ref, (int) ref2,
                    (int) site, (int) cat);
            out.events++;
        } else {
            run = null;
            out.items.add(new Meta(line, type, id, name, kindName, device, capacity, count, host, startNs, value, attrs, devices,
                    function, file == null ? "" : file, codeLine, frame, parent, flags));
        }
    }

    private void bad(int line, String what) {
        run = null;
        out.items.add(new Bad(line, what));
    }

    /** The field's code. Jackson interns field names, so the usual ones match by identity first. */
    @SuppressWarnings("StringEquality")
    private static int fieldCode(String f) {
        for (int i = 0; i < F_OTHER; i++) {
            if (f == FIELD_NAMES[i]) {
                return i;
            }
        }
        for (int i = 0; i < F_OTHER; i++) {
            if (f.equals(FIELD_NAMES[i])) {
                return i;
            }
        }
        return F_OTHER;
    }

    /** A slot from the length and three characters (no loop: names that share them probe on). */
    private static int kindHash(char[] s, int off, int len) {
        if (len == 0) {
            return 0;
        }
        int h = ((len * 31 + s[off]) * 31 + s[off + len - 1]) * 31 + s[off + (len >> 1)];
        return (h ^ (h >>> 7)) & 63;
    }

    /** The code of the event kind named by {@code s[off, off+len)}, or -1. */
    private static int kindCode(char[] s, int off, int len) {
        for (int slot = kindHash(s, off, len); ; slot = (slot + 1) & 63) {
            char[] n = KIND_TABLE_NAMES[slot];
            if (n == null) {
                return -1;
            }
            if (n.length == len && Arrays.equals(n, 0, len, s, off, off + len)) {
                return KIND_TABLE_CODES[slot];
            }
        }
    }
}
