package dev.arenascope.core.plan;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

import dev.arenascope.core.format.Bytes;

/**
 * One memory bank a banked plan may place buffers in: a fast SRAM, a slow PSRAM, an HBM. Buffers never
 * straddle banks; each bank is packed as its own arena within {@code capacity}.
 *
 * @param name     the bank's name (letters, digits, {@code _ - .}), unique in its problem
 * @param capacity bytes the bank holds, at least 1
 * @param cost     the cost of one byte accessed in this bank (any unit: cycles, nanoseconds, a rank);
 *                 finite, not negative. A buffer of {@code size} bytes accessed {@code accesses} times
 *                 costs {@code size * accesses * cost} in the bank.
 */
public record PlanBank(String name, long capacity, double cost) {
    /** The most banks one problem may name. */
    public static final int MAX_BANKS = 63;

    public PlanBank {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty() || !name.chars().allMatch(c -> c < 128 && (Character.isLetterOrDigit(c) || c == '_' || c == '-' || c == '.'))) {
            throw new IllegalArgumentException("bank name '" + name + "' must be letters, digits, '_', '-' or '.'");
        }
        if (capacity < 1 || capacity > PlanProblem.MAX_TOTAL_BYTES) {
            throw new IllegalArgumentException("bank '" + name + "': capacity must be between 1 byte and 2^62, got " + capacity);
        }
        if (!Double.isFinite(cost) || cost < 0) {
            throw new IllegalArgumentException("bank '" + name + "': cost must be a finite number >= 0, got " + cost);
        }
    }

    /**
     * Banks from the command line's spelling {@code NAME=CAPACITY[:COST],...}, e.g.
     * {@code sram=512KiB:1,psram=8MiB:10}. A bank without a cost costs its position (1 for the first,
     * 2 for the second, ...): faster banks first.
     *
     * @throws IllegalArgumentException naming the part that is wrong
     */
    public static List<PlanBank> parseList(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("no banks given (expected NAME=CAPACITY[:COST],...)");
        }
        List<PlanBank> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        String[] parts = spec.split(",", -1);
        for (String raw : parts) {
            String part = raw.strip();
            int eq = part.indexOf('=');
            if (eq <= 0 || eq == part.length() - 1) {
                throw new IllegalArgumentException("bank '" + part + "' is not NAME=CAPACITY[:COST]");
            }
            String name = part.substring(0, eq).strip();
            String rest = part.substring(eq + 1).strip();
            int colon = rest.indexOf(':');
            String capText = colon < 0 ? rest : rest.substring(0, colon).strip();
            long capacity;
            try {
                capacity = Bytes.parse(capText);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("bank '" + name + "': capacity '" + capText + "' is not a byte count (e.g. 512KiB)");
            }
            double cost = out.size() + 1;
            if (colon >= 0) {
                String costText = rest.substring(colon + 1).strip();
                try {
                    cost = Double.parseDouble(costText);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("bank '" + name + "': cost '" + costText + "' is not a number");
                }
            }
            if (!names.add(name)) {
                throw new IllegalArgumentException("bank '" + name + "' is named twice");
            }
            out.add(new PlanBank(name, capacity, cost));
            if (out.size() > MAX_BANKS) {
                throw new IllegalArgumentException("more than " + MAX_BANKS + " banks");
            }
        }
        return List.copyOf(out);
    }

    /** The bank as {@link #parseList} reads it. */
    public String spec() {
        return name + "=" + capacity + ":" + (cost == Math.rint(cost) && Math.abs(cost) < 1e15
                ? Long.toString((long) cost) : String.format(Locale.ROOT, "%s", cost));
    }
}
