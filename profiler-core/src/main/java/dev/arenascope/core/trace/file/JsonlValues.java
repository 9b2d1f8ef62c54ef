package dev.arenascope.core.trace.file;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import dev.arenascope.core.device.DeviceInfo;
import dev.arenascope.core.device.DeviceKind;
import dev.arenascope.core.trace.MemoryKind;

/**
 * The structured values of JSON Lines metadata records ({@code attributes}, {@code devices}, memory
 * kinds), read off a Jackson streaming parser by {@link JsonlChunkParser}; what an event line holds
 * is read there, in its own fast loop. Stateless; bad shapes are {@link BadValue}s with a one-line
 * reason, which the parser turns into a problem of that line.
 */
final class JsonlValues {
    private JsonlValues() {}

    /** The memory kind named {@code s}, or null. */
    static MemoryKind memoryKind(String s) {
        try {
            return MemoryKind.valueOf(s);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** A value of the wrong shape, with the one-line reason (no stack trace: it is routine on bad input). */
    static final class BadValue extends Exception {
        BadValue(String m) {
            super(m, null, false, false);
        }
    }

    /** An {@code attributes} object of strings (the parser on its start); a non-string value is {@link BadValue}. */
    static Map<String, String> readMap(JsonParser p) throws IOException, BadValue {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            throw new BadValue("'attributes' is not an object");
        }
        Map<String, String> m = new LinkedHashMap<>();
        String bad = null;
        for (String k = p.nextFieldName(); k != null; k = p.nextFieldName()) {
            JsonToken v = p.nextToken();
            if (v.isStructStart()) {
                p.skipChildren();
                bad = "attribute '" + k + "' is not a string";
            } else {
                m.put(k, p.getValueAsString(""));
            }
        }
        if (bad != null) {
            throw new BadValue(bad);
        }
        return m;
    }

    /** A {@code devices} array (the parser on its start); entries of an unknown kind are left out. */
    static List<DeviceInfo> readDevices(JsonParser p) throws IOException, BadValue {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            throw new BadValue("'devices' is not an array");
        }
        List<DeviceInfo> out = new ArrayList<>();
        for (JsonToken tok = p.nextToken(); tok != JsonToken.END_ARRAY; tok = p.nextToken()) {
            if (tok != JsonToken.START_OBJECT) {
                p.skipChildren();
                continue;
            }
            String kind = null;
            String name = "";
            long index = 0, total = 0, free = 0;
            for (String f = p.nextFieldName(); f != null; f = p.nextFieldName()) {
                p.nextToken();
                switch (f) {
                    case "kind" -> kind = p.getValueAsString();
                    case "name" -> name = p.getValueAsString("");
                    case "index" -> index = p.getValueAsLong();
                    case "total_bytes" -> total = p.getValueAsLong();
                    case "free_bytes" -> free = p.getValueAsLong();
                    default -> p.skipChildren();
                }
            }
            DeviceKind dk;
            try {
                dk = DeviceKind.valueOf(String.valueOf(kind));
            } catch (IllegalArgumentException e) {
                continue;
            }
            out.add(new DeviceInfo(dk, (int) index, name, total, free));
        }
        return out;
    }
}
