package dev.arenascope.app.info;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * Facts about this build of the {@code arenascope} application, for the command line, the window and
 * the files they write. A leaf: it imports nothing of the app, so every part may use it.
 */
public final class AppInfo {
    private static volatile String version;

    private AppInfo() {}

    /**
     * The version of this build, e.g. {@code 0.1.0}: the jar manifest's implementation version, else
     * the build's {@code arenascope-version.properties}, else {@code dev} (classes run from an IDE).
     */
    public static String version() {
        String v = version;
        if (v == null) {
            v = AppInfo.class.getPackage().getImplementationVersion();
            if (v == null) {
                try (InputStream in = AppInfo.class.getResourceAsStream("/arenascope-version.properties")) {
                    if (in != null) {
                        Properties p = new Properties();
                        p.load(in);
                        v = p.getProperty("version");
                    }
                } catch (IOException ignored) {
                    // no version file: the fallback below
                }
            }
            version = v = v == null ? "dev" : v;
        }
        return v;
    }

    /** {@code "arenascope VERSION"}: how reports and traces name the tool that wrote them. */
    public static String tool() {
        return "arenascope " + version();
    }
}
