package dev.arenascope.app.aot;

import java.util.List;

/**
 * The JVM options the {@code ./arenascope} launcher adds for a short-lived decision ({@code plan
 * --capacity}: the search stops at its first packing, a fraction of a second): the C1 compiler only
 * and the serial collector. In a fresh JVM on MiniMalloc's problems C2's compiles (and their
 * de-optimisations as the search changes phase) and G1's set-up cost more CPU than they save; long
 * runs keep the full JIT. The bench starts its children with the same options so that it measures
 * what a user runs ({@code LeanJvmTest} holds the launcher to this list).
 */
public final class LeanJvm {
    /** The options, in the order the launcher passes them. */
    public static final List<String> OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    private LeanJvm() {}
}
