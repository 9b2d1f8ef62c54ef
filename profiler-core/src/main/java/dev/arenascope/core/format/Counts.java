package dev.arenascope.core.format;

import java.util.Locale;

/**
 * Counts of things as people read them, the one rule for the noun's number wherever a count is
 * printed with its noun (the window, reports, the CLI): {@code 1 tensor}, {@code 2 tensors},
 * {@code 0 tensors}, {@code 1,024 entries}; digits grouped by thousands. The caller names both forms,
 * so irregular plurals ({@code entry} / {@code entries}, {@code memory} / {@code memories}) need no
 * rule. Static and thread-safe.
 */
public final class Counts {
    private Counts() {}

    /** {@code n} and its noun: {@code of(1, "tensor", "tensors") -> "1 tensor"}, {@code of(1200, ...) -> "1,200 tensors"}. */
    public static String of(long n, String one, String many) {
        return String.format(Locale.ROOT, "%,d %s", n, noun(n, one, many));
    }

    /** The noun alone, in the number {@code n} asks: {@code one} for exactly 1 (and -1), {@code many} otherwise. */
    public static String noun(long n, String one, String many) {
        return n == 1 || n == -1 ? one : many;
    }

    /** A regular noun (plural by a final s): {@code of(1, "tensor") -> "1 tensor"}, {@code of(3, "tensor") -> "3 tensors"}. */
    public static String of(long n, String one) {
        return of(n, one, one + "s");
    }
}
