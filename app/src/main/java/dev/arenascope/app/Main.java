package dev.arenascope.app;

import dev.arenascope.app.cli.Cli;

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
        // The window arrives with the desktop issue; until then show what the CLI offers.
        System.out.print(Cli.mainHelp());
    }
}
