package dev.arenascope.app.commands.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.cli.CliRun;
import dev.arenascope.core.trace.torch.PickleWriter;
import dev.arenascope.core.trace.torch.SyntheticSnapshot;

/**
 * Hostile PyTorch snapshots through the CLI in a small heap (issue 19 #5): a corpus of pickles built
 * here (none downloaded), each small on disk and asking for far more memory or work than it holds
 * (memo amplification, forged lengths, a huge integer, a huge frame name, stack text, deep nesting,
 * colliding keys, code references, a truncated snapshot). {@code arenascope stats} runs on each in a
 * JVM of {@value #HEAP}, where a reader that believed the input would run out of memory: it must exit
 * 2 with one line naming the file and where, never an OutOfMemoryError or a stack trace, and end
 * (the timeout is a hang guard far above what a refusal takes, not a speed measurement).
 */
class TorchBombCorpusTest {
    private static final String HEAP = "-Xmx512m";

    @TempDir
    Path dir;

    private interface Body {
        void write(PickleWriter w, ByteArrayOutputStream raw) throws IOException;
    }

    private Path pickle(String name, Body body) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PickleWriter w = new PickleWriter(out);
        body.write(w, out);
        w.stop();
        Path p = dir.resolve(name);
        Files.write(p, out.toByteArray());
        return p;
    }

    /** A snapshot dict: {@code segments: []}, then what {@code traces} writes as the value of {@code device_traces}. */
    private Path snapshot(String name, Body traces) throws IOException {
        return pickle(name, (w, raw) -> {
            w.dict().mark().str("segments").list().str("device_traces");
            traces.write(w, raw);
            w.setItems();
        });
    }

    private static void entry(PickleWriter w) throws IOException {
        w.dict().mark().str("action").str("alloc").str("addr").integer(4096).str("size").integer(512).str("time_us").integer(1).setItems();
    }

    private static void le(ByteArrayOutputStream raw, long v, int n) {
        for (int i = 0; i < n; i++) {
            raw.write((int) (v >>> (8 * i)));
        }
    }

    /** Each bomb, with a word its one line must contain. */
    private Map<Path, String> corpus() throws IOException {
        Map<Path, String> c = new LinkedHashMap<>();
        // device_traces = [E] * 4000 with E = [entry] * 4000: 16 M entries from a few tens of KB
        c.put(snapshot("memo.pickle", (w, raw) -> {
            w.list().mark();
            int e = w.nextMemo();
            w.list().mark();
            int entry = w.nextMemo();
            entry(w);
            for (int i = 1; i < 4000; i++) {
                w.get(entry);
            }
            w.appends();
            for (int i = 1; i < 4000; i++) {
                w.get(e);
            }
            w.appends();
        }), "memo references");
        // a string that claims 2^62 bytes, and a frame that claims 1 TB
        c.put(snapshot("length.pickle", (w, raw) -> {
            raw.write(0x8d); // BINUNICODE8
            le(raw, 1L << 62, 8);
            raw.write('x');
        }), "bytes left");
        c.put(pickle("frame.pickle", (w, raw) -> {
            raw.write(0x95); // FRAME
            le(raw, 1L << 40, 8);
            w.none();
        }), "bytes left");
        // a 64 MB integer as a frame line
        c.put(snapshot("integer.pickle", (w, raw) -> {
            w.list().list().mark();
            w.dict().mark().str("action").str("alloc").str("addr").integer(4096).str("size").integer(512).str("frames");
            w.list().mark().dict().mark().str("name").str("f").str("filename").str("a.py").str("line");
            w.hugeInteger(64 << 20, 0x7f);
            w.setItems().appends().setItems();
            w.appends().append();
        }), "integer of 67108864 bytes");
        // a 16 MiB frame name shared by 100,000 frames of 100 stacks
        String name = "x".repeat(16 << 20);
        c.put(snapshot("name.pickle", (w, raw) -> {
            w.list().list().mark();
            int frame = -1;
            for (int s = 0; s < 100; s++) {
                w.dict().mark().str("action").str("alloc").str("addr").integer(4096L * s).str("size").integer(512).str("frames");
                w.list().mark();
                for (int k = 0; k < 1000; k++) {
                    if (frame < 0) {
                        frame = w.nextMemo();
                        w.dict().mark().str("name").str(name).str("filename").str("a.py").str("line").integer(1).setItems();
                    } else {
                        w.get(frame);
                    }
                }
                w.appends().setItems();
            }
            w.appends().append();
        }), "longer than the 4096");
        // 2 M nested lists (no recursion may follow them), then not a snapshot
        c.put(pickle("nested.pickle", (w, raw) -> {
            for (int i = 0; i < 2_000_000; i++) {
                raw.write(']');
            }
            for (int i = 1; i < 2_000_000; i++) {
                raw.write('a');
            }
        }), "expected a dict"); // a bare list is the oldest snapshot layout: a list of segments
        // 200,000 tuple keys sharing one List.hashCode, as a snapshot's allocator_settings, then a class reference
        int n = 200_000;
        c.put(pickle("keys.pickle", (w, raw) -> {
            w.dict().mark().str("segments").list().str("allocator_settings").dict();
            for (int i = 0; i < n; i++) {
                if (i % 1000 == 0) {
                    if (i > 0) {
                        w.setItems();
                    }
                    w.mark();
                }
                w.integer(i).integer(31L * n - 31L * i).tuple2().integer(i);
            }
            w.setItems().str("device_traces");
            raw.write('c'); // GLOBAL
            raw.writeBytes("os\nsystem\n".getBytes(StandardCharsets.US_ASCII));
            w.setItems();
        }), "GLOBAL");
        // an honest generated snapshot cut in the middle of its trace
        Path whole = dir.resolve("whole.pickle");
        SyntheticSnapshot.write(whole, SyntheticSnapshot.Spec.plain(5, 20_000));
        byte[] b = Files.readAllBytes(whole);
        Path cut = dir.resolve("truncated.pickle");
        Files.write(cut, Arrays.copyOf(b, b.length / 2));
        c.put(cut, "truncated");
        return c;
    }

    /**
     * 4000-character frames in stacks of 200 random ones: as text far more than its bytes (it was refused
     * while stacks became text), as frames and stack nodes 64 frames and 1.2 M nodes: read, not refused.
     */
    private Path longFrames() throws IOException {
        String[] names = new String[64];
        for (int i = 0; i < names.length; i++) {
            names[i] = ("f" + i).repeat(2000).substring(0, 4000);
        }
        return snapshot("text.pickle", (w, raw) -> {
            int[] memo = new int[names.length];
            SplittableRandom rnd = new SplittableRandom(7);
            w.list().list().mark();
            for (int s = 0; s < 6000; s++) {
                w.dict().mark().str("action").str("alloc").str("addr").integer(4096L * s).str("size").integer(512).str("frames");
                w.list().mark();
                for (int k = 0; k < 200; k++) {
                    int f = rnd.nextInt(names.length);
                    if (memo[f] == 0) {
                        memo[f] = w.nextMemo() + 1;
                        w.dict().mark().str("name").str(names[f]).str("filename").str("a.py").str("line").integer(f).setItems();
                    } else {
                        w.get(memo[f] - 1);
                    }
                }
                w.appends().setItems();
                if (s % 1000 == 999) {
                    w.appends().mark();
                }
            }
            w.appends().append();
        });
    }

    @Test
    void longFramesInManyDistinctStacksAreReadInTheSmallHeap() throws Exception {
        Path file = longFrames();
        CliRun r = CliRun.inChild(List.of(HEAP), 300, "stats", file.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("\"peak_bytes\""), r.out() + r.err());
    }

    @Test
    void everyBombEndsWithOneLineAndExitTwoInASmallHeap() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> failures = new ArrayList<>();
        for (var e : corpus().entrySet()) {
            Path bomb = e.getKey();
            assertTrue(Files.size(bomb) < 80L << 20, bomb + " is " + Files.size(bomb) + " bytes");
            Process p = new ProcessBuilder(java, HEAP, "-cp", System.getProperty("java.class.path"), "dev.arenascope.app.Main",
                    "stats", bomb.toString()).redirectErrorStream(false).start();
            p.getOutputStream().close();
            boolean ended = p.waitFor(300, TimeUnit.SECONDS);
            if (!ended) {
                p.destroyForcibly();
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            String what = bomb.getFileName() + ": exit " + (ended ? p.exitValue() : "none (hung)") + ", stderr: " + err.strip();
            List<String> lines = err.lines().filter(l -> !l.startsWith("WARNING:")).toList();
            if (!ended || p.exitValue() != 2 || lines.size() != 1 || !lines.getFirst().contains(bomb.toString())
                    || !lines.getFirst().contains(e.getValue()) || err.contains("OutOfMemoryError") || err.contains("\tat ")
                    || !out.isEmpty()) {
                failures.add(what + (out.isEmpty() ? "" : ", stdout: " + out.strip()));
            }
        }
        assertEquals(List.of(), failures);
    }
}
