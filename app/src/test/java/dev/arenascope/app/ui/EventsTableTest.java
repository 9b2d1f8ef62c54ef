package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TextField;
import javafx.scene.text.Text;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.ui.common.Styles;
import dev.arenascope.app.ui.events.EventRow;
import dev.arenascope.app.ui.events.EventsView;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.core.trace.EventKind;

/** The events table as a user drives it: sizes, search, sort, a new file, clicks on the timeline. */
class EventsTableTest extends WindowTestBase {
    @TempDir
    Path dir;
    private Path render;

    @BeforeEach
    void openRender() throws Exception {
        render = Recordings.record("render", Map.of("frames", "16", "max-batch", "4"), dir.resolve("render.astrace"));
        open(render);
    }

    private void open(Path f) {
        fxRun(() -> window.open(f));
        waitForSettled(60, "the file and its digest", () -> window.model().titleProperty().get().equals(f.getFileName().toString())
                && window.model().eventCountProperty().get() > 0
                && window.model().digestProperty().get().events() == window.model().eventCountProperty().get());
        waitForSettled(20, "the table lists the file", () -> window.events().table().getItems().size() == window.model().trace().eventCount());
    }

    private TextField minSize() {
        return fx(() -> (TextField) window.scene().lookup("#events-min-size"));
    }

    /** Whether the rows' Bytes keys never grow from one row to the next. */
    private static boolean largestFirst(List<EventRow> items) {
        for (int i = 1; i < items.size(); i++) {
            if (EventRow.bytesKey(items.get(i - 1).event()) < EventRow.bytesKey(items.get(i).event())) {
                return false;
            }
        }
        return true;
    }

    private void waitListed(String what, BooleanSupplier c) {
        waitForSettled(40, what, c);
    }

    @Test
    void rowsAreOneLineTallAndTheIndexColumnHoldsTheLargestIndex() {
        var table = window.events().table();
        double row = fx(table::getFixedCellSize);
        assertTrue(row > 0 && row <= 30, "one line a row: " + row);
        assertEquals("first ⏎ second", EventsView.oneLine("first\r\n  second\n"));
        assertEquals("plain", EventsView.oneLine("plain"));
        // the "#" column: wide enough for this trace's largest index, and for a 1.7 M-event trace's
        long events = fx(() -> window.model().trace().eventCount());
        double width = fx(() -> table.getColumns().getFirst().getWidth());
        double need = fx(() -> {
            Text t = new Text(String.format(java.util.Locale.ROOT, "%,d", events - 1));
            t.setFont(javafx.scene.text.Font.getDefault());
            return t.getLayoutBounds().getWidth();
        });
        assertTrue(width >= need + 10, "'#' is " + width + " px for " + need + " px of digits");
        double big = fx(() -> {
            Text t = new Text("1,769,123");
            t.setFont(javafx.scene.text.Font.getDefault());
            return t.getLayoutBounds().getWidth();
        });
        assertTrue(fx(() -> EventsView.indexColumnWidth(1_769_124, javafx.scene.text.Font.getDefault())) >= big + 10);
    }

    @Test
    void minSizeAcceptsEveryUnitSpellingAndShowsItsWholePlaceholder() {
        TextField f = minSize();
        for (String s : new String[] {"1Mi", "1MiB", "1MB", "1M", "1048576"}) {
            fxRun(() -> f.setText(s));
            assertEquals(1L << 20, fx(() -> window.events().filter().minBytes()), s);
            assertFalse(fx(() -> f.getStyleClass().contains(Styles.ERROR_TEXT)), s + " is accepted");
        }
        fxRun(() -> f.setText("300Mi"));
        assertEquals(300L << 20, fx(() -> window.events().filter().minBytes()));
        fxRun(() -> f.setText(""));
        double need = fx(() -> {
            Text t = new Text(f.getPromptText());
            t.setFont(f.getFont());
            return t.getLayoutBounds().getWidth() + f.getPadding().getLeft() + f.getPadding().getRight();
        });
        assertTrue(fx(f::getWidth) >= need, "the placeholder '" + fx(f::getPromptText) + "' fits: " + fx(f::getWidth) + " < " + need);
    }

    @Test
    void searchingAScopeNameFindsTheAllocationsInsideIt() {
        fxRun(() -> window.events().searchField().setText("batch"));
        waitListed("rows for 'batch'", () -> fx(() -> window.events().table().getItems().stream()
                .anyMatch(r -> r.event().kind() == EventKind.ALLOC)));
        assertTrue(fx(() -> window.events().table().getItems().stream().anyMatch(r -> r.event().kind() == EventKind.SCOPE_ENTER)));
    }

