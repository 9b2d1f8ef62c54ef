package dev.arenascope.core.trace.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OutputFilesTest {
    @TempDir
    Path dir;

    @Test
    void manyCreatorsOfOneNameAtOnceEachGetTheirOwnFileAndNoneTakesAnEarlierOne() throws Exception {
        Path wanted = dir.resolve("run-20260101-000000.astrace");
        Files.writeString(wanted, "earlier");
        int n = 16;
        ExecutorService pool = Executors.newFixedThreadPool(n);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Path>> made = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            made.add(pool.submit(() -> {
                go.await();
                return OutputFiles.createNew(wanted);
            }));
        }
        go.countDown();
        Set<Path> names = new HashSet<>();
        for (Future<Path> f : made) {
            names.add(f.get());
        }
        pool.shutdown();
        assertEquals(n, names.size(), names.toString());
        assertEquals("earlier", Files.readString(wanted));
        for (int k = 1; k <= n; k++) {
            assertTrue(names.contains(dir.resolve("run-20260101-000000-" + k + ".astrace")), names.toString());
        }
    }

    @Test
    void aTemporaryFileIsHiddenBesideItsTargetAndMovedOverIt() throws Exception {
        Path target = Files.writeString(dir.resolve("out.csv"), "old");
        Path tmp = OutputFiles.temporaryFor(target);
        assertEquals(target.toAbsolutePath().getParent(), tmp.getParent());
        assertTrue(tmp.getFileName().toString().startsWith(".out.csv."), tmp.toString());
        Files.writeString(tmp, "new");
        assertEquals("old", Files.readString(target), "the target is untouched until the commit");
        OutputFiles.commit(tmp, target);
        assertEquals("new", Files.readString(target));
        assertTrue(Files.notExists(tmp));
    }
}
