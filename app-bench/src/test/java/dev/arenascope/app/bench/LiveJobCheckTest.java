package dev.arenascope.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.analysis.RankSummary;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.store.EventStore;

/**
 * What the live job probe checks, each way it can fail: the processes' own lines (as {@link LiveJobSender}
 * and the Python client print them) and the Ranks view's rows against them. Each failure is one line
 * naming the rank or process.
 */
class LiveJobCheckTest {
    private static final String PY_OK = "running live_rank.py\narenascope: 1234 events, 0 lost -> live 127.0.0.1:40111 (receiver confirmed 1234)\n";

    @Test
    void theProcessesLinesGiveTheirRanksAndCounts() throws Exception {
        LiveJobCheck.Sent j = LiveJobCheck.java("particles", 4242, "events=10127 delivered=10127 lost=0 pid=4242\n");
        assertEquals(new LiveJobCheck.Sent("particles (pid 4242)", "java", 10_127), j);
        assertEquals(new LiveJobCheck.Sent("rank3", "python", 1_234), LiveJobCheck.python("rank3", PY_OK));
    }

    @Test
    void aSenderThatLostOrNamesAnotherPidFails() {
        var lost = assertThrows(LiveJobCheck.Failure.class, () -> LiveJobCheck.java("particles", 4242, "events=100 delivered=97 lost=3 pid=4242"));
        assertEquals("the Java sender (pid 4242) lost 3 events and had 97 of 100 acknowledged", lost.getMessage());
        var pid = assertThrows(LiveJobCheck.Failure.class, () -> LiveJobCheck.java("particles", 4242, "events=100 delivered=100 lost=0 pid=4343"));
        assertTrue(pid.getMessage().contains("pid 4242") && pid.getMessage().contains("4343"), pid.getMessage());
        var none = assertThrows(LiveJobCheck.Failure.class, () -> LiveJobCheck.java("particles", 4242, "Exception in thread \"main\" boom\n"));
        assertEquals("the Java sender (pid 4242) printed no count: Exception in thread \"main\" boom", none.getMessage());
    }

    @Test
    void aPythonClientThatLostOrWasNotConfirmedFails() {
        var lost = assertThrows(LiveJobCheck.Failure.class, () -> LiveJobCheck.python("rank1",
                "arenascope: 1234 events, 4 lost -> live 127.0.0.1:40111 (receiver confirmed 1230)"));
        assertEquals("the Python client for rank1 lost 4 events and had 1,230 of 1,234 confirmed", lost.getMessage());
        var broke = assertThrows(LiveJobCheck.Failure.class, () -> LiveJobCheck.python("rank1",
                "arenascope: 1234 events, 0 lost -> live 127.0.0.1:40111 (connection broke: reset; 234 events not delivered)"));
        assertTrue(broke.getMessage().startsWith("the Python client for rank1 had none of its events confirmed: ")
                && broke.getMessage().contains("connection broke"), broke.getMessage());
    }

    @Test
    void twoProcessesOfOneRankNameFail() {
        var dup = assertThrows(LiveJobCheck.Failure.class, () -> LiveJobCheck.byRank(List.of(
                new LiveJobCheck.Sent("rank0", "python", 5), new LiveJobCheck.Sent("rank0", "python", 6))));
        assertEquals("two processes give the rank name rank0", dup.getMessage());
    }

    private static EventStore store(int events) {
        EventStore st = new EventStore("s");
        st.onSession(new SessionInfo("s", "h", 0, List.of(), Map.of()));
        st.onMemory(new MemoryInfo(0, "pool", MemoryKind.POOL, "cuda:0", 0, Map.of()));
        EventBatch b = new EventBatch();
        for (int i = 0; i < events; i++) {
            b.add(new Event(i + 1, EventKind.POOL_REQUEST, 0, 0, 1, 4096L * i, 64, 64, 64L * (i + 1), 64L * (i + 1), 0, -1));
        }
        st.onEvents(b);
        return st;
    }

    private static RankSummary row(String rank, int events) {
        return RankSummary.of(rank, -1, "connection", false, null, store(events));
    }

    @Test
    void theViewMustShowEveryRankWithExactlyWhatItsProcessSent() {
        Map<String, Long> sent = new LinkedHashMap<>(Map.of("rank0", 10L));
        sent.put("particles (pid 7)", 12L);
        assertNull(LiveJobCheck.difference(sent, List.of(row("rank0", 10), row("particles (pid 7)", 12))));
        assertEquals("rank particles (pid 7) shows 11 events, its process sent 12 (missing 1)",
                LiveJobCheck.difference(sent, List.of(row("rank0", 10), row("particles (pid 7)", 11))));
        assertEquals("rank particles (pid 7) is not in the Ranks view (it shows [rank0])",
                LiveJobCheck.difference(sent, List.of(row("rank0", 10))));
        assertEquals("rank rank9 is in the Ranks view but no process gave that name",
                LiveJobCheck.difference(sent, List.of(row("rank0", 10), row("particles (pid 7)", 12), row("rank9", 1))));
        assertEquals("rank rank0 failed: hello refused",
                LiveJobCheck.difference(sent, List.of(RankSummary.failed("rank0", 0, "connection 1", false, "hello refused"), row("particles (pid 7)", 12))));
    }
}
