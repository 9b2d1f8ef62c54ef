package dev.arenascope.app;

import dev.arenascope.app.cli.Cli;
import dev.arenascope.app.ui.ArenaScopeApp;

/**
 * Entry point of the {@code arenascope} executable: with a sub-command it runs headless, with none it
 * opens the window.
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        if (Cli.isHeadless(args)) {
            int code = Cli.run(args, System.out, System.err);
            System.out.flush();
            System.exit(code);
        }
        if (!hasDisplay()) {
            System.err.println("arenascope: no display to open the window on (set DISPLAY, or run a command: arenascope --help)");
            System.exit(Cli.EXIT_USAGE);
        }
        ArenaScopeApp.launchWindow(null);
        System.exit(Cli.EXIT_OK);
    }

    /** Whether a window can be opened: always on Windows and macOS, with DISPLAY or WAYLAND_DISPLAY on Linux. */
    public static boolean hasDisplay() {
        String os = System.getProperty("os.name", "");
        if (!os.startsWith("Linux") || "Monocle".equals(System.getProperty("glass.platform"))) {
            return true;
        }
        return !blank(System.getenv("DISPLAY")) || !blank(System.getenv("WAYLAND_DISPLAY"));
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
