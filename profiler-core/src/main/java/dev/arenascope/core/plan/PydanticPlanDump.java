package dev.arenascope.core.plan;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Turns a compiler's pydantic dump of a memory plan ({@code MemoryPlan.model_dump()}, snake_case, as
 * heliaAOT writes it and {@code arenascope.export_plan} saves it) into the form {@link PlanJson} reads:
 *
 * <ul>
 *   <li>{@code tensor_allocs}, {@code arena_usages}, {@code persistent_arenas}, {@code constant_arenas},
 *       {@code tensor_lifetimes}, {@code memory_banks} → their camelCase names;</li>
 *   <li>an allocation's own {@code memory} and {@code offset} (the dump repeats the binding's) are
 *       checked against its {@code binding} and dropped; a binding's {@code role} may be lowercase
 *       ({@code scratch}, {@code persistent}, {@code constant}); {@code source_memory} →
 *       {@code sourceMemory};</li>
 *   <li>an arena's {@code total_size} → {@code size}; an arena without {@code memory} is in the bank
 *       it is keyed by;</li>
 *   <li>a lifetime's {@code first_step} / {@code last_step} → {@code firstStep} / {@code lastStep};</li>
 *   <li>{@code alignment} defaults to 1 (the dump has none); {@code memory_banks}, when absent, are the
 *       banks the plan names: read-only when only cold constant arenas and staging sources use them,
 *       writable otherwise.</li>
 * </ul>
 *
 * Every other key is kept as it is, so an unknown one is still refused by {@link PlanJson} with its
 * name. Works on the parsed tree; thread-safe (no state).
 */
final class PydanticPlanDump {
    private static final Set<String> SNAKE_KEYS = Set.of("tensor_allocs", "arena_usages", "persistent_arenas",
            "constant_arenas", "tensor_lifetimes", "memory_banks");

    private PydanticPlanDump() {}

