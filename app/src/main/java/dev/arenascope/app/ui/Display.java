package dev.arenascope.app.ui;

/** Whether this process can open a window. */
public final class Display {
    private Display() {}

    /** Always on Windows and macOS (and under the headless Monocle platform); with DISPLAY or WAYLAND_DISPLAY on Linux. */
    public static boolean available() {
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
