package dev.arenascope.app.ui.sites;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.ui.sites.SiteViewModel.Landing;

/** The Sites view's request state machine, driven as the view drives it, without the FX thread. */
class SiteViewModelTest {
    @Test
    void aHiddenViewAsksNothingAndCatchesUpWhenShown() {
        SiteViewModel s = new SiteViewModel();
        assertFalse(s.changed(), "hidden: no debounce started");
        assertTrue(s.settled(false), "a hidden view with changes pending is settled: nothing waits to be shown");
        assertTrue(s.setActive(true), "shown with a change pending: ask");
        assertFalse(s.settled(false), "shown and dirty: not settled until it asks");
        long my = s.begin();
        assertEquals(1, my);
        s.submitted();
        assertFalse(s.settled(false), "an answer in flight");
        assertEquals(Landing.SHOW, s.land(my));
        assertTrue(s.settled(false));
        assertFalse(s.setActive(false));
        assertFalse(s.setActive(true), "shown again with nothing changed: no new question");
    }

    @Test
    void requestsDuringAnAnswerAreAskedOnceWhenItLands() {
        SiteViewModel s = new SiteViewModel();
        s.setActive(true);
        long first = s.begin();
        s.submitted();
        assertTrue(s.changed(), "a change while shown starts the debounce");
        assertEquals(-1, s.begin(), "one answer in flight at a time");
        assertEquals(-1, s.begin(), "and a second request while it computes is the same one");
        assertFalse(s.settled(false));
        assertEquals(Landing.ASK_AGAIN, s.land(first), "the stale answer is dropped and the view asks again");
        long second = s.begin();
        assertEquals(first + 1, second, "asked once, not once per request");
        s.submitted();
        assertEquals(Landing.SHOW, s.land(second));
        assertTrue(s.settled(false));
    }

    @Test
    void anAnswerToAnOlderSerialIsNotShown() {
        SiteViewModel s = new SiteViewModel();
        s.setActive(true);
        long first = s.begin();
        s.submitted();
        assertEquals(Landing.SHOW, s.land(first));
        long second = s.begin(); // answered at once (no trace): no task
        assertEquals(Landing.STALE, s.land(first), "a late callback of the first request");
        assertTrue(second > first);
    }

    @Test
    void aRequestWaitingForTheSharedAnalysisIsAskedWhenItArrives() {
        SiteViewModel s = new SiteViewModel();
        s.setActive(true);
        s.begin();
        s.waitForShared();
        assertFalse(s.settled(false), "waiting for the shared analysis");
        assertFalse(s.inFlight(), "no task of its own meanwhile");
        assertTrue(s.sharedArrived(false), "the analysis it waited for: ask again");
        assertFalse(s.waitingShared());
        assertFalse(s.sharedArrived(false), "another memory's analysis, not waited for: nothing to do");
        assertTrue(s.sharedArrived(true), "a fresher analysis of the shown memory (a live session grew): ask again");
    }

    @Test
    void theDebounceKeepsTheViewUnsettled() {
        SiteViewModel s = new SiteViewModel();
        s.setActive(true);
        s.land(s.begin());
        assertTrue(s.settled(false));
        assertFalse(s.settled(true), "a request waits for its debounce");
    }

    @Test
    void onlyTheNewestSelectionIsPublished() {
        SiteViewModel s = new SiteViewModel();
        long a = s.beginSelect();
        long b = s.beginSelect();
        assertFalse(s.selectCurrent(a), "a slower, older selection's members arrive late: dropped");
        assertTrue(s.selectCurrent(b));
    }

    @Test
    void theAnalysisIsBuiltAheadOnlyWhenItsIndexFitsAQuarterOfTheFreeHeap() {
        long gib = 1L << 30;
        // 1 M events: a 40 MB index; 1 GiB free: a quarter is 256 MiB
        assertTrue(SiteViewModel.worthPrebuilding(1_000_000, 2 * gib, gib));
        // 10 M events: 400 MB, more than a quarter of 1 GiB
        assertFalse(SiteViewModel.worthPrebuilding(10_000_000, 2 * gib, gib));
        // exactly a quarter fits
        long free = 400_000_000L * 4;
        assertTrue(SiteViewModel.worthPrebuilding(10_000_000, free, 0));
        assertFalse(SiteViewModel.worthPrebuilding(10_000_001, free, 0));
        // a heap already fuller than its maximum (after a live session grew): nothing is free
        assertFalse(SiteViewModel.worthPrebuilding(1, gib, 2 * gib));
    }
}
