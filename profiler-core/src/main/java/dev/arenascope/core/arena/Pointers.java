package dev.arenascope.core.arena;

/**
 * An arena's two pointers, as byte offsets from the arena's start: {@code forward} is where the next
 * forward allocation may begin, {@code backward} where the backward (persistent) end begins. A valid
 * pair satisfies {@code 0 <= forward <= backward <= capacity}.
 *
 * @param forward  bytes from the start used by forward allocations (the forward pointer)
 * @param backward offset of the lowest byte held by the backward end (capacity when it is empty)
 */
public record Pointers(long forward, long backward) {
}
