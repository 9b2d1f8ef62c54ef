package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.store.EventStore;

/**
 * Nothing made or opened is lost without a question: the guard asks before a new live session replaces an
 * opened file, and before anything ends a live session with unsaved events; it stays quiet otherwise.
 */
class SessionGuardTest {
    private TraceView shown;
    private TraceView live;
    private final List<SessionGuard.Stake> asked = new ArrayList<>();
    private SessionGuard.Answer answer = SessionGuard.Answer.CANCEL;
    private int saves;
    private final int[] ran = {0};

    private final SessionGuard guard = new SessionGuard(() -> shown, () -> "run.pickle", () -> live,
            (doing, stake, reply) -> {
                asked.add(stake);
                reply.accept(answer);
            }, after -> {
                saves++;
                after.run();
            });

    private static EventStore store(int events) {
        EventStore s = new EventStore("s");
        SyntheticTrace.write(3, events, s);
        return s;
    }

    @Test
    void nothingShownOrAnOpenedFileIsNotAskedAboutExceptWhenALiveSessionReplacesIt() {
        guard.then(SessionGuard.Action.QUIT, "Quit", () -> ran[0]++);
        assertEquals(1, ran[0]);
        shown = store(1_000);
        guard.then(SessionGuard.Action.OPEN_FILE, "Open b.astrace", () -> ran[0]++);
        guard.then(SessionGuard.Action.QUIT, "Quit", () -> ran[0]++);
        assertEquals(3, ran[0], "a file is still on disk: opening another or quitting loses nothing");
        assertTrue(asked.isEmpty());

        guard.then(SessionGuard.Action.START_LIVE, "Start render", () -> ran[0]++);
        assertEquals(1, asked.size(), "Start over an opened file asks");
        assertFalse(asked.getFirst().canSave(), "there is nothing to save");
        assertTrue(asked.getFirst().what().contains("run.pickle"), asked.getFirst().what());
        assertEquals(3, ran[0], "cancelled");
        answer = SessionGuard.Answer.DISCARD;
        guard.then(SessionGuard.Action.START_LIVE, "Start render", () -> ran[0]++);
        assertEquals(4, ran[0], "the user agreed");
    }

    @Test
    void aLiveSessionsUnsavedEventsAreAskedAboutUntilSaved() {
        EventStore s = store(2_000);
        shown = s;
        live = s;
        guard.then(SessionGuard.Action.QUIT, "Quit", () -> ran[0]++);
        assertEquals(0, ran[0], "cancel keeps the window");
        SessionGuard.Stake stake = asked.getFirst();
        assertTrue(stake.canSave());
        assertTrue(stake.what().contains("2,000 events"), stake.what());

        answer = SessionGuard.Answer.SAVE;
        guard.then(SessionGuard.Action.OPEN_FILE, "Open b.astrace", () -> ran[0]++);
        assertEquals(1, saves, "saved first");
        assertEquals(1, ran[0], "then opened");

        guard.saved(s, s.eventCount());
        assertNull(guard.check(SessionGuard.Action.QUIT), "everything is saved");
        s.onEvents(new SyntheticTrace(4).next(500));
        SessionGuard.Stake again = guard.check(SessionGuard.Action.QUIT);
        assertTrue(again != null && again.what().contains("since the last save"), String.valueOf(again));
    }
}
