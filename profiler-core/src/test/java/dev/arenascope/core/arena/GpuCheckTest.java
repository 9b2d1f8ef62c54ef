package dev.arenascope.core.arena;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import dev.arenascope.core.device.CudaDevice;

/** The GPU check script's program, rehearsed on the devices this machine has. */
class GpuCheckTest {

    private static String run(String device, String size, int expected) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int rc = GpuCheck.run(device, size, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(expected, rc, text);
        return text;
    }

    @Test
    void passesOnHostMemory() {
        String out = run("host", "64MiB", 0);
        assertTrue(out.contains("PASS poison 0xFF over float32[1048576] read back"), out);
        assertTrue(out.contains("PASS the failed request moved nothing"), out);
        assertTrue(out.contains("0 failed"), out);
    }

    @Test
    void passesOnTheVirtualDeviceWithHalfItsMemory() {
        String out = run("virtual", "0.5", 0);
        assertTrue(out.contains("PASS claimed 0.500 of the free memory"), out);
    }

    /**
     * Where a CUDA driver answers, the whole check runs on GPU 0 (half its free memory) and must pass;
     * where none does, the check must say why in one line and exit {@link GpuCheck#SKIPPED}, and this
     * test is then reported as skipped with the driver's reason (never as a pass that checked nothing).
     */
    @Test
    void passesOnCudaOrSaysWhyThereIsNone() {
        var why = CudaDevice.probe(0);
        if (why.isPresent()) {
            String out = run("cuda", "0.5", GpuCheck.SKIPPED);
            assertEquals("gpu-check: SKIPPED: " + why.get() + System.lineSeparator(), out);
            Assumptions.abort("CUDA skipped: " + why.get());
        }
        String out = run("cuda", "0.5", 0);
        assertTrue(out.contains("PASS claimed 0.500 of the free memory"), out);
        assertTrue(out.contains("PASS poison 0xFF over float32[1048576] read back"), out);
        assertTrue(out.contains("PASS float32[1048576] written and read back"), out);
        assertTrue(out.contains("PASS the failed request moved nothing"), out);
        assertTrue(out.contains(" 0 failed"), out);
    }
}
