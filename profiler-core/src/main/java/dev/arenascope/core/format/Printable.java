package dev.arenascope.core.format;

/**
 * Text from a trace (frame and file names, session and memory names, metadata) made safe to print on
 * a terminal: names come from whoever made the file, and a name holding ESC or BEL would clear the
 * screen, set the window title or plant a link (OSC 8), a newline would forge a row of its own, and a
 * bidirectional override would show the rest of the line reversed.
 *
 * <p>{@link #line} replaces every C0 control (tab and newline included), DEL, every C1 control and the
 * bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069, and the marks
 * U+200E, U+200F, U+061C) with a visible escape, {@code \x1b} for ESC or {@code \}{@code u202e} for U+202E; everything else,
 * any script included, is kept. Stateless.
 */
public final class Printable {
    private Printable() {}

    /** Whether {@code c} is replaced by {@link #line}. */
    public static boolean unsafe(char c) {
        return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f)
                || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)
                || c == 0x200e || c == 0x200f || c == 0x061c;
    }

    /** {@code s} on one line with no control or bidirectional character left (null stays null). */
    public static String line(String s) {
        if (s == null) {
            return null;
        }
        int i = 0;
        while (i < s.length() && !unsafe(s.charAt(i))) {
            i++;
        }
        if (i == s.length()) {
            return s;
        }
        StringBuilder sb = new StringBuilder(s.length() + 8).append(s, 0, i);
        for (; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!unsafe(c)) {
                sb.append(c);
            } else if (c <= 0xff) {
                sb.append(String.format("\\x%02x", (int) c));
            } else {
                sb.append(String.format("\\u%04x", (int) c));
            }
        }
        return sb.toString();
    }
}
