package dev.arenascope.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.analysis.RankSummary;
import dev.arenascope.core.live.ConnectionStats;
import dev.arenascope.core.live.LiveReceiver;
import dev.arenascope.core.trace.store.EventStore;

/**
 * The live job probe's Java ranks, as its user reads them: two {@link LiveJobSender} processes of one
 * session name stream to a receiver; each one's printed count is what its connection delivered, the two
 * are told apart by their pids (the receiver's hellos give the same pids), and a view one event short of
 * what a process sent is a loss the probe's check names.
 */
class LiveJobSenderTest {

    @Test
    void twoSendersOfOneNameAreTwoRanksByPidEachWithWhatItSent() throws Exception {
        Map<Long, EventStore> byPid = new ConcurrentHashMap<>();
        try (LiveReceiver receiver = LiveReceiver.start(LiveReceiver.Options.loopback(0), peer -> {
            EventStore st = new EventStore(peer.session().name());
            byPid.put(peer.processId(), st);
            return st;
        })) {
            String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            List<Process> senders = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                senders.add(new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-Xmx160m", "-XX:+UseSerialGC",
                        "-cp", System.getProperty("java.class.path"), LiveJobSender.class.getName(),
                        "127.0.0.1:" + receiver.port(), "particles", "40", "5", "0").redirectErrorStream(true).start());
            }
            List<LiveJobCheck.Sent> sent = new ArrayList<>();
            for (Process p : senders) {
                p.getOutputStream().close();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the sender ended");
                assertEquals(0, p.exitValue(), "exit 0: every event delivered: " + out);
                sent.add(LiveJobCheck.java("particles", p.pid(), out));
            }
            // both connections ended with a goodbye before the counts are compared
            for (ConnectionStats c : receiver.stats()) {
                long waited = System.nanoTime();
                while (!c.state().ended() && System.nanoTime() - waited < 60_000_000_000L) {
                    Thread.sleep(10);
                    c = receiver.stats().get(c.connection() - 1);
                }
                assertEquals(ConnectionStats.State.CLOSED, c.state(), String.valueOf(c));
            }
            assertEquals(2, byPid.size(), "one connection a process: " + byPid.keySet());
            Map<String, Long> ranks = LiveJobCheck.byRank(sent);
            assertEquals(2, ranks.size(), "two ranks: " + ranks);
            assertNotEquals(senders.get(0).pid(), senders.get(1).pid());
            List<RankSummary> rows = new ArrayList<>();
            for (Process p : senders) {
                String rank = "particles (pid " + p.pid() + ")";
                EventStore st = byPid.get(p.pid());
                assertNotNull(st, "the receiver heard pid " + p.pid() + " say hello");
                assertEquals(st.eventCount(), ranks.get(rank), rank + ": what it says it sent is what arrived");
                assertTrue(ranks.get(rank) > 40, "a real stream, more than an event a step: " + ranks.get(rank));
                rows.add(RankSummary.of(rank, -1, "connection", false, null, st));
            }
            assertNull(LiveJobCheck.difference(ranks, rows), "the view of both stores is what the processes sent");

            // a view one event short of what the first process sent: a loss, named
            String first = "particles (pid " + senders.get(0).pid() + ")";
            Map<String, Long> oneMore = new HashMap<>(ranks);
            oneMore.merge(first, 1L, Long::sum);
            assertEquals(String.format(Locale.ROOT, "rank %s shows %,d events, its process sent %,d (missing 1)", first,
                    ranks.get(first), ranks.get(first) + 1), LiveJobCheck.difference(oneMore, rows));
        }
    }
}
