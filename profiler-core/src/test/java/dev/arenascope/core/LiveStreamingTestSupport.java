package dev.arenascope.core;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waiting for what another thread does, with a generous deadline (a failure, never a timing check). */
final class LiveStreamingTestSupport {
    private LiveStreamingTestSupport() {}

    static void await(BooleanSupplier cond) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out");
            }
            Thread.sleep(10);
        }
    }
}
