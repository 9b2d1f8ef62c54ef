package dev.arenascope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.Main;

/**
 * Commands of other modules ({@code bench}) are looked up only when a name is not built in or the
 * whole list is printed: the lookup opens every jar of the class path, which a built-in command's
 * start must not pay. (The app's own class path has no bench: it is an unknown command here.)
 */
class FoundCommandsTest {

    private record Named(String name) implements Command {
        public String summary() { return "the " + name + " command"; }
        public String usage() { return "Usage: arenascope " + name + "\n"; }
        public int run(List<String> args, PrintStream out, PrintStream err) { out.println(name + " ran"); return 0; }
    }

    private static String run(Cli cli, int expectedCode, String... args) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int code = cli.run(args, new PrintStream(o, true, StandardCharsets.UTF_8), new PrintStream(e, true, StandardCharsets.UTF_8));
        assertEquals(expectedCode, code, e.toString(StandardCharsets.UTF_8));
        return o.toString(StandardCharsets.UTF_8) + e.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aBuiltInCommandNeverLooksForTheOthers() {
        AtomicInteger lookups = new AtomicInteger();
        Cli cli = new Cli(List.of(new Named("open"), new Named("stats")), () -> {
            lookups.incrementAndGet();
            return List.of(new Named("bench"));
        });
        assertEquals("stats ran\n", run(cli, 0, "stats"));
        assertEquals(0, lookups.get());
        assertEquals("bench ran\n", run(cli, 0, "bench"));
        String help = run(cli, 0, "--help");
        assertTrue(help.indexOf("  open ") < help.indexOf("  bench ") && help.indexOf("  bench ") < help.indexOf("  stats "), help);
        assertEquals(1, lookups.get(), "looked up once, then kept");
    }

    @Test
    void withoutTheBenchModuleBenchIsAnUnknownCommand() {
        String err = run(Main.cli(), 2, "bench", "--quick");
        assertTrue(err.startsWith("arenascope: unknown command 'bench' (commands: open, pool-bins,"), err);
        assertEquals(1, err.lines().count(), err);
    }
}
