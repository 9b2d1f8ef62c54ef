package dev.arenascope.core.pool.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.arenascope.core.trace.torch.TorchAllocatorTrace;

/**
 * Two implementations that agree: an independent Python model of the same rules
 * ({@code python/tests/caching_allocator_model.py}, run with /usr/bin/python3) writes snapshots of random
 * runs (small and large pools, two streams, pending frees, out-of-memory retries under a capacity,
 * max_split_size, roundup_power2_divisions, expandable segments growing in pages), and the Java model must
 * replay each one exactly. Where the
 * generator keeps only the last entries (as PyTorch's ring buffer does) the starting state must be
 * inferred; there both implementations must reach the same verdict at the same entry.
 */
class PythonModelAgreementTest {

    static Path script() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path p = dir; p != null; p = p.getParent()) {
            Path s = p.resolve("python/tests/caching_allocator_model.py");
            if (Files.isRegularFile(s)) {
                return s;
            }
        }
        throw new AssertionError("python/tests/caching_allocator_model.py not found above " + dir);
    }

    static String python(Path tmp, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/python3", script().toString()));
        cmd.addAll(List.of(args));
        Path out = tmp.resolve("python.out");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "python timed out");
        String text = Files.readString(out, StandardCharsets.UTF_8).trim();
        assertEquals(0, p.exitValue(), text);
        return text;
    }

    @ParameterizedTest(name = "seed {0}: {1}")
    @CsvSource(delimiter = '|', value = {
            "1|",
            "2|max_split_size_mb=64",
            "3|roundup=4",
            "4|capacity_mb=400",
            "5|max_split_size_mb=40 capacity_mb=300 roundup=2",
            "6|capacity_mb=1000 max_split_size_mb=100",
            "7|steps=6000 capacity_mb=700"})
    void theJavaModelReplaysThePythonModelsRunsExactly(int seed, String opts, @TempDir Path tmp) throws Exception {
        Path snap = tmp.resolve("run.pickle");
        List<String> args = new ArrayList<>(List.of("generate", snap.toString(), Integer.toString(seed)));
        if (opts != null && !opts.isBlank()) {
            args.addAll(List.of(opts.trim().split(" ")));
        }
        python(tmp, args.toArray(String[]::new));
        TorchAllocatorTrace t = TorchAllocatorTrace.read(snap);
        SnapshotCheck.Result r = SnapshotCheck.check(t);
        assertTrue(r.exact(), r.line());
        assertTrue(r.segmentEvents() > 0, "the run made segments");
        assertEquals("model: exact", python(tmp, "check", snap.toString()), "the Python model agrees with itself");
    }

    /**
     * Expandable segments (without a capacity: pages are mapped, never unmapped): every {@code segment_map}
     * the Python model wrote, each request's address in the mapped ranges, and the final mapped ranges as
     * segments must come out of the Java model. The Python check does not replay these (its start state
     * knows no reserved ranges), so the verdict is the Java model's alone.
     */
    @ParameterizedTest(name = "seed {0}: {1}")
    @CsvSource(delimiter = '|', value = {
            "1|expandable=1",
            "4|expandable=1 max_split_size_mb=64",
            "5|expandable=1 roundup=4 steps=6000",
            "6|expandable=1 max_split_size_mb=40 roundup=2",
            "7|expandable=1 steps=8000"})
    void expandableSegmentsReplayExactly(int seed, String opts, @TempDir Path tmp) throws Exception {
        Path snap = tmp.resolve("expandable.pickle");
        List<String> args = new ArrayList<>(List.of("generate", snap.toString(), Integer.toString(seed)));
        args.addAll(List.of(opts.trim().split(" ")));
        python(tmp, args.toArray(String[]::new));
        TorchAllocatorTrace t = TorchAllocatorTrace.read(snap);
        assertTrue(AllocatorSettings.fromSnapshot(t.settings()).expandableSegments(), "the file says expandable_segments");
        assertTrue(t.devices().getFirst().finalSegments().stream().allMatch(TorchAllocatorTrace.Segment::expandable));
        SnapshotCheck.Result r = SnapshotCheck.check(t);
        assertTrue(r.exact(), r.line());
        assertTrue(r.segmentEvents() > 10, "the run mapped pages: " + r.segmentEvents());
        long maps = 0;
        TorchAllocatorTrace.Device d = t.devices().getFirst();
        for (int i = 0; i < d.entries(); i++) {
            maps += d.action()[i] == TorchAllocatorTrace.SEGMENT_MAP ? 1 : 0;
        }
        assertEquals(maps, r.segmentEvents(), "every segment entry is a segment_map");
    }

    /**
     * Expandable segments under a capacity: the Python model refuses a request when the reserved bytes and
     * its segment size would pass the capacity (as PyTorch does under a memory fraction, before it maps
     * anything), gives back every whole free page (a range left wholly unmapped goes) and retries, and runs
     * out of memory where that does not help; its runs have {@code segment_unmap} and {@code oom} entries.
     * A snapshot does not record the capacity (PyTorch's do not), so {@link SnapshotCheck}, which replays
     * without one, is not the judge: a Java model on a device of that capacity, driven by the file's
     * requests and frees, must make every {@code segment_map} and {@code segment_unmap} of the file (same
     * order, same bytes), serve every request the file served, and run out of memory at every {@code oom}
     * entry, the first of them included.
     */
    @ParameterizedTest(name = "seed {0}: {1}")
    @CsvSource(delimiter = '|', value = {
            "1|expandable=1 capacity_mb=300",
            "3|expandable=1 capacity_mb=300",
            "1|expandable=1 capacity_mb=500 max_split_size_mb=64",
            "3|expandable=1 capacity_mb=700 steps=6000",
            "1|expandable=1 capacity_mb=250 roundup=4",
            "3|expandable=1 capacity_mb=250 roundup=4"})
    void expandableSegmentsUnderACapacityUnmapAndRunOutWhereThePythonModelDoes(int seed, String opts, @TempDir Path tmp) throws Exception {
        Path snap = tmp.resolve("expandable-capacity.pickle");
        List<String> args = new ArrayList<>(List.of("generate", snap.toString(), Integer.toString(seed)));
        args.addAll(List.of(opts.trim().split(" ")));
        python(tmp, args.toArray(String[]::new));
        TorchAllocatorTrace t = TorchAllocatorTrace.read(snap);
        TorchAllocatorTrace.Device d = t.devices().getFirst();
        List<String> fileSegments = new ArrayList<>();
        int firstOom = -1;
        for (int i = 0; i < d.entries(); i++) {
            byte a = d.action()[i];
            if (a == TorchAllocatorTrace.SEGMENT_MAP || a == TorchAllocatorTrace.SEGMENT_UNMAP) {
                fileSegments.add(TorchAllocatorTrace.Device.actionName(a) + " " + d.size()[i]);
            }
            if (firstOom < 0 && a == TorchAllocatorTrace.OOM) {
                firstOom = i;
            }
        }
        assertTrue(fileSegments.stream().anyMatch(x -> x.startsWith("segment_unmap")) && firstOom >= 0,
                "the run gave pages back and ran out: first oom " + firstOom);

        long capacity = Long.parseLong(opts.replaceAll(".*capacity_mb=(\\d+).*", "$1")) << 20;
        AllocatorSettings s = AllocatorSettings.fromSnapshot(t.settings()).with("capacity", Long.toString(capacity));
        assertTrue(s.expandableSegments());
        List<String> made = new ArrayList<>();
        AllocatorEvents log = new AllocatorEvents() {
            @Override
            public void segmentMap(long address, long bytes, long stream) {
                made.add("segment_map " + bytes);
            }

            @Override
            public void segmentUnmap(long address, long bytes, long stream) {
                made.add("segment_unmap " + bytes);
            }
        };
        CachingAllocatorModel m = new CachingAllocatorModel(s, new VirtualGpu(capacity), log, true);
        HashMap<Long, Long> at = new HashMap<>(); // the file's address -> the model's
        int javaFirstOom = -1;
        for (int i = 0; i < d.entries(); i++) {
            switch (d.action()[i]) {
                case TorchAllocatorTrace.ALLOC -> {
                    long got = m.malloc(d.size()[i], d.stream()[i], 0);
                    assertTrue(got >= 0, "entry " + i + ": the file served it, the model ran out");
                    at.put(d.address()[i], got);
                }
                case TorchAllocatorTrace.OOM -> {
                    assertEquals(-1, m.malloc(d.size()[i], d.stream()[i], 0), "entry " + i + ": the file ran out, the model served it");
                    javaFirstOom = javaFirstOom < 0 ? i : javaFirstOom;
                }
                case TorchAllocatorTrace.FREE_REQUESTED -> assertTrue(m.freeRequested(at.get(d.address()[i])));
                case TorchAllocatorTrace.FREE_COMPLETED -> assertTrue(m.freeCompleted(at.remove(d.address()[i])));
                default -> { }
            }
        }
        assertEquals(firstOom, javaFirstOom, "the first out-of-memory");
        assertEquals(fileSegments, made, "every page mapped and unmapped, in order");
    }

    private static final Pattern ENTRY = Pattern.compile("entry (\\d+)");

    @ParameterizedTest(name = "seed {0}: {1}")
    @CsvSource(delimiter = '|', value = {
            "1|keep=2000",
            "2|keep=2000",
            "3|max_split_size_mb=64 keep=3000",
            "4|roundup=4 keep=1500",
            "5|capacity_mb=1000 keep=2000",
            "6|keep=2500"})
    void fromAStateInferredBothReachTheSameVerdict(int seed, String opts, @TempDir Path tmp) throws Exception {
        Path snap = tmp.resolve("ring.pickle");
        List<String> args = new ArrayList<>(List.of("generate", snap.toString(), Integer.toString(seed)));
        args.addAll(List.of(opts.trim().split(" ")));
        python(tmp, args.toArray(String[]::new));
        SnapshotCheck.Result r = SnapshotCheck.check(TorchAllocatorTrace.read(snap));
        String py = python(tmp, "check", snap.toString());
        if (py.equals("model: exact")) {
            assertTrue(r.exact(), "Python: exact; Java: " + r.line());
        } else {
            Matcher m = ENTRY.matcher(py);
            assertTrue(m.find(), py);
            assertEquals(Long.parseLong(m.group(1)), r.entry(), "Python: " + py + "; Java: " + r.line());
        }
    }
}
