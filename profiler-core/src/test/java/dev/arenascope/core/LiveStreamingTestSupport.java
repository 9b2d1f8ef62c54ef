package dev.arenascope.core;

import java.util.function.BooleanSupplier;

import dev.arenascope.testsupport.Await;

/** Waiting for what another thread does ({@link Await}: a failure on a hang, never a timing check). */
final class LiveStreamingTestSupport {
    private LiveStreamingTestSupport() {}

    static void await(String what, BooleanSupplier cond) {
        Await.until(what, cond);
    }
}
