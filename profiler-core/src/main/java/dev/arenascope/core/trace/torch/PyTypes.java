package dev.arenascope.core.trace.torch;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** What the values {@link PickleReader} builds are in Python's terms: their type names (for messages) and hashability. */
final class PyTypes {
    /** The deepest tuple nesting a dict key or set member may have. */
    private static final int MAX_KEY_DEPTH = 64;

    private PyTypes() {}

    /** Whether a value may be a dict key or set member: atoms, or tuples of them nested at most {@value #MAX_KEY_DEPTH} deep. */
    static boolean hashable(Object k) {
        return hashable(k, 0);
    }

    private static boolean hashable(Object k, int depth) {
        if (k == null || k instanceof String || k instanceof Long || k instanceof Boolean || k instanceof Double
                || k instanceof BigInteger) {
            return true;
        }
        if (depth < MAX_KEY_DEPTH && k instanceof List<?> l && !(k instanceof PyList)) {
            for (Object o : l) {
                if (!hashable(o, depth + 1)) {
                    return false;
                }
            }
            return true;
        }
        return false;
    }

    static String typeName(Object o) {
        if (o == PickleReader.LONG) {
            return "int";
        }
        return switch (o) {
            case null -> "None";
            case PyDict d when d.replacement != null -> typeName(d.replacement); // named as its stand-in, as the fast path sees it
            case PyList l when l.replacement != null -> typeName(l.replacement);
            case PyList l -> "list";
            case List<?> l -> "tuple";
            case Map<?, ?> m -> "dict";
            case Set<?> s -> "set";
            case String s -> "str";
            case Long l -> "int";
            case BigInteger b -> "int";
            case Double d -> "float";
            case Boolean b -> "bool";
            case byte[] b -> "bytes";
            case PicklePlacement.StandIn s -> s.pythonType() + " read as a " + s.what();
            default -> o.getClass().getSimpleName();
        };
    }
}