    /** Whether {@code root} is a snake_case dump (any of its top-level keys is a snake_case field name). */
    static boolean isDump(JsonNode root) {
        if (root == null || !root.isObject()) {
            return false;
        }
        for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
            if (SNAKE_KEYS.contains(it.next())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The camelCase tree of a dump.
     *
     * @throws IllegalArgumentException naming the tensor when an allocation's memory or offset
     *                                  disagrees with its binding
     */
    static ObjectNode convert(JsonNode root) {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        for (var it = root.fields(); it.hasNext(); ) {
            var e = it.next();
            String k = e.getKey();
            JsonNode v = e.getValue();
            switch (k) {
                case "tensor_allocs" -> out.set("tensorAllocs", allocs(v));
                case "arena_usages" -> out.set("arenaUsages", arenas(v));
                case "persistent_arenas" -> out.set("persistentArenas", arenas(v));
                case "constant_arenas" -> out.set("constantArenas", arenas(v));
                case "tensor_lifetimes" -> out.set("tensorLifetimes", renameEach(v, Map.of("first_step", "firstStep", "last_step", "lastStep")));
                case "memory_banks" -> out.set("memoryBanks", v);
                default -> out.set(k, v);
            }
        }
        if (!out.has("alignment")) {
            out.put("alignment", 1);
        }
        if (!out.has("memoryBanks")) {
            out.set("memoryBanks", banks(out));
        }
        return out;
    }

    private static JsonNode allocs(JsonNode allocs) {
        if (!allocs.isObject()) {
            return allocs;
        }
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        for (var it = allocs.fields(); it.hasNext(); ) {
            var e = it.next();
            JsonNode a = e.getValue();
            if (!a.isObject()) {
                out.set(e.getKey(), a);
                continue;
            }
            ObjectNode na = ((ObjectNode) a).deepCopy();
            JsonNode b = na.get("binding");
            if (b != null && b.isObject()) {
                ObjectNode nb = (ObjectNode) rename(b, Map.of("source_memory", "sourceMemory"));
                JsonNode role = nb.get("role");
                if (role != null && role.isTextual()) {
                    nb.put("role", role.asText().toUpperCase(Locale.ROOT));
                }
                for (String dup : List.of("memory", "offset")) {
                    JsonNode mine = na.get(dup);
                    if (mine != null) {
                        JsonNode theirs = nb.get(dup);
                        if (theirs != null && !theirs.equals(mine)) {
                            throw new IllegalArgumentException("tensor '" + e.getKey() + "': its " + dup + " " + mine
                                    + " differs from its binding's " + theirs);
                        }
                        if (theirs == null) {
                            nb.set(dup, mine);
                        }
                        na.remove(dup);
                    }
                }
                na.set("binding", nb);
            }
            out.set(e.getKey(), na);
        }
        return out;
    }

    private static JsonNode arenas(JsonNode arenas) {
        if (!arenas.isObject()) {
            return arenas;
        }
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        for (var it = arenas.fields(); it.hasNext(); ) {
            var e = it.next();
            JsonNode a = rename(e.getValue(), Map.of("total_size", "size", "source_memory", "sourceMemory"));
            if (a instanceof ObjectNode o && !o.has("memory")) {
                o.put("memory", e.getKey());
            }
            out.set(e.getKey(), a);
        }
        return out;
    }

    private static JsonNode rename(JsonNode node, Map<String, String> names) {
        if (!node.isObject()) {
            return node;
        }
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        for (var it = node.fields(); it.hasNext(); ) {
            var e = it.next();
            out.set(names.getOrDefault(e.getKey(), e.getKey()), e.getValue());
        }
        return out;
    }

    /** Each value of the map {@code node} with its keys renamed. */
    private static JsonNode renameEach(JsonNode node, Map<String, String> names) {
        if (!node.isObject()) {
            return node;
        }
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        node.fields().forEachRemaining(e -> out.set(e.getKey(), rename(e.getValue(), names)));
        return out;
    }

    /** Banks named by the plan: writable when a scratch, persistent or staged constant arena is in it. */
    private static ObjectNode banks(ObjectNode plan) {
        Map<String, Boolean> writable = new LinkedHashMap<>();
        List<JsonNode> constants = new ArrayList<>();
        for (String field : List.of("arenaUsages", "persistentArenas")) {
            JsonNode m = plan.get(field);
            if (m != null && m.isObject()) {
                m.fields().forEachRemaining(e -> writable.put(memoryOf(e.getKey(), e.getValue()), true));
            }
        }
        JsonNode c = plan.get("constantArenas");
        if (c != null && c.isObject()) {
            c.fields().forEachRemaining(e -> {
                String mem = memoryOf(e.getKey(), e.getValue());
                JsonNode src = e.getValue().get("sourceMemory");
                String source = src != null && src.isTextual() ? src.asText() : mem;
                if (!source.equals(mem)) {
                    writable.put(mem, true);            // a staged copy is written at hydration
                }
                writable.putIfAbsent(source, false);
                writable.putIfAbsent(mem, false);
                constants.add(e.getValue());
            });
        }
        JsonNode allocs = plan.get("tensorAllocs");
        if (allocs != null && allocs.isObject()) {
            allocs.fields().forEachRemaining(e -> {
                JsonNode b = e.getValue().get("binding");
                if (b != null && b.get("memory") != null && b.get("memory").isTextual()) {
                    String mem = b.get("memory").asText();
                    JsonNode role = b.get("role");
                    boolean constant = role != null && "CONSTANT".equals(role.asText());
                    if (constant) {
                        writable.putIfAbsent(mem, false);
                    } else {
                        writable.put(mem, true);
                    }
                    JsonNode src = b.get("sourceMemory");
                    if (src != null && src.isTextual()) {
                        writable.putIfAbsent(src.asText(), false);
                    }
                }
            });
        }
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        writable.forEach((name, w) -> {
            ObjectNode bank = out.putObject(name);
            bank.put("name", name);
            bank.put("writable", w);
        });
        return out;
    }

    private static String memoryOf(String key, JsonNode arena) {
        JsonNode m = arena.get("memory");
        return m != null && m.isTextual() ? m.asText() : key;
    }
}
