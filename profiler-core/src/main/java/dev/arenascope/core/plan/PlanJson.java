package dev.arenascope.core.plan;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * Reads and writes {@link MemoryPlan}s as JSON: one object with the record's component names as keys
 * ({@code name, alignment, memoryBanks, tensorAllocs, arenaUsages, persistentArenas, constantArenas,
 * tensorLifetimes}). Unknown keys, missing required values and out-of-range numbers are rejected with a
 * {@link PlanInputException} naming the file, line and column. A compiler's pydantic dump (snake_case
 * keys such as {@code tensor_allocs}, lowercase roles: heliaAOT's {@code model_dump()}, what the Python
 * client's {@code export_plan} writes) is read too ({@link PydanticPlanDump}); its errors name the
 * file and the field. Thread-safe.
 */
public final class PlanJson {
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)   // 64.5 bytes is refused, never read as 64
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();

    static {
        MAPPER.getFactory().setStreamReadConstraints(StreamReadConstraints.builder()
                .maxNestingDepth(64).maxStringLength(1 << 20).maxNumberLength(40).build());
    }

    private PlanJson() {}

    /** The plan as indented JSON text. */
    public static String toJson(MemoryPlan plan) {
        try {
            return MAPPER.writeValueAsString(plan);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write plan '" + plan.name() + "' as JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** Writes the plan to {@code file}. */
    public static void write(MemoryPlan plan, Path file) throws IOException {
        Files.writeString(file, toJson(plan) + "\n");
    }

    /**
     * Parses a plan from JSON text.
     *
     * @param source name of the input for messages (a file name)
     * @throws PlanInputException on malformed or inconsistent input
     */
    public static MemoryPlan fromJson(String json, String source) {
        try {
            if (looksLikeDump(json)) {
                return fromDump(MAPPER.readTree(json), source);
            }
            return check(MAPPER.readValue(json, MemoryPlan.class), source);
        } catch (JsonProcessingException e) {
            throw asInput(e, source);
        }
    }

    /** Reads a plan from a file. */
    public static MemoryPlan read(Path file) throws IOException {
        if (looksLikeDump(file)) {
            try (InputStream in = Files.newInputStream(file)) {
                return fromDump(MAPPER.readTree(in), file.toString());
            } catch (JsonProcessingException e) {
                throw asInput(e, file.toString());
            }
        }
        try (InputStream in = Files.newInputStream(file)) {
            return check(MAPPER.readValue(in, MemoryPlan.class), file.toString());
        } catch (JsonProcessingException e) {
            throw asInput(e, file.toString());
        }
    }

    /** Whether the top-level object has a snake_case key (a pass over its keys, values skipped). */
    private static boolean looksLikeDump(JsonParser p) throws IOException {
        try (p) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return false;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                if (name.contains("_") && PydanticPlanDump.isDump(MAPPER.createObjectNode().put(name, 0))) {
                    return true;
                }
                p.nextToken();
                p.skipChildren();
            }
            return false;
        } catch (JsonProcessingException e) {
            return false; // the strict read below names the problem
        }
    }

    private static boolean looksLikeDump(String json) {
        try {
            return looksLikeDump(MAPPER.getFactory().createParser(json));
        } catch (IOException e) {
            return false; // cannot happen on a string; the strict read below names any problem
        }
    }

    private static boolean looksLikeDump(Path file) throws IOException {
        return looksLikeDump(MAPPER.getFactory().createParser(Files.newInputStream(file)));
    }

    private static MemoryPlan fromDump(JsonNode root, String source) throws JsonProcessingException {
        JsonNode plan;
        try {
            plan = PydanticPlanDump.convert(root);
        } catch (IllegalArgumentException e) {
            throw new PlanInputException(source, 0, e.getMessage());
        }
        return check(MAPPER.treeToValue(plan, MemoryPlan.class), source);
    }

    private static MemoryPlan check(MemoryPlan plan, String source) {
        if (plan == null) {
            throw new PlanInputException(source, 1, "expected a JSON object holding a memory plan, found null");
        }
        // what one arena's tensors add up to must stay a problem a planner can hold (PlanProblem's limit)
        Map<String, Long> total = new HashMap<>();
        for (var e : plan.tensorAllocs().entrySet()) {
            TensorAllocation a = e.getValue();
            long size = a.size() > PlanProblem.MAX_TOTAL_BYTES ? PlanProblem.MAX_TOTAL_BYTES + 1
                    : PlanProblem.alignUp(a.size(), Math.min(plan.alignment(), PlanProblem.MAX_TOTAL_BYTES));
            long t = total.merge(a.binding().role() + ":" + a.binding().memory(), Math.min(size, PlanProblem.MAX_TOTAL_BYTES + 1), Long::sum);
            if (t > PlanProblem.MAX_TOTAL_BYTES || t < 0) {
                throw new PlanInputException(source, 0, "'tensorAllocs." + e.getKey() + ".size': " + a.size()
                        + " bytes takes arena " + a.binding().role().name().toLowerCase(Locale.ROOT) + ":"
                        + a.binding().memory() + " past 2^62 bytes in all");
            }
        }
        return plan;
    }

    /**
     * Jackson's message in a user's words: no Java type names, no configuration hints, no "Source:
     * REDACTED" locations (the caller adds line and column), and the JSON field a mapping error is in.
     */
    static String plainWords(String msg, JsonProcessingException e) {
        String field = "";
        if (e instanceof JsonMappingException m && !m.getPath().isEmpty()) {
            StringBuilder sb = new StringBuilder();
            for (var ref : m.getPath()) {
                if (ref.getFieldName() != null) {
                    sb.append(sb.isEmpty() ? "" : ".").append(ref.getFieldName());
                } else if (ref.getIndex() >= 0) {
                    sb.append('[').append(ref.getIndex()).append(']');
                }
            }
            field = sb.toString();
        }
        String m = msg.replaceAll(" \\(start marker at \\[Source:.*$", "")
                .replaceAll(" \\(set DeserializationConfig.*$", "")
                .replaceAll(" \\(token `JsonToken\\.[A-Z_]+`\\)", "")
                .replaceAll("\\s*\\(through reference chain:.*$", "")
                .replaceAll("`(?:[a-z_]\\w*\\.)*(?:\\w+\\$)*(\\w+)`", "$1");
        Matcher frac = Pattern.compile("^Cannot coerce Floating-point value \\((.*?)\\) to (?:long|int) value.*").matcher(m);
        if (frac.matches()) {
            m = "not an integer: " + frac.group(1) + " (sizes, offsets and steps are whole numbers)";
        } else if (m.startsWith("Cannot map null")) {
            m = "a required value is missing or null";
        } else if (m.startsWith("No content to map due to end-of-input")) {
            m = "empty file: expected a JSON object holding a memory plan";
        } else if (m.startsWith("Unexpected end-of-input")) {
            m = "the file ends inside the JSON (" + m.substring("Unexpected end-of-input".length()).replaceFirst("^:\\s*", "") + ")";
        } else if (m.startsWith("Cannot deserialize value of type MemoryPlan from ")) {
            m = "expected a JSON object holding a memory plan, found " + m.substring("Cannot deserialize value of type MemoryPlan from ".length()).toLowerCase(Locale.ROOT);
        }
        return field.isEmpty() ? m : "'" + field + "': " + m;
    }

    private static PlanInputException asInput(JsonProcessingException e, String source) {
        JsonLocation loc = e.getLocation();
        String msg = e.getOriginalMessage();
        Throwable cause = e.getCause();
        if (cause instanceof IllegalArgumentException || cause instanceof NullPointerException) {
            msg = cause.getMessage();
        }
        msg = plainWords(msg == null ? e.getClass().getSimpleName() : msg.lines().findFirst().orElse(msg), e);
        String at = loc == null || loc.getLineNr() < 1 ? "" : " (column " + loc.getColumnNr() + ")";
        return new PlanInputException(source, loc == null ? 0 : Math.max(0, loc.getLineNr()), msg + at);
    }
}
