package dev.arenascope.app.ui;

import java.nio.file.Path;

import javafx.event.ActionEvent;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.ui.slots.AllocatorView;

import dev.arenascope.testsupport.Fixtures;

/**
 * The allocator state with a what-if, for the PyTorch guide: the bcrafton fixture at its recorded
 * peak, replayed with expandable segments under a 3.75 GiB capacity. A tool, not a test (see {@link
 * ScreenshotTool}): {@code -Dtest=AllocatorWhatIfShot -Darenascope.screenshots=DIR}; with {@code
 * -Darenascope.realDisplay=true} it draws on the X server of {@code $DISPLAY} (GTK) instead of Monocle,
 * as a user sees it under a window manager.
 */
class AllocatorWhatIfShot extends ScreenshotTool {
    static {
        if (Boolean.getBoolean("arenascope.realDisplay")) {
            System.setProperty("glass.platform", "gtk");
            System.setProperty("testfx.headless", "false");
            System.setProperty("java.awt.headless", "false");
            System.clearProperty("monocle.platform");
        }
    }

    @Test
    void allocatorWhatIf() throws Exception {
        Path dir = start(1920, 1080);
        fxRun(() -> {
            stage.setX(0);
            stage.setY(0);
        });
        Path f = Fixtures.torch("cs336-a2-bcrafton.pickle");
        openAndWait(f);
        fxRun(() -> {
            window.tabs().getSelectionModel().select(window.tabs().getTabs().stream().filter(x -> x.getId().equals("tab-allocator"))
                    .findFirst().orElseThrow());
            var cuda = window.allocator().memorySelector().getValue();
            window.model().cursorProperty().set(AllocatorView.defaultInstant(window.model().trace(), cuda));
            window.allocator().whatIfButton().setSelected(true);
            window.allocator().expandableBox().setSelected(true);
            window.allocator().capacityField().setText("3.75GiB");
            window.allocator().capacityField().fireEvent(new ActionEvent());
        });
        waitForSettled(120, "the what-if", () -> window.allocator().whatIfMapShown() != null && !window.allocator().whatIfBusy()
                && window.allocator().whatIfProperty().get() != null && window.allocator().whatIfProperty().get().settings().capacity() > 0);
        fxRun(() -> window.allocator().hoverAt(window.allocator().canvas().getWidth() * 0.42, 40));
        shoot(dir, "allocator-whatif.png");
        if (Boolean.getBoolean("arenascope.realDisplay")) {
            // the whole screen as the X server shows it, the window manager's frame included
            Process p = new ProcessBuilder("import", "-window", "root", dir.resolve("allocator-whatif-screen.png").toString()).inheritIO().start();
            p.waitFor();
        }
    }

}
