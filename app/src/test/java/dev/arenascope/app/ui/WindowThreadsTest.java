package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.testsupport.Fixtures;

/**
 * A window that ends leaves none of its worker threads behind: the timeline's frame worker (made by the
 * timeline itself) ends with the window's own runners. Before, every window closed left that worker alive:
 * dozens in a test JVM, one per window a user opened and closed in an app that made more than one.
 */
class WindowThreadsTest extends WindowTestBase {
    private static Set<Thread> before;

    @BeforeAll
    static void workersBefore() {
        before = workers().stream().collect(Collectors.toSet());
    }

    @Test
    void aDisposedWindowLeavesNoWorkerAlive() {
        openUntilLoaded(Fixtures.torch("cs336-a2-magma27.pickle"));
        List<Thread> made = workers().stream().filter(t -> !before.contains(t)).toList();
        assertFalse(made.isEmpty(), "the window's work ran on workers of its own");
        fxRun(() -> {
            window.dispose();
            stage.close();
        });
        window = null;
        waitFor(30, "the window's workers to end", () -> made.stream().noneMatch(Thread::isAlive),
                () -> "still alive: " + made.stream().filter(Thread::isAlive).map(Thread::getName).toList());
        assertTrue(made.stream().noneMatch(Thread::isAlive));
    }

    private static List<Thread> workers() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().equals(TaskRunner.WORKER_NAME)).toList();
    }
}
