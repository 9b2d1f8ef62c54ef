package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.ui.events.EventRow;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.timeline.DrawList;
import dev.arenascope.app.ui.timeline.StripeLayer;
import dev.arenascope.app.ui.timeline.TimelinePainter;
import dev.arenascope.core.format.TimeAxis;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.torch.SyntheticSnapshot;

/**
 * A PyTorch snapshot without {@code time_us} (generated: one device, blocks live before its trace) as
 * a user reads it: the axis, the hover cards, the Events table and its detail, and the Sites caption
 * speak in entries, never in time; the blocks older than the trace are named "live before recording
 * began" in their stripes' cards and in the table, not as the program's own at the start.
 */
class UntimedSnapshotTest extends WindowTestBase {
    @TempDir
    Path dir;

    /** A time with a unit, as the window writes one ({@code 3.27 ms}, {@code 0 ns}, {@code 1.234 s}). */
    private static final Pattern TIME = Pattern.compile("\\b\\d+(\\.\\d+)? (ns|µs|ms|s)\\b");

    private DrawList.Lane stripedLane() {
        DrawList d = window.timeline().drawListProperty().get();
        return d == null ? null : d.lanes().stream().filter(l -> l.memory().kind() == MemoryKind.SEGMENTED && l.stripes() != null)
                .findFirst().orElse(null);
    }

    @Test
    void everythingSpeaksInEntriesAndOlderBlocksAreNamed() throws Exception {
        Path f = dir.resolve("untimed.pickle");
        SyntheticSnapshot.Summary sum = SyntheticSnapshot.write(f, new SyntheticSnapshot.Spec(7, 2000, 100, 0, 0, 0, false, false));
        assertTrue(sum.initial() > 0, "the generator leaves blocks live before the trace");
        openUntilLoaded(f);
        assertEquals(TimeAxis.ENTRIES, fx(() -> window.model().timeAxis()));
        // the status bar's range (it read "view 0 ns – 5.16 ms (5.16 ms)" under Xvfb), the view's and a selection's
        String view = fx(() -> ((Label) stage.getScene().lookup("#status-range")).getText());
        assertTrue(view.startsWith("view entry 0 – entry ") && view.endsWith(" entries)"), "the status bar: " + view);
        assertFalse(TIME.matcher(view).find(), "no time in the status bar: " + view);
        fxRun(() -> window.model().selectionProperty().set(new TimeRange(3_000, 120_000)));
        assertEquals("selected entry 3 – entry 120 (117 entries)", fx(() -> ((Label) stage.getScene().lookup("#status-range")).getText()));
        fxRun(() -> window.model().selectionProperty().set(null));

        // the first 40 entries: the older blocks' stripes are there, drawn by default for a snapshot
        fxRun(() -> window.model().viewRangeProperty().set(new TimeRange(0, 40_000)));
        waitForSettled(60, "the stripes of the first 40 entries", () -> {
            DrawList d = window.timeline().drawListProperty().get();
            return d != null && d.range().toNs() == 40_000 && stripedLane() != null && window.timeline().idle();
        });
        record Cards(DrawList d, String laneCard, List<String> stripeCards) {}
        Cards cards = fx(() -> {
            DrawList d = window.timeline().drawListProperty().get();
            DrawList.Lane lane = stripedLane();
            StripeLayer s = lane.stripes();
            int col = 2;
            List<String> stripe = new ArrayList<>();
            for (int row = s.height() - 1; row >= 0; row--) {
                if (s.stripeAt(col, row) >= 0) {
                    stripe.add(window.timeline().hoverAt(col + 0.5, lane.gaugeTop() + row + 0.5));
                }
            }
            return new Cards(d, window.timeline().hoverAt(d.width() / 2.0, lane.gaugeTop() + 1), stripe);
        });
        assertEquals(TimeAxis.ENTRIES, cards.d().time(), "the axis counts entries");
        // its ticks: whole entries, bare numbers under the axis's title (it read "0 ns … 10.00 ms")
        TimeAxis.Ticks ticks = TimelinePainter.axisTicks(cards.d(), cards.d().width());
        assertTrue(ticks.count() >= 2, "ticks over 40 entries: " + ticks);
        for (int i = 0; i < ticks.count(); i++) {
            String label = ticks.label(ticks.at(i));
            assertTrue(label.matches("[0-9][0-9,]*") && ticks.at(i) % TimeAxis.NS_PER_ENTRY == 0, "tick " + i + " at a whole entry, bare: " + label);
        }
        assertTrue(cards.laneCard().contains("entr"), cards.laneCard());
        assertFalse(TIME.matcher(cards.laneCard()).find(), "no time in the card: " + cards.laneCard());
        assertFalse(cards.stripeCards().isEmpty(), "stripes in the first columns");
        String before = cards.stripeCards().stream().filter(c -> c.contains(Event.BEFORE_RECORDING)).findFirst().orElse(null);
        assertNotNull(before, "an older block's card names it: " + cards.stripeCards());
        assertFalse(before.contains("site (no site)"), before);
        for (String c : cards.stripeCards()) {
            assertFalse(TIME.matcher(c).find(), "no time in the stripe's card: " + c);
        }

        // the Events table and its detail pane
        fxRun(() -> window.model().viewRangeProperty().set(new TimeRange(0, 200_000)));
        waitForSettled(60, "the table lists the first 200 entries", () -> !window.events().table().getItems().isEmpty()
                && window.events().shownRangeProperty().get() != null && window.events().shownRangeProperty().get().toNs() == 200_000);
        record Rows(List<String> times, List<String> details, String summary) {}
        Rows rows = fx(() -> {
            TraceView t = window.model().trace();
            @SuppressWarnings("unchecked")
            TableColumn<EventRow, String> time = (TableColumn<EventRow, String>) window.events().table().getColumns().get(1);
            assertEquals("Time", time.getText());
            List<String> times = new ArrayList<>();
            List<String> details = new ArrayList<>();
            var items = window.events().table().getItems();
            for (int i = 0; i < items.size(); i++) {
                times.add(time.getCellData(i));
                details.add(EventRow.detail(t, items.get(i).event()));
            }
            return new Rows(times, details, window.events().summaryText());
        });
        int older = 0;
        for (int i = 0; i < rows.times().size(); i++) {
            String time = rows.times().get(i);
            assertTrue(time.startsWith("entry ") || time.equals("before recording"), "row " + i + ": " + time);
            if (time.equals("before recording")) {
                older++;
                assertTrue(rows.details().get(i).startsWith(Event.BEFORE_RECORDING), rows.details().get(i));
            }
        }
        assertEquals(sum.initial(), older, "each older block's row says so");
        assertFalse(TIME.matcher(rows.summary()).find(), "the table's summary: " + rows.summary());

        // the Sites caption
        fxRun(() -> window.tabs().getSelectionModel().select(window.sitesTab()));
        waitForSettled(60, "the sites answer", () -> window.sites().summary().getText().contains("peak"));
        String caption = fx(() -> window.sites().summary().getText());
        assertTrue(caption.contains("at entry "), caption);
        assertFalse(TIME.matcher(caption).find(), caption);
    }
}