    @Test
    void columnsSortAndANewFileResetsTheFilters() throws Exception {
        @SuppressWarnings("unchecked")
        TableColumn<EventRow, ?> bytes = fx(() -> window.events().table().getColumns().stream()
                .filter(c -> c.getText().equals("Bytes")).findFirst().orElseThrow());
        assertTrue(fx(bytes::isSortable));
        fxRun(() -> {
            bytes.setSortType(TableColumn.SortType.DESCENDING);
            window.events().table().getSortOrder().setAll(bytes);
        });
        waitForSettled(40, "sorted by bytes, largest first", () -> {
            var items = window.events().table().getItems();
            return items.size() >= 2 && EventRow.bytesKey(items.get(0).event()) > 0 && largestFirst(items);
        }, () -> {
            var t = window.events().table();
            var items = t.getItems();
            StringBuilder b = new StringBuilder();
            b.append(items.size()).append(" rows, sort order ").append(t.getSortOrder().stream().map(c -> c.getText() + " " + c.getSortType()).toList())
                    .append(", summary '").append(fx(() -> ((Label) window.scene().lookup("#events-summary")).getText()))
                    .append("', tasks ").append(window.model().tasks().running().stream().map(h -> h.title()).toList()).append(", first bytes");
            for (int i = 0; i < Math.min(8, items.size()); i++) {
                b.append(' ').append(EventRow.bytesKey(items.get(i).event()));
            }
            return b.toString();
        });

        // a new listing (another filter) keeps the sort: the table's own reset of it when its items are
        // replaced must not turn the user's order back into trace order
        fxRun(() -> minSize().setText("1"));
        waitForSettled(40, "the filtered rows, still largest first", () -> {
            var items = window.events().table().getItems();
            return !items.isEmpty() && "1".equals(minSize().getText()) && !window.events().table().getSortOrder().isEmpty()
                    && items.stream().allMatch(r -> EventRow.bytesKey(r.event()) >= 1) && largestFirst(items);
        }, () -> window.events().table().getItems().size() + " rows, sort order " + window.events().table().getSortOrder().size());
        assertEquals(TableColumn.SortType.DESCENDING, fx(bytes::getSortType));

        fxRun(() -> window.events().searchField().setText("no-such-thing-anywhere"));
        waitListed("nothing matches", () -> fx(() -> window.events().table().getItems().isEmpty()));
        Path other = Recordings.record("render", Map.of("frames", "8", "max-batch", "2"), dir.resolve("other.astrace"));
        open(other); // waits until every event of the new file is listed: the search was cleared
        assertEquals("", fx(() -> window.events().searchField().getText()));
        assertTrue(fx(() -> window.events().table().getSortOrder().isEmpty()), "the sort is reset too");
    }

    @Test
    void aClickOutsideTheSelectionSelectsNoRow() {
        TimeRange b = fx(() -> window.model().boundsProperty().get());
        long mid = b.fromNs() + b.duration() / 2;
        TimeRange sel = new TimeRange(b.fromNs(), mid);
        fxRun(() -> window.model().selectionProperty().set(sel));
        waitListed("the selection listed", () -> sel.equals(fx(() -> window.events().shownRangeProperty().get())));
        // a click on an event inside the selection: the middle one listed (the recording's events may bunch, so
        // the selection's middle instant need not have an event at or after it inside the range)
        long inside = fx(() -> {
            var items = window.events().table().getItems();
            return items.get(items.size() / 2).event().timeNs();
        });
        fxRun(() -> window.model().cursorProperty().set(inside));
        // the table answers on the FX thread, after any listing still in flight (a loaded run once saw none selected
        // at the first look): wait for it, and say what the table showed if it never comes
        waitForSettled(10, "a click inside selects its event", () -> window.events().table().getSelectionModel().getSelectedIndex() >= 0,
                () -> window.events().table().getItems().size() + " rows, shown " + window.events().shownRangeProperty().get()
                        + ", selection " + window.model().selectionProperty().get() + ", cursor " + window.model().cursorProperty().get()
                        + ", site filter " + window.model().selectedSiteProperty().get()
                        + ", summary " + ((Label) window.scene().lookup("#events-summary")).getText());
        fxRun(() -> window.model().cursorProperty().set(b.toNs() - 2));
        assertEquals(-1, fx(() -> window.events().table().getSelectionModel().getSelectedIndex()),
                "a click after the selection selects no row (not the range's last)");
    }
}
