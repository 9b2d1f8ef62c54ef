package dev.arenascope.core.report;

import dev.arenascope.core.analysis.TraceDiff;

/** Test access to the report's change formatting. */
public final class UnitsAccess {
    private UnitsAccess() {}

    public static String changePct(TraceDiff.Change c) {
        return Units.changePct(c);
    }
}
