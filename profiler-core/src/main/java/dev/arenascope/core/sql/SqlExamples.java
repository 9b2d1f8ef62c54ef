package dev.arenascope.core.sql;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The worked questions shipped with the project ({@code examples.sql} beside this class): the ones
 * {@code docs/guide/sql.md} shows and the window's Query view offers. A test runs every one and checks
 * the guide carries each word for word.
 */
public final class SqlExamples {
    private SqlExamples() {}

    /**
     * One question.
     *
     * @param name     a short key ({@code top-sites-at-peak})
     * @param question what it answers, in a sentence
     * @param sql      the query, without its trailing {@code ;}
     */
    public record Example(String name, String question, String sql) {}

    /** Every example, in the file's order. */
    public static List<Example> all() {
        try (InputStream in = SqlExamples.class.getResourceAsStream("examples.sql")) {
            if (in == null) {
                throw new IllegalStateException("examples.sql is missing from the class path");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The examples of a file in that format: each from a {@code -- name:} line to the next. */
    static List<Example> parse(String text) {
        List<Example> out = new ArrayList<>();
        String name = null;
        String question = "";
        StringBuilder sql = new StringBuilder();
        for (String line : (text + "\n-- name: ").split("\n")) {
            if (line.startsWith("-- name:")) {
                if (name != null) {
                    String q = sql.toString().strip();
                    out.add(new Example(name, question, q.endsWith(";") ? q.substring(0, q.length() - 1).strip() : q));
                }
                name = line.substring("-- name:".length()).strip();
                question = "";
                sql.setLength(0);
            } else if (name != null && line.startsWith("-- question:")) {
                question = line.substring("-- question:".length()).strip();
            } else if (name != null) {
                sql.append(line).append('\n');
            }
        }
        return out.stream().filter(e -> !e.name().isEmpty()).toList();
    }
}
