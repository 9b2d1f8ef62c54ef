package dev.arenascope.core.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.testsupport.Await;

/** Issue 19 #10: accept failures, connections per address, idle connections, sinks opened on first data. */
@Timeout(60)
class ReceiverRobustnessTest {
    private static final String HELLO = "{\"arenascope_live\":\"jsonl\",\"version\":1,\"pid\":1,\"name\":\"idle\",\"token\":\"\"}\n";
    private final AtomicInteger opened = new AtomicInteger();

    private LiveSinkFactory factory() {
        return peer -> {
            opened.incrementAndGet();
            return new EventStore("x");
        };
    }

    private static void until(BooleanSupplier c) {
        Await.until("the receiver's state", c);
    }

    @Test
    void anAddressPastItsCapIsRefusedAndTheRestServed() throws Exception {
        var o = new LiveReceiver.Options(InetAddress.getLoopbackAddress(), 0, null, 2, LiveReceiver.Options.DEFAULT_IDLE_TIMEOUT_MS);
        try (LiveReceiver r = LiveReceiver.start(o, factory());
             Socket a = new Socket(InetAddress.getLoopbackAddress(), r.port());
             Socket b = new Socket(InetAddress.getLoopbackAddress(), r.port());
             Socket c = new Socket(InetAddress.getLoopbackAddress(), r.port())) {
            until(() -> r.stats().size() == 3);
            until(() -> r.stats().get(2).state().ended());
            ConnectionStats third = r.stats().get(2);
            assertEquals(ConnectionStats.State.REJECTED, third.state());
            assertTrue(third.detail().contains("at most 2"), third.detail());
            assertEquals(1, r.acceptStats().refusedPerAddress());
            assertEquals(-1, c.getInputStream().read());   // closed at once
        }
    }

    @Test
    void anIdleConnectionIsClosedAndCreatesNoSink() throws Exception {
        var o = new LiveReceiver.Options(InetAddress.getLoopbackAddress(), 0, null, 8, 300);
        try (LiveReceiver r = LiveReceiver.start(o, factory()); Socket s = new Socket(InetAddress.getLoopbackAddress(), r.port())) {
            s.getOutputStream().write(HELLO.getBytes(StandardCharsets.UTF_8));
            assertEquals("{\"status\":0,\"message\":\"ok\"}",
                    new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8)).readLine());
            until(() -> r.stats().getFirst().state().ended());
            ConnectionStats c = r.stats().getFirst();
            assertEquals(ConnectionStats.State.DISCONNECTED, c.state());
            assertTrue(c.detail().contains("closed as idle"), c.detail());
            assertEquals(0, opened.get(), "a connection that sent nothing opens no sink (no file)");
        }
    }

    /** A server socket whose first accepts fail as with no file descriptors left. */
    private static final class FailingServer extends ServerSocket {
        final AtomicInteger failures;

        FailingServer(int failures) throws IOException {
            this.failures = new AtomicInteger(failures);
        }

        @Override
        public Socket accept() throws IOException {
            if (failures.getAndDecrement() > 0) {
                throw new IOException("Too many open files");
            }
            return super.accept();
        }
    }

    @Test
    void failedAcceptsBackOffAndTheReceiverKeepsAccepting() throws Exception {
        try (LiveReceiver r = new LiveReceiver(LiveReceiver.Options.loopback(0), factory(), new FailingServer(3));
             Socket s = new Socket(InetAddress.getLoopbackAddress(), r.port())) {
            s.getOutputStream().write(HELLO.getBytes(StandardCharsets.UTF_8));
            String answer = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8)).readLine();
            assertEquals("{\"status\":0,\"message\":\"ok\"}", answer);
            LiveReceiver.AcceptStats a = r.acceptStats();
            assertEquals(3, a.failures());
            assertEquals("Too many open files", a.lastProblem());
            // the answer is sent before the connection's state moves on
            until(() -> r.stats().size() == 1 && r.stats().getFirst().state() == ConnectionStats.State.STREAMING);
            assertEquals(List.of(ConnectionStats.State.STREAMING), r.stats().stream().map(ConnectionStats::state).toList());
        }
    }
}
