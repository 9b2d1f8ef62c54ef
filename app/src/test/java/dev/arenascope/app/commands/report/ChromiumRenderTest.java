package dev.arenascope.app.commands.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.Main;


/**
 * Renders the HTML report in a real browser: headless Chromium (when installed) takes a screenshot,
 * which must show the page, not a blank or error page. The PNG is kept in target/report-screenshots.
 * Skipped where no Chromium is installed.
 */
class ChromiumRenderTest {
    @TempDir
    Path dir;

    static String chromium() {
        for (String name : List.of("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")) {
            for (String p : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
                Path c = Path.of(p, name);
                if (Files.isExecutable(c)) {
                    return c.toString();
                }
            }
        }
        return null;
    }

    @Test
    void reportRendersInHeadlessChromium() throws Exception {
        String chrome = chromium();
        assumeTrue(chrome != null, "no Chromium on PATH");
        Path html = dir.resolve("report.html");
        var err = new ByteArrayOutputStream();
        int rc = Main.cli().run(new String[] {"report", ReportCommandTest.MAGMA.toString(), "--baseline", ReportCommandTest.BCRAFTON.toString(),
                "--out", html.toString()}, new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
        assertEquals(0, rc, err.toString());
        Path png = Path.of("target/report-screenshots/magma27-vs-bcrafton.png").toAbsolutePath();
        Files.createDirectories(png.getParent());
        Files.deleteIfExists(png);
        Process p = new ProcessBuilder(chrome, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
                "--user-data-dir=" + dir.resolve("profile"), "--window-size=1280,1600", "--screenshot=" + png,
                html.toUri().toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("chromium.log").toFile()).start();
        assertTrue(p.waitFor(90, TimeUnit.SECONDS), "chromium did not finish in 90 s");
        assertTrue(Files.size(png) > 20_000, "a screenshot of the page: " + Files.readString(dir.resolve("chromium.log")));
        BufferedImage img = ImageIO.read(png.toFile());
        assertEquals(1280, img.getWidth());
        Set<Integer> colours = new HashSet<>();
        int headerDark = 0;
        for (int y = 0; y < img.getHeight(); y += 4) {
            for (int x = 0; x < img.getWidth(); x += 4) {
                int rgb = img.getRGB(x, y) & 0xffffff;
                colours.add(rgb);
                if (y < 60 && ((rgb >> 16) & 0xff) < 40 && (rgb & 0xff) < 90) {
                    headerDark++;
                }
            }
        }
        assertTrue(colours.size() > 200, "charts, text and tables drew: " + colours.size() + " colours");
        assertTrue(headerDark > 1000, "the dark header band is there (CSS applied)");
    }
}
