package dev.arenascope.core.report;

import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;

import dev.arenascope.core.format.Printable;

/**
 * The one way ArenaScope writes JSON for people and scripts: the report ({@link JsonReportWriter}) and
 * every command's {@code --format json} / {@code --json} output go through here, so that encoding,
 * indentation and number formats cannot drift between them.
 * <ul>
 *   <li>UTF-8, Jackson's default pretty printer (two-space indent, {@code "key" : value}); the target is
 *       flushed, never closed (it is usually {@code System.out});</li>
 *   <li>integral figures (bytes, counts, nanoseconds) as JSON integers, never in exponent form;</li>
 *   <li>a fraction or ratio as a JSON number, and {@code null} where it is undefined (NaN or infinite:
 *       a share of nothing, a change from zero) rather than Jackson's quoted {@code "NaN"}.</li>
 * </ul>
 * Stateless; the factory is thread-safe, each generator is for one thread.
 */
public final class JsonOutput {
    private static final JsonFactory FACTORY = JsonFactory.builder().disable(StreamWriteFeature.AUTO_CLOSE_TARGET).build();
    private static final TerminalSafe ESCAPES = new TerminalSafe();

    /**
     * JSON's own escapes, and a {@code u} escape (backslash, u, four hex digits) for what JSON may leave raw but a terminal acts on: DEL, the
     * C1 controls and the bidirectional marks (a name holding U+202E would reorder the line it is printed
     * on). The text is the same JSON; only how it is spelled changes.
     */
    private static final class TerminalSafe extends com.fasterxml.jackson.core.io.CharacterEscapes {
        private final int[] ascii;

        TerminalSafe() {
            ascii = standardAsciiEscapesForJSON();
            ascii[0x7f] = ESCAPE_STANDARD;
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ascii;
        }

        @Override
        public com.fasterxml.jackson.core.SerializableString getEscapeSequence(int ch) {
            return ch <= 0xffff && Printable.unsafe((char) ch)
                    ? new com.fasterxml.jackson.core.io.SerializedString(String.format("\\u%04x", ch)) : null;
        }
    }

    private JsonOutput() {}

    /** A pretty-printing generator over {@code out}; the caller flushes it (or calls {@link #end}). */
    public static JsonGenerator open(OutputStream out) throws IOException {
        return FACTORY.createGenerator(out, JsonEncoding.UTF8).setCharacterEscapes(ESCAPES).useDefaultPrettyPrinter();
    }

    /**
     * A generator over {@code out} with the same encoding and escapes but no pretty printer, for output a
     * line per record ({@code query --format json}); the caller lays out its own line breaks.
     */
    public static JsonGenerator openCompact(OutputStream out) throws IOException {
        return FACTORY.createGenerator(out, JsonEncoding.UTF8).setCharacterEscapes(ESCAPES);
    }

    /** A pretty-printing generator over {@code out}; the caller flushes it (or calls {@link #end}). */
    public static JsonGenerator open(Writer out) throws IOException {
        return FACTORY.createGenerator(out).setCharacterEscapes(ESCAPES).useDefaultPrettyPrinter();
    }

    /** Flushes {@code g}'s document and ends it with one newline, as every command's output ends. */
    public static void end(JsonGenerator g) throws IOException {
        g.writeRaw('\n');
        g.flush();
    }

    /** {@code name: v}, or {@code name: null} when {@code v} is NaN or infinite. */
    public static void number(JsonGenerator g, String name, double v) throws IOException {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            g.writeNullField(name);
        } else {
            g.writeNumberField(name, v);
        }
    }

    /** {@code v} as an array element, or {@code null} when it is NaN or infinite. */
    public static void number(JsonGenerator g, double v) throws IOException {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            g.writeNull();
        } else {
            g.writeNumber(v);
        }
    }

    /** {@code name: s}, or {@code name: null} when {@code s} is null. */
    public static void string(JsonGenerator g, String name, String s) throws IOException {
        if (s == null) {
            g.writeNullField(name);
        } else {
            g.writeStringField(name, s);
        }
    }
}
