package dev.arenascope.core.live;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.TraceFormatException;

/**
 * The live wire's text form, spoken by clients that write JSON Lines (the Python client), on the same
 * port as the binary {@link LiveProtocol}: the receiver tells them apart by the first byte ({@code {}
 * here, {@code A} of "ASLV" there).
 *
 * <pre>
 * sender → receiver, once:  {"arenascope_live":"jsonl","version":1,"pid":P,"name":N,"token":T[,"sender":ID,"connection":C]}\n
 * receiver → sender, once:  {"status":S,"message":M}\n     S as LiveProtocol (0 accepted, 1 bad token, 2 bad version, 3 bad hello, 4 refused)
 * sender → receiver:        JSON Lines as a .jsonl file holds them (session, memory, string, thread, loss, events)
 * sender → receiver, last:  {"type":"goodbye",...}\n          the stream ends cleanly
 * receiver → sender, last:  {"status":"closed","events":N}\n  events the receiver delivered
 * </pre>
 *
 * A connection that ends without the goodbye keeps every whole line that arrived (a partial last line
 * is dropped). The hello is at most {@value #MAX_HELLO_BYTES} bytes, a line at most {@value #MAX_LINE}.
 */
final class JsonlLiveProtocol {
    static final int VERSION = 1;
    static final int MAX_HELLO_BYTES = 1 << 16;
    /** The longest stream line; a longer one cuts the connection (what came before is kept). */
    static final int MAX_LINE = 1 << 20;

    private static final ObjectMapper MAPPER = new ObjectMapper();

    static {
        MAPPER.getFactory().setStreamReadConstraints(StreamReadConstraints.builder()
                .maxNestingDepth(8).maxStringLength(MAX_HELLO_BYTES).maxNumberLength(32).build());
    }

    private JsonlLiveProtocol() {}

    /** What a text hello says; {@code version} 0 when the hello is not one. */
    record Hello(int version, String token, long senderId, int connection, long processId, SessionInfo session) {}

    /** Reads the hello line. */
    static Hello readHello(InputStream in, String source) throws IOException {
        byte[] line = new byte[256];
        int n = 0;
        while (true) {
            int c = in.read();
            if (c < 0) {
                throw new TraceFormatException(source, n, "connection ended inside the hello line (" + n + " bytes)");
            }
            if (c == '\n') {
                break;
            }
            if (n == MAX_HELLO_BYTES) {
                throw new TraceFormatException(source, n, "hello line longer than " + MAX_HELLO_BYTES + " bytes");
            }
            if (n == line.length) {
                line = Arrays.copyOf(line, Math.min(MAX_HELLO_BYTES, line.length * 2));
            }
            line[n++] = (byte) c;
        }
        JsonNode h;
        try {
            h = MAPPER.readTree(line, 0, n);
        } catch (JsonProcessingException e) {
            throw new TraceFormatException(source, 0, "the hello line is not JSON: " + e.getOriginalMessage());
        }
        if (h == null || !h.isObject() || !"jsonl".equals(h.path("arenascope_live").asText(null))) {
            throw new TraceFormatException(source, 0, "not an ArenaScope live hello (no \"arenascope_live\":\"jsonl\")");
        }
        int version = h.path("version").canConvertToInt() ? h.path("version").asInt() : 0;
        JsonNode pid = h.path("pid");
        if (!pid.isMissingNode() && !(pid.isIntegralNumber() && pid.canConvertToLong() && pid.asLong() >= 0)) {
            // a pid names the sender's files and lines: one that does not fit (10^23 wrapped to a negative) is refused
            throw new TraceFormatException(source, 0, "the hello's pid " + clip(pid.toString()) + " is not a process id (0 to 2^63-1)");
        }
        String name = h.path("name").isTextual() ? h.path("name").asText() : "python";
        SessionInfo session = new SessionInfo(name, h.path("host").asText(""), 0, List.of(), Map.of());
        return new Hello(version, h.path("token").asText(""), h.path("sender").asLong(0),
                Math.max(1, h.path("connection").asInt(1)), h.path("pid").asLong(0), session);
    }

    private static String clip(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "..." : s;
    }

    static byte[] answer(int status, String message) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("status", status);
        o.put("message", message);
        return line(o);
    }

    static byte[] closed(long events) {
        return closed(events, null);
    }

    /** The last answer, with {@code message} when the receiver could not keep the session (events: what it kept). */
    static byte[] closed(long events, String message) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("status", "closed");
        o.put("events", events);
        if (message != null) {
            o.put("message", message);
        }
        return line(o);
    }

    private static byte[] line(ObjectNode o) {
        try {
            return (MAPPER.writeValueAsString(o) + "\n").getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Whether the line {@code buf[from, to)} opens with the goodbye, <code>&#123;"type":"goodbye"</code>, with any
     * JSON whitespace between the tokens (a hand-written or pretty-printing sender's).
     */
    static boolean isGoodbye(byte[] buf, int from, int to) {
        int i = skipSpace(buf, from, to);
        if (i >= to || buf[i] != '{') {
            return false;
        }
        i = expect(buf, skipSpace(buf, i + 1, to), to, "\"type\"");
        if (i < 0) {
            return false;
        }
        i = skipSpace(buf, i, to);
        if (i >= to || buf[i] != ':') {
            return false;
        }
        i = expect(buf, skipSpace(buf, i + 1, to), to, "\"goodbye\"");
        return i >= 0;
    }

    private static int skipSpace(byte[] buf, int i, int to) {
        while (i < to && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n')) {
            i++;
        }
        return i;
    }

    /** The offset after {@code word} at {@code i}, or -1. */
    private static int expect(byte[] buf, int i, int to, String word) {
        if (to - i < word.length()) {
            return -1;
        }
        for (int k = 0; k < word.length(); k++) {
            if (buf[i + k] != word.charAt(k)) {
                return -1;
            }
        }
        return i + word.length();
    }
}
