package dev.arenascope.core.pool.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.arenascope.core.trace.torch.TorchAllocatorTrace;
import dev.arenascope.testsupport.Fixtures;

/** The model replays both real snapshots exactly: every request's address, no segment change the file lacks, the final state. */
class SnapshotCheckTest {

    @ParameterizedTest
    @ValueSource(strings = {"cs336-a2-magma27.pickle", "cs336-a2-bcrafton.pickle"})
    void bothFixturesReplayExactly(String name) throws Exception {
        Path file = Fixtures.torchDir().resolve(name);
        TorchAllocatorTrace t = TorchAllocatorTrace.read(file);
        SnapshotCheck.Result r = SnapshotCheck.check(t);
        assertTrue(r.exact(), r.line());
        assertEquals("model: exact", r.line());
        TorchAllocatorTrace.Device d = t.devices().getFirst();
        long allocs = 0;
        for (byte a : d.action()) {
            allocs += a == TorchAllocatorTrace.ALLOC ? 1 : 0;
        }
        assertEquals(allocs, r.requests(), "every alloc entry was placed by the model");
        assertEquals(name.contains("magma27") ? 1721 : 2162, allocs);
    }
}
