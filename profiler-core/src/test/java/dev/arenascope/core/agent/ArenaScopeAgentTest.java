package dev.arenascope.core.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.file.TraceFormats;

/** The Java agent built by the build records an unmodified program's arena to a file. */
@Timeout(120)
class ArenaScopeAgentTest {
    @TempDir
    Path dir;

    private record Run(int exit, String output) {}

    private static Run run(List<String> jvmArgs, Map<String, String> env, String... args) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx256m", "--enable-native-access=ALL-UNNAMED"));
        cmd.addAll(jvmArgs);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), AgentProgram.class.getName()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove("ARENASCOPE_TRACE");
        pb.environment().remove("ARENASCOPE_LIVE");
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        return new Run(p.waitFor(), out);
    }

    private static Path agentJar() {
        String jar = System.getProperty("arenascope.agentJar");
        assertTrue(jar != null, "the build passes arenascope.agentJar");
        Path p = Path.of(jar);
        assertTrue(Files.isRegularFile(p), "the build made the agent jar: " + p);
        return p;
    }

    @Test
    void theAgentRecordsAnUnmodifiedProgramToAFile() throws Exception {
        Path file = dir.resolve("run.astrace");
        Run r = run(List.of("-javaagent:" + agentJar() + "=out=" + file), Map.of(), "300");
        assertEquals(0, r.exit(), r.output());
        assertTrue(r.output().contains("done 300"), r.output());
        LoadedTrace t = TraceFormats.load(file);
        // the arena's creation, 300 allocations and its close
        assertTrue(t.store().eventCount() >= 301, t.report().summary());
        assertEquals("program-arena", t.store().memories().getFirst().name());
        assertTrue(r.output().contains("arenascope: " + t.store().eventCount() + " events recorded -> " + file
                + " (" + t.store().eventCount() + " written, 0 lost)"), r.output());
    }

    @Test
    void withoutOptionsTheAgentReadsTheEnvironment() throws Exception {
        Path file = dir.resolve("env.jsonl");
        Run r = run(List.of("-javaagent:" + agentJar()), Map.of("ARENASCOPE_TRACE", file.toString()), "50");
        assertEquals(0, r.exit(), r.output());
        assertTrue(TraceFormats.load(file).store().eventCount() >= 51, r.output());
    }

    @Test
    void aBadOptionSaysSoInOneLineAndTheProgramStillRuns() throws Exception {
        Run r = run(List.of("-javaagent:" + agentJar() + "=output=x.astrace"), Map.of(), "5");
        assertEquals(0, r.exit(), r.output());
        assertTrue(r.output().startsWith("arenascope agent: unknown option 'output' (keys: out, live, quiet); recording nothing"), r.output());
        assertTrue(r.output().contains("done 5"), r.output());
        assertThrows(IllegalArgumentException.class, () -> ArenaScopeAgent.parse("out"));
    }
}
