package dev.arenascope.app.ui;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.prefs.BackingStoreException;
import java.util.prefs.Preferences;

import javafx.animation.PauseTransition;
import javafx.geometry.Rectangle2D;
import javafx.stage.Screen;
import javafx.stage.Stage;
import javafx.stage.WindowEvent;
import javafx.util.Duration;

/**
 * What the window remembers between runs (java.util.prefs, per user): its bounds, the split, the
 * theme and the recent files and jobs. A missing or unreadable store falls back to defaults.
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

    /** The smallest size the window is restored to or remembers; anything less is a degenerate size. */
    static final double MIN_WIDTH = 720;
    static final double MIN_HEIGHT = 480;
    static final double DEFAULT_WIDTH = 1360;
    static final double DEFAULT_HEIGHT = 860;

    /**
     * Places {@code stage} where it was last time, clamped to the screens it is on, or at a default
     * size centred on the primary screen. The stage also gets a minimum size, so a window manager that
     * opens windows small (openbox: 200×200) cannot leave it unusable. Call before showing the stage.
     */
    public void restore(Stage stage) {
        List<Rectangle2D> screens = Screen.getScreens().stream().map(Screen::getVisualBounds).toList();
        Rectangle2D primary = Screen.getPrimary().getVisualBounds();
        Rectangle2D r = placement(prefs.getDouble("x", Double.NaN), prefs.getDouble("y", Double.NaN),
                prefs.getDouble("width", Double.NaN), prefs.getDouble("height", Double.NaN), screens, primary);
        stage.setMinWidth(Math.min(MIN_WIDTH, primary.getWidth()));
        stage.setMinHeight(Math.min(MIN_HEIGHT, primary.getHeight()));
        stage.setWidth(r.getWidth());
        stage.setHeight(r.getHeight());
        stage.setX(r.getMinX());
        stage.setY(r.getMinY());
        stage.setMaximized(prefs.getBoolean("maximized", false));
        // a window manager may still impose its own first size (openbox gives a new window its minimum
        // size): put the restored bounds back once shown, and once more after the window manager's
        // configure events have arrived
        Runnable reapply = () -> {
            if (!stage.isMaximized() && (Math.abs(stage.getWidth() - r.getWidth()) > 16 || Math.abs(stage.getHeight() - r.getHeight()) > 16)) {
                stage.setWidth(r.getWidth());
                stage.setHeight(r.getHeight());
                stage.setX(r.getMinX());
                stage.setY(r.getMinY());
            }
        };
        stage.addEventHandler(WindowEvent.WINDOW_SHOWN, e -> {
            reapply.run();
            PauseTransition later = new PauseTransition(Duration.millis(300));
            later.setOnFinished(f -> reapply.run());
            later.play();
        });
    }

    /**
     * Where the window goes: the saved bounds when they are a sane size and at least partly on a
     * screen, clamped so the whole window is on that screen; otherwise the default size (at most 90%
     * of the primary screen) centred on it. NaN stands for "not saved".
     */
    static Rectangle2D placement(double x, double y, double w, double h, List<Rectangle2D> screens, Rectangle2D primary) {
        boolean sizeOk = Double.isFinite(w) && Double.isFinite(h) && w >= MIN_WIDTH && h >= MIN_HEIGHT;
        if (!sizeOk) {
            w = Math.min(DEFAULT_WIDTH, primary.getWidth() * 0.9);
            h = Math.min(DEFAULT_HEIGHT, primary.getHeight() * 0.9);
        }
        Rectangle2D screen = null;
        if (Double.isFinite(x) && Double.isFinite(y)) {
            double bestArea = 0;
            for (Rectangle2D s : screens) {
                double iw = Math.min(x + w, s.getMaxX()) - Math.max(x, s.getMinX());
                double ih = Math.min(y + h, s.getMaxY()) - Math.max(y, s.getMinY());
                if (iw > 0 && ih > 0 && iw * ih > bestArea) {
                    bestArea = iw * ih;
                    screen = s;
                }
            }
        }
        if (screen == null) {
            screen = primary;
            w = Math.min(w, screen.getWidth());
            h = Math.min(h, screen.getHeight());
            x = screen.getMinX() + (screen.getWidth() - w) / 2;
            y = screen.getMinY() + (screen.getHeight() - h) / 2;
        }
        w = Math.min(w, screen.getWidth());
        h = Math.min(h, screen.getHeight());
        x = Math.max(screen.getMinX(), Math.min(x, screen.getMaxX() - w));
        y = Math.max(screen.getMinY(), Math.min(y, screen.getMaxY() - h));
        return new Rectangle2D(x, y, w, h);
    }

    /** Remembers the stage's bounds, unless it is maximized, iconified or of a degenerate size. */
    public void save(Stage stage) {
        if (!stage.isMaximized() && !stage.isIconified() && saneSize(stage.getWidth(), stage.getHeight())
                && Double.isFinite(stage.getX()) && Double.isFinite(stage.getY())) {
            prefs.putDouble("width", stage.getWidth());
            prefs.putDouble("height", stage.getHeight());
            prefs.putDouble("x", stage.getX());
            prefs.putDouble("y", stage.getY());
        }
        prefs.putBoolean("maximized", stage.isMaximized());
        flush();
    }

    static boolean saneSize(double w, double h) {
        return Double.isFinite(w) && Double.isFinite(h) && w >= MIN_WIDTH && h >= MIN_HEIGHT;
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

    /**
     * One entry of File ▸ Open Recent: a trace (one path), or a job (its files, or its folder), which
     * reopens as the job it was: one rank per file.
     *
     * @param paths absolute, normalised; one for a trace
     * @param job   whether the paths open as a job
     */
    public record Recent(List<Path> paths, boolean job) {
        public Recent {
            paths = List.copyOf(paths);
        }

        /** One line of the stored list: a trace's path, or {@code job:} and the job's paths joined by tabs. */
        String line() {
            return job ? JOB + String.join("\t", paths.stream().map(Path::toString).toList()) : paths.getFirst().toString();
        }

        /** Whether any of its paths is still there (a job whose files partly went opens the rest, the others as failed ranks). */
        boolean exists() {
            return paths.stream().anyMatch(Files::exists);
        }
    }

    private static final String JOB = "job:";

    /** Recent traces and jobs, newest first, that are still there (a job: any of its paths). */
    public List<Recent> recentEntries() {
        List<Recent> out = new ArrayList<>();
        for (String s : prefs.get("recent", "").split("\n")) {
            if (s.isBlank()) {
                continue;
            }
            try {
                Recent r = s.startsWith(JOB)
                        ? new Recent(java.util.Arrays.stream(s.substring(JOB.length()).split("\t")).filter(x -> !x.isEmpty()).map(Path::of).toList(), true)
                        : new Recent(List.of(Path.of(s)), false);
                if (!r.paths().isEmpty() && r.exists()) {
                    out.add(r);
                }
            } catch (java.nio.file.InvalidPathException ignored) {
                // a line this system cannot read as a path: left out
            }
        }
        return out;
    }

    /** Recent traces (not jobs), newest first, that still exist. */
    public List<Path> recent() {
        return recentEntries().stream().filter(r -> !r.job()).map(r -> r.paths().getFirst()).toList();
    }

    public void addRecent(Path p) {
        remember(new Recent(List.of(p.toAbsolutePath().normalize()), false));
    }

    /** Remembers the job of {@code filesOrFolders} (as given to open it: its files, or its folder) as one entry. */
    public void addRecentJob(List<Path> filesOrFolders) {
        remember(new Recent(filesOrFolders.stream().map(p -> p.toAbsolutePath().normalize()).toList(), true));
    }

    /**
     * Puts {@code r} first, at most {@value #MAX_RECENT} entries kept. The list is one preference value, at
     * most {@link Preferences#MAX_VALUE_LENGTH} characters: older entries are dropped until it fits, and a job
     * whose paths alone are longer than that (a very large job of files: open its folder instead) is not kept.
     */
    private void remember(Recent r) {
        if (r.line().length() > Preferences.MAX_VALUE_LENGTH) {
            return; // too long to store, whatever else is dropped
        }
        List<Recent> list = new ArrayList<>(recentEntries());
        list.remove(r);
        list.add(0, r);
        while (list.size() > MAX_RECENT) {
            list.remove(list.size() - 1);
        }
        String text = String.join("\n", list.stream().map(Recent::line).toList());
        while (text.length() > Preferences.MAX_VALUE_LENGTH && !list.isEmpty()) {
            list.remove(list.size() - 1);
            text = String.join("\n", list.stream().map(Recent::line).toList());
        }
        prefs.put("recent", text);
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
