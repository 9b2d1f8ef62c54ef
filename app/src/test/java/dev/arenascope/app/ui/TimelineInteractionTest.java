package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import javafx.geometry.Bounds;
import javafx.geometry.VerticalDirection;
import javafx.scene.control.Label;
import javafx.scene.input.KeyCode;
import javafx.scene.input.MouseButton;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.ui.events.EventRow;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.timeline.DrawList;
import dev.arenascope.app.ui.timeline.TimelineView;
import dev.arenascope.core.analysis.ScopeAnalysis;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.store.EventStore;

/** The timeline on a recorded session: zoom, pan, range selection and the views that follow it. */
class TimelineInteractionTest extends WindowTestBase {

    private EventStore showSynthetic() {
        EventStore s = new EventStore("synthetic");
        SyntheticTrace.write(11, 100_000, s);
        fxRun(() -> window.model().show(s, "synthetic", "virtual"));
        waitForSettled(20, "first frame", () -> window.timeline().drawListProperty().get() != null
                && window.timeline().drawListProperty().get().events() == s.eventCount());
        waitForSettled(20, "digest", () -> window.model().digestProperty().get().events() == s.eventCount());
        return s;
    }

    @Test
    void wheelZoomsAndDragPans() {
        EventStore s = showSynthetic();
        TimeRange before = fx(() -> window.model().viewRangeProperty().get());
        assertEquals(new TimeRange(s.startNs(), s.endNs() + 1), before, "opens on the whole session");
        Bounds b = fx(() -> window.timeline().canvas().localToScreen(window.timeline().canvas().getBoundsInLocal()));
        robot.moveTo(b.getMinX() + 400, b.getMinY() + 80);
        // Monocle's robot reports a wheel turned "down" as deltaY > 0, which is "up" (zoom in) on desktops
        robot.scroll(5, VerticalDirection.DOWN);
        waitForSettled(10, "zoomed in", () -> window.model().viewRangeProperty().get().duration() < before.duration() / 2);
        TimeRange zoomed = fx(() -> window.model().viewRangeProperty().get());
        waitForSettled(10, "frame of the zoomed range", () -> window.timeline().drawListProperty().get().range().equals(zoomed));
        robot.drag(b.getMinX() + 600, b.getMinY() + 80, MouseButton.PRIMARY).moveBy(-200, 0).release(MouseButton.PRIMARY);
        waitForSettled(10, "panned right", () -> window.model().viewRangeProperty().get().fromNs() > zoomed.fromNs());
        TimeRange panned = fx(() -> window.model().viewRangeProperty().get());
        assertEquals(zoomed.duration(), panned.duration(), "panning keeps the zoom");
        String tip = fx(() -> window.timeline().hoverAt(300, 80));
        assertTrue(tip.contains("frame"), "tooltip names the lane's memory: " + tip);
        assertTrue(tip.matches("(?s).*\\d+(\\.\\d+)? (B|KiB|MiB|GiB).*"), "tooltip has byte figures with units: " + tip);
    }

    @Test
    void theHoverCardFollowsAPanUnderAStillPointer() {
        EventStore s = showSynthetic();
        TimeRange whole = fx(() -> window.model().viewRangeProperty().get());
        TimeRange half = new TimeRange(whole.fromNs(), whole.fromNs() + whole.duration() / 2);
        fxRun(() -> window.model().viewRangeProperty().set(half));
        waitForSettled(20, "frame of the first half", () -> window.timeline().drawListProperty().get().range().equals(half));
        String first = fx(() -> window.timeline().hoverAt(300, 80));
        assertTrue(first.contains("time "), first);
        // the view moves under the pointer (a key's pan, a live session's follow): the card is redone
        fxRun(() -> window.model().pan(half.duration() / 2));
        TimeRange panned = fx(() -> window.model().viewRangeProperty().get());
        waitForSettled(20, "frame of the panned range", () -> window.timeline().drawListProperty().get().range().equals(panned));
        String now = fx(() -> window.timeline().hoverTextProperty().get());
        String expected = fx(() -> TimelineView.describe(window.timeline().drawListProperty().get(), 300, 80));
        assertEquals(expected, now, "the card describes the new frame");
        assertFalse(now.equals(first), "and not the old one: " + first);
        assertTrue(s.eventCount() > 0);
    }

