package dev.arenascope.core.trace.file;

import dev.arenascope.core.trace.store.EventStore;

/** A trace file loaded into a store, with what the read found. */
public record LoadedTrace(EventStore store, ReadReport report) {}
