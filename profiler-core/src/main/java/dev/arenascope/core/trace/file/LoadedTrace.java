package dev.arenascope.core.trace.file;

import dev.arenascope.core.trace.store.TraceStore;

/**
 * A trace file loaded into a store, with what the read found: an in-memory {@code EventStore}, or for
 * a large {@code .astrace} file an {@code OutOfCoreStore} over the file (see {@link AstraceIndex}).
 */
public record LoadedTrace(TraceStore store, ReadReport report) {}
