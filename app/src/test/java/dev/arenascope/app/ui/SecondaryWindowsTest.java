package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import javafx.stage.Stage;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.ui.common.Placement;

/**
 * Secondary windows open sized from their content and centred on the main window (the Listen window
 * opened at 200×200 in the screen's corner: "Por… [77] St…"), and open again where they were left.
 */
class SecondaryWindowsTest extends WindowTestBase {
    @Test
    void theListenWindowOpensWholeOnItsOwnerAndStaysWhereLeft() {
        fxRun(() -> window.listenView().show(stage));
        waitFor(30, "the Listen window shown", () -> fx(() -> window.listenView().stage() != null && window.listenView().stage().isShowing()));
        Stage listen = fx(() -> window.listenView().stage());
        double[] geo = fx(() -> new double[] {listen.getX(), listen.getY(), listen.getWidth(), listen.getHeight(),
                stage.getX(), stage.getY(), stage.getWidth(), stage.getHeight()});
        assertTrue(geo[2] >= 1000 && geo[3] >= 340, "sized for its table: " + geo[2] + " x " + geo[3]);
        double[] expected = fx(() -> Placement.centred(stage, geo[2], geo[3]));
        assertEquals(expected[0], geo[0], 1.0, "centred on the main window (x)");
        assertEquals(expected[1], geo[1], 1.0, "centred on the main window (y)");
        double ownerCentreX = geo[4] + geo[6] / 2;
        if (geo[6] >= geo[2]) {
            assertEquals(ownerCentreX, geo[0] + geo[2] / 2, 1.0, "its centre is the owner's");
        }
        // moved by the user, hidden, shown again: where it was left
        fxRun(() -> {
            listen.setX(geo[0] + 40);
            listen.setY(geo[1] + 30);
            listen.hide();
        });
        fxRun(() -> window.listenView().show(stage));
        waitFor(30, "shown again", () -> fx(listen::isShowing));
        assertEquals(geo[0] + 40, fx(listen::getX), 1.0);
        assertEquals(geo[1] + 30, fx(listen::getY), 1.0);
        fxRun(listen::hide);
    }
}
