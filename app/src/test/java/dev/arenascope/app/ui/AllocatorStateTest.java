package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import javafx.geometry.Bounds;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyEvent;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.slots.AddressMap;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.testsupport.Fixtures;

/**
 * The allocator's state at an instant, in its own tab: a PyTorch snapshot's segments and blocks at the
 * cursor, stepped event by event with the arrow keys; a pool's rounding waste.
 */
class AllocatorStateTest extends WindowTestBase {

    private void key(KeyCode code) {
        fxRun(() -> window.allocator().canvas().fireEvent(new KeyEvent(KeyEvent.KEY_PRESSED, "", "",
                code, false, false, false, false)));
    }

    /** The open trace's first memory of kind {@code k}. */
    private MemoryInfo firstMemory(MemoryKind k) {
        return fx(() -> window.model().trace().memories().stream().filter(m -> m.kind() == k).findFirst().orElseThrow());
    }

    /** The allocator's tab on memory {@code m}, with the cursor at {@code atNs}. */
    private void showAddressMap(MemoryInfo m, long atNs) {
        fxRun(() -> {
            window.tabs().getSelectionModel().select(window.tabs().getTabs().stream().filter(x -> x.getId().equals("tab-allocator")).findFirst().orElseThrow());
            window.allocator().memorySelector().setValue(m);
            window.model().cursorProperty().set(atNs);
        });
    }

    private AddressMap.Snapshot shown() {
        return window.allocator().addressMapShown();
    }

    @Test
    void snapshotSegmentsAtTheCursorSteppedEventByEvent() {
        Path f = Fixtures.torch("cs336-a2-magma27.pickle");
        openUntilLoaded(f);
        MemoryInfo cuda = firstMemory(MemoryKind.SEGMENTED);
        // the allocator's state has its own tab, opened on the device's address map
        String tabText = fx(() -> window.tabs().getTabs().stream().filter(x -> x.getId().equals("tab-allocator")).findFirst().orElseThrow().getText());
        assertEquals("Allocator", tabText);
        assertEquals(cuda, fx(() -> window.allocator().memorySelector().getValue()));
        TraceView t = fx(() -> window.model().trace());
        long at = t.endNs() / 2;
        showAddressMap(cuda, at);
        waitForSettled(20, "the map at the cursor", () -> shown() != null && shown().atNs() == at && shown().memory().id() == cuda.id());
        waitForSettled(30, "the memory's checkpoints built in the background", () -> fx(() -> window.allocator().replayPrepared()));
        AddressMap.Snapshot s = fx(this::shown);
        long reserved = s.blocks().stream().filter(b -> b.state() == AddressMap.State.RESERVED).mapToLong(AddressMap.Block::bytes).sum();
        long inUse = s.blocks().stream().filter(b -> b.state() != AddressMap.State.RESERVED).mapToLong(AddressMap.Block::bytes).sum();
        assertEquals(t.gauges(cuda.id(), at, at + 1, 1).usedLast()[0], inUse, "the blocks are the bytes in use at the cursor");
        assertEquals(reserved - inUse, s.gapBytes(), "free is what the segments hold beyond their blocks; gaps between segments are not");
        String caption = fx(() -> window.allocator().infoLabel().getText());
        assertTrue(caption.contains("segments") && caption.contains("reserved") && caption.contains("free in segments")
                && caption.contains("after event #"), caption);

        // the arrow keys step one event of this memory at a time, and move the cursor with it (the keys are
        // sent to the map's canvas, where a click puts the focus; the scene would pan the timeline with them)
        Bounds b = fx(() -> window.allocator().canvas().getBoundsInLocal());
        long end0 = s.end();
        long next = fx(() -> AddressMap.nextEnd(t, cuda, end0, Long.MAX_VALUE));
        assertTrue(next > end0, "there is an event to step to");
        key(KeyCode.RIGHT);
        waitForSettled(20, "one event on", () -> shown() != null && shown().end() == next);
        AddressMap.Snapshot after = fx(this::shown);
        Event e = t.event(next - 1);
        assertEquals(cuda.id(), e.memory());
        assertEquals(next - 1, after.lastEvent(), "the caption names the event just applied");
        assertTrue(after.lastText().startsWith(e.kind().name().toLowerCase().replace('_', ' ')), after.lastText());
        waitForSettled(10, "the cursor follows the step", () -> window.model().cursorProperty().get() == after.atNs());
        assertTrue(after.atNs() >= e.timeNs() && after.atNs() >= at, "at the event's effective time (the latest time seen up to it)");
        long delta = after.blocks().stream().filter(x -> x.state() != AddressMap.State.RESERVED).mapToLong(AddressMap.Block::bytes).sum() - inUse;
        switch (e.kind()) {
            case ALLOC -> assertEquals(e.b(), delta, "an allocation adds its block");
            case FREE -> assertEquals(-e.b(), delta, "a free removes its block");
            default -> assertEquals(0, delta);
        }
        key(KeyCode.LEFT);
        waitForSettled(20, "and back", () -> shown() != null && shown().end() <= end0 && shown().end() < next);
        assertEquals(inUse, (long) fx(() -> shown().blocks().stream().filter(x -> x.state() != AddressMap.State.RESERVED)
                .mapToLong(AddressMap.Block::bytes).sum()), "back to the same blocks");
        // the timeline did not pan: the keys went to the map
        assertEquals(fx(() -> window.model().boundsProperty().get()), fx(() -> window.model().viewRangeProperty().get()));

        // hover: a block names its address range and segment
        String card = "";
        for (int x = 110; x < b.getWidth() - 20 && !card.contains("in the segment"); x += 7) {
            int cx = x;
            card = fx(() -> window.allocator().hoverAt(cx, 20));
        }
        assertTrue(card.contains("in the segment 0x"), card);
        // the card is a card, not a wall: its first line names the block in one line of text, then the
        // block's address range and size
        String blockCard = card;
        for (int x = 110; x < b.getWidth() - 20 && (blockCard.isEmpty() || blockCard.startsWith("free")); x += 3) {
            int cx = x;
            blockCard = fx(() -> window.allocator().hoverAt(cx, 20));
        }
        card = blockCard;
        List<String> lines = card.lines().toList();
        assertTrue(lines.getFirst().length() <= 130, "the block's one-line name: " + lines.getFirst());
        assertTrue(lines.size() >= 4 && lines.get(1).matches("0x[0-9a-f]+ – 0x[0-9a-f]+") && lines.get(2).startsWith("size ")
                && lines.get(2).contains(" B)") && lines.get(3).startsWith("requested "), card);
        assertTrue(lines.size() <= 24, "a short card: " + card);
    }

