package dev.arenascope.core.arena;

import java.util.Locale;

/**
 * Poisoning settings: the byte every new allocation is filled with, so reading memory nothing wrote
 * shows at once (0xFF reads as NaN in float lanes, -1 in int lanes). Set per arena
 * ({@link ArenaBuilder#poison}) or for the whole process through the environment variable
 * {@value ManualMemory#POISON_ENV}. Static and thread-safe.
 */
final class Poison {
    /** No poisoning. */
    static final int NONE = -1;
    private static final String ENV_TEXT = System.getenv(ManualMemory.POISON_ENV);

    private Poison() {
    }

    /**
     * The byte a new arena poisons with: its own setting when it has one, else the environment's;
     * {@link #NONE} for an unmanaged arena.
     *
     * @throws IllegalArgumentException when the environment's setting is not a poison byte
     */
    static int choose(boolean managed, boolean set, int value) {
        if (!managed) {
            return NONE;
        }
        return set ? value : parse(ENV_TEXT, ManualMemory.POISON_ENV);
    }

    /**
     * Parses a poison setting: {@code 0xNN}, a decimal 0..255, or {@code off}/{@code none}/{@code false}/empty
     * for none. Returns {@link #NONE} for none.
     *
     * @throws IllegalArgumentException naming {@code source} when the text is none of these
     */
    static int parse(String text, String source) {
        if (text == null) {
            return NONE;
        }
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.isEmpty() || t.equals("off") || t.equals("none") || t.equals("false") || t.equals("no")) {
            return NONE;
        }
        try {
            int v = t.startsWith("0x") ? Integer.parseInt(t.substring(2), 16) : Integer.parseInt(t);
            if (v >= 0 && v <= 255) {
                return v;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new IllegalArgumentException(source + "='" + text + "' is not a poison byte (0..255, 0xNN, or off)");
    }
}
