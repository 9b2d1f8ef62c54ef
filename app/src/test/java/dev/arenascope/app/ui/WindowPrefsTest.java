package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.prefs.Preferences;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
}
