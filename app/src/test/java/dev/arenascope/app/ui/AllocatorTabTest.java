package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javafx.geometry.BoundingBox;
import javafx.geometry.Bounds;
import javafx.scene.input.KeyCode;
import javafx.scene.input.MouseButton;
import javafx.scene.Node;
import javafx.scene.control.ComboBox;
import javafx.scene.control.TextField;
import javafx.scene.layout.Region;
import javafx.scene.text.Text;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.arenascope.app.ui.slots.AddressMap;
import dev.arenascope.app.ui.slots.AddressMapDrawList;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.testsupport.Fixtures;

/**
 * The allocator state in its own tab, at 1920×1080 and at the window's smallest size: a PyTorch snapshot
 * opens it on the device's map (not on the plan view's "No memory plan"), its legend lists what an
 * allocator has, its hover card reads like a timeline stripe's (address, size, state, requested size,
 * the Python frames first, the internal ones folded into a count) by the pointer and inside the view, and
 * after a click on the map the arrow keys step it, the tabs staying where they are.
 */
class AllocatorTabTest extends WindowTestBase {

    private void resize(double w, double h) {
        fxRun(() -> {
            stage.setWidth(w);
            stage.setHeight(h);
        });
        waitForSettled(10, "the window at " + w + "×" + h, () -> Math.abs(stage.getWidth() - w) < 1 && Math.abs(stage.getHeight() - h) < 1);
    }

    private void selectAllocatorTab() {
        fxRun(() -> window.tabs().getSelectionModel().select(window.tabs().getTabs().stream().filter(x -> x.getId().equals("tab-allocator"))
                .findFirst().orElseThrow()));
    }

    /** {@code f} opened on the Allocator tab, its map drawn. */
    private void openOnTheMap(Path f) {
        openUntilLoaded(f);
        selectAllocatorTab();
        waitForSettled(30, "the map drawn", () -> window.allocator().drawList() != null && window.allocator().addressMapShown() != null);
    }

    /** Where the map lies in the canvas: from the draw list's origin ({@code inset} px below its top) to the view's far edges. */
    private record MapArea(double x0, double y0, double width, double height) {
        /** The canvas point {@code fx} of the way across the map and {@code fy} of the way down. */
        double[] at(double fx, double fy) {
            return new double[] {x0 + fx * (width - x0 - 12), y0 + fy * (height - y0 - 40)};
        }
    }

    private MapArea mapArea(double inset) {
        return fx(() -> {
            Region holder = (Region) window.allocator().canvas().getParent();
            return new MapArea(window.allocator().drawList().x0(), window.allocator().drawList().top() + inset, holder.getWidth(), holder.getHeight());
        });
    }

