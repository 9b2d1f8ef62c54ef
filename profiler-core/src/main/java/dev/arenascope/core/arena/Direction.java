package dev.arenascope.core.arena;

/** Which end of a two-pointer arena an allocation came from. */
public enum Direction {
    /** From the forward pointer: temporaries, released when the pointer is set back. */
    FORWARD,
    /** From the backward pointer: persistent results that outlive the forward scope they were made in. */
    BACKWARD
}
