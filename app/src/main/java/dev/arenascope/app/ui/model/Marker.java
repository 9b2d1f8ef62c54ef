package dev.arenascope.app.ui.model;

import dev.arenascope.core.trace.EventKind;

/**
 * A point event the timeline marks: out-of-memory, reset, loss or a user marker.
 *
 * @param timeNs when
 * @param kind   which
 * @param memory the memory, -1 for none
 * @param bytes  bytes concerned (requested for OOM, released for reset, count for loss)
 * @param text   message or marker text, may be empty
 */
public record Marker(long timeNs, EventKind kind, int memory, long bytes, String text) {}