    @ParameterizedTest(name = "{0}×{1}")
    @CsvSource({"1920,1080", "720,480"})
    void aSnapshotOpensTheAllocatorTabOnItsMapWithACardLikeAStripes(double w, double h) {
        resize(w, h);
        openOnTheMap(Fixtures.torch("cs336-a2-magma27.pickle"));
        assertEquals("Allocator", fx(() -> window.tabs().getSelectionModel().getSelectedItem().getText()));
        assertEquals(MemoryKind.SEGMENTED, fx(() -> window.allocator().memorySelector().getValue().kind()));
        assertTrue(fx(() -> window.allocator().infoLabel().getText()).contains("segments"), "the map's caption, not 'No memory plan'");

        // the legend: what an allocator has, not an arena's two ends
        List<AddressMapDrawList.Key> legend = fx(() -> window.allocator().drawList().legend());
        assertTrue(legend.containsAll(List.of(AddressMapDrawList.Key.IN_USE, AddressMapDrawList.Key.PENDING_FREE,
                AddressMapDrawList.Key.FREE_IN_SEGMENT, AddressMapDrawList.Key.LAST_EVENT)), legend.toString());
        assertFalse(legend.contains(AddressMapDrawList.Key.BACKWARD) || legend.contains(AddressMapDrawList.Key.FORWARD), legend.toString());

        // the hover card, over blocks all across the map
        MapArea area = mapArea(10);
        double hw = area.width();
        double hh = area.height();
        int cards = 0;
        boolean python = false;
        for (double fy : new double[] {0.1, 0.5, 0.85}) {
            for (double fx : new double[] {0.12, 0.3, 0.5, 0.7, 0.9, 0.98}) {
                double[] q = area.at(fx, fy);
                double x = q[0];
                double y = q[1];
                String text = fx(() -> window.allocator().hoverAt(x, y));
                if (text.isEmpty()) {
                    continue;
                }
                // the card's box (its shadow may fall a few pixels outside)
                Bounds card = fx(() -> {
                    var c = window.allocator().hoverCard();
                    return new BoundingBox(c.getLayoutX(), c.getLayoutY(), c.getWidth(), c.getHeight());
                });
                String where = String.format("pointer (%.0f, %.0f), card %s in %.0f×%.0f: %s", x, y, card, hw, hh, text);
                assertTrue(fx(() -> window.allocator().hoverCard().isVisible()), where);
                assertTrue(card.getMinX() >= -0.5 && card.getMaxX() <= hw + 0.5 && card.getMinY() >= -0.5 && card.getMaxY() <= hh + 0.5,
                        "inside the view: " + where);
                assertFalse(card.contains(x, y), "off the pointer: " + where);
                assertTrue(near(card, x, y), "by the pointer: " + where);
                if (x > hw / 2) {
                    assertFalse(card.contains(area.x0() + 1, area.y0() + 1), "not over the map's origin: " + where);
                }
                cards++;
                if (text.startsWith("in use") || text.startsWith("pending free")) {
                    List<String> lines = text.lines().toList();
                    assertTrue(lines.get(1).matches("0x[0-9a-f]+ – 0x[0-9a-f]+"), text);
                    assertTrue(lines.get(2).startsWith("size ") && lines.get(2).endsWith(" B)"), text);
                    assertTrue(lines.get(3).startsWith("requested "), text);
                    List<String> frames = lines.stream().filter(l -> l.startsWith("  ")).toList();
                    if (!frames.isEmpty() && frames.getFirst().contains(".py")) {
                        python = true;
                        assertFalse(frames.getFirst().contains("internal frame"), "the Python frames first: " + text);
                        assertTrue(frames.stream().filter(l -> l.contains("internal frame")).allMatch(l -> l.matches("  \\+ [0-9,]+ internal frames? folded.*")),
                                text);
                        assertTrue(frames.getLast().contains("internal frame") || frames.stream().noneMatch(l -> l.contains("internal frame")), text);
                    }
                }
            }
        }
        assertTrue(cards >= 6, "cards over the map: " + cards);
        assertTrue(python, "a block's card lists its Python frames");

        // a click on the map, then the arrow keys step it; the tab stays
        Object tab = fx(() -> window.tabs().getSelectionModel().getSelectedItem());
        Bounds b = fx(() -> window.allocator().canvas().localToScreen(window.allocator().canvas().getBoundsInLocal()));
        robot.moveTo(b.getMinX() + area.x0() + 20, b.getMinY() + area.y0() + 6).clickOn(MouseButton.PRIMARY);
        waitForSettled(20, "the click handled", () -> window.scene().getFocusOwner() == window.allocator().canvas(),
                () -> "focus owner " + window.scene().getFocusOwner());
        long end0 = fx(() -> window.allocator().addressMapShown().end());
        robot.type(KeyCode.RIGHT);
        waitForSettled(20, "one event on", () -> window.allocator().addressMapShown().end() > end0);
        assertEquals(tab, fx(() -> window.tabs().getSelectionModel().getSelectedItem()), "the tab stays");
        long end1 = fx(() -> window.allocator().addressMapShown().end());
        robot.type(KeyCode.LEFT);
        waitForSettled(20, "and back", () -> window.allocator().addressMapShown().end() < end1);
        assertEquals(tab, fx(() -> window.tabs().getSelectionModel().getSelectedItem()), "the tab stays");
    }

