package dev.arenascope.core.trace;

/**
 * One execution of a scope: when it opened and closed, how deep it was nested, and the bytes its
 * memory held at those times.
 *
 * @param scopeId  the scope id of its {@link EventKind#SCOPE_ENTER} event
 * @param nameId   the scope name's string id
 * @param memory   the memory it was opened on
 * @param depth    nesting depth, 0 for outermost
 * @param startNs  when it opened
 * @param endNs    when it closed ({@code Long.MAX_VALUE} while still open)
 * @param parentId the enclosing scope's id, or -1
 */
public record ScopeInterval(int scopeId, int nameId, int memory, int depth, long startNs, long endNs, int parentId) {}
