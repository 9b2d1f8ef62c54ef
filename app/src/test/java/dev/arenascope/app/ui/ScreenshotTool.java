package dev.arenascope.app.ui;

import java.nio.file.Files;
import java.nio.file.Path;

import javafx.embed.swing.SwingFXUtils;
import javafx.scene.image.WritableImage;

import javax.imageio.ImageIO;

/**
 * What the screenshot tools ({@link Screenshots}, {@link SiteScreenshots}) share: the output folder,
 * the window's size, opening a file and waiting until every view has drawn it, and writing the scene
 * to a PNG. Tools, not tests: their names do not match the test suite's patterns, so {@code mvn verify}
 * never runs them; {@code docs/screenshots/make.sh} does, with {@code -Darenascope.screenshots=DIR}.
 */
abstract class ScreenshotTool extends WindowTestBase {

    /**
     * The output folder, after sizing the window to {@code width} × {@code height}.
     *
     * @throws IllegalStateException when no folder was given
     */
    protected Path start(int width, int height) {
        String d = System.getProperty("arenascope.screenshots");
        if (d == null || d.isBlank()) {
            throw new IllegalStateException("no output folder: run docs/screenshots/make.sh (or pass -Darenascope.screenshots=DIR)");
        }
        fxRun(() -> {
            stage.setWidth(width);
            stage.setHeight(height);
        });
        return Path.of(d);
    }

    /** Opens {@code f} and waits until its digest and the timeline's frame hold every event. */
    protected void openAndWait(Path f) {
        fxRun(() -> window.open(f));
        waitForSettled(60, "the file", () -> window.model().titleProperty().get().equals(f.getFileName().toString())
                && window.model().digestProperty().get().events() == window.model().eventCountProperty().get()
                && window.model().eventCountProperty().get() > 0
                && window.timeline().drawListProperty().get() != null
                && window.timeline().drawListProperty().get().events() == window.model().eventCountProperty().get());
    }

    /** Writes the scene to {@code dir/name} once the window has settled (what draws off the FX thread has landed). */
    protected void shoot(Path dir, String name) throws Exception {
        waitForSettled(60, "the window settled for " + name, () -> true);
        write(dir, name);
    }

    /** Writes the scene to {@code dir/name} as it is now (a live session, which never settles). */
    protected void write(Path dir, String name) throws Exception {
        WritableImage img = fx(() -> window.scene().snapshot(null));
        Files.createDirectories(dir);
        ImageIO.write(SwingFXUtils.fromFXImage(img, null), "png", dir.resolve(name).toFile());
    }
}
