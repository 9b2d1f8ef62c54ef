package dev.arenascope.app.ui.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.analysis.SiteQuestion;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.file.TraceFormats;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.trace.store.TraceStore;
import dev.arenascope.testsupport.Fixtures;

/** The window's one site-analysis cache: what the stripes ask for, the site view's workers get, and the other way round. */
class SiteAnalysisCacheTest {

    private static TraceStore load(String fixture) throws Exception {
        return TraceFormats.load(Fixtures.torch(fixture)).store();
    }

    @Test
    void oneAnalysisServesTheSharedAndTheWorkersWay() throws Exception {
        TraceStore t = load("cs336-a2-magma27.pickle");
        MemoryInfo m = t.memories().getFirst();
        SiteAnalysisCache sites = new SiteAnalysisCache(TaskRunner.sameThread());
        sites.reset(t);
        long rev = sites.revisionProperty().get();
        assertNull(sites.get(m), "nothing built yet: the first ask starts a build");
        SiteAnalysis shared = sites.peek(m.id());
        assertTrue(shared != null && sites.revisionProperty().get() > rev, "built (on the same thread here), and announced");
        assertSame(shared, sites.get(m));
        assertSame(shared, sites.analysis(t, m.id(), false), "a worker asking for the same analysis gets the one built");
        assertTrue(sites.ready(t, m.id(), false));

        assertFalse(sites.ready(t, m.id(), true));
        SiteAnalysis internal = sites.analysis(t, m.id(), true);
        assertNotSame(shared, internal);
        assertTrue(sites.ready(t, m.id(), true));
        assertSame(internal, sites.analysis(t, m.id(), true), "kept");
        assertEquals(shared.ask(new SiteQuestion.AtPeak()).totalBytes(), internal.ask(new SiteQuestion.AtPeak()).totalBytes());

        assertThrows(IllegalArgumentException.class, () -> sites.analysis(t, 7, false));
        sites.reset(load("cs336-a2-bcrafton.pickle"));
        assertNull(sites.peek(m.id()), "a new session forgets the old one's");
        assertFalse(sites.ready(t, m.id(), true));
    }

    @Test
    void workersAskingAtOnceShareOneBuildAndOthersAreBounded() throws Exception {
        TraceStore t = load("cs336-a2-bcrafton.pickle");
        SiteAnalysisCache sites = new SiteAnalysisCache(TaskRunner.sameThread());
        sites.reset(t);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<SiteAnalysis>> asks = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                asks.add(pool.submit(() -> {
                    go.await();
                    return sites.analysis(t, 0, true);
                }));
            }
            go.countDown();
            SiteAnalysis first = asks.getFirst().get();
            for (Future<SiteAnalysis> f : asks) {
                assertSame(first, f.get(), "one build, every asker waits for it");
            }
        } finally {
            pool.shutdownNow();
        }
        // baselines and other traces: the KEEP most recently used are kept beside the shown session's
        for (int i = 0; i < SiteAnalysisCache.KEEP + 3; i++) {
            sites.analysis(load("cs336-a2-magma27.pickle"), 0, i % 2 == 0);
        }
        assertTrue(sites.kept() <= SiteAnalysisCache.KEEP + 1, sites.kept() + " kept");
    }
}
