package dev.arenascope.core.trace.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.trace.SiteTable;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.codec.ChunkCodec;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.trace.torch.SnapshotShapes;
import dev.arenascope.core.trace.torch.TorchSnapshotToTrace;

/**
 * A producer that interns its sites into the writer's own table ({@link AstraceWriter#sharedSites}) writes the same
 * trace as one read into a store: every frame, stack node and event, over several chunks, each chunk's new sites
 * in its own metadata. The snapshot is the worst shape (a new stack for every allocation), so every chunk names
 * sites the chunks before it did not.
 */
class AstraceSharedSitesTest {
    @TempDir
    Path dir;

    @Test
    void aSnapshotConvertedThroughTheWritersSiteTableReadsBackAsTheStoreReadsIt() throws Exception {
        Path snapshot = dir.resolve("all.pickle");
        SnapshotShapes.write(snapshot, SnapshotShapes.worst(), 26, 40_000); // 80 k entries: two chunks and more
        EventStore want = new EventStore();
        TorchSnapshotToTrace.convert(snapshot, want);

        Path file = dir.resolve("all.astrace");
        AstraceWriter w = new AstraceWriter(file);
        TorchSnapshotToTrace.convert(snapshot, w);
        w.close();
        assertTrue(w.sitesInterned(), "the converter interned its sites into the writer's table");

        try (AstraceReader r = AstraceReader.open(file)) {
            assertTrue(r.chunkOffsets().length >= 2, "chunks: " + r.chunkOffsets().length);
        }
        LoadedTrace back = AstraceReader.load(file);
        assertFalse(back.report().damaged(), back.report().summary());
        assertTrue(want.stackNodeCount() > 100_000, "nodes: " + want.stackNodeCount());
        TraceAssertions.assertSameTrace(want, back.store());
    }

    @Test
    void aTableIsOfferedOnlyWhileNoSiteWasAnnouncedAndAnnouncingAfterItIsRefused() throws Exception {
        try (AstraceWriter w = new AstraceWriter(dir.resolve("a.astrace"))) {
            SiteTable t = w.sharedSites();
            assertNotNull(t);
            assertSame(t, w.sharedSites(), "the same table while it is empty");
            t.frame("main", "train.py", 1, 0);
            assertNull(w.sharedSites(), "not once the producer filled it");
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> w.onFrame(new StackFrame(0, "f", "g.py", 2, 0)));
            assertTrue(e.getMessage().contains("a.astrace"), e.getMessage());
        }
        try (AstraceWriter w = new AstraceWriter(dir.resolve("b.astrace"))) {
            w.onFrame(new StackFrame(0, "f", "g.py", 2, 0));
            assertNull(w.sharedSites(), "sites were announced");
        }
        try (AstraceWriter w = new AstraceWriter(dir.resolve("c.astrace"), ChunkCodec.DEFAULT_LEVEL, RingCap.ofBytes(1 << 20))) {
            assertNull(w.sharedSites(), "a ring learns its header's sites from announced records");
        }
    }
}
