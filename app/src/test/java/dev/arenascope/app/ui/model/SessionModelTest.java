package dev.arenascope.app.ui.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.core.analysis.SiteMembers;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.store.EventStore;

/** The view model without a window: everything on the test thread. */
class SessionModelTest {

    @Test
    void showZoomPanAndDigest() {
        EventStore s = new EventStore("t");
        SyntheticTrace.write(5, 50_000, s);
        SessionModel m = new SessionModel(TaskRunner.sameThread());
        m.show(s, "t", "virtual");
        TimeRange all = m.boundsProperty().get();
        assertEquals(new TimeRange(s.startNs(), s.endNs() + 1), all);
        assertEquals(all, m.viewRangeProperty().get());
        assertEquals(50_000, m.digestProperty().get().events(), "the digest ran on this thread");
        assertFalse(m.digestProperty().get().scopes().isEmpty());
        assertFalse(m.digestProperty().get().bins().isEmpty());
        assertFalse(m.digestProperty().get().tensors().isEmpty());
        long mid = all.fromNs() + all.duration() / 2;
        m.zoom(0.5, mid);
        TimeRange z = m.viewRangeProperty().get();
        assertEquals(all.duration() / 2, z.duration(), 1);
        assertTrue(z.contains(mid));
        m.pan(-all.duration());
        assertEquals(all.fromNs(), m.viewRangeProperty().get().fromNs(), "panning stops at the session's start");
        m.zoom(1e-12, mid);
        assertEquals(SessionModel.MIN_VIEW_NS, m.viewRangeProperty().get().duration(), "zoom stops at the narrowest window");
        m.zoomToFit();
        assertEquals(all, m.viewRangeProperty().get());
        m.selectionProperty().set(new TimeRange(1, 2));
        m.selectedSiteProperty().set(new SiteSelection(0, "forward (model.py:39)", "live at the peak",
                SiteMembers.NONE));
        m.show(s, "again", "virtual");
        assertNull(m.selectionProperty().get(), "a new session clears the selection");
        assertNull(m.selectedSiteProperty().get(), "and the site view's selection");
    }

    @Test
    void openingAnotherFileDropsTheBaseline() {
        EventStore a = new EventStore("a");
        SyntheticTrace.write(5, 5_000, a);
        EventStore b = new EventStore("b");
        SyntheticTrace.write(6, 5_000, b);
        SessionModel m = new SessionModel(TaskRunner.sameThread());
        m.show(a, "a.astrace", "virtual");
        m.setBaseline(b, "b.astrace");
        assertEquals("b.astrace", m.baselineTitleProperty().get());
        assertFalse(m.baselinePairingProperty().get().isEmpty(), "the same synthetic memories pair");
        m.show(b, "c.pickle", "cuda:0");
        assertNull(m.baselineProperty().get(), "the next file is shown alone");
        assertEquals("", m.baselineTitleProperty().get(), "and its title names no baseline");
        assertTrue(m.baselinePairingProperty().get().isEmpty());
    }

    @Test
    void liveStoreFollowsTheEnd() {
        EventStore s = new EventStore("live");
        SyntheticTrace.announce(s);
        SyntheticTrace gen = new SyntheticTrace(9);
        s.onEvents(gen.next(10_000));
        SessionModel m = new SessionModel(TaskRunner.sameThread());
        m.followLiveProperty().set(true);
        m.show(s, "live", "virtual");
        m.zoom(0.1, s.endNs());
        long width = m.viewRangeProperty().get().duration();
        long rev = m.revisionProperty().get();
        EventBatch more = gen.next(10_000);
        s.onEvents(more);
        m.refresh();
        assertTrue(m.revisionProperty().get() > rev);
        assertEquals(20_000, m.eventCountProperty().get());
        assertEquals(s.endNs() + 1, m.viewRangeProperty().get().toNs(), "following keeps the newest events in view");
        assertEquals(width, m.viewRangeProperty().get().duration(), 1, "at the same zoom");
        assertEquals(20_000, m.digestProperty().get().events(), "the digest caught up incrementally");
    }

    /**
     * A live session whose workload creates its memory and then prepares for seconds: the axis runs to the
     * session's now (it was the 1 µs around the one event, with nothing in range, until more events came).
     */
    @Test
    void liveAxisRunsToTheSessionsNowBeforeMoreEventsCome() {
        EventStore s = new EventStore("live");
        SessionModel m = new SessionModel(TaskRunner.sameThread());
        AtomicLong now = new AtomicLong(0);
        m.followLiveProperty().set(true);
        m.showLive(s, "render · live", "host", now::get);
        assertEquals(new TimeRange(0, SessionModel.MIN_VIEW_NS), m.viewRangeProperty().get(), "nothing yet: the narrowest axis");
        SyntheticTrace.announce(s);
        SyntheticTrace gen = new SyntheticTrace(3);
        s.onEvents(gen.next(1)); // the memory's first event, after the window showed
        now.set(s.endNs() + 1_000_000);
        m.refresh();
        assertEquals(1, m.eventCountProperty().get());
        now.set(3_000_000_000L); // three seconds later, no more events yet
        m.refresh();
        TimeRange v = m.viewRangeProperty().get();
        assertEquals(3_000_000_001L, v.toNs(), "the axis runs to the session's now");
        assertTrue(v.contains(s.startNs()), "with the first event in view: " + v);
        long rev = m.revisionProperty().get();
        now.set(4_000_000_000L);
        m.refresh();
        assertEquals(rev, m.revisionProperty().get(), "time passing changes no events");
        assertEquals(4_000_000_001L, m.boundsProperty().get().toNs());
        m.liveEnded();
        now.set(9_000_000_000L);
        m.refresh();
        assertEquals(4_000_000_001L, m.boundsProperty().get().toNs(), "an ended session's axis ends where it did");
    }

    /**
     * Events that land while a refresh reads the store (after it read the last event's time, before it read
     * the count) are picked up by the next refresh: they were counted but left out of the bounds, and the
     * next refresh, seeing the count unchanged, never looked again.
     */
    @Test
    void eventsLandingDuringARefreshAreInTheNextOnesBounds() {
        EventStore s = new EventStore("live");
        SyntheticTrace.announce(s);
        SyntheticTrace gen = new SyntheticTrace(4);
        s.onEvents(gen.next(10));
        AtomicBoolean armed = new AtomicBoolean();
        TraceView landing = (TraceView) Proxy.newProxyInstance(TraceView.class.getClassLoader(), new Class<?>[] {TraceView.class},
                (proxy, method, args) -> {
                    Object r;
                    try {
                        r = method.invoke(s, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("endNs") && armed.compareAndSet(true, false)) {
                        s.onEvents(gen.next(5_000)); // the drain thread appends right after the refresh read the end
                    }
                    return r;
                });
        SessionModel m = new SessionModel(TaskRunner.sameThread());
        m.followLiveProperty().set(true);
        m.show(landing, "live", "virtual");
        s.onEvents(gen.next(10));
        armed.set(true);
        m.refresh();
        m.refresh(); // no events since: this refresh must still see the burst
        assertEquals(5_020, m.eventCountProperty().get());
        assertEquals(new TimeRange(s.startNs(), s.endNs() + 1), m.boundsProperty().get(), "the burst is inside the bounds");
        assertEquals(m.boundsProperty().get(), m.viewRangeProperty().get(), "and in view");
    }
}
