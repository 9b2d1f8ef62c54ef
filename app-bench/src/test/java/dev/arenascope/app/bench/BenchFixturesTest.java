package dev.arenascope.app.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.testsupport.Fixtures;

/** The bench's inputs come packaged in the app, byte for byte the repository's fixtures; a named override wins. */
class BenchFixturesTest {
    @TempDir
    Path dir;

    @Test
    void theMiniMallocProblemsArePackagedUnchanged() throws Exception {
        List<Path> packaged = BenchFixtures.miniMalloc(null);
        List<Path> repo = Fixtures.miniMalloc();
        assertEquals(11, packaged.size());
        assertEquals(repo.stream().map(Fixtures::problemName).toList(), packaged.stream().map(Fixtures::problemName).toList());
        for (int i = 0; i < repo.size(); i++) {
            assertArrayEquals(Files.readAllBytes(repo.get(i)), Files.readAllBytes(packaged.get(i)), repo.get(i).toString());
        }
    }

    @Test
    void theTorchSnapshotIsPackagedUnchanged() throws Exception {
        Path packaged = BenchFixtures.torch(null, TorchBench.FIXTURE);
        assertArrayEquals(Files.readAllBytes(Fixtures.torch(TorchBench.FIXTURE)), Files.readAllBytes(packaged));
    }

    @Test
    void anEnvironmentOverrideIsUsedAndAWrongOneNamed() throws Exception {
        Path p = Files.writeString(dir.resolve("Z.64.csv"), "id,lower,upper,size\n0,0,1,64\n");
        assertEquals(List.of(p), BenchFixtures.miniMalloc(dir.toString()));
        var e = assertThrows(IllegalStateException.class, () -> BenchFixtures.miniMalloc(dir.resolve("nope").toString()));
        assertTrue(e.getMessage().contains("ARENASCOPE_MINIMALLOC=" + dir.resolve("nope")), e.getMessage());
        e = assertThrows(IllegalStateException.class, () -> BenchFixtures.torch(dir.resolve("x.pickle").toString(), "y"));
        assertTrue(e.getMessage().contains("ARENASCOPE_TORCH_FIXTURE="), e.getMessage());
    }
}
