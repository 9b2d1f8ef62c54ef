package dev.arenascope.app.ui.timeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import javafx.scene.image.PixelReader;
import javafx.scene.image.WritableImage;
import javafx.scene.paint.Color;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testfx.util.WaitForAsyncUtils;

/**
 * A folded band's hatch, drawn as one fill of a tile: the tile holds one rising diagonal from its bottom-left
 * corner to its top-right (each row's darkest pixel where the line crosses it), the rest transparent, and
 * one pattern is made per colour.
 */
class HatchTileTest {
    @BeforeAll
    static void toolkit() throws Exception {
        org.testfx.api.FxToolkit.registerPrimaryStage();
    }

    @Test
    void theTileIsOneRisingDiagonal() throws Exception {
        Color ink = Color.web("#335577");
        WritableImage tile = WaitForAsyncUtils.asyncFx(() -> TimelinePainter.hatchTile(ink)).get(30, TimeUnit.SECONDS);
        assertEquals(TimelinePainter.HATCH_W, (int) tile.getWidth());
        assertEquals(TimelinePainter.HATCH_H, (int) tile.getHeight());
        PixelReader px = tile.getPixelReader();
        int w = TimelinePainter.HATCH_W;
        int h = TimelinePainter.HATCH_H;
        for (int y = 0; y < h; y++) {
            int darkest = 0;
            double total = 0;
            for (int x = 0; x < w; x++) {
                Color c = px.getColor(x, y);
                total += c.getOpacity();
                if (c.getOpacity() > px.getColor(darkest, y).getOpacity()) {
                    darkest = x;
                }
                if (c.getOpacity() > 0) {
                    assertEquals(ink.getRed(), c.getRed(), 0.01, "the line's colour at " + x + "," + y);
                }
            }
            assertTrue(total > 0.5 && total < 2.5, "row " + y + " holds about one pixel of line: " + total);
            if (y > 0 && y < h - 1) {
                // (the top and bottom rows meet the neighbouring tiles' lines as well)
                double on = (h - 1 - (y + 0.5)) * w / (h - 1);
                assertTrue(Math.abs(darkest + 0.5 - on) <= 0.5 + 1e-9, "row " + y + ": the line crosses it at x " + on + ", darkest " + darkest);
            }
        }
        // the middle row: the line at the tile's centre, nothing at its sides
        assertTrue(px.getColor(0, h / 2).getOpacity() < 0.05 && px.getColor(w - 1, h / 2).getOpacity() < 0.05, "the sides of the middle row are clear");
        assertSame(WaitForAsyncUtils.asyncFx(() -> TimelinePainter.hatch(ink)).get(30, TimeUnit.SECONDS),
                WaitForAsyncUtils.asyncFx(() -> TimelinePainter.hatch(ink)).get(30, TimeUnit.SECONDS), "one pattern per colour");
    }
}
