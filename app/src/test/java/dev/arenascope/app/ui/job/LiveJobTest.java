package dev.arenascope.app.ui.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.ui.live.ListenView;
import dev.arenascope.core.analysis.RankSummary;
import dev.arenascope.core.live.ConnectionStats;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.store.EventStore;

/**
 * A live job's refresh with no time for full summaries beyond the one each update makes: the ranks take
 * turns at the full summary (oldest first), the others are brought up to date from their stores' indexes,
 * so every rank's events and peak are current after every update while the passes over events stay one.
 */
class LiveJobTest {

    /** A pool whose requests grow by {@code step} bytes each, {@code n} of them from time {@code t0}. */
    private static void stream(EventStore st, long t0, int n, long step, long[] used) {
        EventBatch b = new EventBatch();
        for (int i = 0; i < n; i++) {
            used[0] += step;
            b.add(new Event(t0 + i, EventKind.POOL_REQUEST, 0, 0, 1, 4096L * (t0 + i), step, step, used[0], used[0], 0, -1));
        }
        st.onEvents(b);
    }

    private static EventStore store(String name) {
        EventStore st = new EventStore(name);
        st.onSession(new SessionInfo(name, "h", 0, List.of(), Map.of()));
        st.onMemory(new MemoryInfo(0, "pool", MemoryKind.POOL, "cuda:0", 0, Map.of()));
        return st;
    }

    /** Connection {@code n} of the first listening. */
    private static ListenView.Key key(int n) {
        return new ListenView.Key(1, n);
    }

    @Test
    void withoutBudgetTheRanksTakeTurnsAtTheFullSummaryAndEveryPeakStaysCurrent() {
        int ranks = 4;
        List<EventStore> stores = new ArrayList<>();
        List<long[]> used = new ArrayList<>();
        List<LiveJob.Member> members = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            EventStore st = store("rank" + r);
            stores.add(st);
            used.add(new long[1]);
            stream(st, 1, 10, 100 * (r + 1), used.get(r));
            ConnectionStats c = new ConnectionStats(r + 1, null, ConnectionStats.State.STREAMING, 0, 0, 0, 0, 0, 0, null);
            members.add(new LiveJob.Member("rank" + r, r, false, key(r + 1), c, st));
        }
        LiveJob live = new LiveJob(Duration.ZERO);
        Job first = live.update(members, "job");
        for (int r = 0; r < ranks; r++) {
            assertEquals(10, live.fullEvents(key(r + 1)), "a new rank is summarised in full");
            assertEquals(used.get(r)[0], first.row("rank" + r).peakLiveBytes());
        }
        List<Integer> fullOrder = new ArrayList<>();
        for (int u = 1; u <= 2 * ranks; u++) {
            long[] before = new long[ranks];
            for (int r = 0; r < ranks; r++) {
                before[r] = live.fullEvents(key(r + 1));
                stream(stores.get(r), 100L * u, 5, 100 * (r + 1), used.get(r));
            }
            Job job = live.update(members, "job");
            int full = 0;
            for (int r = 0; r < ranks; r++) {
                RankSummary row = job.row("rank" + r);
                assertEquals(stores.get(r).eventCount(), row.events(), "rank " + r + "'s events after update " + u);
                assertEquals(used.get(r)[0], row.peakLiveBytes(), "rank " + r + "'s peak after update " + u);
                assertEquals(used.get(r)[0], row.peakReservedBytes());
                if (live.fullEvents(key(r + 1)) != before[r]) {
                    full++;
                    fullOrder.add(r);
                    assertEquals(stores.get(r).eventCount(), live.fullEvents(key(r + 1)));
                    assertEquals(stores.get(r).eventCount(), row.allocations(), "a full summary counts every request");
                } else {
                    assertEquals(before[r], row.allocations(), "between full summaries the counts are the last full one's");
                }
            }
            assertEquals(1, full, "one full summary an update without budget");
        }
        assertEquals(List.of(0, 1, 2, 3, 0, 1, 2, 3), fullOrder, "oldest full summary first: the ranks take turns");
        assertEquals("rank3", live.update(members, "job").summary().worst(), "the worst rank from current peaks");
        assertTrue(live.update(members, "job").live());
    }

    @Test
    void aConnectionOfARestartedListeningIsANewRankThoughItsNumberComesAgain() {
        // before: connection 1 of the first listening, rank0, closed after 10 requests of 100 bytes
        EventStore before = store("rank0");
        stream(before, 1, 10, 100, new long[1]);
        ConnectionStats closed = new ConnectionStats(1, null, ConnectionStats.State.CLOSED, 10, 0, 0, 0, 0, 0, null);
        LiveJob live = new LiveJob();
        Job first = live.update(List.of(new LiveJob.Member("rank0", 0, false, new ListenView.Key(1, 1), closed, before)), "job");
        assertEquals(1_000, first.row("rank0").peakLiveBytes());

        // listening stopped and started again: the new receiver's connection 1 is again rank0, closed after 10
        // requests, but of 700 bytes: the same name, number, state and event count as the old row
        EventStore after = store("rank0");
        stream(after, 1, 10, 700, new long[1]);
        Job second = live.update(List.of(new LiveJob.Member("rank0", 0, false, new ListenView.Key(2, 1), closed, after)), "job");
        assertEquals(7_000, second.row("rank0").peakLiveBytes(), "the new connection's own peak, not the old connection's row");
        assertSame(after, second.store("rank0"));
        assertEquals(-1, live.fullEvents(new ListenView.Key(1, 1)), "the earlier listening's row is not kept");
        assertEquals(10, live.fullEvents(new ListenView.Key(2, 1)));
    }
}
