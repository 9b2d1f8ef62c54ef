package dev.arenascope.core.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** jcuda is an optional dependency: without it on the class path, host users lose nothing and CUDA says why. */
@Timeout(60)
class WithoutJcudaTest {

    /** Run in a JVM whose class path has no jcuda jar. */
    public static final class Program {
        private Program() {}

        public static void main(String[] args) {
            try (MemoryDevice d = Devices.open("auto").device()) {
                System.out.println("auto: " + d.info().kind());
            }
            try {
                Devices.open("cuda");
                System.out.println("cuda: opened");
            } catch (DeviceUnavailableException e) {
                System.out.println("cuda: " + e.getMessage());
            }
        }
    }

    @Test
    void autoFallsBackToTheHostAndCudaSaysJcudaIsMissing() throws Exception {
        String cp = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> !e.contains("jcuda"))
                .collect(Collectors.joining(File.pathSeparator));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(List.of(java, "-Xmx128m", "--enable-native-access=ALL-UNNAMED", "-cp", cp, Program.class.getName()))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), out);
        assertTrue(out.contains("auto: HOST"), out);
        assertTrue(out.contains("cuda: ") && out.contains("JCuda") && !out.contains("cuda: opened"), out);
    }
}