    /**
     * The card follows a step under a still pointer: after an arrow key (or any new map) it says what is
     * under the pointer now, not what was there before the step (under Xvfb it kept the old block's card
     * until the pointer moved).
     */
    @Test
    void theCardFollowsAStepUnderAStillPointer() {
        resize(1920, 1080);
        openOnTheMap(Fixtures.torch("cs336-a2-magma27.pickle"));
        MapArea area = mapArea(6);
        // find a point whose card one step on differs from its card now (a block that moves, is freed or is new)
        List<double[]> points = new ArrayList<>();
        for (double fy = 0; fy <= 1; fy += 0.1) {
            for (double fx = 0.01; fx < 1; fx += 0.03) {
                points.add(area.at(fx, fy));
            }
        }
        double[] found = null;
        for (int tries = 0; tries < 40 && found == null; tries++) {
            List<String> before = fx(() -> points.stream().map(q -> window.allocator().describeAt(q[0], q[1])).toList());
            long end0 = fx(() -> window.allocator().addressMapShown().end());
            fxRun(() -> window.allocator().step(1));
            waitForSettled(20, "one event on", () -> window.allocator().addressMapShown().end() > end0);
            List<String> after = fx(() -> points.stream().map(q -> window.allocator().describeAt(q[0], q[1])).toList());
            for (int i = 0; i < points.size() && found == null; i++) {
                if (!before.get(i).equals(after.get(i))) {
                    found = points.get(i);
                }
            }
        }
        assertTrue(found != null, "a step changed some block's card within 40 steps");
        double[] q = found;
        long end1 = fx(() -> window.allocator().addressMapShown().end());
        fxRun(() -> window.allocator().step(-1));
        waitForSettled(20, "one event back", () -> window.allocator().addressMapShown().end() < end1);
        String then = fx(() -> window.allocator().hoverAt(q[0], q[1]));
        long end2 = fx(() -> window.allocator().addressMapShown().end());
        fxRun(() -> window.allocator().step(1)); // the pointer stays where it is
        waitForSettled(20, "one event on again", () -> window.allocator().addressMapShown().end() > end2);
        String now = fx(() -> window.allocator().hoverTextProperty().get());
        assertEquals(fx(() -> window.allocator().describeAt(q[0], q[1])), now, "the card says what is under the pointer now");
        assertFalse(now.equals(then), "and that is not what it said before the step: " + then);
    }

    /**
     * A block live before the trace began says so in its card, with its size and frames, never "since
     * 0 ns" (under Xvfb the bcrafton snapshot's 1.44 GiB of older blocks read "since 0 ns" in the map
     * while their stripes said "live before recording began").
     */
    @Test
    void aBlockOlderThanTheTraceSaysSoInItsCard() {
        resize(1920, 1080);
        openOnTheMap(Fixtures.torch("cs336-a2-bcrafton.pickle"));
        long older = fx(() -> window.allocator().addressMapShown().blocks().stream()
                .filter(b -> b.sinceNs() == AddressMap.Block.BEFORE_RECORDING).count());
        assertTrue(older > 0, "the snapshot has blocks older than its trace");
        MapArea area = mapArea(6);
        int named = 0;
        for (double fy = 0; fy <= 1; fy += 0.05) {
            for (double fx = 0.01; fx < 1; fx += 0.02) {
                double[] q = area.at(fx, fy);
                String text = fx(() -> window.allocator().hoverAt(q[0], q[1]));
                if (text.contains(Event.BEFORE_RECORDING)) {
                    named++;
                    assertFalse(text.contains("\nsince "), "no instant for an older block: " + text);
                    assertTrue(text.lines().anyMatch(l -> l.startsWith("size ")), text);
                }
            }
        }
        assertTrue(named > 0, "an older block's card names it");
    }

    /**
     * The Allocator tab's controls are whole at openbox's first window size and at the screenshots':
     * the memory picker read "..." and the what-if's settings "m", "rc", "ga" beside a long caption.
     */
    @ParameterizedTest(name = "{0}×{1}")
    @CsvSource({"1358,835", "1280,800"})
    void theAllocatorControlsAreWhole(double w, double h) {
        resize(w, h);
        openUntilLoaded(Fixtures.torch("cs336-a2-bcrafton.pickle"));
        selectAllocatorTab();
        fxRun(() -> window.allocator().whatIfButton().setSelected(true));
        waitForSettled(120, "the what-if", () -> window.allocator().whatIfMapShown() != null && !window.allocator().whatIfBusy());
        Region memory = fx(() -> window.allocator().memorySelector());
        assertTrue(fx(() -> memory.getWidth() + 0.5 >= memory.prefWidth(-1)), "the memory picker whole: " + fx(memory::getWidth));
        for (String id : List.of("#whatif-max-split", "#whatif-roundup", "#whatif-gc", "#whatif-capacity")) {
            double[] g = fx(() -> {
                Node n = window.allocator().lookup(id);
                TextField f = n instanceof ComboBox<?> c ? c.getEditor() : (TextField) n;
                Text t = new Text(f.getPromptText());
                t.setFont(f.getFont());
                return new double[] {f.getWidth() - f.getPadding().getLeft() - f.getPadding().getRight(), t.getLayoutBounds().getWidth()};
            });
            assertTrue(g[0] + 0.5 >= g[1], id + ": its prompt whole, " + g[0] + " px for " + g[1]);
        }
    }

    /** Whether the card's nearest edge lies within a few pixels of the pointer on either axis (anchored by it). */
    private static boolean near(Bounds card, double x, double y) {
        Bounds grown = new BoundingBox(card.getMinX() - 24, card.getMinY() - 24, card.getWidth() + 48, card.getHeight() + 48);
        return grown.contains(x, y);
    }
}
