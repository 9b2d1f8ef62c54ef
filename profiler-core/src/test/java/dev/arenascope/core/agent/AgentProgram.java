package dev.arenascope.core.agent;

import dev.arenascope.core.arena.DType;
import dev.arenascope.core.arena.ManualMemory;
import dev.arenascope.core.device.VirtualDevice;

/** An ordinary program that knows nothing of recording: one arena, {@code args[0]} tensors, then exit. */
public final class AgentProgram {
    private AgentProgram() {}

    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        try (ManualMemory arena = ManualMemory.builder().numBytes(1 << 20).device(new VirtualDevice(1 << 24)).name("program-arena").build()) {
            for (int i = 0; i < n; i++) {
                arena.getTensor(DType.FLOAT32, 8);
            }
        }
        System.out.println("done " + n);
    }
}
