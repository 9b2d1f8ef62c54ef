package dev.arenascope.core.trace.torch;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * A total order over the hashable values a pickle holds (None, bool, int, float, str, bytes and tuples
 * of these), used to index dict keys and set members without relying on hash codes, which an input can
 * make collide. Values of different types are ordered by type; two values are the same key when they
 * are of the same type and equal (unlike Python, {@code 1}, {@code 1.0} and {@code True} are three
 * keys). Tuples compare element by element; their nesting is bounded by the reader.
 */
final class PyOrder implements Comparator<Object> {
    static final PyOrder INSTANCE = new PyOrder();

    private PyOrder() {}

    private static int rank(Object o) {
        return switch (o) {
            case null -> 0;
            case Boolean b -> 1;
            case Long l -> 2;
            case BigInteger b -> 2;
            case Double d -> 3;
            case String s -> 4;
            case byte[] b -> 5;
            case List<?> l -> 6;
            default -> 7;
        };
    }

    @Override
    public int compare(Object a, Object b) {
        if (a == b) {
            return 0;
        }
        int ra = rank(a), rb = rank(b);
        if (ra != rb) {
            return Integer.compare(ra, rb);
        }
        return switch (a) {
            case Boolean x -> Boolean.compare(x, (Boolean) b);
            case Long x when b instanceof Long y -> Long.compare(x, y);
            case Long x -> BigInteger.valueOf(x).compareTo((BigInteger) b);
            case BigInteger x when b instanceof Long y -> x.compareTo(BigInteger.valueOf(y));
            case BigInteger x -> x.compareTo((BigInteger) b);
            case Double x -> Double.compare(x, (Double) b);
            case String x -> x.compareTo((String) b);
            case byte[] x -> Arrays.compare(x, (byte[]) b);
            case List<?> x -> {
                List<?> y = (List<?>) b;
                int n = Math.min(x.size(), y.size());
                for (int i = 0; i < n; i++) {
                    int c = compare(x.get(i), y.get(i));
                    if (c != 0) {
                        yield c;
                    }
                }
                yield Integer.compare(x.size(), y.size());
            }
            default -> Integer.compare(System.identityHashCode(a), System.identityHashCode(b));
        };
    }
}
