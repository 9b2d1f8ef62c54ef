package dev.arenascope.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waiting in a test for what another thread or process does: the test states the condition it then
 * relies on, and the wait ends as soon as that holds. The deadline only turns a hang into a failure
 * naming what never came; it is never what the test measures. Where the other side gives no signal to
 * block on (a counter another thread bumps), the condition is checked again every millisecond; where it
 * does, prefer that signal (a latch, a join, {@link #untilFile a file-system watch}).
 */
public final class Await {
    /** How long a wait may last before it fails: a hang, not a slow machine. */
    public static final Duration DEADLINE = Duration.ofSeconds(60);

    private Await() {}

    /** Waits until {@code condition} holds; fails after {@link #DEADLINE} saying {@code what} never came. */
    public static void until(String what, BooleanSupplier condition) {
        if (!within(DEADLINE, condition)) {
            throw new AssertionError("timed out after " + DEADLINE.toSeconds() + " s waiting for: " + what);
        }
    }

    /**
     * Waits until {@code condition} holds or {@code max} has passed; returns whether it holds. For a test
     * that can only check something once a state comes about that another test may prevent (and then
     * skips, saying so), never for a state the test requires.
     */
    public static boolean within(Duration max, BooleanSupplier condition) {
        long end = System.nanoTime() + max.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                return condition.getAsBoolean();
            }
            LockSupport.parkNanos(1_000_000L);
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting");
            }
        }
        return true;
    }

    /**
     * Waits until {@code condition} about files under {@code dir} holds, woken by the file system each
     * time something in {@code dir} is created or written (inotify on Linux) and at least once a second,
     * so that {@code condition} may also look at something else (a process that ended); fails after
     * {@link #DEADLINE}.
     */
    public static void untilFile(String what, Path dir, BooleanSupplier condition) {
        long end = System.nanoTime() + DEADLINE.toNanos();
        try (WatchService watch = dir.getFileSystem().newWatchService()) {
            dir.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
            while (!condition.getAsBoolean()) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("timed out after " + DEADLINE.toSeconds() + " s waiting for: " + what);
                }
                WatchKey k = watch.poll(Math.min(left, TimeUnit.SECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
                if (k != null) {
                    k.pollEvents();
                    k.reset();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted waiting for: " + what, e);
        }
    }
}
