package dev.arenascope.core.sql;

import dev.arenascope.core.trace.TraceView;

/**
 * One trace to be queried as one rank: its name (the file name, shown in {@code ranks.name}), where
 * it came from ({@code ranks.path}) and its events.
 */
public record TraceInput(String name, String path, TraceView view) {
    public TraceInput {
        if (name == null || view == null) {
            throw new IllegalArgumentException("a trace input needs a name and a view");
        }
        path = path == null ? "" : path;
    }
}
