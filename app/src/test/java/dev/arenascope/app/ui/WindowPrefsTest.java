package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.prefs.Preferences;

import javafx.geometry.Rectangle2D;
import javafx.scene.Scene;
import javafx.scene.layout.Pane;
import javafx.stage.Stage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.util.WaitForAsyncUtils;

class WindowPrefsTest {
    @Test
    void recentFilesNewestFirstExistingOnlyAtMostTen(@TempDir Path dir) throws Exception {
        Preferences node = Preferences.userRoot().node("dev/arenascope/app-test/prefs");
        node.clear();
        WindowPrefs p = new WindowPrefs(node);
        for (int i = 0; i < 12; i++) {
            Path f = Files.writeString(dir.resolve("t" + i + ".astrace"), "x");
            p.addRecent(f);
        }
        p.addRecent(dir.resolve("t3.astrace"));
        assertEquals(10, p.recent().size());
        assertEquals("t3.astrace", p.recent().get(0).getFileName().toString());
        Files.delete(dir.resolve("t11.astrace"));
        assertTrue(p.recent().stream().noneMatch(f -> f.getFileName().toString().equals("t11.astrace")));
        p.dark(true);
        assertTrue(new WindowPrefs(node).dark(), "remembered by a new window");
        p.divider(0.3);
        assertEquals(0.3, new WindowPrefs(node).divider(), 1e-9);
    }

    @Test
    void aJobIsOneRecentEntryKeptWhileAnyOfItsPathsIsThere(@TempDir Path dir) throws Exception {
        Preferences node = Preferences.userRoot().node("dev/arenascope/app-test/prefs-jobs");
        node.clear();
        Path a = Files.writeString(dir.resolve("snapshot_rank0.pickle"), "x");
        Path b = Files.writeString(dir.resolve("snapshot_rank1.pickle"), "x");
        Path trace = Files.writeString(dir.resolve("run.astrace"), "x");
        node.put("recent", trace.toString()); // what an earlier build stored: one path a line
        WindowPrefs p = new WindowPrefs(node);
        assertEquals(List.of(new WindowPrefs.Recent(List.of(trace), false)), p.recentEntries(), "an earlier build's list still reads");
        p.addRecentJob(List.of(a, b));
        p.addRecentJob(List.of(dir));
        List<WindowPrefs.Recent> r = new WindowPrefs(node).recentEntries();
        assertEquals(List.of(new WindowPrefs.Recent(List.of(dir.toAbsolutePath().normalize()), true),
                new WindowPrefs.Recent(List.of(a.toAbsolutePath().normalize(), b.toAbsolutePath().normalize()), true),
                new WindowPrefs.Recent(List.of(trace), false)), r, "newest first, a job as one entry, remembered by a new window");
        assertEquals(List.of(trace), p.recent(), "recent() is the traces alone");
        p.addRecentJob(List.of(a, b));
        assertEquals(3, p.recentEntries().size(), "the same job again is moved first, not listed twice");
        assertEquals(2, p.recentEntries().getFirst().paths().size());
        Files.delete(a);
        assertEquals(3, p.recentEntries().size(), "a job with a file left is kept (the missing one opens as a failed rank)");
        Files.delete(b);
        assertEquals(2, p.recentEntries().size(), "a job with none left is gone");
        // a job too long for one preference value is not kept, and the others stay
        List<Path> many = new java.util.ArrayList<>();
        for (int i = 0; i < 400; i++) {
            many.add(Files.writeString(dir.resolve("a-rather-long-file-name-for-rank-" + i + "-snapshot_rank" + i + ".pickle"), "x"));
        }
        p.addRecentJob(many);
        assertEquals(2, p.recentEntries().size(), "too long to store: left out");
        assertTrue(p.recentEntries().stream().noneMatch(e -> e.paths().size() == 400));
    }

    private static final Rectangle2D SCREEN = new Rectangle2D(0, 0, 1600, 1000);

    @Test
    void degenerateOrMissingSizesGiveTheDefaultCentredOnTheScreen() {
        var r = WindowPrefs.placement(10, 10, 200, 200, List.of(SCREEN), SCREEN);
        assertEquals(1360, r.getWidth(), 1e-9, "a 200x200 size is not restored");
        assertEquals(860, r.getHeight(), 1e-9);
        var none = WindowPrefs.placement(Double.NaN, Double.NaN, Double.NaN, Double.NaN, List.of(SCREEN), SCREEN);
        assertEquals((1600 - 1360) / 2.0, none.getMinX(), 1e-9, "centred");
        assertEquals((1000 - 860) / 2.0, none.getMinY(), 1e-9);
        var small = new Rectangle2D(0, 0, 1024, 700);
        var onSmall = WindowPrefs.placement(Double.NaN, Double.NaN, Double.NaN, Double.NaN, List.of(small), small);
        assertTrue(onSmall.getWidth() <= 1024 * 0.9 + 1e-9 && onSmall.getHeight() <= 700 * 0.9 + 1e-9, "fits a small screen: " + onSmall);
    }

    @Test
    void savedBoundsAreClampedToTheScreen() {
        var r = WindowPrefs.placement(1400, 900, 1200, 800, List.of(SCREEN), SCREEN);
        assertEquals(1200, r.getWidth(), 1e-9);
        assertTrue(r.getMaxX() <= 1600 && r.getMaxY() <= 1000 && r.getMinX() >= 0 && r.getMinY() >= 0, "on screen: " + r);
        var off = WindowPrefs.placement(5000, 5000, 1000, 700, List.of(SCREEN), SCREEN);
        assertTrue(SCREEN.contains(off), "a window saved on a screen no longer there comes back: " + off);
        var huge = WindowPrefs.placement(0, 0, 4000, 3000, List.of(SCREEN), SCREEN);
        assertTrue(huge.getWidth() <= 1600 && huge.getHeight() <= 1000, "never larger than the screen: " + huge);
    }

    @Test
    void aDegenerateSizeIsNeverSaved() throws Exception {
        Preferences node = Preferences.userRoot().node("dev/arenascope/app-test/prefs-size");
        node.clear();
        org.testfx.api.FxToolkit.registerPrimaryStage();
        WindowPrefs p = new WindowPrefs(node);
        WaitForAsyncUtils.asyncFx(() -> {
            Stage s = new Stage();
            s.setScene(new Scene(new Pane()));
            s.setWidth(200);
            s.setHeight(200);
            s.show();
            p.save(s);
            s.close();
            return null;
        }).get();
        assertTrue(Double.isNaN(node.getDouble("width", Double.NaN)), "200x200 is not remembered");
        WaitForAsyncUtils.asyncFx(() -> {
            Stage s = new Stage();
            s.setScene(new Scene(new Pane()));
            s.setWidth(1100);
            s.setHeight(700);
            s.show();
            p.save(s);
            s.close();
            return null;
        }).get();
        assertEquals(1100, node.getDouble("width", Double.NaN), 1e-9, "a real size is");
    }
}
