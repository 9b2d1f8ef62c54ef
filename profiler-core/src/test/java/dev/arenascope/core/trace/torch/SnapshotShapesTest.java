package dev.arenascope.core.trace.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.testsupport.CollectingSink;

/**
 * Every snapshot shape of {@link SnapshotShapes}, small, read by the importer and by Python's own
 * {@code pickle} module ({@code /usr/bin/python3} over {@code torch/read_snapshot.py}, an independent
 * reading with the backwards replay PyTorch's viewer does): the same allocation count per device, the
 * same peak of bytes in use per device and pool (and the generator's), and every allocation's stack,
 * frame by frame, in trace order. Python is on every machine the project builds on; a machine without
 * it fails here with a line saying so, never skips.
 */
class SnapshotShapesTest {
    private static final Path PYTHON = Path.of("/usr/bin/python3");

    @TempDir
    Path dir;

    static Stream<SnapshotShapes.Shape> shapes() {
        return SnapshotShapes.shapes().stream();
    }

    /** What Python read: per device its alloc entries' count and stacks, per device and pool its peak. */
    private record PythonReading(Map<Integer, Long> allocs, Map<String, Long> peaks, Map<Integer, List<String>> stacks) {}

    private PythonReading python(Path snapshot) throws IOException, InterruptedException {
        if (!Files.isExecutable(PYTHON)) {
            fail("this test needs Python 3 at " + PYTHON + " (the independent reader of the generated snapshots); install python3");
        }
        Path script = dir.resolve("read_snapshot.py");
        try (InputStream in = SnapshotShapesTest.class.getResourceAsStream("/torch/read_snapshot.py")) {
            assertTrue(in != null, "the test resource torch/read_snapshot.py is missing");
            Files.copy(in, script);
        }
        Path out = dir.resolve("python.txt");
        Process p = new ProcessBuilder(PYTHON.toString(), script.toString(), snapshot.toString())
                .redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.PIPE).start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "python3 did not finish reading " + snapshot);
        assertEquals(0, p.exitValue(), "python3 failed on " + snapshot + ": " + err);
        Map<Integer, Long> allocs = new TreeMap<>();
        Map<String, Long> peaks = new TreeMap<>();
        Map<Integer, List<String>> stacks = new TreeMap<>();
        for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
            String[] f = line.split(" ", 3);
            switch (f[0]) {
                case "allocs" -> allocs.put(Integer.parseInt(f[1]), Long.parseLong(f[2]));
                case "peak" -> {
                    String[] g = f[2].split(" ");
                    peaks.put(f[1] + " " + g[0], Long.parseLong(g[1]));
                }
                case "stack" -> stacks.computeIfAbsent(Integer.parseInt(f[1]), d -> new ArrayList<>()).add(f.length > 2 ? f[2] : "");
                default -> fail("unexpected line from python: " + line);
            }
        }
        return new PythonReading(allocs, peaks, stacks);
    }

    private static final Pattern MEMORY = Pattern.compile("cuda:(\\d+)(?: pool (\\S+))?");

    /** A stack as the Python script prints it: frames innermost first, fields split by 0x1f, frames by 0x1e. */
    private static String text(List<StackFrame> frames) {
        StringBuilder sb = new StringBuilder();
        for (StackFrame f : frames) {
            if (!sb.isEmpty()) {
                sb.append('\u001e');
            }
            sb.append(f.function()).append('\u001f').append(f.file()).append('\u001f').append(f.line());
        }
        return sb.toString();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void everyShapeReadsAsPythonReadsIt(SnapshotShapes.Shape shape) throws Exception {
        int allocations = shape.cpp() ? 400 : shape.devices() > 1 ? 4000 : 2500;
        Path file = dir.resolve(shape.name() + ".pickle");
        SnapshotShapes.Summary sum = SnapshotShapes.write(file, shape, 26, allocations);
        PythonReading py = python(file);

        CollectingSink sink = new CollectingSink();
        TorchSnapshotToTrace.Result r = TorchSnapshotToTrace.convert(file, sink);
        assertEquals(sum.initial(), r.initialBlocks(), "blocks live before the trace");

        // memories: device and pool of each
        Map<Integer, String> poolOf = new HashMap<>();
        Map<Integer, Integer> deviceOf = new HashMap<>();
        for (MemoryInfo m : sink.memories) {
            Matcher mm = MEMORY.matcher(m.name());
            assertTrue(mm.matches(), m.name());
            deviceOf.put(m.id(), Integer.parseInt(mm.group(1)));
            poolOf.put(m.id(), mm.group(2) == null ? "default" : mm.group(2));
        }
        // peaks per device and pool: ours, Python's and the generator's
        Map<String, Long> ours = new TreeMap<>();
        for (MemoryInfo m : sink.memories) {
            ours.put(deviceOf.get(m.id()) + " " + poolOf.get(m.id()), sink.peakUsed(m.id()));
        }
        Map<String, Long> generated = new TreeMap<>();
        for (int d = 0; d < shape.devices(); d++) {
            for (int p = 0; p < sum.peaks()[d].length; p++) {
                generated.put(d + " " + (p == 0 ? "default" : p + ".0"), sum.peaks()[d][p]);
            }
        }
        assertEquals(generated, py.peaks(), "Python's peaks against the generator's");
        assertEquals(py.peaks(), ours, "peaks per device and pool");

        // allocations and their stacks, per device in trace order (the blocks live before the trace come first)
        Map<Integer, List<Event>> allocsOf = new TreeMap<>();
        for (Event e : sink.events) {
            if (e.kind() == EventKind.ALLOC) {
                allocsOf.computeIfAbsent(deviceOf.get(e.memory()), d -> new ArrayList<>()).add(e);
            }
        }
        long total = 0;
        for (var d : py.allocs().entrySet()) {
            List<Event> mine = allocsOf.getOrDefault(d.getKey(), List.of());
            long n = d.getValue();
            total += n;
            assertTrue(mine.size() >= n, "device " + d.getKey() + ": " + mine.size() + " allocations, Python counts " + n);
            List<Event> trace = mine.subList((int) (mine.size() - n), mine.size());
            List<String> expected = py.stacks().getOrDefault(d.getKey(), List.of());
            assertEquals(n, expected.size());
            for (int i = 0; i < n; i++) {
                String got = text(sink.sites.frames(trace.get(i).site()));
                if (!got.equals(expected.get(i))) {
                    fail("device " + d.getKey() + ", allocation " + i + " of the trace: the stack\n  " + got.replace('\u001e', '|')
                            + "\nPython reads\n  " + expected.get(i).replace('\u001e', '|'));
                }
            }
        }
        assertEquals(sum.allocations(), total, "alloc entries");
        assertEquals(sum.allocations() + sum.initial(), sink.of(EventKind.ALLOC).size(), "allocations, the initial blocks with them");
    }

    @Test
    void everyFrameNewInThousandFrameStacksIsReadInTimeProportionalToItsSize() throws Exception {
        // 300 allocations (and 64 blocks from before the trace, all in the final state) of 1,000 frames
        // each, every frame its own function: 0.66 M distinct frames and stack nodes, about 25 MB
        Path file = dir.resolve("pathological.pickle");
        SnapshotShapes.Summary sum = SnapshotShapes.write(file, SnapshotShapes.pathological(), 26, 300);
        CollectingSink sink = new CollectingSink();
        TorchSnapshotToTrace.Result r = assertTimeoutPreemptively(Duration.ofSeconds(120), () -> TorchSnapshotToTrace.convert(file, sink));
        assertEquals(sum.entries(), r.entries());
        assertEquals(sum.peaks()[0][0], sink.peakUsed(0));
        for (Event e : sink.of(EventKind.ALLOC)) {
            assertEquals(1000, sink.sites.frames(e.site()).size());
        }
    }
}