    @Test
    void afterAClickOnTheMapTheArrowKeysStepItAndLeaveTheTabsAlone() {
        openUntilLoaded(Fixtures.torch("cs336-a2-magma27.pickle"));
        MemoryInfo cuda = firstMemory(MemoryKind.SEGMENTED);
        long at = fx(() -> window.model().trace().endNs()) / 2;
        showAddressMap(cuda, at);
        waitForSettled(20, "the map at the cursor", () -> shown() != null && shown().atNs() == at);
        Object tab = fx(() -> window.tabs().getSelectionModel().getSelectedItem());
        Bounds b = fx(() -> window.allocator().canvas().localToScreen(window.allocator().canvas().getBoundsInLocal()));
        // on the map's first band (where the hover test finds blocks), inside what the tab shows
        robot.moveTo(b.getMinX() + 120, b.getMinY() + 20).clickOn(javafx.scene.input.MouseButton.PRIMARY);
        waitForSettled(20, "the click handled", () -> shown() != null && window.scene().getFocusOwner() == window.allocator().canvas(),
                () -> "focus owner " + window.scene().getFocusOwner());
        long end0 = fx(() -> shown().end());
        robot.type(KeyCode.RIGHT);
        waitForSettled(20, "one event on", () -> shown() != null && shown().end() > end0);
        assertEquals(tab, fx(() -> window.tabs().getSelectionModel().getSelectedItem()), "the tab stays");
        // the slot map keeps its arrows too
        fxRun(() -> window.tabs().getSelectionModel().select(window.tabs().getTabs().stream().filter(x -> x.getId().equals("tab-slots"))
                .findFirst().orElseThrow()));
        Object slotTab = fx(() -> window.tabs().getSelectionModel().getSelectedItem());
        Bounds sb = fx(() -> window.slots().canvas().localToScreen(window.slots().canvas().getBoundsInLocal()));
        robot.moveTo(sb.getMinX() + 120, sb.getMinY() + 20).clickOn(javafx.scene.input.MouseButton.PRIMARY);
        robot.type(KeyCode.RIGHT);
        robot.type(KeyCode.LEFT);
        waitForSettled(10, "the keys handled", () -> true);
        assertEquals(slotTab, fx(() -> window.tabs().getSelectionModel().getSelectedItem()), "the tab stays on the slot map");
    }