    @Test
    void rangeSelectionDrivesTheEventsTable() {
        EventStore s = showSynthetic();
        Bounds b = fx(() -> window.timeline().canvas().localToScreen(window.timeline().canvas().getBoundsInLocal()));
        robot.press(KeyCode.SHIFT);
        robot.drag(b.getMinX() + 300, b.getMinY() + 100, MouseButton.PRIMARY).moveBy(120, 0).release(MouseButton.PRIMARY);
        robot.release(KeyCode.SHIFT);
        waitForSettled(5, "a selected range", () -> window.model().selectionProperty().get() != null);
        TimeRange sel = fx(() -> window.model().selectionProperty().get());
        waitForSettled(20, "the events table lists the selection", () -> sel.equals(window.events().shownRangeProperty().get()));
        int rows = fx(() -> window.events().table().getItems().size());
        long expected = s.firstIndexAtOrAfter(sel.toNs()) - s.firstIndexAtOrAfter(sel.fromNs());
        assertEquals(expected, rows, "every event of the selection is listed");
        assertTrue(rows > 0);
        EventRow first = fx(() -> window.events().table().getItems().get(0));
        EventRow last = fx(() -> window.events().table().getItems().get(rows - 1));
        assertTrue(sel.contains(first.event().timeNs()) && sel.contains(last.event().timeNs()), "rows lie in the selection");
        String status = fx(() -> window.statusBar().getRightItems().stream()
                .filter(n -> n instanceof Label).map(n -> ((Label) n).getText())
                .filter(t -> t.startsWith("selected")).findFirst().orElse(""));
        assertFalse(status.isEmpty(), "the status bar shows the selected range");

        // filters: only allocations, then a search for a descriptor
        fxRun(() -> window.events().kindsFilter().getCheckModel().check(EventKind.ALLOC));
        waitForSettled(10, "allocations only", () -> {
            var items = window.events().table().getItems();
            return !items.isEmpty() && items.size() < rows
                    && items.stream().allMatch(r -> r.event().kind() == EventKind.ALLOC);
        });
        fxRun(() -> window.events().searchField().setText("uint8"));
        waitForSettled(10, "search applied", () -> {
            var items = window.events().table().getItems();
            return !items.isEmpty() && items.stream().allMatch(r -> EventRow.detail(window.model().trace(), r.event()).contains("uint8"));
        });
        fxRun(() -> {
            window.events().searchField().setText("");
            window.events().kindsFilter().getCheckModel().clearChecks();
        });
        waitForSettled(10, "filters cleared", () -> window.events().table().getItems().size() == rows);

        // a row marks the instant on the timeline, and back
        fxRun(() -> window.events().table().getSelectionModel().select(5));
        long t5 = fx(() -> window.events().table().getItems().get(5).event().timeNs());
        assertEquals(t5, fx(() -> window.model().cursorProperty().get()));
        fxRun(() -> window.model().cursorProperty().set(last.event().timeNs()));
        waitForSettled(5, "the table selects the event at the cursor", () -> {
            EventRow r = window.events().table().getSelectionModel().getSelectedItem();
            return r != null && r.event().timeNs() == last.event().timeNs();
        });
    }

    @Test
    void selectingAScopeHighlightsItsExecutions() {
        showSynthetic();
        fxRun(() -> window.tabs().getSelectionModel().select(1));
        waitForSettled(10, "scope rows", () -> window.scopes().tree().getExpandedItemCount() > 1);
        ScopeAnalysis target = fx(() -> window.model().digestProperty().get().scopes().stream()
                .filter(sc -> sc.depth() == 1).findFirst().orElseThrow());
        assertTrue(fx(() -> window.scopes().select(target.memory(), target.path())));
        assertEquals(target.path(), fx(() -> window.model().selectedScopeProperty().get().path()));
        waitForSettled(10, "highlights on the timeline", () -> {
            DrawList d = window.timeline().drawListProperty().get();
            return d != null && d.lanes().stream().anyMatch(l -> l.memory().id() == target.memory() && l.highlights().length >= 2);
        });
        DrawList d = fx(() -> window.timeline().drawListProperty().get());
        DrawList.Lane lane = d.lanes().stream().filter(l -> l.memory().id() == target.memory()).findFirst().orElseThrow();
        double[] hl = lane.highlights();
        // the first highlighted span starts where an execution of the scope starts
        int i = target.executionTimes().firstEndingAfter(d.timeAt(Math.max(0, hl[0] - 1)));
        assertNotNull(target);
        assertTrue(i < target.executionTimes().count() && Math.abs(Math.max(0, d.xOf(target.executionTimes().start(i))) - hl[0]) <= 1.5,
                "highlight at x=" + hl[0] + " matches an execution of " + target.path());
    }
}
