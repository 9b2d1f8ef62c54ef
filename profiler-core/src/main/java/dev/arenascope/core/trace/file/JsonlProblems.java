package dev.arenascope.core.trace.file;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;

/**
 * Why a JSON Lines line is not valid JSON, in plain words instead of the parser's own (which name its
 * internal token types and limits). Stateless; any thread.
 */
final class JsonlProblems {
    private static final Pattern UNEXPECTED = Pattern.compile("Unexpected character \\(('.*?'|.*?) \\(code \\d+\\)\\).*", Pattern.DOTALL);
    private static final Pattern UNRECOGNIZED = Pattern.compile("Unrecognized token '(.*?)'.*", Pattern.DOTALL);
    private static final Pattern DEPTH = Pattern.compile(".*nesting depth \\((\\d+)\\) exceeds the maximum allowed \\((\\d+)\\D.*", Pattern.DOTALL);
    private static final Pattern NUMBER = Pattern.compile(".*Number value length \\((\\d+)\\) exceeds the maximum allowed \\((\\d+)\\D.*", Pattern.DOTALL);
    private static final Pattern STRING = Pattern.compile(".*String value length \\((\\d+)\\) exceeds the maximum allowed \\((\\d+)\\D.*", Pattern.DOTALL);

    private JsonlProblems() {}

    /** {@code not valid JSON (WHY)}, WHY in plain words. */
    static String plain(JsonProcessingException e) {
        String msg = e.getOriginalMessage();
        if (msg == null) {
            msg = "";
        }
        Matcher m;
        String why;
        if ((m = DEPTH.matcher(msg)).matches()) {
            why = "nested more than " + m.group(2) + " levels deep";
        } else if ((m = NUMBER.matcher(msg)).matches()) {
            why = "a number of more than " + m.group(2) + " digits";
        } else if ((m = STRING.matcher(msg)).matches()) {
            why = "a string longer than " + m.group(2) + " characters";
        } else if (e instanceof StreamConstraintsException) {
            why = "a value past the reader's limits";
        } else if ((m = UNEXPECTED.matcher(msg)).matches()) {
            why = "unexpected " + printable(m.group(1));
        } else if ((m = UNRECOGNIZED.matcher(msg)).matches()) {
            why = "unknown word '" + shorten(m.group(1)) + "'";
        } else if (msg.startsWith("Unexpected end-of-input")) {
            why = msg.contains("Array") ? "the line ends inside an array"
                    : msg.contains("Object") ? "the line ends inside an object"
                    : msg.contains("String") ? "the line ends inside a string" : "the line ends inside a value";
        } else if (msg.startsWith("Invalid UTF-8") || msg.contains("UTF-8")) {
            why = "not UTF-8 text";
        } else if (msg.startsWith("Illegal unquoted character")) {
            why = "a control character inside a string";
        } else {
            String first = msg.lines().findFirst().orElse("").strip();
            why = first.isEmpty() ? e.getClass().getSimpleName() : Character.toLowerCase(first.charAt(0)) + first.substring(1);
        }
        return "not valid JSON (" + why + ")";
    }

    private static String printable(String quoted) {
        return quoted.startsWith("'") ? quoted : "'" + quoted + "'";
    }

    private static String shorten(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }
}
