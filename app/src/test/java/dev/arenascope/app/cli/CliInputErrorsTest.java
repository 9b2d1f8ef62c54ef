package dev.arenascope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.file.AstraceWriter;

/**
 * The same mistakes on every command give the same one-line error and exit 2: a directory or a missing
 * file where a file is read, an output in a directory that does not exist, an unknown option at the end.
 */
class CliInputErrorsTest {
    @TempDir
    Path dir;

    static CliRun cli(String... args) {
        return CliRun.of(args);
    }

    @Test
    void aDirectoryWhereAFileIsReadIsNamedAsADirectory() throws Exception {
        Path d = Files.createDirectory(dir.resolve("traces.astrace"));
        String p = d.toString();
        cli("stats", p).isOneLineUsageError("stats", p, "is a directory");
        cli("convert", p, dir.resolve("x.jsonl").toString()).isOneLineUsageError("convert", p, "is a directory");
        cli("calibrate", p).isOneLineUsageError("calibrate", p, "is a directory");
        cli("report", p).isOneLineUsageError("report", p, "is a directory");
        cli("plan", "--input", p).isOneLineUsageError("plan", p, "is a directory");
        cli("open", p).isOneLineUsageError("open", p, "is a directory");
    }

    @Test
    void aMissingFileOrAFileWithoutExtensionIsNamed() throws Exception {
        String missing = dir.resolve("gone.astrace").toString();
        cli("stats", missing).isOneLineUsageError("stats", missing, "no such file");
        cli("calibrate", missing).isOneLineUsageError("calibrate", missing, "no such file");
        cli("report", missing).isOneLineUsageError("report", missing, "no such file");
        Path bare = Files.writeString(dir.resolve("trace"), "{}");
        cli("stats", bare.toString()).isOneLineUsageError("stats", bare.toString(), "no file extension", ".astrace");
    }

    @Test
    void aFileWhoseContentIsNotWhatItsNameSaysIsSaidSoFirst() throws Exception {
        // as the window says it (FileKind), with the reader's own words after
        Path text = Files.writeString(dir.resolve("snapshot.pickle"), "# not a pickle\nallocations: 3\n");
        cli("stats", text.toString()).isOneLineUsageError("stats", text.toString(), "not a pickle (it is text)", "unknown opcode");
        cli("sites", text.toString()).isOneLineUsageError("sites", text.toString(), "not a pickle (it is text)");
        Path trace = dir.resolve("run.astrace");
        SyntheticTrace.write(1, 1_000, new AstraceWriter(trace));
        Path misnamed = Files.copy(trace, dir.resolve("run.jsonl"));
        cli("stats", misnamed.toString()).isOneLineUsageError("stats", misnamed.toString(), "ArenaScope trace (.astrace)");
    }

    @Test
    void anOutputInAMissingDirectoryIsBadInputNotAnInternalError() throws Exception {
        Path in = dir.resolve("in.astrace");
        SyntheticTrace.write(1, 1_000, new AstraceWriter(in));
        String out = dir.resolve("no/such/dir/out.jsonl").toString();
        cli("convert", in.toString(), out).isOneLineUsageError("convert", out, "no such directory");
    }

    @Test
    void reportOutIntoADirectoryIsRefusedAndLeavesNoTemporaryFile() throws Exception {
        Path in = dir.resolve("in.astrace");
        SyntheticTrace.write(1, 1_000, new AstraceWriter(in));
        Path target = Files.createDirectory(dir.resolve("out"));
        cli("report", in.toString(), "--out", target.toString()).isOneLineUsageError("report", target.toString(), "is a directory");
        String missingDir = dir.resolve("nowhere/r.html").toString();
        cli("report", in.toString(), "--out", missingDir).isOneLineUsageError("report", missingDir, "no such directory");
        try (var files = Files.list(dir)) {
            assertEquals("[in.astrace, out]", Arrays.toString(files.map(f -> f.getFileName().toString()).sorted().toArray()));
        }
    }

    @Test
    void outputsAreCheckedBeforeTheWorkStarts() throws Exception {
        Path target = Files.createDirectory(dir.resolve("out"));
        // refused before the work: nothing recorded or planned is reported, and no file is written
        // (bench's own outputs: BenchCliTest in the app-bench module)
        CliRun rec = cli("record", "render", "--out", target.toString());
        rec.isOneLineUsageError("record", "--out", target.toString(), "is a directory");      // one line: no device line first
        CliRun unknown = cli("record", "render", "--out", dir.resolve("r.xyz").toString());
        unknown.isOneLineUsageError("record", "unknown trace format");
        CliRun big = cli("record", "render", "--device", "host", "--arena", "4096TiB", "--out", dir.resolve("big.astrace").toString());
        big.isOneLineUsageError("record", "--arena 4.00 PiB is more than the", "free on host");
        Path problem = Files.writeString(dir.resolve("p.csv"), "id,lower,upper,size\n0,0,10,100\n");
        CliRun plan = cli("plan", "--input", problem.toString(), "--output", target.toString());
        plan.isOneLineUsageError("plan", "--output", target.toString(), "is a directory");
        for (CliRun r : List.of(rec, unknown, big, plan)) {
            assertEquals("", r.out(), "refused before the work started, so nothing was reported as done");
        }
        try (var left = Files.list(target)) {
            assertEquals(List.of(), left.toList(), "nothing written into the directory given as a file");
        }
        assertFalse(Files.exists(dir.resolve("r.xyz")) || Files.exists(dir.resolve("big.astrace")) || Files.exists(dir.resolve("nowhere")),
                "no trace file was started");
    }

    @Test
    void aTrailingUnknownOptionIsUnknownNotShortOfAValue() throws Exception {
        Path in = dir.resolve("in.astrace");
        SyntheticTrace.write(1, 100, new AstraceWriter(in));
        cli("stats", in.toString(), "--bogus").isOneLineUsageError("stats", "unknown option --bogus");
        cli("stats", "--bogus").isOneLineUsageError("stats", "unknown option --bogus");
        cli("plan", "--input").isOneLineUsageError("plan", "--input needs a value");
        cli("report", in.toString(), "--out").isOneLineUsageError("report", "--out needs a value");
        cli("record", "particles", "--steps").isOneLineUsageError("record", "--steps needs a value");
    }

    @Test
    void calibrateFitsADamagedTraceAsFarAsItIsSoundAndExitsTwo() throws Exception {
        Path f = dir.resolve("render.astrace");
        assertEquals(0, cli("record", "render", "--device", "virtual", "--out", f.toString(), "--frames", "16", "--width", "64",
                "--height", "48", "--triangles", "400", "--grow-by", "400", "--grow-every", "3", "--arena", "4MiB").code());
        CliRun whole = cli("calibrate", f.toString());
        assertEquals(0, whole.code(), whole.err());
        byte[] all = Files.readAllBytes(f);
        Path cut = Files.write(dir.resolve("cut.astrace"), Arrays.copyOf(all, all.length - 10));   // no footer: a crash
        CliRun r = cli("calibrate", cut.toString());
        r.isOneLineUsageError("calibrate", cut.toString(), "at byte", "recovered");
        assertTrue(r.out().contains("scene_inputs"), r.out());     // the fit of what was recovered is still printed
        Path header = Files.write(dir.resolve("header.astrace"), Arrays.copyOf(all, 40));
        cli("calibrate", header.toString()).isOneLineUsageError("calibrate", header.toString(), "at byte");
    }
}
