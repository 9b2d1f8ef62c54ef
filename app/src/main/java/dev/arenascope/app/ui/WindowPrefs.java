package dev.arenascope.app.ui;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.prefs.BackingStoreException;
import java.util.prefs.Preferences;

import javafx.stage.Stage;

/**
 * What the window remembers between runs (java.util.prefs, per user): its bounds, the split, the
 * theme and the recent files. A missing or unreadable store falls back to defaults.
 */
public final class WindowPrefs {
    private static final int MAX_RECENT = 10;
    private final Preferences prefs;

    public WindowPrefs() {
        this(Preferences.userRoot().node("dev/arenascope/app"));
    }

    public WindowPrefs(Preferences node) {
        this.prefs = node;
    }

    /** Places {@code stage} where it was last time, or at a default size. */
    public void restore(Stage stage) {
        stage.setWidth(prefs.getDouble("width", 1360));
        stage.setHeight(prefs.getDouble("height", 860));
        double x = prefs.getDouble("x", Double.NaN);
        double y = prefs.getDouble("y", Double.NaN);
        if (!Double.isNaN(x) && !Double.isNaN(y)) {
            stage.setX(x);
            stage.setY(y);
        }
        stage.setMaximized(prefs.getBoolean("maximized", false));
    }

    public void save(Stage stage) {
        if (!stage.isMaximized() && !stage.isIconified()) {
            prefs.putDouble("width", stage.getWidth());
            prefs.putDouble("height", stage.getHeight());
            prefs.putDouble("x", stage.getX());
            prefs.putDouble("y", stage.getY());
        }
        prefs.putBoolean("maximized", stage.isMaximized());
        flush();
    }

    public double divider() {
        return prefs.getDouble("divider", 0.58);
    }

    public void divider(double d) {
        prefs.putDouble("divider", d);
    }

    public boolean dark() {
        return prefs.getBoolean("dark", false);
    }

    public void dark(boolean d) {
        prefs.putBoolean("dark", d);
        flush();
    }

    /** Recent files, newest first, that still exist. */
    public List<Path> recent() {
        List<Path> out = new ArrayList<>();
        for (String s : prefs.get("recent", "").split("\n")) {
            if (!s.isBlank()) {
                Path p = Path.of(s);
                if (Files.exists(p)) {
                    out.add(p);
                }
            }
        }
        return out;
    }

    public void addRecent(Path p) {
        List<Path> r = new ArrayList<>(recent());
        Path abs = p.toAbsolutePath().normalize();
        r.remove(abs);
        r.add(0, abs);
        while (r.size() > MAX_RECENT) {
            r.remove(r.size() - 1);
        }
        prefs.put("recent", String.join("\n", r.stream().map(Path::toString).toList()));
        flush();
    }

    private void flush() {
        try {
            prefs.flush();
        } catch (BackingStoreException | SecurityException ignored) {
            // preferences are a convenience; the window works without them
        }
    }
}
