package dev.arenascope.app.ui.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** How a task's progress reaches its view. */
class TaskRunnerTest {

    @Test
    void everyNewStageReachesTheViewHoweverCloseTogetherAndOneStagesReportsAreCoalesced() {
        List<String> shown = new ArrayList<>();
        TaskRunner runner = TaskRunner.sameThread(); // callbacks run at once: each report that is not coalesced shows
        runner.submit(BackgroundTask.of("query", p -> {
            p.update(0, -1, "loading");
            for (int i = 0; i < 1000; i++) {
                p.update(i, 1000, "loading"); // a tight loop of one stage: coalesced (every 30 ms at most)
            }
            p.update(0, -1, "running"); // within 30 ms of the last report shown: a new stage, shown all the same
            return null;
        }).onProgress((f, message, title) -> shown.add(message)));
        assertEquals("loading", shown.getFirst());
        assertEquals("running", shown.getLast());
        assertEquals(1, shown.stream().filter("running"::equals).count());
        // the loop's thousand reports took far less than 30 ms a piece: most of them were not shown
        assertTrue(shown.size() < 500, shown.size() + " reports shown");
    }
}
