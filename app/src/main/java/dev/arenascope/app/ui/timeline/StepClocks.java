package dev.arenascope.app.ui.timeline;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

import dev.arenascope.core.analysis.StepClock;
import dev.arenascope.core.trace.TraceView;

/**
 * The window's step clocks, one per trace while it lives, each following its trace as it grows (a
 * listened rank reads only its new events): what aligns a compared rank's memory by step. Thread-safe;
 * frames are built off the FX thread.
 */
final class StepClocks {
    private static final Map<TraceView, StepClock.Scanner> SCANNERS = Collections.synchronizedMap(new WeakHashMap<>());

    private StepClocks() {}

    /** {@code trace}'s steps as it is now. */
    static StepClock of(TraceView trace) {
        StepClock.Scanner s = SCANNERS.computeIfAbsent(trace, t -> new StepClock.Scanner());
        synchronized (s) {
            return s.advance(trace);
        }
    }

    /** {@code trace}'s times carried to {@code baseline}'s by their common steps, or null when they share none. */
    static StepClock.Alignment align(TraceView trace, TraceView baseline) {
        return of(trace).align(of(baseline));
    }
}
