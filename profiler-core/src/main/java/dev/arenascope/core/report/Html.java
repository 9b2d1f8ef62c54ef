package dev.arenascope.core.report;

import dev.arenascope.core.format.Printable;

/** HTML text escaping. Stateless. */
final class Html {
    private Html() {}

    /** Escapes {@code & < > " '} for text and attribute values; control and bidirectional characters are neutralised. */
    static String esc(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder sb = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&#39;");
                default -> {
                    if (c < 0x20 && c != '\n' && c != '\t') {
                        sb.append(' '); // control characters are not allowed in HTML text
                    } else if (c >= 0x7f && Printable.unsafe(c)) {
                        // DEL, C1 controls and bidirectional overrides: shown as their code, so no name reverses the text after it
                        sb.append(Printable.line(String.valueOf(c)));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.toString();
    }
}