    @Test
    void aPendingFreeIsDrawnApartCountedAndNamedOnHover() {
        // fixtures/torch/README.md: magma27's largest pending free, 100,663,296 B, 1,492 us after the first entry
        Path f = Fixtures.torch("cs336-a2-magma27.pickle");
        openUntilLoaded(f);
        MemoryInfo cuda = firstMemory(MemoryKind.SEGMENTED);
        long at = 1_492_000;
        showAddressMap(cuda, at);
        waitForSettled(20, "the map at the cursor", () -> shown() != null && shown().atNs() == at && shown().memory().id() == cuda.id());
        AddressMap.Snapshot s = fx(this::shown);
        assertEquals(1, s.pendingCount());
        assertEquals(100_663_296L, s.pendingBytes());
        waitForSettled(10, "the caption counts it", () -> window.allocator().infoLabel().getText().contains("1 pending free (96.0 MiB)"));
        // hover finds the pending block and says when its free was requested
        Bounds b = fx(() -> window.allocator().canvas().getBoundsInLocal());
        String card = "";
        for (int y = 12; y < b.getHeight() - 30 && !card.startsWith("pending free"); y += 6) {
            for (int x = 106; x < b.getWidth() - 14 && !card.startsWith("pending free"); x += 3) {
                int cx = x;
                int cy = y;
                card = fx(() -> window.allocator().hoverAt(cx, cy));
            }
        }
        assertTrue(card.startsWith("pending free") && card.contains("free requested at " + TimeRange.formatTime(at)), card);
        // one step on: its free completes, nothing is pending, the bytes leave
        long inUse = s.blocks().stream().filter(x -> x.state() != AddressMap.State.RESERVED).mapToLong(AddressMap.Block::bytes).sum();
        key(KeyCode.RIGHT);
        waitForSettled(20, "the free completed", () -> shown() != null && shown().end() > s.end() && shown().pendingCount() == 0);
        assertEquals(inUse - 100_663_296L, (long) fx(() -> shown().blocks().stream().filter(x -> x.state() != AddressMap.State.RESERVED)
                .mapToLong(AddressMap.Block::bytes).sum()));
        assertTrue(fx(() -> shown().lastText()).startsWith("free 96.0 MiB"), fx(() -> shown().lastText()));
    }

    @Test
    void poolBlocksShowTheirRoundingWaste(@TempDir Path dir) throws Exception {
        Path f = Recordings.record("particles", Map.of("steps", "120"), dir.resolve("particles.astrace"));
        openUntilLoaded(f);
        MemoryInfo pool = firstMemory(MemoryKind.POOL);
        showAddressMap(pool, fx(() -> window.model().trace().endNs()) / 2);
        waitForSettled(20, "the pool's map", () -> shown() != null && shown().memory().id() == pool.id());
        AddressMap.Snapshot s = fx(this::shown);
        long waste = s.blocks().stream().filter(x -> x.state() == AddressMap.State.IN_USE).mapToLong(x -> x.bytes() - x.requested()).sum();
        assertTrue(waste > 0, "the pool's bins round requests up");
        assertEquals(waste + s.blocks().stream().filter(x -> x.state() == AddressMap.State.HELD).mapToLong(x -> x.bytes() - x.requested()).sum(),
                s.wasteBytes());
        assertTrue(fx(() -> window.allocator().infoLabel().getText()).contains("lost to rounding"));
    }
}
