package dev.arenascope.core.arena;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.device.HostDevice;

/** {@code ARENASCOPE_POISON} switches poisoning on for a whole process: checked in a child JVM. */
class PoisonEnvTest {

    /** The child: an arena that sets no poison of its own, reading back a fresh allocation. */
    public static void main(String[] args) {
        try (HostDevice host = new HostDevice()) {
            try (ManualMemory a = ManualMemory.builder().device(host).numBytes(4096).build();
                 ManualMemory own = ManualMemory.builder().device(host).numBytes(4096).noPoison().build()) {
                Tensor t = a.getTensor(DType.INT32, 2);
                System.out.println(a.poisonByte() + " " + t.getLong(0) + " " + own.poisonByte());
            } catch (IllegalArgumentException e) {
                System.out.println("error: " + e.getMessage());
            }
        }
    }

    private static String child(String poison) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), PoisonEnvTest.class.getName()));
        pb.environment().put(ManualMemory.POISON_ENV, poison);
        pb.redirectErrorStream(false);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return out;
    }

    @Test
    void theEnvironmentVariablePoisonsArenasThatDidNotChoose() throws Exception {
        assertEquals("171 " + (int) 0xABABABABL + " -1", child("0xAB"));
        assertEquals("-1 0 -1", child("off"));
        assertEquals("error: ARENASCOPE_POISON='bogus' is not a poison byte (0..255, 0xNN, or off)", child("bogus"));
    }
}
