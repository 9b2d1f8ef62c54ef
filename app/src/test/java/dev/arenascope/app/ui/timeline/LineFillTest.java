package dev.arenascope.app.ui.timeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;

import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.image.PixelReader;
import javafx.scene.paint.Color;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The timeline's axis-aligned lines are filled rectangles, not strokes: each covers the pixels the stroke of
 * the same width covered (the pixel column of a 1 px line at x + 0.5, and a quarter of each neighbour for the
 * markers' 1.5 px), away from the stroke's square caps.
 */
class LineFillTest {
    @BeforeAll
    static void toolkit() throws Exception {
        org.testfx.api.FxToolkit.registerPrimaryStage();
    }

    private static PixelReader draw(boolean filled, double width) throws Exception {
        return WaitForAsyncUtils.asyncFx(() -> {
            Canvas c = new Canvas(40, 40);
            GraphicsContext g = c.getGraphicsContext2D();
            g.setFill(Color.WHITE);
            g.fillRect(0, 0, 40, 40);
            if (filled) {
                g.setFill(Color.BLACK);
                TimelinePainter.vline(g, 10.5, 5, 35, width);
                TimelinePainter.hline(g, 5, 35, 20.5, width);
            } else {
                g.setStroke(Color.BLACK);
                g.setLineWidth(width);
                g.strokeLine(10.5, 5, 10.5, 35);
                g.strokeLine(5, 20.5, 35, 20.5);
            }
            return c.snapshot(null, null).getPixelReader();
        }).get(30, TimeUnit.SECONDS);
    }

    @Test
    void aFilledLineCoversWhatItsStrokeCovered() throws Exception {
        for (double width : new double[] {1, 1.5}) {
            PixelReader stroked = draw(false, width);
            PixelReader filled = draw(true, width);
            for (int y = 8; y < 33; y++) {
                for (int x = 8; x < 33; x++) {
                    assertEquals(stroked.getColor(x, y).getBrightness(), filled.getColor(x, y).getBrightness(), 0.02,
                            "width " + width + " at " + x + "," + y);
                }
            }
        }
    }
}
